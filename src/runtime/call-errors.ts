/**
 * What a failed call of the SDK client becomes when it leaves the runtime (README "Runtime loader"):
 * a typed {@link AgentCallError} read from the SDK's error ({@link typedError}), the explanation of
 * a VersionNotSupported caused by a lost `A2A-Version` header ({@link headerLost}), and the message
 * of an agent error no locked fallback answers ({@link deadEnd}). Which agent error it is (the five
 * kinds with a bounded action) is `classify.ts`; the actions themselves are `client.ts`.
 */
import { versionHeaderLost, versionHeaderLostMessage } from '../card/version-header.js';
import { type A2aLockError, AgentCallError, FetchError, isA2aLockError } from '../errors.js';
import type { FallbackInterface, Plan } from '../negotiate/types.js';
import type { AgentErrorKind } from './classify.js';
import type { AgentRuntime } from './types.js';

/** gRPC status codes (grpc-js `status`) the runtime maps: 4 DEADLINE_EXCEEDED, 7 PERMISSION_DENIED, 14 UNAVAILABLE, 16 UNAUTHENTICATED. */
const GRPC_TIMEOUT = 4;
const GRPC_DENIED = 7;
const GRPC_UNAVAILABLE = 14;
const GRPC_UNAUTHENTICATED = 16;

/** A URL for messages: origin and path only (a query may carry a credential); `host:port` as it is. */
function shownUrl(url: string): string {
  if (!url.includes('://')) return url;
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** An interface for messages: `<binding> <version> <shown url>`. */
export function describe(iface: FallbackInterface): string {
  return `${iface.protocolBinding} ${iface.protocolVersion} ${shownUrl(iface.url)}`;
}

/**
 * A VersionNotSupported whose words say the agent saw another version than the plan's (the
 * `A2A-Version` header removed or rewritten on the way, see {@link versionHeaderLost}): the
 * explanation; no version fallback is taken for it. `undefined` otherwise.
 */
export function headerLost(plan: Plan, error: unknown): string | undefined {
  const text = error instanceof Error ? error.message : (error as { details?: unknown } | null)?.details;
  const lost = versionHeaderLost(plan.protocolVersion, text);
  return lost ? versionHeaderLostMessage(plan.protocolVersion, lost.seen) : undefined;
}

/**
 * The message of an agent error no locked fallback answers, true to the lockfile: it names the
 * locked fallbacks (if any) and why none applies to this call.
 */
export function deadEnd(plan: Plan, kind: AgentErrorKind, call: string): string {
  const locked = [
    ...(plan.fallbacks?.interfaces ?? []).map(describe),
    ...(plan.fallbacks?.delivery ?? []).map((d) => `delivery ${d}`),
  ];
  const head = `${kind} on ${call} at ${describe(plan)}`;
  if (locked.length === 0) return `${head}; the plan has no locked fallback`;
  return `${head}; locked fallbacks: ${locked.join(', ')}; ${whyNoFallback(kind, call)}`;
}

/** Why none of the locked fallbacks answers `kind` on `call`. */
function whyNoFallback(kind: AgentErrorKind, call: string): string {
  if (kind === 'version-not-supported') return 'none is of another protocol version';
  if (kind === 'push-notification-not-supported' && /PushNotificationConfig/.test(call))
    return 'a push config call has no poll equivalent (send without a push config and poll GetTask)';
  if (kind === 'push-notification-not-supported' || kind === 'unsupported-operation') {
    return call === 'SendStreamingMessage' || call === 'SendMessage'
      ? 'the locked poll fallback was not applicable to this request'
      : 'a poll fallback applies only to sending';
  }
  return 'the locked fallbacks answer only VersionNotSupported (another version) and a refused stream or push (poll)';
}

/**
 * The HTTP status of an SDK transport error that carries none as a field: the SDK's JSON-RPC and
 * REST transports throw `HTTP error for <method>! Status: <n> …` (or `HTTP error establishing
 * stream for <method>: <n> …`). Only the number at that fixed start is read; the agent's own text
 * comes after `Response:` and is never parsed. Undefined for anything else, or a status below 400.
 */
function sdkHttpStatus(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const found = /^HTTP error (?:for [^!\n]{1,200}! Status: |establishing stream for [^:\n]{1,200}: )(\d{3})\b/.exec(
    error.message,
  );
  const status = found ? Number(found[1]) : undefined;
  return status !== undefined && status >= 400 ? status : undefined;
}

/**
 * The A2A error code of a 0.3 HTTP+JSON error body the SDK's v0.3 REST transport could not map to
 * an error class: it throws `REST error: <message> (Code: <code>)[ Data: <json>]` (ADK answers a
 * missing task with HTTP 500 and code -32603). The code is the last `(Code: n)` before the optional
 * data; undefined for any other error.
 */
function legacyRestCode(error: unknown): number | undefined {
  if (!(error instanceof Error) || !error.message.startsWith('REST error: ')) return undefined;
  const found = /\(Code: (-?\d{1,9})\)(?: Data: [\s\S]*)?$/.exec(error.message.slice(0, 100_000));
  return found ? Number(found[1]) : undefined;
}

/** The a2a-lock error a failure is, or carries as its `cause` (an SDK error wrapping the enforcing fetch's). */
function a2aLockErrorIn(error: unknown): A2aLockError | undefined {
  if (isA2aLockError(error)) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return isA2aLockError(cause) ? cause : undefined;
}

/** What an SDK error says of the agent's answer, each read from the one field (or fixed message start) the SDK puts it in. */
interface AnswerFacts {
  /** HTTP status (≥ 400). */
  status?: number;
  /** gRPC status code. */
  grpcStatus?: number;
  /** A2A error code (JSON-RPC `error.code`, or a 0.3 REST body's code). */
  a2aCode?: number;
  /** `google.rpc.ErrorInfo` reason. */
  a2aReason?: string;
}

/** The {@link AnswerFacts} of an SDK error raised on `iface`. */
function answerFacts(iface: FallbackInterface, error: unknown): AnswerFacts {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    transport?: unknown;
    statusCode?: unknown;
    status?: unknown;
    code?: unknown;
    envelopeCode?: unknown;
    reason?: unknown;
    name?: unknown;
    details?: unknown;
  };
  const status = typeof e.statusCode === 'number' ? e.statusCode : sdkHttpStatus(error);
  let grpcStatus: number | undefined;
  if (e.transport === 'grpc' && typeof e.status === 'number') grpcStatus = e.status;
  else if (iface.protocolBinding === 'GRPC' && typeof e.code === 'number' && 'details' in e) grpcStatus = e.code;
  let a2aCode: number | undefined;
  if (e.transport === 'jsonrpc' && typeof e.envelopeCode === 'number') a2aCode = e.envelopeCode;
  else if (iface.protocolBinding === 'HTTP+JSON') a2aCode = legacyRestCode(error);
  const a2aReason = typeof e.reason === 'string' && e.name !== 'A2AError' ? e.reason : undefined;
  return {
    ...(status !== undefined ? { status } : {}),
    ...(grpcStatus !== undefined ? { grpcStatus } : {}),
    ...(a2aCode !== undefined ? { a2aCode } : {}),
    ...(a2aReason !== undefined ? { a2aReason } : {}),
  };
}

/** The facts as a message's parenthesis (`HTTP 401, A2A error -32001`); empty for none. */
function answeredText(facts: AnswerFacts): string {
  const parts = [
    facts.status !== undefined ? `HTTP ${facts.status}` : '',
    facts.grpcStatus !== undefined ? `gRPC status ${facts.grpcStatus}` : '',
    facts.a2aCode !== undefined ? `A2A error ${facts.a2aCode}` : '',
    facts.a2aReason ?? '',
  ];
  return parts.filter(Boolean).join(', ');
}

/**
 * What a refused call says (conformance/vectors/auth-refused.json, the one definition both runtimes
 * are tested against): the reason, and a hint to `a2a verify`, since the card the agent serves may
 * have changed since the lock. A plan that sends no credential was refused for the lack of one (issue
 * 14: a card that declares no security, an agent that authenticates outside A2A), which is said, not
 * "the credential".
 * @internal
 */
export function authRefusal(
  planSendsCredential: boolean,
  cardDeclaresSchemes: boolean,
  agent: string,
): { reason: string; hint: string } {
  if (planSendsCredential) {
    return {
      reason: 'the agent refused the credential',
      hint: `check the credential given for ${agent} (its variable in a2a.json, or your credentials provider); a2a verify says whether the card the agent serves has changed since the lock`,
    };
  }
  const hint = `run a2a verify: the card the agent serves may have changed since the lock (a security scheme added); then a2a update ${agent} and review the lockfile diff`;
  if (!cardDeclaresSchemes) {
    return {
      reason:
        'the agent refused the request, and the locked plan sends no credential: the card declares no securitySchemes (the agent may authenticate outside A2A)',
      hint,
    };
  }
  return {
    reason:
      'the agent refused the request, and the locked plan sends no credential (its security requirement needs none)',
    hint,
  };
}

/**
 * Any failure of a call as the error that leaves the runtime: a2a-lock errors and the caller's
 * own abort as they are (a network FetchError of the enforcing fetch becomes an AgentCallError
 * naming agent and skill), every other error an {@link AgentCallError}: `auth-refused` (HTTP
 * 401/403, gRPC 16/7), `unreachable` (gRPC 14), `timeout` (TimeoutError, gRPC 4), else
 * `agent-error` with the HTTP status, the JSON-RPC error code or the ErrorInfo reason. The SDK's
 * text (which may quote the agent's answer) is only in `cause`.
 */
export function typedError(runtime: AgentRuntime, iface: FallbackInterface, error: unknown): unknown {
  const { name, skill } = runtime;
  const url = shownUrl(iface.url);
  const where = describe(iface);
  const inner = a2aLockErrorIn(error);
  if (inner) {
    if (inner instanceof FetchError && (inner.code === 'unreachable' || inner.code === 'timeout')) {
      return new AgentCallError(
        inner.code,
        name,
        skill,
        `${where}: ${inner.code === 'timeout' ? 'no answer in time' : 'not reachable'} (${inner.message})`,
        { url },
        { cause: error },
      );
    }
    return inner;
  }
  if (error instanceof Error && error.name === 'AbortError') return error;
  const facts = answerFacts(iface, error);
  const { status, grpcStatus } = facts;
  const details = { url, ...facts };
  const answered = answeredText(facts);
  const options = { cause: error };
  if (status === 401 || status === 403 || grpcStatus === GRPC_UNAUTHENTICATED || grpcStatus === GRPC_DENIED) {
    const { reason, hint } = authRefusal(
      Object.keys(runtime.plan.security).length > 0,
      Object.keys(runtime.card.securitySchemes).length > 0,
      name,
    );
    return new AgentCallError('auth-refused', name, skill, `${where}: ${reason} (${answered})`, details, {
      ...options,
      hint,
    });
  }
  if (grpcStatus === GRPC_UNAVAILABLE)
    return new AgentCallError('unreachable', name, skill, `${where}: not reachable (${answered})`, details, options);
  if (grpcStatus === GRPC_TIMEOUT || (error instanceof Error && error.name === 'TimeoutError')) {
    return new AgentCallError(
      'timeout',
      name,
      skill,
      `${where}: no answer in time${answered ? ` (${answered})` : ''}`,
      details,
      options,
    );
  }
  const what =
    facts.a2aCode !== undefined || facts.a2aReason !== undefined
      ? 'the agent answered an A2A error'
      : answered
        ? 'the agent answered an error that is not an A2A error'
        : "the agent's answer could not be read as A2A";
  return new AgentCallError(
    'agent-error',
    name,
    skill,
    `${where}: ${what}${answered ? ` (${answered})` : ''}`,
    details,
    options,
  );
}
