/**
 * The `A2A-Version` header lost on the way (issue 23): an agent answering VersionNotSupported for
 * another version than the request carried means something between client and agent removed or
 * rewrote the header. Shared by the CLI (extended card requests) and the runtime (its typed
 * errors). Pure, and free of imports: the runtime bundle loads it.
 */
/**
 * Whether a VersionNotSupported answer (JSON-RPC -32009, ErrorInfo `VERSION_NOT_SUPPORTED`, gRPC
 * FAILED_PRECONDITION/UNIMPLEMENTED with that reason) shows that the request reached the agent
 * without the `A2A-Version` header we sent, or with another value: the agent's words name the
 * version it saw (`a2a-sdk` for Python: "A2A version '0.3' is not supported by this handler.
 * Expected version '1.0'."; `@a2a-js/sdk`: "The requested A2A protocol version '0.3' is not
 * supported."), and it is not the `sent` one. An absent header reads as 0.3 on both SDKs. Pure.
 *
 * @param sent the `A2A-Version` the request carried (`Major.Minor`)
 * @param text the agent's error message (any length; only its first 2000 characters are read)
 * @returns the version the agent says it saw, or `undefined` when the words name no version or the sent one
 */
export function versionHeaderLost(sent: string, text: unknown): { seen: string } | undefined {
  if (typeof text !== 'string') return undefined;
  const found = /version\s+['"]?v?(\d{1,4}(?:\.\d{1,4}){0,2})['"]?\s+is not supported/i.exec(text.slice(0, 2000));
  if (!found) return undefined;
  const seen = majorMinorOf(found[1]!);
  return seen !== majorMinorOf(sent) ? { seen } : undefined;
}

/**
 * The explanation for {@link versionHeaderLost}: names the `A2A-Version` header, what was sent and
 * seen, and the likely cause. One line; no agent text beyond the version numbers.
 */
export function versionHeaderLostMessage(sent: string, seen: string): string {
  return `the request carried A2A-Version: ${sent}, but the agent answered VersionNotSupported for version ${seen}${seen === '0.3' ? ' (what an absent header means)' : ''}: something between client and agent (a proxy or gateway) removed or rewrote the A2A-Version header; AWS AgentCore is known to strip it. Have it pass A2A-Version through (a2a-lock does not fall back to another version for this)`;
}

/** `Major.Minor` of `1`, `1.0`, `1.0.2`, `v1.0` (as given when it is none of them). */
function majorMinorOf(version: string): string {
  const m = /^v?(\d+)(?:\.(\d+))?/.exec(version.trim());
  return m ? `${Number(m[1])}.${Number(m[2] ?? 0)}` : version.trim();
}
