/**
 * The wire probe's decisions (issue 37): which locked interfaces a probe asks (one per distinct
 * interface), the key each is recorded under in the lockfile's `probe` field, and what an answer
 * to the probe's GetTask for a task id that cannot exist says about the interface. Values in,
 * values out; the request itself is sent by `http/probe.ts`.
 *
 * | binding   | `served`                                                            | `auth-required`                 |
 * |-----------|---------------------------------------------------------------------|---------------------------------|
 * | JSONRPC   | a JSON-RPC 2.0 answer: TaskNotFound (-32001), a result, another A2A error | HTTP 401/403               |
 * | HTTP+JSON | 404 with an A2A error body (google.rpc.Status, or 0.3's `{code}`), a 2xx JSON object, another A2A error body | HTTP 401/403 |
 * | GRPC      | NOT_FOUND, OK, INVALID_ARGUMENT, FAILED_PRECONDITION, …             | UNAUTHENTICATED, PERMISSION_DENIED |
 *
 * Anything else is `not-served`: an HTML (or other non-A2A) 404, 405 or 500, a redirect, gRPC
 * UNIMPLEMENTED, MethodNotFound (-32601) or VersionNotSupported (-32009, `VERSION_NOT_SUPPORTED`)
 * for the locked version, UnsupportedOperation, a connection refused or a timeout.
 *
 * An HTTP body read only in part (it went on beyond the shell's read bound) is judged by the JSON
 * members read whole before the cut (`json-prefix.ts`): a TaskNotFound with a large `error.data`
 * after its code is `served`; one cut before its code is not. A body that is not one JSON value
 * (something after it) or holds a key twice in one object (`JSON.parse` keeps the last; a reader
 * may take the first) is not read, whole or in part: `not-served`, whatever its size. A member
 * repeated only after the cut is not seen.
 */

import { duplicateKey } from '../json-document.js';
import type { FallbackInterface, Plan } from '../negotiate/types.js';
import { redactSecrets } from '../redact.js';
import { bounded, UNTRUSTED } from '../untrusted.js';
import { jsonPrefix } from './json-prefix.js';

/** The outcome kinds a probe records, in the lockfile's `probe` field (see the lockfile reference). */
export const PROBE_KINDS = ['served', 'auth-required', 'not-served'] as const;

/** `served`: the interface speaks its binding and version; `auth-required`: alive, refused without (or with) the credential, not proven; `not-served`: anything else. */
export type ProbeKind = (typeof PROBE_KINDS)[number];

/** What one probe found: its kind, and for people what answered (redacted, one line, at most ~160 characters). */
export interface ProbeOutcome {
  kind: ProbeKind;
  /** What answered, e.g. `HTTP 404 text/html "<!doctype html>…"`, `gRPC 12 UNIMPLEMENTED: …`, `connection refused`. */
  answered?: string;
}

/**
 * A probe that was not sent: the credential its plan sends could not be obtained (an OAuth token
 * endpoint that refused, failed, timed out or answered no token), or the run refused the request
 * before it left (a credential a proxy would carry in clear, a header that cannot be sent). The
 * interface was never asked, so nothing is recorded for it (a kind recorded before is kept).
 */
export interface ProbeNotSent {
  kind: 'not-probed';
  /** Why the probe was not sent, in the tool's own words (never a token endpoint's body, never a secret). */
  reason: string;
  /** Nothing answered: the probe did not leave. */
  answered?: undefined;
}

/** What a probe of one interface came to: an outcome the lockfile records, or a probe that was not sent. */
export type ProbeResult = ProbeOutcome | ProbeNotSent;

/** One interface a probe asks: a plan's or a locked fallback's (A2A 1.0 AgentInterface fields). */
export type ProbedInterface = FallbackInterface;

/**
 * What answered a probe, as the I/O shell saw it:
 * - `http`: the status, the `Content-Type` and the body as far as it was read (decoded as UTF-8), with
 *   `cutAt`, the bytes read, when it went on beyond the read bound;
 * - `grpc`: the gRPC status code, its details text and the google.rpc.ErrorInfo reason when one came;
 * - `none`: no answer (connection refused, timeout, TLS failure, a refused request), in words.
 */
export type ProbeAnswer =
  | {
      transport: 'http';
      binding: string;
      version: string;
      status: number;
      contentType?: string;
      body: string;
      /** Set when the body went on beyond the read bound: how many bytes were read (`body` is their text). */
      cutAt?: number;
    }
  | { transport: 'grpc'; binding: string; version: string; code: number; details?: string; reason?: string }
  | { transport: 'none'; binding: string; version: string; reason: string };

/**
 * The key an interface's outcome is recorded under in the lockfile's `probe` field:
 * `<protocolBinding> <protocolVersion> <url>`, and ` tenant=<tenant>` when the interface has one
 * (e.g. `JSONRPC 1.0 https://agent.example/a2a`). Pure.
 */
export function interfaceKey(iface: ProbedInterface): string {
  const base = `${iface.protocolBinding} ${iface.protocolVersion} ${iface.url}`;
  return iface.tenant ? `${base} tenant=${iface.tenant}` : base;
}

/**
 * The distinct interfaces a probe of a locked agent asks, in order: each plan's (by skill id as
 * the lockfile orders them) and then its locked fallbacks'; one per {@link interfaceKey}. Pure.
 */
export function probedInterfaces(plans: Readonly<Record<string, Plan>>): ProbedInterface[] {
  const seen = new Map<string, ProbedInterface>();
  const add = (i: ProbedInterface) => {
    const key = interfaceKey(i);
    if (!seen.has(key))
      seen.set(key, {
        url: i.url,
        protocolBinding: i.protocolBinding,
        protocolVersion: i.protocolVersion,
        ...(i.tenant ? { tenant: i.tenant } : {}),
      });
  };
  for (const plan of Object.values(plans)) {
    add(plan);
    for (const fallback of plan.fallbacks?.interfaces ?? []) add(fallback);
  }
  return [...seen.values()];
}

/**
 * The `probe` record a lock entry keeps, per interface `plans` still lock: the kind `fresh` (this
 * run's probes) holds for it, else the kind `previous` held (no new evidence: `--no-probe`,
 * `outdated`, a re-plan from the snapshot, a probe that was not sent or could not be asked);
 * undefined when none is left. Pure.
 */
export function keptProbe(
  plans: Readonly<Record<string, Plan>>,
  fresh: Readonly<Record<string, ProbeKind>> | undefined,
  previous: Readonly<Record<string, ProbeKind>> | undefined,
): Record<string, ProbeKind> | undefined {
  if (fresh === undefined && previous === undefined) return undefined;
  const kept: Record<string, ProbeKind> = {};
  for (const key of probedInterfaces(plans).map(interfaceKey).sort()) {
    const kind =
      fresh && Object.hasOwn(fresh, key)
        ? fresh[key]
        : previous && Object.hasOwn(previous, key)
          ? previous[key]
          : undefined;
    if (kind !== undefined) kept[key] = kind;
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** JSON-RPC codes that say this interface does not serve the locked binding/version (A2A 1.0 §9.5; JSON-RPC 2.0). */
const JSONRPC_NOT_SERVED: Record<number, string> = {
  [-32601]: 'MethodNotFound',
  [-32004]: 'UnsupportedOperation',
  [-32009]: 'VersionNotSupported',
};
/** Names of JSON-RPC codes a probe may see, for the `answered` text. */
const JSONRPC_NAMES: Record<number, string> = {
  ...JSONRPC_NOT_SERVED,
  [-32001]: 'TaskNotFound',
  [-32700]: 'JSONParseError',
  [-32600]: 'InvalidRequest',
  [-32602]: 'InvalidParams',
  [-32603]: 'InternalError',
};
/** google.rpc.ErrorInfo reasons (A2A 1.0 §11.6) and statuses that say the same. */
const REASONS_NOT_SERVED = new Set([
  'VERSION_NOT_SUPPORTED',
  'UNSUPPORTED_OPERATION',
  'UNIMPLEMENTED',
  'METHOD_NOT_FOUND',
]);
/** gRPC status names by code (grpc/status.proto). */
const GRPC_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];
/** gRPC codes with which a server that implements the A2A service answers a GetTask for an unknown task. */
const GRPC_SERVED = new Set([0, 3, 5, 6, 8, 9, 10, 11]);
const GRPC_AUTH = new Set([7, 16]);

/**
 * The words `answered` may take from an answer: the server's own text (a body, an error message, gRPC
 * details, an unknown reason or content type) is never shown, since the probe may have carried a
 * credential and a server may echo it in a spelling no redactor knows (split, escaped, encoded).
 */
const MEDIA_TYPES = new Set([
  'application/json',
  'application/a2a+json',
  'application/problem+json',
  'application/grpc',
  'text/html',
  'text/plain',
  'text/xml',
  'application/xml',
  'text/event-stream',
]);
/** google.rpc.ErrorInfo reasons of A2A 1.0 (§11.6) and the ones that say an interface is not served. */
const A2A_REASONS = new Set([
  ...REASONS_NOT_SERVED,
  'TASK_NOT_FOUND',
  'TASK_NOT_CANCELABLE',
  'PUSH_NOTIFICATION_NOT_SUPPORTED',
  'CONTENT_TYPE_NOT_SUPPORTED',
  'INVALID_AGENT_RESPONSE',
  'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  'EXTENSION_SUPPORT_REQUIRED',
]);

/** At most this many characters of what answered are kept (`answered`). */
const ANSWERED_MAX = 160;

/**
 * Classify what answered a probe's GetTask (see the module table): `served`, `auth-required` or
 * `not-served`, with `answered` saying what came (credentials in `secrets` shown as `***` in any
 * spelling, control characters as spaces, bounded). Pure; never throws.
 */
export function classifyProbe(answer: ProbeAnswer, secrets: readonly string[] = []): ProbeOutcome {
  // Redacted before anything is cut short: a credential echoed at a cut is never shown in part.
  const outcome = classify(secrets.length > 0 ? redactedAnswer(answer, secrets) : answer);
  return outcome.answered === undefined ? outcome : { ...outcome, answered: shown(outcome.answered, secrets) };
}

function classify(answer: ProbeAnswer): ProbeOutcome {
  if (answer.transport === 'none') return { kind: 'not-served', answered: answer.reason };
  if (answer.transport === 'grpc') return classifyGrpc(answer);
  const { status } = answer;
  const cut = answer.cutAt !== undefined ? ` (larger than ${kib(answer.cutAt)}, read in part)` : '';
  const head = `HTTP ${status}${answer.contentType ? ` ${mediaType(answer.contentType)}` : ''}${cut}`;
  if (status === 401 || status === 403) return { kind: 'auth-required', answered: head };
  if (status >= 300 && status < 400) return { kind: 'not-served', answered: `${head} (a redirect, not followed)` };
  // A body cut at the read bound is judged by what was read whole (a large error.data after the code).
  const body = jsonObject(answer.body) ?? (answer.cutAt !== undefined ? record(jsonPrefix(answer.body)) : undefined);
  if (body === undefined) return { kind: 'not-served', answered: `${head}${notJson(answer.body)}` };
  if (body === REPEATED_KEY) return { kind: 'not-served', answered: `${head}, a JSON object holding a key twice` };
  return answer.binding.toUpperCase() === 'JSONRPC' ? classifyJsonRpc(head, body) : classifyRest(head, status, body);
}

function classifyJsonRpc(head: string, body: Record<string, unknown>): ProbeOutcome {
  const error = record(body.error);
  if (body.jsonrpc !== '2.0' || (!('result' in body) && error === undefined)) {
    return { kind: 'not-served', answered: `${head}, not a JSON-RPC 2.0 answer` };
  }
  if (error === undefined) return { kind: 'served', answered: `${head}, a JSON-RPC result` };
  const code = typeof error.code === 'number' && Number.isInteger(error.code) ? error.code : undefined;
  const reason = errorInfoReason(error.data);
  const name = (code !== undefined ? JSONRPC_NAMES[code] : undefined) ?? known(reason) ?? 'error';
  const text = `${head}, JSON-RPC ${code ?? '(no code)'} ${name}`;
  if (code === undefined) return { kind: 'not-served', answered: text };
  const notServed = JSONRPC_NOT_SERVED[code] !== undefined || (reason !== undefined && REASONS_NOT_SERVED.has(reason));
  return { kind: notServed ? 'not-served' : 'served', answered: text };
}

function classifyRest(head: string, status: number, body: Record<string, unknown>): ProbeOutcome {
  if (status >= 200 && status < 300) return { kind: 'served', answered: `${head}, a JSON object` };
  // 1.0: google.rpc.Status JSON `{error: {code, status, message, details: [ErrorInfo]}}` (§11.6).
  const error = record(body.error);
  if (error !== undefined && typeof error.code === 'number' && typeof error.status === 'string') {
    const reason = errorInfoReason(error.details);
    const named = GRPC_NAMES.includes(error.status) ? error.status : '(another status)';
    const text = `${head}, ${named}${reason ? ` ${known(reason) ?? '(another reason)'}` : ''}`;
    const notServed = REASONS_NOT_SERVED.has(error.status) || (reason !== undefined && REASONS_NOT_SERVED.has(reason));
    if (notServed) return { kind: 'not-served', answered: text };
    if (status === 404 && error.status !== 'NOT_FOUND' && reason !== 'TASK_NOT_FOUND')
      return { kind: 'not-served', answered: text };
    return { kind: 'served', answered: text };
  }
  // 0.3 (the JS SDK's REST): a JSON-RPC-style error object `{code: -32001, message}` at the top level.
  const code = typeof body.code === 'number' && Number.isInteger(body.code) && body.code < 0 ? body.code : undefined;
  if (code !== undefined && typeof body.message === 'string') {
    const text = `${head}, ${code} ${JSONRPC_NAMES[code] ?? 'error'}`;
    if (JSONRPC_NOT_SERVED[code] !== undefined) return { kind: 'not-served', answered: text };
    if (status === 404 && code !== -32001) return { kind: 'not-served', answered: text };
    return { kind: 'served', answered: text };
  }
  return { kind: 'not-served', answered: `${head}, not an A2A error` };
}

function classifyGrpc(answer: Extract<ProbeAnswer, { transport: 'grpc' }>): ProbeOutcome {
  const name = GRPC_NAMES[answer.code] ?? 'status';
  const text = `gRPC ${answer.code} ${name}${answer.reason ? ` ${known(answer.reason) ?? '(another reason)'}` : ''}`;
  if (answer.reason !== undefined && REASONS_NOT_SERVED.has(answer.reason))
    return { kind: 'not-served', answered: text };
  if (GRPC_AUTH.has(answer.code)) return { kind: 'auth-required', answered: text };
  return { kind: GRPC_SERVED.has(answer.code) ? 'served' : 'not-served', answered: text };
}

// ---------------------------------------------------------------------------------------------

/** `answer` with every credential of `secrets` in its words (body, details, reason) as `***`. */
function redactedAnswer(answer: ProbeAnswer, secrets: readonly string[]): ProbeAnswer {
  const r = (text: string) => redactSecrets(text, secrets);
  if (answer.transport === 'none') return { ...answer, reason: r(answer.reason) };
  if (answer.transport === 'http') return { ...answer, body: r(answer.body) };
  return {
    ...answer,
    ...(answer.details !== undefined ? { details: r(answer.details) } : {}),
    ...(answer.reason !== undefined ? { reason: r(answer.reason) } : {}),
  };
}

/** What {@link jsonObject} says of a JSON object holding a key twice in one object (at any depth). */
const REPEATED_KEY: Record<string, unknown> = Object.freeze({});

/**
 * The body as a JSON object; {@link REPEATED_KEY} when it holds a key twice in one object (as
 * `json-prefix.ts` refuses a part read); undefined otherwise (not JSON, cut short, an array, a scalar).
 */
function jsonObject(text: string): Record<string, unknown> | undefined {
  let value: Record<string, unknown> | undefined;
  try {
    value = record(JSON.parse(text));
  } catch {
    return undefined;
  }
  return value !== undefined && duplicateKey(text) !== undefined ? REPEATED_KEY : value;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The first google.rpc.ErrorInfo `reason` in a `details`/`data` array (an `@type`-less entry with a reason counts too). */
function errorInfoReason(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const { '@type': type, reason } = record(detail) ?? {};
    if (
      typeof reason === 'string' &&
      reason !== '' &&
      (type === undefined || String(type).endsWith('google.rpc.ErrorInfo'))
    )
      return reason;
  }
  return undefined;
}

/** `text/html` of `text/html; charset=utf-8` when it is a media type of {@link MEDIA_TYPES}, else words of ours. */
function mediaType(contentType: string): string {
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return MEDIA_TYPES.has(essence) ? essence : '(another content type)';
}

/** `reason` when it is an A2A ErrorInfo reason we know (the words are ours, never the server's), else undefined. */
function known(reason: string | undefined): string | undefined {
  return reason !== undefined && A2A_REASONS.has(reason) ? reason : undefined;
}

/** `64 KiB` (or `1.5 KiB`): a byte count in words of ours. */
function kib(bytes: number): string {
  return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
}

/** What a body that is not a JSON object was, in words of ours: its size, never its text. */
function notJson(body: string): string {
  return body.trim() === '' ? ', empty body' : `, not a JSON object (${body.length} characters)`;
}

/** One inert, bounded line, credentials as `***`. */
function shown(text: string, secrets: readonly string[]): string {
  const redacted = secrets.length > 0 ? redactSecrets(text, secrets) : text;
  return bounded(redacted.replace(UNTRUSTED, ' ').replace(/ {2,}/g, ' ').trim(), ANSWERED_MAX);
}
