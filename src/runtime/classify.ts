/**
 * Which A2A error an agent answered, in every binding (pure; no I/O). A2A 1.0 §3.3.2 (errors),
 * §5.4 (mapping), §9.5 (JSON-RPC `error.code`), §10.6 (gRPC status + ErrorInfo), §11.6 (HTTP+JSON
 * status + `google.rpc.ErrorInfo` reason). Both the 1.0.0 and the 1.0.1 HTTP/gRPC status tables are
 * accepted (the table changed in a patch release).
 */

/** The agent errors the runtime answers with one bounded action each. */
export type AgentErrorKind =
  | 'version-not-supported'
  | 'content-type-not-supported'
  | 'extension-support-required'
  | 'unsupported-operation'
  | 'push-notification-not-supported';

interface ErrorRow {
  kind: AgentErrorKind;
  jsonRpc: number;
  reason: string;
  /** HTTP statuses: 1.0.1 and 1.0.0 tables. */
  http: number[];
  /** gRPC status codes (numeric, grpc-js `status`): 1.0.1 and 1.0.0 tables. */
  grpc: number[];
}

// gRPC codes: 3 INVALID_ARGUMENT, 9 FAILED_PRECONDITION, 12 UNIMPLEMENTED.
const TABLE: readonly ErrorRow[] = [
  { kind: 'version-not-supported', jsonRpc: -32009, reason: 'VERSION_NOT_SUPPORTED', http: [400], grpc: [9, 12] },
  {
    kind: 'content-type-not-supported',
    jsonRpc: -32005,
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
    http: [400, 415],
    grpc: [3],
  },
  { kind: 'extension-support-required', jsonRpc: -32008, reason: 'EXTENSION_SUPPORT_REQUIRED', http: [400], grpc: [9] },
  { kind: 'unsupported-operation', jsonRpc: -32004, reason: 'UNSUPPORTED_OPERATION', http: [400], grpc: [9, 12] },
  {
    kind: 'push-notification-not-supported',
    jsonRpc: -32003,
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    http: [400],
    grpc: [9, 12],
  },
];

/** What an error answer carried, by binding. */
export type AgentErrorAnswer =
  | { binding: 'JSONRPC'; code: number }
  | { binding: 'HTTP+JSON'; status: number; reason?: string }
  | { binding: 'GRPC'; code: number; reason?: string };

/**
 * Classify an agent's error answer. JSON-RPC: by `error.code`. HTTP+JSON and gRPC: by the
 * ErrorInfo `reason` with a status from either table; an HTTP 415 without a reason is
 * ContentTypeNotSupported (1.0.0). Anything else is `undefined` (not one of the five).
 */
export function classifyAgentError(answer: AgentErrorAnswer): AgentErrorKind | undefined {
  if (answer.binding === 'JSONRPC') return TABLE.find((r) => r.jsonRpc === answer.code)?.kind;
  if (answer.binding === 'HTTP+JSON') {
    if (answer.reason === undefined) return answer.status === 415 ? 'content-type-not-supported' : undefined;
    return TABLE.find((r) => r.reason === answer.reason && r.http.includes(answer.status))?.kind;
  }
  return TABLE.find((r) => r.reason === answer.reason && r.grpc.includes(answer.code))?.kind;
}

/**
 * Classify an error thrown by an `@a2a-js/sdk` transport: JSON-RPC errors carry `envelopeCode`,
 * HTTP+JSON errors `statusCode` and `reason`, gRPC errors `status` (grpc status code) and `reason`.
 * The SDK's v0.3 HTTP+JSON transport (a 0.3 HTTP+JSON plan) throws the plain A2A error classes
 * instead (`UnsupportedOperationError`, ...: no `transport`, no status, only the ErrorInfo `reason`
 * it mapped from the 0.3 error body's JSON-RPC code), classified by that reason.
 * Not an SDK transport error: `undefined`.
 */
export function classifySdkError(error: unknown): AgentErrorKind | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as {
    transport?: unknown;
    envelopeCode?: unknown;
    statusCode?: unknown;
    reason?: unknown;
    status?: unknown;
    toErrorInfo?: unknown;
  };
  const reason = typeof e.reason === 'string' ? e.reason : undefined;
  if (e.transport === 'jsonrpc' && typeof e.envelopeCode === 'number')
    return classifyAgentError({ binding: 'JSONRPC', code: e.envelopeCode });
  if (e.transport === 'rest' && typeof e.statusCode === 'number')
    return classifyAgentError({ binding: 'HTTP+JSON', status: e.statusCode, ...(reason ? { reason } : {}) });
  if (e.transport === 'grpc' && typeof e.status === 'number')
    return classifyAgentError({ binding: 'GRPC', code: e.status, ...(reason ? { reason } : {}) });
  if (e.transport === undefined && reason !== undefined && typeof e.toErrorInfo === 'function')
    return TABLE.find((r) => r.reason === reason)?.kind;
  return undefined;
}
