/**
 * The plan-enforcing `fetch`: every request to a locked agent is checked against its locked plan
 * and completed from it (A2A-Version, the extensions header, the credential, acceptedOutputModes)
 * before a byte is sent; anything off-plan is a PlanViolationError. The check itself is the pure
 * `runtime/request-check.ts`; this file reads the request, places the credential and sends.
 *
 * Spec: A2A 1.0 §3.6 (A2A-Version), §4.6 (A2A-Extensions; 0.3 X-A2A-Extensions), §3.2.2
 * (acceptedOutputModes), §3.1.2 (streaming), §3.1.7 (push), §9 JSON-RPC and §11 HTTP+JSON method
 * names (and their 0.3 spellings).
 */
import { applyCredentials, type CredentialPlacement } from '../credentials.js';
import { FetchError, isA2aLockError } from '../errors.js';
import { errorCode, UNDICI_TIMEOUTS } from '../http/errors.js';
import type { FallbackInterface } from '../negotiate/types.js';
import { placementSecrets, redactError } from '../redact.js';
import { bindingViolation, type CheckedRequest, checkPrepared, pathBelow } from './request-check.js';
import { type PreparedPlan, prepare, type RequestPlan, redact } from './request-plan.js';

/** What one enforcing fetch is bound to: the plan it checks against, and how it places credentials and sends. */
export interface EnforcementContext extends RequestPlan {
  /** The credential placements for the locked security requirement, read at request time for a request to `iface`. */
  placements: (iface: FallbackInterface) => Promise<CredentialPlacement[]>;
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

/**
 * A fetch-compatible function enforcing `ctx` (see the module comment): each request is checked
 * (`checkRequest`, runtime/request-check.ts), its credential placed, and sent. Bodies must be JSON text (a string,
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
    const { violation } = ctx;
    // A Location that is not a URL (`http://[::1`, a port above 65535) is off the plan like any other; not quoted.
    const location = response.headers.get('location')!;
    await response.body?.cancel();
    if (!URL.canParse(location, target))
      throw violation('redirect to a Location that is not a URL refused: not the locked interface');
    const next = new URL(location, target);
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
