/**
 * Reading network failures (undici, sockets, TLS) without loading undici: shared by the card
 * fetcher and the runtime's enforcing fetch.
 */

/** undici's timeout codes (connect, headers, body). */
export const UNDICI_TIMEOUTS: ReadonlySet<string> = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The most specific `code` on an error or its causes (undici wraps socket errors). */
export function errorCode(error: unknown): string | undefined {
  let found: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    // Prefer an OS/TLS code (ECONNRESET, CERT_...) over undici's generic wrapper code.
    if (typeof code === 'string' && code !== '') {
      if (found === undefined || found.startsWith('UND_ERR_')) found = code;
      if (!code.startsWith('UND_ERR_')) break;
    }
    if (current instanceof AggregateError && current.errors.length > 0 && found === undefined) {
      current = current.errors[0];
      continue;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return found;
}
