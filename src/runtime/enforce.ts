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
import { hasMediaType, mediaTypeKeys } from '../card/media.js';
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

/** What the pure request check ({@link checkRequest}) needs of an {@link EnforcementContext}. */
type RequestPlan = Pick<EnforcementContext, 'agent' | 'skill' | 'plan' | 'iface' | 'inputModes' | 'pushEndpoint'>;

/** One request to check, as a fetch call gives it. */
interface OutgoingRequest {
  /** The request URL as given (absolute). */
  url: string;
  /** The method, upper case. */
  method: string;
  /**
   * The headers as a plain record, names in any case. A protocol header (A2A-Version, the
   * extensions header) given under several spellings counts as one, its values joined with ", ".
   */
  headers: Record<string, string>;
  /** The body: JSON text, as a string or bytes (undefined or null: none; anything else is refused). */
  body?: unknown;
}

/** A request the plan allows, completed from it. */
interface CheckedRequest {
  /** The path below the interface URL (HTTP+JSON), '' for the exact URL: a redirect must keep it. */
  path: string;
  /** The headers to send before the credential is placed: A2A-Version and the extensions header the plan's, the rest as given (names as given). */
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
 * @internal
 */
export function checkRequest(ctx: RequestPlan, request: OutgoingRequest): CheckedRequest {
  const refused = bindingViolation(ctx);
  if (refused) throw refused;
  return checkPrepared(prepare(ctx), request);
}

/** A {@link RequestPlan} with what the check of every request reads of it made once ({@link prepare}). */
interface PreparedPlan extends RequestPlan {
  /** The comparison keys of the locked input modes ({@link mediaTypeKeys}). */
  inputModeKeys: ReadonlySet<string>;
  /** The comparison keys of the plan's accepted output modes. */
  outputModeKeys: ReadonlySet<string>;
  /** A PlanViolationError of this agent and skill with `message`. */
  violation: (message: string) => PlanViolationError;
}

/** `ctx` prepared for checking requests: once per enforcing fetch, not per request. */
function prepare<C extends RequestPlan>(ctx: C): C & PreparedPlan {
  return {
    ...ctx,
    inputModeKeys: mediaTypeKeys(ctx.inputModes),
    outputModeKeys: mediaTypeKeys(ctx.plan.acceptedOutputModes),
    violation: (message) => new PlanViolationError(ctx.agent, ctx.skill, message),
  };
}

/** {@link checkRequest} on a prepared plan whose binding is carried over fetch. */
function checkPrepared(ctx: PreparedPlan, request: OutgoingRequest): CheckedRequest {
  const { violation } = ctx;
  const path = checkUrl(ctx.iface, request.url, violation);
  let body = bodyText(request.body, violation);
  const headers = checkHeaders(ctx, request.headers);
  const kind = ctx.iface.protocolBinding === 'HTTP+JSON' ? restKind(path, request.method, violation) : undefined;
  if (body !== undefined) body = checkBody(ctx, kind, body);
  else if (kind) checkKind(ctx, kind);
  // A JSON-RPC call is named by its body: without one there is nothing to check, so nothing is sent.
  else throw violation(`a JSON-RPC request without a body (${request.method}) is not a call this plan can check`);
  return { path, headers, body };
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

/**
 * Check the request's protocol headers and make the headers to send. A2A-Version: the locked
 * Major.Minor (a conflicting value is a violation); the extensions header under either name: only
 * locked extensions. Sent: the locked A2A-Version, the locked extensions under the one header name
 * of the locked version, then the request's other headers as given.
 */
function checkHeaders(ctx: PreparedPlan, headers: Record<string, string>): Record<string, string> {
  const version = ctx.iface.protocolVersion;
  const planned: Record<string, string> = { 'a2a-version': version };
  if (ctx.plan.extensions.length > 0)
    planned[version.startsWith('0.') ? 'x-a2a-extensions' : 'a2a-extensions'] = ctx.plan.extensions.join(', ');
  let asked: string | undefined;
  let extensions: string | undefined;
  let legacyExtensions: string | undefined;
  const names = Object.keys(headers);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const value = headers[name]!;
    // Assigned, an own `__proto__` key (JSON.parse and spreads make one) would set the prototype of the headers to send.
    if (name === '__proto__') throw ctx.violation('a header named "__proto__" is refused');
    const protocol = protocolHeader(name);
    if (protocol === undefined) planned[name] = String(value);
    else if (protocol === 'a2a-version') asked = joined(asked, value);
    else if (protocol === 'a2a-extensions') extensions = joined(extensions, value);
    else legacyExtensions = joined(legacyExtensions, value);
  }
  if (asked !== undefined) {
    const given = asked.trim();
    if (given !== version && !given.startsWith(`${version}.`))
      throw ctx.violation(`A2A-Version ${JSON.stringify(asked.slice(0, 20))} conflicts with the locked ${version}`);
  }
  checkExtensionsHeader(ctx, extensions);
  checkExtensionsHeader(ctx, legacyExtensions);
  return planned;
}

/** Which protocol header `name` is, in any case, else undefined: only a name of one of their lengths is lower-cased. */
function protocolHeader(name: string): 'a2a-version' | 'a2a-extensions' | 'x-a2a-extensions' | undefined {
  if (name.length !== 11 && name.length !== 14 && name.length !== 16) return undefined;
  const lower = name.toLowerCase();
  return lower === 'a2a-version' || lower === 'a2a-extensions' || lower === 'x-a2a-extensions' ? lower : undefined;
}

/** A header's values so far and one more, joined with ", " as `Headers` joins a repeated name. */
function joined(had: string | undefined, value: unknown): string {
  return had === undefined ? String(value) : `${had}, ${String(value)}`;
}

/** An extensions header's value (either name; absent: undefined): only locked extensions. */
function checkExtensionsHeader(ctx: PreparedPlan, listed: string | undefined): void {
  if (listed === undefined) return;
  for (const uri of listed
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (!ctx.plan.extensions.includes(uri))
      throw ctx.violation(`extension ${uri} is not locked (locked: ${list(ctx.plan.extensions)})`);
  }
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
  const prepared = prepare(ctx);
  /** Check and send; `body` is the request's body (a Blob already read). */
  const checkAndSend = (href: string, init: RequestInit | undefined, request: Request | undefined, body: unknown) => {
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const checked = checkPrepared(prepared, {
      url: href,
      method,
      headers: headerRecord(init?.headers ?? request?.headers),
      body,
    });
    return sendChecked(prepared, base, href, checked, init, method, init?.signal ?? request?.signal);
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
  ctx: EnforcementContext & PreparedPlan,
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
    const { violation } = ctx;
    if (response.status !== 307 && response.status !== 308)
      throw violation(`the agent answered ${response.status} (a redirect that changes the method), refused`);
    if (pathBelow(ctx.iface, base, next) !== checked.path)
      throw violation(`redirect to ${redact(next)} refused: not the locked interface`);
    if (hops + 1 >= MAX_REDIRECTS) throw violation(`more than ${MAX_REDIRECTS} redirects`);
    target = next.href;
  }
}

/**
 * Request headers as a plain record ({@link OutgoingRequest.headers}): a plain record (what the SDK
 * passes) as it is, not copied; `Headers`, pairs or another iterable as a record of lower-case names
 * (repeated names joined with ", ", as `Headers` does).
 */
function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  if (!init) return {};
  // A plain record before `Headers`: Node's web globals are getters, run on each use (docs/explanation/performance.md).
  const proto = Object.getPrototypeOf(init);
  if (proto === Object.prototype || proto === null) return init as Record<string, string>;
  // No prototype: a `__proto__` name is kept as a header, for checkHeaders to refuse.
  const out: Record<string, string> = Object.create(null);
  if (Array.isArray(init)) for (const [name, value] of init) addHeader(out, name!, value!);
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
 * An HTTP+JSON call named by its path below the interface URL, as the SDK's Express routes match
 * it: case-insensitive, percent-decoded, repeated and trailing slashes ignored, under an optional
 * tenant or the 0.3 `/v1` prefix. The method matters only on a push config route: GET and DELETE
 * read or remove configs (JSON-RPC Get/List/DeleteTaskPushNotificationConfig, allowed on any plan),
 * any other method sets one. A path that names a send, stream, subscribe or push route in a form
 * not recognised here is a violation (fail closed).
 */
function restKind(rel: string, method: string, violation: (m: string) => Error): CallKind {
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

function checkKind(ctx: PreparedPlan, kind: CallKind): void {
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
function checkBody(ctx: PreparedPlan, restCall: CallKind | undefined, body: string): string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw ctx.violation('the request body is not JSON');
  }
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
