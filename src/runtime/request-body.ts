/**
 * The body half of the request check: which call a request is (its JSON-RPC method, or its
 * HTTP+JSON route), whether the plan allows it, and its message parts, output modes and push
 * configuration against the plan; `acceptedOutputModes` filled in from the plan. Pure.
 *
 * Spec: A2A 1.0 §3.2.2 (acceptedOutputModes), §3.1.2 (streaming), §3.1.7 (push), §9 JSON-RPC and
 * §11 HTTP+JSON method names (and their 0.3 spellings).
 */
import { hasMediaType } from '../card/media.js';
import { isRecord, MAX_JSON_DEPTH } from '../json-path.js';
import { list, type PreparedPlan, redact } from './request-plan.js';

type CallKind = 'send' | 'stream' | 'subscribe' | 'push-set' | 'other';

/**
 * The JSON-RPC methods of each protocol version (A2A 1.0 §9.4 and §5.3; 0.3 §7), each with the
 * kind of call it is. A call whose method is not in the locked version's table is a violation: a
 * 0.3 name on a 1.0 plan would be stamped `A2A-Version: 1.0` and answered "method not found".
 */
const JSONRPC_METHODS: Readonly<Record<string, ReadonlyMap<string, CallKind>>> = {
  '1.0': new Map([
    ['SendMessage', 'send'],
    ['SendStreamingMessage', 'stream'],
    ['GetTask', 'other'],
    ['ListTasks', 'other'],
    ['CancelTask', 'other'],
    ['SubscribeToTask', 'subscribe'],
    ['CreateTaskPushNotificationConfig', 'push-set'],
    ['GetTaskPushNotificationConfig', 'other'],
    ['ListTaskPushNotificationConfigs', 'other'],
    ['DeleteTaskPushNotificationConfig', 'other'],
    ['GetExtendedAgentCard', 'other'],
  ]),
  '0.3': new Map([
    ['message/send', 'send'],
    ['message/stream', 'stream'],
    ['tasks/get', 'other'],
    ['tasks/cancel', 'other'],
    ['tasks/resubscribe', 'subscribe'],
    ['tasks/pushNotificationConfig/set', 'push-set'],
    ['tasks/pushNotificationConfig/get', 'other'],
    ['tasks/pushNotificationConfig/list', 'other'],
    ['tasks/pushNotificationConfig/delete', 'other'],
    ['agent/getAuthenticatedExtendedCard', 'other'],
  ]),
};

/** The request body as text; bodies that are not text or bytes are refused. */
export function bodyText(body: unknown, violation: (m: string) => Error): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(body);
  if (ArrayBuffer.isView(body)) return new TextDecoder().decode(body);
  throw violation('the request body must be JSON text');
}

/**
 * An HTTP+JSON call named by its path below the interface URL, as the SDK's Express routes match
 * it: case-insensitive, percent-decoded, repeated and trailing slashes ignored, under an optional
 * tenant or the 0.3 `/v1` prefix. The method matters only on a push config route: GET and DELETE
 * read or remove configs (JSON-RPC Get/List/DeleteTaskPushNotificationConfig, allowed on any plan),
 * any other method sets one. A path that names a send, stream, subscribe or push route in a form
 * not recognised here is a violation (fail closed).
 */
export function restKind(rel: string, method: string, violation: (m: string) => Error): CallKind {
  let path: string;
  try {
    path = decodeURIComponent(rel)
      .toLowerCase()
      .replace(/\/{2,}/g, '/')
      .replace(/\/+$/, '');
  } catch {
    throw violation('the request path is not valid percent-encoding');
  }
  if (/\/message:send$/.test(path)) return 'send';
  if (/\/message:stream$/.test(path)) return 'stream';
  if (/\/tasks\/[^/]+:subscribe$/.test(path)) return 'subscribe';
  if (/\/tasks\/[^/]+\/pushnotificationconfigs(\/[^/]+)?$/.test(path))
    return method === 'GET' || method === 'DELETE' ? 'other' : 'push-set';
  if (/(^|\/)message([:/]|$)|:(send|stream|subscribe|resubscribe)\b|pushnotification/.test(path))
    throw violation(`the path ${JSON.stringify(rel.slice(0, 80))} is not an A2A route this plan can check`);
  return 'other';
}

export function checkKind(ctx: PreparedPlan, kind: CallKind): void {
  if ((kind === 'stream' || kind === 'subscribe') && ctx.plan.delivery !== 'stream') {
    throw ctx.violation(`a streaming call, but the locked delivery is ${ctx.plan.delivery}`);
  }
  if (kind === 'push-set' && ctx.plan.delivery !== 'push')
    throw ctx.violation(`a push notification config, but the locked delivery is ${ctx.plan.delivery}`);
}

/**
 * Check a request body against the plan and complete it; returns the body to send (re-serialised
 * only when `acceptedOutputModes` was filled in). `restCall`: the HTTP+JSON call its path names;
 * undefined for JSON-RPC (named by `method` in the body).
 */
export function checkBody(ctx: PreparedPlan, restCall: CallKind | undefined, body: string): string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw ctx.violation('the request body is not JSON');
  }
  const unsendable = unsendableJson(json);
  if (unsendable) throw ctx.violation(unsendable);
  const { kind, params } = restCall
    ? { kind: restCall, params: isRecord(json) ? json : undefined }
    : jsonRpcCall(ctx, json);
  checkKind(ctx, kind);
  if (kind !== 'send' && kind !== 'stream') {
    // Any other call is checked by its name alone, so it may carry nothing the plan governs.
    const field = params ? PLAN_FIELDS.find((k) => params[k] !== undefined && params[k] !== null) : undefined;
    if (field !== undefined && kind !== 'push-set')
      throw ctx.violation(
        `a ${restCall ? 'request on this route' : 'call of this method'} carrying "${field}" (a message or send configuration) is not one this plan can check`,
      );
    // Creating a push config (JSON-RPC Create/set; an HTTP+JSON pushNotificationConfigs body): its URL is the locked one.
    if (kind === 'push-set') checkPushEndpoint(ctx.pushEndpoint ?? null, params ?? json, ctx.violation);
    return body;
  }
  if (!params) {
    if (restCall) throw ctx.violation('the send request body is not a JSON object');
    return body;
  }
  checkMessages(ctx, params);
  return completeConfiguration(ctx, params) ? JSON.stringify(json) : body;
}

/**
 * Why a parsed request body cannot be checked and sent as the caller wrote it, or undefined: nested
 * deeper than {@link MAX_JSON_DEPTH} levels (the limit of every document a2a-lock reads; deeper
 * would overflow the stack of a recursive walk or of `JSON.stringify`), else a number beyond a
 * double's range (`1e400` parses as Infinity, which JSON.stringify would send as null). The same
 * rule and words as the Python runtime's. One walk, stopped at the depth limit.
 */
function unsendableJson(json: unknown): string | undefined {
  const found = unsendableIn(json, 0);
  if (found === TOO_DEEP) return `the request body nests deeper than ${MAX_JSON_DEPTH} levels`;
  return found === NOT_A_DOUBLE
    ? 'the request body holds a number beyond the range of a double (JSON would not carry it)'
    : undefined;
}

const TOO_DEEP = 2;
const NOT_A_DOUBLE = 1;

/** {@link TOO_DEEP} when a container of `value` (at `depth`) is {@link MAX_JSON_DEPTH} levels down, else {@link NOT_A_DOUBLE} for a number read as ±Infinity, else 0. */
function unsendableIn(value: unknown, depth: number): number {
  if (typeof value === 'number') return Number.isFinite(value) ? 0 : NOT_A_DOUBLE;
  if (typeof value !== 'object' || value === null) return 0;
  if (depth >= MAX_JSON_DEPTH) return TOO_DEEP;
  let found = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    const here = unsendableIn(child, depth + 1);
    if (here === TOO_DEEP) return TOO_DEEP;
    found ||= here;
  }
  return found;
}

/**
 * The call a JSON-RPC body names and its params. Fail closed: only one call, named by a method of
 * the locked version, is checked and sent.
 */
function jsonRpcCall(
  ctx: PreparedPlan,
  json: unknown,
): { kind: CallKind; params: Record<string, unknown> | undefined } {
  if (Array.isArray(json))
    throw ctx.violation(
      'a JSON-RPC batch (an array of calls) is refused: A2A does not use batches, and its calls would go unchecked',
    );
  if (!isRecord(json)) throw ctx.violation('the JSON-RPC request body is not an object');
  const m = json.method;
  if (typeof m !== 'string') throw ctx.violation('the JSON-RPC request has no "method" string');
  const methods = JSONRPC_METHODS[ctx.iface.protocolVersion];
  if (!methods) throw ctx.violation(`no JSON-RPC method table for the locked version ${ctx.iface.protocolVersion}`);
  const kind = methods.get(m);
  if (kind === undefined)
    throw ctx.violation(
      `method ${JSON.stringify(m.slice(0, 60))} is not a JSON-RPC method of the locked version ${ctx.iface.protocolVersion} (${[...methods.keys()].slice(0, 3).join(', ')}, ...)`,
    );
  if (json.params !== undefined && !isRecord(json.params)) throw ctx.violation(`the params of ${m} are not an object`);
  return { kind, params: json.params };
}

/**
 * The messages of a send: every field a server may read is checked: the 1.0 `message` and the 0.3
 * HTTP+JSON `request` (the 0.3 SDK reads `message`, else `request`), each one's `parts` and 0.3
 * HTTP+JSON `content`, both JSON spellings (`media_type` as well as `mediaType`): only locked
 * extensions and input modes.
 */
function checkMessages(ctx: PreparedPlan, params: Record<string, unknown>): void {
  checkMessage(ctx, params.message);
  checkMessage(ctx, params.request);
}

/** One message of a send ({@link checkMessages}); anything but an object is not one. */
function checkMessage(ctx: PreparedPlan, message: unknown): void {
  if (!isRecord(message)) return;
  if (Array.isArray(message.extensions)) {
    for (const uri of message.extensions) {
      if (typeof uri !== 'string' || !ctx.plan.extensions.includes(uri))
        throw ctx.violation(
          `message extension ${JSON.stringify(uri)} is not locked (locked: ${list(ctx.plan.extensions)})`,
        );
    }
  }
  checkParts(ctx, message.parts);
  checkParts(ctx, message.content);
}

/** A message's parts (1.0 `parts`, 0.3 HTTP+JSON `content`): each one's media types among the locked input modes ({@link checkPart}). */
function checkParts(ctx: PreparedPlan, parts: unknown): void {
  if (!Array.isArray(parts)) return;
  for (let i = 0; i < parts.length; i++) checkPart(ctx, parts[i]);
}

/**
 * The send configuration: a push config only on a push plan and to the locked endpoint (either
 * spelling, `pushNotification` too), only locked accepted output modes; when it lists none, the
 * plan's are filled in (`params` changed in place: true).
 */
function completeConfiguration(ctx: PreparedPlan, params: Record<string, unknown>): boolean {
  const configuration = isRecord(params.configuration) ? params.configuration : NOTHING_SET;
  for (const k of PUSH_FIELDS) {
    const config = configuration[k];
    if (!config) continue;
    if (ctx.plan.delivery !== 'push')
      throw ctx.violation(`a push notification config, but the locked delivery is ${ctx.plan.delivery}`);
    checkPushEndpoint(ctx.pushEndpoint ?? null, config, ctx.violation);
  }
  const { acceptedOutputModes: camel, accepted_output_modes: snake } = configuration;
  checkOutputModes(ctx, camel);
  checkOutputModes(ctx, snake);
  // The SDK reads the camelCase list when it is an array (even empty), else the snake_case one.
  if (Array.isArray(camel) ? camel.length > 0 : Array.isArray(snake) && snake.length > 0) return false;
  params.configuration = { ...configuration, acceptedOutputModes: [...ctx.plan.acceptedOutputModes] };
  return true;
}

/**
 * Check a push notification config against the locked push endpoint: every `url` it carries (the
 * 1.0 `TaskPushNotificationConfig.url`, the 0.3 `pushNotificationConfig.url`, at any depth up to 4,
 * either spelling of the nesting) must be the locked `pushEndpoint` (compared as parsed URLs); a
 * config with no `url` is refused too (fail closed).
 * @throws PlanViolationError (via `violation`) otherwise; nothing is sent
 */
export function checkPushEndpoint(pushEndpoint: string | null, config: unknown, violation: (m: string) => Error): void {
  const urls: unknown[] = [];
  const walk = (v: unknown, depth: number) => {
    if (!isRecord(v) || depth > 4) return;
    for (const [key, value] of Object.entries(v)) {
      if (key === 'url') urls.push(value);
      else walk(value, depth + 1);
    }
  };
  walk(config, 0);
  if (urls.length === 0)
    throw violation('a push notification config without a url: only the locked pushEndpoint may receive notifications');
  const locked = pushEndpoint !== null && URL.canParse(pushEndpoint) ? new URL(pushEndpoint).href : undefined;
  for (const url of urls) {
    const given = typeof url === 'string' && URL.canParse(url) ? new URL(url) : undefined;
    if (!given || given.href !== locked) {
      const shown = given ? redact(given) : 'a value that is not a URL';
      throw violation(
        `the push notification config url ${shown} is not the locked pushEndpoint ${locked ? redact(new URL(locked)) : '(none)'}`,
      );
    }
  }
}

/** The push config fields of a send configuration: 1.0, 0.3 JSON-RPC and 0.3 HTTP+JSON, both spellings. */
const PUSH_FIELDS = [
  'taskPushNotificationConfig',
  'task_push_notification_config',
  'pushNotificationConfig',
  'push_notification_config',
  'pushNotification',
  'push_notification',
];

/** Send fields only a send or stream call is checked for: on any other call they are a violation. */
const PLAN_FIELDS = ['message', 'request', 'configuration', ...PUSH_FIELDS];

/** The content fields a part is read by (1.0 `text`/`raw`/`url`/`data`, 0.3 `file`). */
const PART_CONTENT = ['text', 'raw', 'url', 'data', 'file'];

/** True when a part sets (not undefined, not null) one of the {@link PART_CONTENT} fields. */
function hasContent(part: Record<string, unknown>): boolean {
  for (const k of PART_CONTENT) if (part[k] !== undefined && part[k] !== null) return true;
  return false;
}

/** An accepted output mode list of a send configuration (either spelling): only locked modes. */
function checkOutputModes(ctx: PreparedPlan, modes: unknown): void {
  if (!Array.isArray(modes)) return;
  for (const mode of modes) {
    if (typeof mode !== 'string' || !hasMediaType(ctx.outputModeKeys, mode))
      throw ctx.violation(
        `accepted output mode ${JSON.stringify(mode)} is not locked (locked: ${list(ctx.plan.acceptedOutputModes)})`,
      );
  }
}

/** An object with nothing set: the configuration of a send without one, the file of a part without one. */
const NOTHING_SET: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * A part's media types, by what a server will see, each among the locked input modes: each
 * declared one (`mediaType`/`media_type`, 0.3 `file.mimeType`/`mime_type`), else one per content it
 * may read. The @a2a-js/sdk 1.x server reads a 1.0 part's first SET field (not undefined, not null)
 * of `text`, `raw`, `url`, `data`, and a 0.3 part by its `kind`; so `{text: null, data: {...}}` is
 * data (application/json), and a part whose fields disagree with its kind counts as all of them:
 * text/plain for text, application/json for data, application/octet-stream for bytes, a URL or a
 * file. A part with no content is a violation. Checked in that order, without building a list (the
 * first type not locked is the one named).
 */
function checkPart(ctx: PreparedPlan, part: unknown): void {
  if (!isRecord(part) || !hasContent(part)) {
    throw ctx.violation(
      `a message part has no recognisable content (${PART_CONTENT.join(', ')}); with the @a2a-js/sdk 1.3 client a part is {content: {$case: 'text', value}}`,
    );
  }
  const file = isRecord(part.file) ? part.file : NOTHING_SET;
  // `|` (not `||`): every declared type is checked, not only the first.
  const declared =
    checkDeclared(ctx, part.mediaType) |
    checkDeclared(ctx, part.media_type) |
    checkDeclared(ctx, file.mimeType) |
    checkDeclared(ctx, file.mime_type);
  if (declared) return;
  if (isSet(part.text) || part.kind === 'text') checkInputMode(ctx, 'text/plain');
  if (isSet(part.data) || part.kind === 'data') checkInputMode(ctx, 'application/json');
  if (isSet(part.raw) || isSet(part.url) || isSet(part.file) || part.kind === 'file')
    checkInputMode(ctx, 'application/octet-stream');
}

/** A declared media type of a part ({@link checkPart}): 1 when one is declared (and locked), 0 when none. */
function checkDeclared(ctx: PreparedPlan, type: unknown): 0 | 1 {
  if (typeof type !== 'string' || type === '') return 0;
  checkInputMode(ctx, type);
  return 1;
}

/** One media type a part is read as: among the locked input modes. */
function checkInputMode(ctx: PreparedPlan, type: string): void {
  if (!hasMediaType(ctx.inputModeKeys, type))
    throw ctx.violation(`a message part of type ${type} is not in the locked input modes (${list(ctx.inputModes)})`);
}

/** Set: neither undefined nor null. */
function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}
