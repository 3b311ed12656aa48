/**
 * The plan-enforcing `fetch`: every request to a locked agent is checked against its locked plan
 * and completed from it (A2A-Version, the extensions header, the credential, acceptedOutputModes)
 * before a byte is sent; anything off-plan is a {@link PlanViolationError}.
 *
 * Spec: A2A 1.0 §3.6 (A2A-Version), §4.6 (A2A-Extensions; 0.3 X-A2A-Extensions), §3.2.2
 * (acceptedOutputModes), §3.1.2 (streaming), §3.1.7 (push), §9 JSON-RPC and §11 HTTP+JSON method
 * names (and their 0.3 spellings).
 */
import { applyCredentials, placementSecrets, redactError, type CredentialPlacement } from '../credentials.js';
import { FetchError, isA2aLockError, PlanViolationError } from '../errors.js';
import { errorCode, UNDICI_TIMEOUTS } from '../http/errors.js';
import { isRecord } from '../json-path.js';
import { mediaTypeIn } from '../card/media.js';
import type { FallbackInterface, Plan } from '../negotiate/types.js';

/** What one enforcing fetch is bound to. */
export interface EnforcementContext {
  agent: string;
  skill: string;
  /** The locked plan (modes, delivery, extensions, security). */
  plan: Plan;
  /** The interface requests go to: the plan's own or one of its locked fallbacks. */
  iface: FallbackInterface;
  /** The skill's locked input modes (from the locked snapshot). */
  inputModes: readonly string[];
  /** The credential placements for the locked security requirement, read at request time for a request to `iface`. */
  placements: (iface: FallbackInterface) => Promise<CredentialPlacement[]>;
  /** The locked `pushEndpoint` (the agent's settings): the only URL a push notification config may name (absent: none). */
  pushEndpoint?: string | null;
  /**
   * Called once when the agent answers 401: drops the OAuth access tokens just sent and returns true
   * when there were any, and the request is then sent once more with new ones (absent: never).
   */
  renew?: () => boolean;
  /** False when the locked security requirement is empty (no credential to read). */
  security: boolean;
  /** The fetch that sends (default: the global fetch). */
  send: typeof fetch;
}

/** The credential secrets each `placements` reader has put on a request (see {@link secretsSentWith}). */
const sentSecrets = new WeakMap<object, Set<string>>();

/**
 * Every credential secret (its header, query and cookie values; `placementSecrets`) an enforcing
 * fetch has sent with the placements read by `placements` (an {@link EnforcementContext.placements}):
 * what an agent may echo back, for redacting the errors and events the runtime emits. A token a
 * provider has since rotated stays listed.
 */
export function secretsSentWith(placements: object): string[] {
  return [...(sentSecrets.get(placements) ?? [])];
}

/** At most this many same-plan redirects (307/308) are followed. */
const MAX_REDIRECTS = 5;

const SEND = new Set(['SendMessage', 'message/send']);
const STREAM = new Set(['SendStreamingMessage', 'message/stream']);
const SUBSCRIBE = new Set(['SubscribeToTask', 'tasks/resubscribe']);
const PUSH_SET = new Set(['CreateTaskPushNotificationConfig', 'tasks/pushNotificationConfig/set']);

type CallKind = 'send' | 'stream' | 'subscribe' | 'push-set' | 'other';

/**
 * The JSON-RPC methods of each protocol version (A2A 1.0 §9.4 and §5.3; 0.3 §7). A call whose
 * method is not in the locked version's set is a violation: a 0.3 name on a 1.0 plan would be
 * stamped `A2A-Version: 1.0` and answered "method not found".
 */
const JSONRPC_METHODS: Readonly<Record<string, ReadonlySet<string>>> = {
  '1.0': new Set([
    'SendMessage',
    'SendStreamingMessage',
    'GetTask',
    'ListTasks',
    'CancelTask',
    'SubscribeToTask',
    'CreateTaskPushNotificationConfig',
    'GetTaskPushNotificationConfig',
    'ListTaskPushNotificationConfigs',
    'DeleteTaskPushNotificationConfig',
    'GetExtendedAgentCard',
  ]),
  '0.3': new Set([
    'message/send',
    'message/stream',
    'tasks/get',
    'tasks/cancel',
    'tasks/resubscribe',
    'tasks/pushNotificationConfig/set',
    'tasks/pushNotificationConfig/get',
    'tasks/pushNotificationConfig/list',
    'tasks/pushNotificationConfig/delete',
    'agent/getAuthenticatedExtendedCard',
  ]),
};

/** What the pure request check ({@link checkRequest}) needs of an {@link EnforcementContext}. */
export type RequestPlan = Pick<
  EnforcementContext,
  'agent' | 'skill' | 'plan' | 'iface' | 'inputModes' | 'pushEndpoint'
>;

/** One request to check, as a fetch call gives it. */
export interface OutgoingRequest {
  /** The request URL as given (absolute). */
  url: string;
  /** The method, upper case. */
  method: string;
  /** The headers, names lower case (repeated names joined with ", "). */
  headers: Record<string, string>;
  /** The body: JSON text, as a string or bytes (undefined or null: none; anything else is refused). */
  body?: unknown;
}

/** A request the plan allows, completed from it. */
export interface CheckedRequest {
  /** The path below the interface URL (HTTP+JSON), '' for the exact URL: a redirect must keep it. */
  path: string;
  /** The headers to send before the credential is placed: A2A-Version and the extensions header the plan's, the rest as given. */
  headers: Record<string, string>;
  /** The body to send (`acceptedOutputModes` filled in from the plan when the request gave none). */
  body: string | undefined;
}

/**
 * Check one request against the plan and complete it (see the module comment), without sending
 * anything: the URL is the locked interface (HTTP+JSON: a path below it), the A2A-Version and
 * extensions headers agree with the plan, and the call its body (JSON-RPC) or path (HTTP+JSON)
 * names is one the plan allows, with only locked modes, extensions and push endpoint. Pure.
 *
 * @throws PlanViolationError (code `plan-violation`) for anything off-plan, and for every request
 *   on a binding not carried over fetch (gRPC)
 */
export function checkRequest(ctx: RequestPlan, request: OutgoingRequest): CheckedRequest {
  const refused = bindingViolation(ctx);
  if (refused) throw refused;
  const violation = (message: string) => new PlanViolationError(ctx.agent, ctx.skill, message);
  const path = checkUrl(ctx.iface, request.url, violation);
  const { headers, method } = request;
  let body = bodyText(request.body, violation);
  checkProtocolHeaders(ctx, headers, violation);

  const kind = ctx.iface.protocolBinding === 'HTTP+JSON' ? restKind(path, violation) : undefined;
  if (body !== undefined) body = checkBody(ctx, kind, body, violation);
  else if (kind) checkKind(ctx, kind, violation);
  // A JSON-RPC call is named by its body: without one there is nothing to check, so nothing is sent.
  else throw violation(`a JSON-RPC request without a body (${method}) is not a call this plan can check`);
  return { path, headers: plannedHeaders(ctx, headers), body };
}

/** The violation of every request on a binding not carried over fetch (gRPC); undefined for JSON-RPC and HTTP+JSON. */
function bindingViolation(ctx: RequestPlan): PlanViolationError | undefined {
  if (ctx.iface.protocolBinding === 'JSONRPC' || ctx.iface.protocolBinding === 'HTTP+JSON') return undefined;
  return new PlanViolationError(
    ctx.agent,
    ctx.skill,
    `the locked binding ${ctx.iface.protocolBinding} is not carried over fetch (use createClient())`,
  );
}

/** The path of `href` below the locked interface (see {@link pathBelow}). @throws PlanViolationError (via `violation`) for a URL off the interface */
function checkUrl(iface: FallbackInterface, href: string, violation: (m: string) => Error): string {
  // The exact locked URL (every JSON-RPC call) needs no parsing.
  if (href === iface.url) return '';
  const base = new URL(iface.url);
  if (href === base.href) return '';
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw violation('the request URL is not an absolute URL');
  }
  const path = pathBelow(iface, base, url);
  if (path === undefined)
    throw violation(
      `${redact(url)} is not the locked interface ${iface.protocolBinding} ${redact(base)}${urlDifference(url, base, iface.protocolBinding === 'HTTP+JSON')}`,
    );
  return path;
}

/** The path of `url` below the interface URL `base` (HTTP+JSON), or '' for the exact URL; undefined when off-plan. */
function pathBelow(iface: FallbackInterface, base: URL, url: URL): string | undefined {
  if (iface.protocolBinding === 'HTTP+JSON') {
    const basePath = base.pathname.replace(/\/+$/, '');
    if (url.origin !== base.origin || url.username || url.password) return undefined;
    if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return undefined;
    return url.pathname.slice(basePath.length);
  }
  return url.href === base.href ? '' : undefined;
}

/** A2A-Version: the locked Major.Minor (a conflicting value is a violation); extensions: only locked ones, under either header name. */
function checkProtocolHeaders(
  ctx: RequestPlan,
  headers: Record<string, string>,
  violation: (m: string) => Error,
): void {
  const version = ctx.iface.protocolVersion;
  const asked = headers['a2a-version'];
  if (asked !== undefined && asked.trim() !== version && !asked.trim().startsWith(`${version}.`)) {
    throw violation(`A2A-Version ${JSON.stringify(asked.slice(0, 20))} conflicts with the locked ${version}`);
  }
  for (const name of ['a2a-extensions', 'x-a2a-extensions']) {
    const listed = headers[name];
    if (listed === undefined) continue;
    for (const uri of listed
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (!ctx.plan.extensions.includes(uri))
        throw violation(`extension ${uri} is not locked (locked: ${list(ctx.plan.extensions)})`);
    }
  }
}

/** The headers to send: the locked A2A-Version, the locked extensions under the one header name of the locked version, then the request's others. */
function plannedHeaders(ctx: RequestPlan, headers: Record<string, string>): Record<string, string> {
  const version = ctx.iface.protocolVersion;
  const planned: Record<string, string> = { 'a2a-version': version };
  if (ctx.plan.extensions.length > 0)
    planned[version.startsWith('0.') ? 'x-a2a-extensions' : 'a2a-extensions'] = ctx.plan.extensions.join(', ');
  for (const [name, value] of Object.entries(headers)) {
    if (name !== 'a2a-version' && name !== 'a2a-extensions' && name !== 'x-a2a-extensions') planned[name] = value;
  }
  return planned;
}

/**
 * A fetch-compatible function enforcing `ctx` (see the module comment): each request is checked
 * ({@link checkRequest}), its credential placed, and sent. Bodies must be JSON text (a string,
 * bytes or a Blob). Redirects are followed only to a URL on the plan (so never to another
 * origin, and credentials never leave it); any other redirect is a violation.
 *
 * @throws PlanViolationError (code `plan-violation`) before anything is sent
 * @throws A2aLockError `credential-unset` / UsageError when a credential cannot be read or placed
 */
export function enforcingFetch(ctx: EnforcementContext): typeof fetch {
  if (bindingViolation(ctx)) {
    return async () => {
      throw bindingViolation(ctx);
    };
  }
  const base = new URL(ctx.iface.url);
  /** Check and send; `body` is the request's body (a Blob already read). */
  const checkAndSend = (href: string, init: RequestInit | undefined, request: Request | undefined, body: unknown) => {
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const checked = checkRequest(ctx, {
      url: href,
      method,
      headers: headerRecord(init?.headers ?? request?.headers),
      body,
    });
    return sendChecked(ctx, base, href, checked, init, method, init?.signal ?? request?.signal);
  };
  return (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    try {
      // A string body (what the SDK sends) is checked at once; `Blob` is a getter, so it is asked only for other bodies.
      if (typeof input === 'string' && (init?.body == null || typeof init.body === 'string'))
        return checkAndSend(input, init, undefined, init?.body);
      const request = typeof input === 'object' && !(input instanceof URL) ? input : undefined;
      // A Request's or Blob's body is read first (asynchronously).
      return (async () => {
        const raw = init?.body ?? (request?.body ? await request.text() : undefined);
        return checkAndSend(
          request ? request.url : String(input),
          init,
          request,
          raw instanceof Blob ? await raw.text() : raw,
        );
      })();
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

/** The credential placements for a request now (recorded as sent, for redaction). */
async function readPlacements(ctx: EnforcementContext): Promise<CredentialPlacement[]> {
  if (!ctx.security) return [];
  const placed = await ctx.placements(ctx.iface);
  if (placed.length > 0) {
    let seen = sentSecrets.get(ctx.placements);
    if (!seen) {
      seen = new Set();
      sentSecrets.set(ctx.placements, seen);
    }
    for (const secret of placementSecrets(placed)) seen.add(secret);
  }
  return placed;
}

/** Place the credential read now on a checked request and send it: once more with a renewed OAuth token on a 401, following only same-plan 307/308 redirects. */
async function sendChecked(
  ctx: EnforcementContext,
  base: URL,
  href: string,
  checked: CheckedRequest,
  init: RequestInit | undefined,
  method: string,
  signal: AbortSignal | null | undefined,
): Promise<Response> {
  // No await (a microtask on every call) for a plan that places no credential.
  let placements = ctx.security ? await readPlacements(ctx) : [];
  let target = href;
  let renewed = false;
  for (let hops = 0; ; hops++) {
    const applied =
      placements.length > 0
        ? applyCredentials(target, checked.headers, placements)
        : { url: target, headers: checked.headers };
    let response: Response;
    try {
      response = await ctx.send(applied.url, {
        ...init,
        method,
        headers: applied.headers,
        body: checked.body,
        redirect: 'manual',
        signal,
      });
    } catch (error) {
      // The caller's own fetch may quote the request (an apiKey in the query, percent-encoded): its error is kept as `cause`, redacted.
      throw sendError(
        placements.length > 0 ? redactError(error, placementSecrets(placements)) : error,
        redact(new URL(target)),
        { agent: ctx.agent, skill: ctx.skill },
      );
    }
    // An OAuth access token refused (revoked, expired early): once more with a new one.
    if (response.status === 401 && !renewed && ctx.renew?.()) {
      renewed = true;
      await response.body?.cancel();
      placements = await readPlacements(ctx);
      hops--;
      continue;
    }
    if (response.status < 300 || response.status >= 400 || !response.headers.has('location')) return response;
    const next = new URL(response.headers.get('location')!, target);
    await response.body?.cancel();
    const violation = (message: string) => new PlanViolationError(ctx.agent, ctx.skill, message);
    if (response.status !== 307 && response.status !== 308)
      throw violation(`the agent answered ${response.status} (a redirect that changes the method), refused`);
    if (pathBelow(ctx.iface, base, next) !== checked.path)
      throw violation(`redirect to ${redact(next)} refused: not the locked interface`);
    if (hops + 1 >= MAX_REDIRECTS) throw violation(`more than ${MAX_REDIRECTS} redirects`);
    target = next.href;
  }
}

/** Request headers as a record with lower-case names (repeated names joined with ", ", as `Headers` does). */
function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  // A plain record (what the SDK passes) before `Headers`: Node's web globals are getters, run on each use (docs/performance.md).
  const proto = Object.getPrototypeOf(init);
  if (proto === Object.prototype || proto === null) {
    const record = init as Record<string, string>;
    const names = Object.keys(record);
    for (let i = 0; i < names.length; i++) addHeader(out, names[i]!, String(record[names[i]!]));
  } else if (Array.isArray(init)) for (const [name, value] of init) addHeader(out, name!, value!);
  else if (init instanceof Headers) init.forEach((value, name) => addHeader(out, name, value));
  else for (const [name, value] of Object.entries(init)) addHeader(out, name, String(value));
  return out;
}

/** Add one header to a record of lower-case names (a repeated name's values joined with ", "). */
function addHeader(out: Record<string, string>, name: string, value: string): void {
  const key = name.toLowerCase();
  const had = out[key];
  out[key] = had === undefined ? value : `${had}, ${value}`;
}

/** The request body as text; bodies that are not text or bytes are refused. */
function bodyText(body: unknown, violation: (m: string) => Error): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(body);
  if (ArrayBuffer.isView(body)) return new TextDecoder().decode(body);
  throw violation('the request body must be JSON text');
}

/**
 * An HTTP+JSON call named by its path below the interface URL, for any method, as the SDK's
 * Express routes match it: case-insensitive, percent-decoded, repeated and trailing slashes
 * ignored, under an optional tenant or the 0.3 `/v1` prefix. A path that names a send, stream,
 * subscribe or push route in a form not recognised here is a violation (fail closed).
 */
function restKind(rel: string, violation: (m: string) => Error): CallKind {
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
  if (/\/tasks\/[^/]+\/pushnotificationconfigs(\/[^/]+)?$/.test(path)) return 'push-set';
  if (/(^|\/)message([:/]|$)|:(send|stream|subscribe|resubscribe)\b|pushnotification/.test(path))
    throw violation(`the path ${JSON.stringify(rel.slice(0, 80))} is not an A2A route this plan can check`);
  return 'other';
}

function checkKind(ctx: RequestPlan, kind: CallKind, violation: (m: string) => Error): void {
  if ((kind === 'stream' || kind === 'subscribe') && ctx.plan.delivery !== 'stream') {
    throw violation(`a streaming call, but the locked delivery is ${ctx.plan.delivery}`);
  }
  if (kind === 'push-set' && ctx.plan.delivery !== 'push')
    throw violation(`a push notification config, but the locked delivery is ${ctx.plan.delivery}`);
}

/**
 * Check a request body against the plan and complete it; returns the body to send (re-serialised
 * only when `acceptedOutputModes` was filled in). `restCall`: the HTTP+JSON call its path names;
 * undefined for JSON-RPC (named by `method` in the body).
 */
function checkBody(
  ctx: RequestPlan,
  restCall: CallKind | undefined,
  body: string,
  violation: (m: string) => Error,
): string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw violation('the request body is not JSON');
  }
  const { kind, params } = restCall
    ? { kind: restCall, params: isRecord(json) ? json : undefined }
    : jsonRpcCall(ctx, json, violation);
  checkKind(ctx, kind, violation);
  if (kind !== 'send' && kind !== 'stream') {
    // Any other call is checked by its name alone, so it may carry nothing the plan governs.
    const field = params ? PLAN_FIELDS.find((k) => params[k] !== undefined && params[k] !== null) : undefined;
    if (field !== undefined && kind !== 'push-set')
      throw violation(
        `a ${restCall ? 'request on this route' : 'call of this method'} carrying "${field}" (a message or send configuration) is not one this plan can check`,
      );
    // Creating a push config (JSON-RPC Create/set; an HTTP+JSON pushNotificationConfigs body): its URL is the locked one.
    if (kind === 'push-set') checkPushEndpoint(ctx.pushEndpoint ?? null, params ?? json, violation);
    return body;
  }
  if (!params) {
    if (restCall) throw violation('the send request body is not a JSON object');
    return body;
  }
  checkMessages(ctx, params, violation);
  return completeConfiguration(ctx, params, violation) ? JSON.stringify(json) : body;
}

/**
 * The call a JSON-RPC body names and its params. Fail closed: only one call, named by a method of
 * the locked version, is checked and sent.
 */
function jsonRpcCall(
  ctx: RequestPlan,
  json: unknown,
  violation: (m: string) => Error,
): { kind: CallKind; params: Record<string, unknown> | undefined } {
  if (Array.isArray(json))
    throw violation(
      'a JSON-RPC batch (an array of calls) is refused: A2A does not use batches, and its calls would go unchecked',
    );
  if (!isRecord(json)) throw violation('the JSON-RPC request body is not an object');
  const m = json.method;
  if (typeof m !== 'string') throw violation('the JSON-RPC request has no "method" string');
  const methods = JSONRPC_METHODS[ctx.iface.protocolVersion];
  if (!methods) throw violation(`no JSON-RPC method table for the locked version ${ctx.iface.protocolVersion}`);
  if (!methods.has(m))
    throw violation(
      `method ${JSON.stringify(m.slice(0, 60))} is not a JSON-RPC method of the locked version ${ctx.iface.protocolVersion} (${[...methods].slice(0, 3).join(', ')}, ...)`,
    );
  const kind = SEND.has(m)
    ? 'send'
    : STREAM.has(m)
      ? 'stream'
      : SUBSCRIBE.has(m)
        ? 'subscribe'
        : PUSH_SET.has(m)
          ? 'push-set'
          : 'other';
  if (json.params !== undefined && !isRecord(json.params)) throw violation(`the params of ${m} are not an object`);
  return { kind, params: json.params };
}

/**
 * The messages of a send: every field a server may read is checked: the 1.0 `message` and the 0.3
 * HTTP+JSON `request` (the 0.3 SDK reads `message`, else `request`), each one's `parts` and 0.3
 * HTTP+JSON `content`, both JSON spellings (`media_type` as well as `mediaType`): only locked
 * extensions and input modes.
 */
function checkMessages(ctx: RequestPlan, params: Record<string, unknown>, violation: (m: string) => Error): void {
  checkMessage(ctx, params.message, violation);
  checkMessage(ctx, params.request, violation);
}

/** One message of a send ({@link checkMessages}); anything but an object is not one. */
function checkMessage(ctx: RequestPlan, message: unknown, violation: (m: string) => Error): void {
  if (!isRecord(message)) return;
  if (Array.isArray(message.extensions)) {
    for (const uri of message.extensions) {
      if (typeof uri !== 'string' || !ctx.plan.extensions.includes(uri))
        throw violation(
          `message extension ${JSON.stringify(uri)} is not locked (locked: ${list(ctx.plan.extensions)})`,
        );
    }
  }
  checkParts(ctx, message.parts, violation);
  checkParts(ctx, message.content, violation);
}

/** A message's parts (1.0 `parts`, 0.3 HTTP+JSON `content`): each one's media types among the locked input modes. */
function checkParts(ctx: RequestPlan, parts: unknown, violation: (m: string) => Error): void {
  if (!Array.isArray(parts)) return;
  for (const part of parts) {
    for (const type of partMediaTypes(part, violation)) {
      if (!mediaTypeIn(ctx.inputModes, type))
        throw violation(`a message part of type ${type} is not in the locked input modes (${list(ctx.inputModes)})`);
    }
  }
}

/**
 * The send configuration: a push config only on a push plan and to the locked endpoint (either
 * spelling, `pushNotification` too), only locked accepted output modes; when it lists none, the
 * plan's are filled in (`params` changed in place: true).
 */
function completeConfiguration(
  ctx: RequestPlan,
  params: Record<string, unknown>,
  violation: (m: string) => Error,
): boolean {
  const configuration = isRecord(params.configuration) ? params.configuration : NOTHING_SET;
  for (const k of PUSH_FIELDS) {
    const config = configuration[k];
    if (!config) continue;
    if (ctx.plan.delivery !== 'push')
      throw violation(`a push notification config, but the locked delivery is ${ctx.plan.delivery}`);
    checkPushEndpoint(ctx.pushEndpoint ?? null, config, violation);
  }
  const { acceptedOutputModes: camel, accepted_output_modes: snake } = configuration;
  checkOutputModes(ctx, camel, violation);
  checkOutputModes(ctx, snake, violation);
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
function checkOutputModes(ctx: RequestPlan, modes: unknown, violation: (m: string) => Error): void {
  if (!Array.isArray(modes)) return;
  for (const mode of modes) {
    if (typeof mode !== 'string' || !mediaTypeIn(ctx.plan.acceptedOutputModes, mode))
      throw violation(
        `accepted output mode ${JSON.stringify(mode)} is not locked (locked: ${list(ctx.plan.acceptedOutputModes)})`,
      );
  }
}

/** An object with nothing set: the configuration of a send without one, the file of a part without one. */
const NOTHING_SET: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * A part's media types, by what a server will see: each declared one (`mediaType`/`media_type`,
 * 0.3 `file.mimeType`/`mime_type`), else one per content it may read. The @a2a-js/sdk 1.x server
 * reads a 1.0 part's first SET field (not undefined, not null) of `text`, `raw`, `url`, `data`, and
 * a 0.3 part by its `kind`; so `{text: null, data: {...}}` is data (application/json), and a part
 * whose fields disagree with its kind counts as all of them: text/plain for text, application/json
 * for data, application/octet-stream for bytes, a URL or a file. A part with no content is a violation.
 */
function partMediaTypes(part: unknown, violation: (m: string) => Error): string[] {
  const isSet = (v: unknown) => v !== undefined && v !== null;
  if (!isRecord(part) || !hasContent(part)) {
    throw violation(
      `a message part has no recognisable content (${PART_CONTENT.join(', ')}); with the @a2a-js/sdk 1.3 client a part is {content: {$case: 'text', value}}`,
    );
  }
  const file = isRecord(part.file) ? part.file : NOTHING_SET;
  const declared: string[] = [];
  for (const t of [part.mediaType, part.media_type, file.mimeType, file.mime_type])
    if (typeof t === 'string' && t !== '') declared.push(t);
  if (declared.length > 0) return declared;
  const read: string[] = [];
  if (isSet(part.text) || part.kind === 'text') read.push('text/plain');
  if (isSet(part.data) || part.kind === 'data') read.push('application/json');
  if (isSet(part.raw) || isSet(part.url) || isSet(part.file) || part.kind === 'file')
    read.push('application/octet-stream');
  return read;
}

function list(values: readonly string[]): string {
  return values.length ? values.join(', ') : 'none';
}

/** A URL for messages: origin and path only (a query may carry a credential). */
function redact(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** Why a URL whose origin and path match the locked one is still not it (never echoing userinfo), else ''. */
function urlDifference(url: URL, base: URL, prefix: boolean): string {
  const basePath = base.pathname.replace(/\/+$/, '');
  const samePath =
    url.pathname === base.pathname ||
    (prefix && (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`)));
  if (url.origin !== base.origin || !samePath) return '';
  const reasons: string[] = [];
  if (url.username || url.password) reasons.push('has userinfo (credentials in the URL)');
  if (!prefix && url.search !== base.search)
    reasons.push(url.search ? 'has a query string' : 'lacks the locked query string');
  if (!prefix && url.hash !== base.hash) reasons.push(url.hash ? 'has a fragment' : 'lacks the locked fragment');
  return reasons.length ? `: it ${reasons.join(' and ')}` : '';
}

/**
 * A failure of the underlying fetch as a FetchError naming `shown` (origin and path only):
 * `timeout` for a timeout signal or an undici/socket timeout, else `unreachable` with the most
 * specific error code (ECONNREFUSED, ...), with `data.agent` and `data.skill`. The caller's own
 * abort and a2a-lock errors pass through.
 */
function sendError(error: unknown, shown: string, data: { agent: string; skill: string }): unknown {
  if (isA2aLockError(error) || (error instanceof Error && error.name === 'AbortError')) return error;
  const code = errorCode(error);
  if (
    (error instanceof Error && error.name === 'TimeoutError') ||
    (code && (UNDICI_TIMEOUTS.has(code) || code === 'ETIMEDOUT'))
  )
    return new FetchError('timeout', shown, `no answer in time${code ? ` (${code})` : ''}`, { cause: error, data });
  return new FetchError(
    'unreachable',
    shown,
    `network error (${code ?? (error instanceof Error ? error.name : typeof error)})`,
    { cause: error, data },
  );
}
