/**
 * The I/O edge: fetch one A2A Agent Card (or any JSON document, {@link requestJson}) over
 * HTTP(S) with undici.
 *
 * Everything here is about getting bytes safely: URL policy (https, loopback http), redirects
 * (followed by hand so every hop is checked, or refused when the request carries credentials),
 * status codes, a total deadline, a body size limit, content type, and JSON parsing. Nothing here
 * validates the card's shape; that is the card parser's job. Every failure is a
 * {@link FetchError}, an {@link InvalidInputError} or (bad caller input) a {@link UsageError}.
 *
 * No caching of any kind: undici's `request` has no HTTP cache unless a cache interceptor is
 * installed, and none is, so every call sees the card as served now.
 */

import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
// undici's package root loads all of undici (fetch, WebSocket, caches, mocks, interceptors): ~45 ms
// of every networked CLI run (BENCHMARKS.md). The fetcher imports the four modules it uses by
// path (types in src/types/undici-parts.d.ts) and does the one thing the root does on load that
// they need: give dispatchers their request/connect/... methods (the proxy agent tunnels through
// `connect`). undici is pinned to an exact version; a moved module fails the build and the tests.
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import dispatcherApi from 'undici/lib/api/index.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';

Object.assign(DispatcherClass.prototype, dispatcherApi);
import { FetchError, InvalidInputError, UsageError } from '../errors.js';
import { CARD_PATH, LEGACY_CARD_PATH } from '../card/location.js';
import type { Warning } from '../card/model.js';
import { errorCode, UNDICI_TIMEOUTS } from './errors.js';

/** Version sent in `User-Agent`. Kept in step with package.json by hand (no JSON import: `dist` has no package.json beside it). */
const USER_AGENT = 'a2a-lock/0.1.0';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 1_048_576;
const MAX_REDIRECTS = 5;
/** How much of a redirect or error body we read to keep the socket reusable before giving up on it. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Statuses worth asking again after a pause (overload, a restarting server, a gateway hiccup). */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const DEFAULT_RETRIES = 2;
/** First backoff pause; doubled on every further retry (250, 500, 1000 ms ...). */
const RETRY_BASE_MS = 250;
/** A server's `Retry-After` is honoured up to this many ms. */
const MAX_RETRY_AFTER_MS = 5_000;

/**
 * How every request of a run goes out: the one network options type, taken by the card fetcher,
 * the JWKS and extended-card requests, `resolve/` and the library's `verifyLockfile`.
 */
export interface NetworkOptions {
  /** Total deadline per card (or other document) in ms, covering redirects, headers and body. Default 10_000. */
  timeoutMs?: number;
  /** Allow plain http: to non-loopback hosts. Default false. Loopback (127.0.0.0/8, ::1, localhost) is always allowed. */
  allowHttp?: boolean;
  /**
   * How many times a GET answered 429, 500, 502, 503 or 504 is asked again. Default 2. Each retry
   * waits the server's `Retry-After` (seconds or an HTTP date, at most 5 000 ms) or else a backoff
   * of 250 ms doubled per retry; a retry whose wait would end past the deadline is not made (the
   * status error is thrown at once). POST requests are never retried.
   */
  retries?: number;
  /** undici Dispatcher; default: the shared module-level keep-alive `Agent` from {@link getDefaultDispatcher}. */
  dispatcher?: Dispatcher;
  /**
   * How many requests the caller keeps in flight. Without `dispatcher`, the per-origin connection
   * cap of the shared `Agent` (default {@link DEFAULT_CONNECTIONS} here; `resolve/` passes its own default).
   */
  concurrency?: number;
}

/** The {@link NetworkOptions} members of `options` that are set (the rest of it left behind). */
export function networkOptionsOf(options: NetworkOptions): NetworkOptions {
  const { timeoutMs, allowHttp, retries, dispatcher, concurrency } = options;
  return {
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(allowHttp !== undefined ? { allowHttp } : {}),
    ...(retries !== undefined ? { retries } : {}),
    ...(dispatcher !== undefined ? { dispatcher } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
  };
}

/** Options for {@link fetchCard}. */
export interface FetchCardOptions extends NetworkOptions {
  /** Sent as the `A2A-Version` header on every card request (always sent). */
  versionHeader: string;
  /** Body limit in bytes; stop reading (destroy the stream) once exceeded. Default 1 MiB (1_048_576). */
  maxBytes?: number;
}

/** A card as fetched: where it came from and its parsed (unvalidated) JSON. */
export interface FetchedCard {
  /** The URL that answered with the card (after redirects and the legacy-path fallback). */
  url: string;
  /** Parsed JSON body (not validated as a card here). Always a non-array object. */
  body: unknown;
  warnings: Warning[];
}

/** Per-origin connection cap of the shared dispatcher when the caller names none. */
export const DEFAULT_CONNECTIONS = 8;

/** The shared keep-alive dispatchers, by per-origin connection cap (a run uses one). */
const defaultDispatchers = new Map<number, Dispatcher>();

const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'];

/**
 * The shared keep-alive undici dispatcher used when {@link FetchCardOptions.dispatcher} is not
 * given, with at most `connections` connections per origin. Created on first use.
 *
 * The cap should equal the caller's concurrency (the engine passes `--concurrency`): below it,
 * requests to one host queue (32 agents on one host at concurrency 32 would run 8 at a time);
 * without one, undici opens a fresh socket for a request dispatched in the instant a finished
 * one's socket is not yet free, so a run at concurrency 12 ends up with twice as many sockets.
 * At the cap, sockets are kept alive and reused across cards. Idle sockets are unref'd by undici
 * and do not keep the process alive. When `HTTPS_PROXY` or `HTTP_PROXY` (or their lower-case
 * forms) is set at creation, it is undici's `EnvHttpProxyAgent`: requests go through the proxy
 * (an HTTP CONNECT tunnel) except to hosts that `NO_PROXY` lists.
 */
export function getDefaultDispatcher(connections = DEFAULT_CONNECTIONS): Dispatcher {
  let dispatcher = defaultDispatchers.get(connections);
  if (!dispatcher) {
    const options = { connections, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 };
    dispatcher = proxyConfigured() ? new EnvHttpProxyAgent(options) : new Agent(options);
    defaultDispatchers.set(connections, dispatcher);
  }
  return dispatcher;
}

/**
 * Whether a proxy variable is set (`HTTPS_PROXY`, `HTTP_PROXY`, either case).
 * @throws UsageError when one is set but is not an http(s) URL (named; the value, which may hold a
 *   password, is not echoed)
 */
function proxyConfigured(): boolean {
  let set = false;
  for (const name of PROXY_VARIABLES) {
    const value = process.env[name];
    if (!value) continue;
    set = true;
    let protocol: string | undefined;
    try {
      protocol = new URL(value).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'http:' && protocol !== 'https:') throw new UsageError(`${name} is set but is not an http:// or https:// proxy URL`);
  }
  return set;
}

/**
 * Close the shared dispatchers (those created) and forget them; the next fetch creates a new one.
 * For tests and for a CLI that wants to exit promptly: requests still in flight are aborted (a
 * proxy that never answered a CONNECT would otherwise hold a graceful close for minutes).
 */
export async function closeDefaultDispatcher(): Promise<void> {
  const agents = [...defaultDispatchers.values()];
  defaultDispatchers.clear();
  await Promise.all(agents.map((agent) => agent.destroy()));
}

/**
 * The card URL(s) that would be tried for a location, in order. Pure; does no I/O and does not
 * apply the plain-http policy (that needs `allowHttp`; {@link fetchCard} checks it).
 *
 * If the location's path ends in `.json` it is the card itself (one URL). Otherwise the path
 * (trailing slashes stripped) gets `/.well-known/agent-card.json` appended, followed by the legacy
 * `/.well-known/agent.json`. The query string is kept; the fragment is dropped.
 *
 * @param location An absolute `http:` or `https:` URL.
 * @returns One or two absolute URLs.
 * @throws {InvalidInputError} `insecure-url` if `location` is not an absolute http(s) URL or
 *   carries credentials (`user:pass@`).
 */
export function cardUrlsFor(location: string): string[] {
  const url = parseLocation(location);
  url.hash = '';
  if (url.pathname.endsWith('.json')) return [url.href];
  const base = url.pathname.replace(/\/+$/, '');
  const primary = new URL(url.href);
  primary.pathname = base + CARD_PATH;
  const legacy = new URL(url.href);
  legacy.pathname = base + LEGACY_CARD_PATH;
  return [primary.href, legacy.href];
}

/**
 * Fetch an Agent Card and parse its JSON.
 *
 * Sends only `A2A-Version`, `Accept: application/json` and `User-Agent` (never Authorization or
 * cookies), follows up to 5 redirects itself (checking the URL policy on every hop), and falls
 * back to the legacy `/.well-known/agent.json` only when `/.well-known/agent-card.json` answers
 * 404, adding a `legacy-well-known-path` warning. The whole call, fallback included, runs under
 * one deadline of `timeoutMs` milliseconds.
 *
 * @param location An http(s) URL: the card itself if its path ends in `.json`, else the agent's base URL.
 * @param options See {@link FetchCardOptions}.
 * @returns The final URL, the parsed JSON object and any warnings.
 * @throws {InvalidInputError} `insecure-url`: not an http(s) URL, credentials in the URL, plain
 *   http to a non-loopback host without `allowHttp` (refused before connecting), or an https→http
 *   redirect. `card-invalid`: body over `maxBytes`, a non-JSON content type, empty body, invalid
 *   UTF-8 or JSON, or JSON that is not an object.
 * @throws {FetchError} `auth-refused` on 401/403; `unreachable` on 404 (after the legacy fallback),
 *   other 4xx/5xx (429/500/502/503/504 once `retries` are spent), too many redirects, or a network error (DNS, refused, reset, TLS, socket closed
 *   mid-body); `timeout` when the deadline passes anywhere (connect, headers, body).
 *   If the legacy URL fails with anything but 404, that error is thrown; if both 404, the error
 *   names the primary URL.
 */
export async function fetchCard(location: string, options: FetchCardOptions): Promise<FetchedCard> {
  const urls = cardUrlsFor(location);
  const ctx = makeCtx(options, {
    versionHeader: options.versionHeader,
    method: 'GET',
    body: undefined,
    headers: {},
    followRedirects: true,
    acceptErrorStatus: new Set(),
    subject: 'card',
    redactQuery: new Set(),
  });
  // Refuse plain http before any connection, for every candidate URL.
  for (const u of urls) checkUrlPolicy(new URL(u), u, ctx.allowHttp, undefined, ctx);

  return withDeadline(ctx, async () => {
    const [primary, legacy] = urls as [string, string | undefined];
    try {
      const { url, body } = await exchange(new URL(primary), ctx);
      return { url, body, warnings: [] };
    } catch (error) {
      if (legacy === undefined || !isNotFound(error)) throw error;
      try {
        const { url, body } = await exchange(new URL(legacy), ctx);
        const warning: Warning = {
          code: 'legacy-well-known-path',
          message: `card served at the legacy ${LEGACY_CARD_PATH}; A2A expects ${CARD_PATH} (${primary} answered 404)`,
        };
        return { url, body, warnings: [warning] };
      } catch (legacyError) {
        throw isNotFound(legacyError) ? error : legacyError;
      }
    }
  });
}

/** Options for {@link requestJson}: {@link FetchCardOptions} plus the request itself. */
export interface RequestJsonOptions extends Omit<FetchCardOptions, 'versionHeader'> {
  /** Sent as the `A2A-Version` header when given (A2A 1.0 §3.2.6; notes §5). Omitted otherwise. */
  versionHeader?: string;
  /** Default `GET`. */
  method?: 'GET' | 'POST';
  /** JSON-encoded request body, sent with `Content-Type: application/json`. Only with `POST`. */
  body?: unknown;
  /**
   * Extra request headers (credentials, typically from `applyCredentials`). Merged
   * case-insensitively over the defaults (`Accept: application/json`, `User-Agent`, `A2A-Version`).
   * Names must be HTTP tokens and values must not contain control characters (else
   * {@link UsageError}, naming the header but never its value). Values never appear in errors.
   */
  headers?: Record<string, string>;
  /**
   * Follow redirects (up to 5, each hop checked against the URL policy). Default `true`; pass
   * `false` whenever `headers` or the URL carry credentials: a redirect is then refused with
   * {@link FetchError} `unreachable`, so credentials never follow a redirect to another URL.
   * When followed, 301/302/303 turn a POST into a body-less GET (as browsers do); 307/308 keep
   * the method and body.
   */
  followRedirects?: boolean;
  /**
   * Query parameter names whose values are secrets (an `apiKey` placed `in: query`). Their values
   * are shown as `***` in every URL this function reports: error messages and {@link JsonResponse.url}.
   */
  redactQueryParams?: string[];
  /** Noun for error messages ("no <subject> within 10000 ms"). Default `"response"`. */
  subject?: string;
}

/** A JSON answer from {@link requestJson}. */
export interface JsonResponse {
  /** The URL that answered (after any redirects), with `redactQueryParams` values shown as `***`. */
  url: string;
  /** HTTP status: 2xx, or one of `acceptErrorStatus`. */
  status: number;
  /** The parsed body. Always a non-array JSON object. */
  body: unknown;
}

/**
 * Send one HTTP request to an exact URL (no well-known path appended, no legacy fallback) and
 * parse a JSON object answer, under every safety rule of {@link fetchCard}: URL policy, one
 * total deadline (`timeoutMs`, default 10 000 ms), body limit (`maxBytes`, default 1 MiB),
 * JSON content type, UTF-8, and a JSON object body.
 *
 * Non-2xx statuses listed in `acceptErrorStatus` are returned like 2xx ones, so a caller can read
 * a JSON-RPC or REST (google.rpc.Status) error body; if such a body is not a JSON object (an HTML
 * error page, say) the status is mapped as if it were not listed. Other statuses map as in
 * {@link fetchCard}.
 *
 * @param url Absolute http(s) URL, used as-is (fragment dropped).
 * @param options See {@link RequestJsonOptions}; `acceptErrorStatus` lists non-2xx statuses to return.
 * @returns The answering URL, its status and parsed JSON object body.
 * @throws {UsageError} a body with `GET`, a body that cannot be JSON-encoded, or an invalid header name/value.
 * @throws {InvalidInputError} `insecure-url` as in {@link fetchCard}; `card-invalid` for a bad body
 *   (over `maxBytes`, non-JSON content type, empty, invalid UTF-8/JSON, not an object).
 * @throws {FetchError} `auth-refused` on 401/403 (unless accepted); `unreachable` on 404 and other
 *   non-2xx statuses, a redirect when `followRedirects` is false, too many redirects, or a
 *   network error; `timeout` when the deadline passes.
 */
export async function requestJson(url: string, options: RequestJsonOptions & { acceptErrorStatus?: number[] }): Promise<JsonResponse> {
  const method = options.method ?? 'GET';
  const ctx = makeCtx(options, {
    versionHeader: options.versionHeader,
    method,
    body: undefined,
    headers: {},
    followRedirects: options.followRedirects ?? true,
    acceptErrorStatus: new Set(options.acceptErrorStatus ?? []),
    subject: options.subject ?? 'response',
    redactQuery: new Set(options.redactQueryParams ?? []),
  });
  const start = parseLocation(url, ctx);
  start.hash = '';
  ctx.headers = checkHeaders(options.headers ?? {});
  if (options.body !== undefined) {
    if (method !== 'POST') throw new UsageError(`a request body needs POST, not ${method} (${show(start, ctx)})`);
    let text: string | undefined;
    try {
      text = JSON.stringify(options.body);
    } catch {
      text = undefined;
    }
    if (typeof text !== 'string') throw new UsageError(`request body for ${show(start, ctx)} cannot be encoded as JSON`);
    ctx.body = text;
  }
  checkUrlPolicy(start, show(start, ctx), ctx.allowHttp, undefined, ctx);
  return withDeadline(ctx, () => exchange(start, ctx));
}

// ---------------------------------------------------------------------------------------------

interface Ctx {
  versionHeader: string | undefined;
  timeoutMs: number;
  maxBytes: number;
  allowHttp: boolean;
  retries: number;
  dispatcher: Dispatcher;
  controller: AbortController;
  /** The URL (as shown) of the request in flight, for the error the deadline settles with. */
  inFlight?: string;
  /** When the deadline passes (`performance.now()` ms); set by {@link withDeadline}. */
  deadline: number;
  method: 'GET' | 'POST';
  /** JSON text, or undefined for no body. */
  body: string | undefined;
  /** Extra headers, already validated. */
  headers: Record<string, string>;
  followRedirects: boolean;
  acceptErrorStatus: ReadonlySet<number>;
  /** Noun in error messages: "card", "response", "extended card". */
  subject: string;
  /** Query parameter names whose values are shown as `***`. */
  redactQuery: ReadonlySet<string>;
}

type RequestPart = Pick<Ctx, 'versionHeader' | 'method' | 'body' | 'headers' | 'followRedirects' | 'acceptErrorStatus' | 'subject' | 'redactQuery'>;

function makeCtx(options: Omit<FetchCardOptions, 'versionHeader'>, request: RequestPart): Ctx {
  return {
    ...request,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    allowHttp: options.allowHttp ?? false,
    retries: options.retries ?? DEFAULT_RETRIES,
    dispatcher: options.dispatcher ?? getDefaultDispatcher(options.concurrency),
    controller: new AbortController(),
    deadline: Infinity,
  };
}

/** Run `fn` under the context's single deadline: on expiry the shared signal aborts whatever is in flight. */
async function withDeadline<T>(ctx: Ctx, fn: () => Promise<T>): Promise<T> {
  ctx.deadline = performance.now() + ctx.timeoutMs;
  // The abort reaches undici, but a request waiting on a proxy's CONNECT does not settle on it, so
  // the deadline also settles the call itself: the timeout error comes at the deadline, always.
  let expire!: () => void;
  const expired = new Promise<never>((_, reject) => {
    expire = () => {
      ctx.controller.abort(new DeadlineExceeded());
      reject(networkError(ctx.inFlight ?? 'request', ctx.controller.signal.reason, ctx));
    };
  });
  expired.catch(() => undefined);
  const timer = setTimeout(expire, ctx.timeoutMs);
  try {
    return await Promise.race([fn(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters other than HTAB, which no header value may carry (CR/LF would split headers). */
const HEADER_VALUE_FORBIDDEN = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/** Headers undici or HTTP framing owns; a caller may not set them. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'keep-alive', 'te', 'trailer', 'expect']);

/** Validate extra headers; never echoes a value. */
function checkHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw new UsageError(`invalid HTTP header name "${oneLine(name).slice(0, 64)}"`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new UsageError(`the ${name} header cannot be set by the caller`);
    if (typeof value !== 'string' || HEADER_VALUE_FORBIDDEN.test(value)) {
      throw new UsageError(`the value of the ${name} header contains a line break or control character`);
    }
    out[name] = value;
  }
  return out;
}

/** The abort reason for the deadline; recognised by identity of the signal's state, not by type. */
class DeadlineExceeded extends Error {
  constructor() {
    super('deadline exceeded');
    this.name = 'DeadlineExceeded';
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof FetchError && error.code === 'unreachable' && error.status === 404;
}

/** Parse and check a location. With a `ctx` that redacts query values, an unparseable URL is shown without its query. */
function parseLocation(location: string, ctx?: Ctx): URL {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    const shown = ctx && ctx.redactQuery.size > 0 ? location.replace(/[?#].*$/s, '') : location;
    throw new InvalidInputError('insecure-url', oneLine(shown), 'not an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidInputError('insecure-url', show(url, ctx), `not an http(s) URL (${url.protocol})`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new InvalidInputError('insecure-url', show(url, ctx), `credentials in a ${ctx?.subject ?? 'card'} URL are not allowed`);
  }
  return url;
}

/** True for localhost, 127.0.0.0/8 and ::1 (also `*.localhost` and IPv4-mapped 127.x). */
function isLoopback(url: URL): boolean {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  const v4 = host.startsWith('::ffff:') ? host.slice(7) : host;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * Apply the URL policy to one hop. `from` is the URL that redirected here, if any.
 * @throws {InvalidInputError} insecure-url
 */
function checkUrlPolicy(url: URL, shown: string, allowHttp: boolean, from: URL | undefined, ctx: Ctx): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    // Only reachable through a redirect (locations are checked by parseLocation).
    throw new InvalidInputError('insecure-url', from ? show(from, ctx) : shown, 'redirect to a non-http(s) URL refused');
  }
  if (url.protocol === 'http:') {
    if (from?.protocol === 'https:') {
      throw new InvalidInputError('insecure-url', show(from, ctx), 'redirect from https to plain http refused');
    }
    if (!allowHttp && !isLoopback(url)) {
      throw new InvalidInputError('insecure-url', shown, 'plain http to a non-loopback host is not allowed', {
        hint: 'use https, or pass --allow-http',
      });
    }
  }
}

/**
 * One request, following redirects by hand when allowed. Returns a 2xx (or accepted non-2xx)
 * JSON object answer; maps every other outcome to a typed error.
 */
async function exchange(start: URL, ctx: Ctx): Promise<JsonResponse> {
  let url = start;
  let method = ctx.method;
  let body = ctx.body;
  let retried = 0;
  for (let redirects = 0; ; ) {
    const shown = show(url, ctx);
    ctx.inFlight = shown;
    const response = await send(url, method, body, ctx);
    const { statusCode, headers } = response;

    if (RETRY_STATUSES.has(statusCode) && method === 'GET' && retried < ctx.retries && !ctx.acceptErrorStatus.has(statusCode)) {
      const wait = retryDelayMs(headerValue(headers, 'retry-after'), retried, Date.now());
      if (performance.now() + wait < ctx.deadline) {
        await drain(response.body);
        retried++;
        try {
          await sleep(wait, undefined, { signal: ctx.controller.signal });
        } catch (error) {
          throw networkError(shown, error, ctx);
        }
        continue;
      }
    }

    if (REDIRECT_STATUSES.has(statusCode)) {
      const location = headerValue(headers, 'location');
      await drain(response.body);
      if (!ctx.followRedirects) {
        // Never say where: the Location may carry anything, and we are not going there.
        throw new FetchError('unreachable', shown, `redirect (${statusCode}) refused: credentials are never sent across a redirect`, { status: statusCode });
      }
      if (location === undefined || location.trim() === '') {
        throw new FetchError('unreachable', shown, `redirect (${statusCode}) without a Location header`, { status: statusCode });
      }
      if (redirects >= MAX_REDIRECTS) {
        throw new FetchError('unreachable', shown, `too many redirects (more than ${MAX_REDIRECTS})`, { status: statusCode });
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new FetchError('unreachable', shown, `redirect (${statusCode}) to an invalid URL`, { status: statusCode });
      }
      next.hash = '';
      next.username = '';
      next.password = '';
      checkUrlPolicy(next, show(next, ctx), ctx.allowHttp, url, ctx);
      if (method === 'POST' && statusCode !== 307 && statusCode !== 308) {
        method = 'GET';
        body = undefined;
      }
      url = next;
      redirects++;
      continue;
    }

    if (statusCode >= 200 && statusCode < 300) {
      return { url: shown, status: statusCode, body: await readJson(shown, response, ctx) };
    }

    if (ctx.acceptErrorStatus.has(statusCode)) {
      try {
        return { url: shown, status: statusCode, body: await readJson(shown, response, ctx) };
      } catch (error) {
        // Not a JSON object (an HTML error page, a proxy's text): report the status instead.
        if (!(error instanceof InvalidInputError)) throw error;
      }
    } else {
      await drain(response.body);
    }
    if (statusCode === 401 || statusCode === 403) {
      throw new FetchError('auth-refused', shown, `authentication refused (${statusCode})`, { status: statusCode });
    }
    if (statusCode === 404) {
      throw new FetchError('unreachable', shown, 'not found (404)', { status: statusCode });
    }
    const after = retried ? ` after ${retried} ${retried === 1 ? 'retry' : 'retries'}` : '';
    throw new FetchError('unreachable', shown, `unexpected status ${statusCode}${after}`, { status: statusCode });
  }
}

/**
 * How long to wait before retry number `attempt + 1` (ms): the `Retry-After` header when it is a
 * number of seconds or an HTTP date (relative to `nowMs`, epoch ms), capped at 5 000 ms and never
 * negative; otherwise 250 ms doubled per earlier retry. Pure.
 */
export function retryDelayMs(retryAfter: string | undefined, attempt: number, nowMs: number): number {
  const value = retryAfter?.trim() ?? '';
  let ms: number | undefined;
  if (/^\d+$/.test(value)) ms = Number(value) * 1000;
  else if (/[a-z]/i.test(value) && !Number.isNaN(Date.parse(value))) ms = Date.parse(value) - nowMs;
  if (ms === undefined) return RETRY_BASE_MS * 2 ** attempt;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

async function send(url: URL, method: 'GET' | 'POST', body: string | undefined, ctx: Ctx): Promise<Dispatcher.ResponseData> {
  const shown = show(url, ctx);
  // Defaults first, then the caller's headers replace them case-insensitively.
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': USER_AGENT };
  if (ctx.versionHeader !== undefined) headers['A2A-Version'] = ctx.versionHeader;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  for (const [name, value] of Object.entries(ctx.headers)) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = value;
  }
  try {
    // What undici's root `request(url, options)` does: origin and path from the URL, then its
    // request method called on the dispatcher (any Dispatcher, also one from another undici copy).
    return await dispatcherApi.request.call(ctx.dispatcher, {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method,
      signal: ctx.controller.signal,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
  } catch (error) {
    throw networkError(shown, error, ctx);
  }
}

/** Read, check and parse a JSON object body. Destroys the stream on any early exit. */
async function readJson(shown: string, response: Dispatcher.ResponseData, ctx: Ctx): Promise<unknown> {
  const { headers, body } = response;

  const contentType = headerValue(headers, 'content-type');
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType !== '' && mediaType !== 'application/json' && !/^application\/[a-z0-9!#$&^_.+-]+\+json$/.test(mediaType)) {
    discard(body);
    // Show the media type only when it is a plain type/subtype token (never an arbitrary header value).
    const what = /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/.test(mediaType) ? mediaType : 'a non-JSON content type';
    throw new InvalidInputError('card-invalid', shown, `served ${what}, not JSON`);
  }

  const tooLarge = (): InvalidInputError => new InvalidInputError('card-invalid', shown, `${ctx.subject} larger than ${ctx.maxBytes} bytes`);
  const declared = Number(headerValue(headers, 'content-length'));
  if (Number.isFinite(declared) && declared > ctx.maxBytes) {
    discard(body);
    throw tooLarge();
  }

  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > ctx.maxBytes) {
        discard(body);
        throw tooLarge();
      }
      chunks.push(chunk);
    }
  } catch (error) {
    discard(body);
    if (error instanceof InvalidInputError) throw error;
    throw networkError(shown, error, ctx);
  }
  // undici hands a kept-alive socket back to its pool one event-loop turn after the response
  // (setImmediate). Decoding, parsing and the caller's checks run after that turn: run in the
  // poll phase that read the body, the CPU work of a whole batch of cards would finish before any
  // socket is free, and every next request would leave in one burst after it (each wave of a
  // verify then took 50 ms plus the batch's CPU, instead of overlapping them).
  await nextTurn();

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, total));
  } catch {
    throw new InvalidInputError('card-invalid', shown, 'body is not valid UTF-8');
  }
  if (text.trim() === '') throw new InvalidInputError('card-invalid', shown, 'empty body, not JSON');

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // V8 quotes the body around the error (`Unexpected token 'o', "{"x": …" is not valid JSON`):
    // a server may echo a credential there, so only the description is kept.
    const reason = error instanceof Error ? oneLine(error.message.replace(/, ".*" is not valid JSON$/s, '')).slice(0, 120) : 'parse error';
    throw new InvalidInputError('card-invalid', shown, `invalid JSON (${reason})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidInputError('card-invalid', shown, `${ctx.subject} is not a JSON object`);
  }
  return parsed;
}

/** Stop reading a body now: destroy the stream (undici then drops the socket) without an unhandled 'error'. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Read a little of an unwanted body so the keep-alive socket can be reused; never throws. */
async function drain(body: Dispatcher.ResponseData['body']): Promise<void> {
  try {
    await body.dump({ limit: DRAIN_LIMIT_BYTES });
  } catch {
    // Aborted or reset: the socket is gone anyway. The status we already have is the answer.
  }
}

const NETWORK_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'response body truncated',
  UND_ERR_ABORTED: 'request aborted',
  UND_ERR_INFO: 'protocol error',
  HPE_INVALID_CONSTANT: 'invalid HTTP response',
};

/** Map anything thrown by undici (or the abort) to a FetchError. Never copies header values. */
function networkError(shown: string, error: unknown, ctx: Ctx): FetchError {
  const code = errorCode(error);
  if (ctx.controller.signal.aborted || error instanceof DeadlineExceeded || (code !== undefined && UNDICI_TIMEOUTS.has(code))) {
    return new FetchError('timeout', shown, `no ${ctx.subject} within ${ctx.timeoutMs} ms`, { cause: error, ...proxyHint(ctx) });
  }
  if (code === undefined) {
    const name = error instanceof Error ? error.name : typeof error;
    return new FetchError('unreachable', shown, `network error (${oneLine(name)})`, { cause: error });
  }
  // undici's proxy agent reports a refused CONNECT as an abort naming the proxy's status.
  const tunnel = code === 'UND_ERR_ABORTED' && error instanceof Error ? /^Proxy response \((\d{3})\)/.exec(error.message) : null;
  if (tunnel) {
    const hint =
      tunnel[1] === '407'
        ? 'the proxy wants credentials: give them in the proxy URL (http://user:password@host:port), or list this host in NO_PROXY'
        : 'check the proxy, or list this host in NO_PROXY';
    return new FetchError('unreachable', shown, `the proxy refused the tunnel (HTTP ${tunnel[1]})`, { cause: error, hint });
  }
  if (code === 'EMFILE' || code === 'ENFILE') {
    return new FetchError('unreachable', shown, `too many open files (${code})`, {
      cause: error,
      hint: 'each agent in flight holds a connection: lower --concurrency, or raise the open-file limit (ulimit -n)',
    });
  }
  const known = NETWORK_MESSAGES[code];
  const isTls = /CERT|TLS|SSL|EPROTO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code);
  const what = known ?? (isTls ? 'TLS error' : code.startsWith('HPE_') ? 'invalid HTTP response' : 'network error');
  return new FetchError('unreachable', shown, `${what} (${oneLine(code)})`, { cause: error, ...proxyHint(ctx) });
}

/** When the request went through the shared proxy-aware dispatcher, say so: the proxy may be at fault. */
function proxyHint(ctx: Ctx): { hint?: string } {
  if (!(ctx.dispatcher instanceof EnvHttpProxyAgent)) return {};
  const names = PROXY_VARIABLES.filter((name) => process.env[name]).join(', ');
  return { hint: `a proxy is set (${names}); check that it is reachable, or list this host in NO_PROXY` };
}


function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The URL without userinfo or fragment, secret query values as `***`: safe to print. */
function show(url: URL, ctx: Ctx | undefined): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  copy.hash = '';
  if (ctx && ctx.redactQuery.size > 0 && copy.search !== '') {
    const kept = new URLSearchParams();
    for (const [name, value] of copy.searchParams) kept.append(name, ctx.redactQuery.has(name) ? '***' : value);
    copy.search = kept.toString(); // '*' needs no escaping in application/x-www-form-urlencoded
  }
  return copy.href;
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ').trim();
}
