/**
 * The I/O edge: send one HTTP(S) request and read its JSON object answer ({@link requestJson});
 * the card fetcher (`./card.js`) and the JWKS and extended-card requests are built on it.
 *
 * Everything in `http/` is about getting bytes safely: URL policy (https, loopback http;
 * `./url-policy.js`), redirects (followed by hand here so every hop is checked, or refused when
 * the request carries credentials), status codes and retries, a total deadline, a body size
 * limit, content type, and JSON parsing (`./body.js`). Nothing here validates the card's shape;
 * that is the card parser's job. Every failure is a {@link FetchError}, an
 * {@link InvalidInputError} or (bad caller input) a {@link UsageError}.
 *
 * No caching of any kind: undici's `request` has no HTTP cache unless a cache interceptor is
 * installed, and none is, so every call sees the card as served now.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { describeOriginAuth, HTTP_TOKEN, hasControlCharacter, originAuthExample } from '../credentials.js';
import { FetchError, InvalidInputError, UsageError } from '../errors.js';
import type { OriginAuth } from '../manifest/schema.js';
import { packageVersion } from '../version.js';
import { type BodyRequest, drain, headerValue, readJson } from './body.js';
import { getDefaultDispatcher, proxyHint, requestThrough } from './dispatcher.js';
import { DeadlineExceeded, networkError } from './errors.js';
import type { OriginAuthenticator } from './network-options.js';
import { DEFAULT_TIMEOUT_MS, type NetworkOptions } from './network-options.js';
import { redactUrl, refuseEchoedUrl, urlQuotesSecret } from './url-echo.js';
import { checkUrlPolicy, oneLine, parseLocation, printableUrl, type UrlReporting } from './url-policy.js';

export { type NetworkOptions, networkOptionsOf } from './network-options.js';

let userAgent: string | undefined;
/** `User-Agent`: this package and its version ({@link packageVersion}, the one source). */
function userAgentHeader(): string {
  userAgent ??= `a2a-lock/${packageVersion()}`;
  return userAgent;
}

const DEFAULT_MAX_BYTES = 1_048_576;
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Statuses worth asking again after a pause (overload, a restarting server, a gateway hiccup). */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const DEFAULT_RETRIES = 2;
/** First backoff pause; doubled on every further retry (250, 500, 1000 ms ...). */
const RETRY_BASE_MS = 250;
/** A server's `Retry-After` is honoured up to this many ms. */
const MAX_RETRY_AFTER_MS = 5_000;

/** Options for {@link requestJson}: the network options and body limit, plus the request itself. */
export interface RequestJsonOptions extends NetworkOptions {
  /** Sent as the `A2A-Version` header when given (A2A 1.0 §3.2.6; notes §5). Omitted otherwise. */
  versionHeader?: string;
  /** Body limit in bytes; stop reading (destroy the stream) once exceeded. Default 1 MiB (1_048_576). */
  maxBytes?: number;
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
 * parse a JSON object answer, under every safety rule of the card fetcher (`fetchCard`): URL
 * policy, one total deadline (`timeoutMs`, default 10 000 ms), body limit (`maxBytes`, default
 * 1 MiB), JSON content type, UTF-8, and a JSON object body.
 *
 * Non-2xx statuses listed in `acceptErrorStatus` are returned like 2xx ones, so a caller can read
 * a JSON-RPC or REST (google.rpc.Status) error body; if such a body is not a JSON object (an HTML
 * error page, say) the status is mapped as if it were not listed. Other statuses map as in
 * `fetchCard`.
 *
 * @param url Absolute http(s) URL, used as-is (fragment dropped).
 * @param options See {@link RequestJsonOptions}; `acceptErrorStatus` lists non-2xx statuses to return.
 * @returns The answering URL, its status and parsed JSON object body.
 * @throws {UsageError} a body with `GET`, a body that cannot be JSON-encoded, or an invalid header name/value.
 * @throws {InvalidInputError} `insecure-url` as in `fetchCard`; `card-invalid` for a bad body
 *   (over `maxBytes`, non-JSON content type, empty, invalid UTF-8/JSON, not an object).
 * @throws {FetchError} `auth-refused` on 401/403 (unless accepted); `unreachable` on 404 and other
 *   non-2xx statuses, a redirect when `followRedirects` is false, too many redirects, or a
 *   network error; `timeout` when the deadline passes.
 */
export async function requestJson(
  url: string,
  options: RequestJsonOptions & { acceptErrorStatus?: number[] },
): Promise<JsonResponse> {
  const method = options.method ?? 'GET';
  const context = makeContext(options, {
    versionHeader: options.versionHeader,
    method,
    body: undefined,
    headers: {},
    followRedirects: options.followRedirects ?? true,
    acceptErrorStatus: new Set(options.acceptErrorStatus ?? []),
    subject: options.subject ?? 'response',
    redactQuery: new Set(options.redactQueryParams ?? []),
  });
  const start = parseLocation(url, context);
  start.hash = '';
  context.headers = checkHeaders(options.headers ?? {});
  if (options.body !== undefined) {
    if (method !== 'POST')
      throw new UsageError(`a request body needs POST, not ${method} (${printableUrl(start, context.redactQuery)})`);
    let text: string | undefined;
    try {
      text = JSON.stringify(options.body);
    } catch {
      text = undefined;
    }
    if (typeof text !== 'string')
      throw new UsageError(`request body for ${printableUrl(start, context.redactQuery)} cannot be encoded as JSON`);
    context.body = text;
  }
  checkUrlPolicy(start, printableUrl(start, context.redactQuery), context.allowHttp, undefined, context.redactQuery);
  return withDeadline(context, () => exchange(start, context));
}

// ---------------------------------------------------------------------------------------------

/**
 * One call's state, shared by its requests (a card fetch's legacy fallback runs under the same
 * deadline): the options with their defaults applied, the request to send, and the abort
 * controller the deadline fires. It is the {@link BodyRequest} and {@link UrlReporting} the body
 * reader and the URL policy take.
 */
export interface RequestContext extends BodyRequest, UrlReporting {
  versionHeader: string | undefined;
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
  /** Platform authentication per origin (`originAuth`), for the first hop only. */
  platformAuth?: OriginAuthenticator;
  /** Credential values no card may quote (`NetworkOptions.knownSecrets`). */
  knownSecrets?: readonly string[];
}

/** The members of a {@link RequestContext} that describe the request itself (not the options). */
export type RequestPart = Pick<
  RequestContext,
  'versionHeader' | 'method' | 'body' | 'headers' | 'followRedirects' | 'acceptErrorStatus' | 'subject' | 'redactQuery'
>;

/**
 * A fresh context for one call: `request` plus `options` with their defaults (10 000 ms, 1 MiB,
 * no plain http, 2 retries, the shared dispatcher for `options.concurrency`), a new abort
 * controller, and no deadline yet ({@link withDeadline} sets it).
 * @throws {UsageError} when the request would go through the proxy of a variable that is not an http(s) URL.
 */
export function makeContext(options: NetworkOptions & { maxBytes?: number }, request: RequestPart): RequestContext {
  const controller = new AbortController();
  const context: RequestContext = {
    ...request,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    allowHttp: options.allowHttp ?? false,
    retries: options.retries ?? DEFAULT_RETRIES,
    dispatcher: options.dispatcher ?? getDefaultDispatcher(options.concurrency),
    ...(options.platformAuth ? { platformAuth: options.platformAuth } : {}),
    ...(options.knownSecrets?.length ? { knownSecrets: options.knownSecrets } : {}),
    controller,
    signal: controller.signal,
    proxyHint: () => proxyHint(context.dispatcher, context.inFlight),
    deadline: Infinity,
  };
  return context;
}

/**
 * Run `fn` under the context's single deadline (`context.timeoutMs` from now): on expiry the
 * shared signal aborts whatever is in flight.
 * @throws {FetchError} `timeout` at the deadline, naming the URL in flight; else whatever `fn` throws.
 */
export async function withDeadline<T>(context: RequestContext, fn: () => Promise<T>): Promise<T> {
  context.deadline = performance.now() + context.timeoutMs;
  // The abort reaches undici, but a request waiting on a proxy's CONNECT does not settle on it, so
  // the deadline also settles the call itself: the timeout error comes at the deadline, always.
  let expire!: () => void;
  const expired = new Promise<never>((_, reject) => {
    expire = () => {
      context.controller.abort(new DeadlineExceeded());
      reject(networkError(context.inFlight ?? 'request', context.controller.signal.reason, context));
    };
  });
  expired.catch(() => undefined);
  const timer = setTimeout(expire, context.timeoutMs);
  try {
    return await Promise.race([fn(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A character outside an RFC 9110 §5.5 field-value: HTAB, SP, VCHAR (0x21-0x7E) and obs-text
 * (0x80-0xFF, sent as one Latin-1 byte). A header value holding one (`€`, U+2028) cannot go on the
 * wire: undici refuses the request before sending it.
 */
const HEADER_VALUE_FORBIDDEN = /[^\t\x20-\x7e\x80-\xff]/;
/** Headers undici or HTTP framing owns; a caller may not set them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'keep-alive',
  'te',
  'trailer',
  'expect',
]);

/**
 * Validate extra headers before anything is sent; never echoes a value.
 * @returns A copy of `headers`.
 * @throws {UsageError} a name that is not an HTTP token, a reserved header (Host, Content-Length,
 *   framing), or a value that is not an RFC 9110 field-value: a line break or control character, or
 *   a character beyond Latin-1 (`€`, U+2028), which no header can carry.
 */
export function checkHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HTTP_TOKEN.test(name)) throw new UsageError(`invalid HTTP header name "${oneLine(name).slice(0, 64)}"`);
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      throw new UsageError(`the ${name} header cannot be set by the caller`);
    if (typeof value !== 'string' || hasControlCharacter(value)) {
      throw new UsageError(`the value of the ${name} header contains a line break or control character`);
    }
    if (HEADER_VALUE_FORBIDDEN.test(value)) {
      throw new UsageError(
        `the value of the ${name} header contains a character a header cannot carry (beyond Latin-1; RFC 9110 field-value)`,
      );
    }
    out[name] = value;
  }
  return out;
}

/**
 * One request, following redirects by hand when allowed. Returns a 2xx (or accepted non-2xx)
 * JSON object answer; maps every other outcome to a typed error. Retries a GET answered with a
 * retry status while `context.retries` allow and the wait ends before the deadline.
 * @throws {InvalidInputError} `insecure-url` for a redirect the URL policy refuses; `card-invalid` for a bad body,
 *   or a redirect target (or the URL that answered) holding the platform credential sent (`./url-echo.js`).
 * @throws {FetchError} `auth-refused` on 401/403; `unreachable` on 404, another status, a refused,
 *   broken or sixth redirect, or a network error; `timeout` when the deadline passes.
 */
export async function exchange(start: URL, context: RequestContext): Promise<JsonResponse> {
  let url = start;
  let method = context.method;
  let body = context.body;
  let retried = 0;
  // The platform credential this call has sent: a URL holding it is never followed, kept or shown.
  const sent = () => context.platformAuth?.sentSecrets() ?? [];
  for (let redirects = 0; ; ) {
    const shown = redactUrl(printableUrl(url, context.redactQuery), sent());
    context.inFlight = shown;
    // Platform authentication goes to the URL asked for only, never across a redirect.
    const placement = redirects === 0 ? context.platformAuth?.placementFor(url.origin) : undefined;
    const response = await send(url, method, body, context, redirects === 0);
    const { statusCode, headers } = response;

    if (
      RETRY_STATUSES.has(statusCode) &&
      method === 'GET' &&
      retried < context.retries &&
      !context.acceptErrorStatus.has(statusCode)
    ) {
      const wait = retryDelayMs(headerValue(headers, 'retry-after'), retried, Date.now());
      if (performance.now() + wait < context.deadline) {
        await drain(response.body);
        retried++;
        try {
          await sleep(wait, undefined, { signal: context.controller.signal });
        } catch (error) {
          throw networkError(shown, error, context);
        }
        continue;
      }
    }

    if (REDIRECT_STATUSES.has(statusCode)) {
      const location = headerValue(headers, 'location');
      await drain(response.body);
      if (!context.followRedirects) {
        // Never say where: the Location may carry anything, and we are not going there.
        throw new FetchError(
          'unreachable',
          shown,
          `redirect (${statusCode}) refused: credentials are never sent across a redirect`,
          { status: statusCode },
        );
      }
      refuseEchoedUrl(location, shown, context.subject, sent()); // before anything names or follows it
      if (location === undefined || location.trim() === '') {
        throw new FetchError('unreachable', shown, `redirect (${statusCode}) without a Location header`, {
          status: statusCode,
        });
      }
      if (redirects >= MAX_REDIRECTS) {
        throw new FetchError('unreachable', shown, `too many redirects (more than ${MAX_REDIRECTS})`, {
          status: statusCode,
        });
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new FetchError('unreachable', shown, `redirect (${statusCode}) to an invalid URL`, {
          status: statusCode,
        });
      }
      next.hash = '';
      next.username = '';
      next.password = '';
      refuseEchoedUrl(next.href, shown, context.subject, sent());
      checkUrlPolicy(next, printableUrl(next, context.redactQuery), context.allowHttp, url, context.redactQuery);
      if (method === 'POST' && statusCode !== 307 && statusCode !== 308) {
        method = 'GET';
        body = undefined;
      }
      url = next;
      redirects++;
      continue;
    }

    // The URL that answered is what a card's `resolved` records: one holding the credential is refused.
    if (urlQuotesSecret(url.href, sent())) await drain(response.body);
    refuseEchoedUrl(url.href, shown, context.subject, sent());
    if (statusCode >= 200 && statusCode < 300) {
      return { url: shown, status: statusCode, body: await readJson(shown, response, context) };
    }

    if (context.acceptErrorStatus.has(statusCode)) {
      try {
        return { url: shown, status: statusCode, body: await readJson(shown, response, context) };
      } catch (error) {
        // Not a JSON object (an HTML error page, a proxy's text): report the status instead.
        if (!(error instanceof InvalidInputError)) throw error;
      }
    } else {
      await drain(response.body);
    }
    if (statusCode === 401 || statusCode === 403) throw authRefused(url, shown, statusCode, context, placement);
    if (statusCode === 404) {
      throw new FetchError('unreachable', shown, 'not found (404)', { status: statusCode });
    }
    const after = retried ? ` after ${retried} ${retried === 1 ? 'retry' : 'retries'}` : '';
    throw new FetchError('unreachable', shown, `unexpected status ${statusCode}${after}`, { status: statusCode });
  }
}

/**
 * The `auth-refused` error of a 401/403: with an `originAuth` placement sent, it names the
 * placement refused; a card (or key set) asked for without one says it needs authentication and
 * names `originAuth` with an example for its origin.
 */
function authRefused(
  url: URL,
  shown: string,
  status: number,
  context: RequestContext,
  placement: Readonly<Record<string, unknown>> | undefined,
): FetchError {
  if (placement !== undefined) {
    return new FetchError(
      'auth-refused',
      shown,
      `authentication refused (${status}): the origin refused its originAuth placement ${describeOriginAuth(placement as OriginAuth)}`,
      {
        status,
        hint: 'check that the credential is current and grants access to this service (its audience, role or scope)',
        data: { origin: url.origin, originAuth: placement },
      },
    );
  }
  if (context.subject === 'card' || context.subject === 'JWKS') {
    return new FetchError(
      'auth-refused',
      shown,
      `authentication refused (${status}): the ${context.subject} needs authentication at ${url.origin}`,
      {
        status,
        hint: `set originAuth for the origin in a2a.json: a2a add, or a2a update <agent>, with --origin-auth ${url.origin}=bearer:<ENV> (or header:<NAME>:<ENV>[:<PREFIX>], aws:<REGION>:<SERVICE>), which writes ${originAuthExample(url.origin)}; docs/guide/hosted-agents.md#platform-authentication-originauth`,
      },
    );
  }
  return new FetchError('auth-refused', shown, `authentication refused (${status})`, { status });
}

/**
 * How long to wait before retry number `attempt + 1` (ms): the `Retry-After` header when it is a
 * number of seconds or an HTTP date (relative to `nowMs`, epoch ms), capped at 5 000 ms and never
 * negative; otherwise 250 ms doubled per earlier retry. Pure.
 * @internal
 */
export function retryDelayMs(retryAfter: string | undefined, attempt: number, nowMs: number): number {
  const value = retryAfter?.trim() ?? '';
  let ms: number | undefined;
  if (/^\d+$/.test(value)) ms = Number(value) * 1000;
  else if (/[a-z]/i.test(value) && !Number.isNaN(Date.parse(value))) ms = Date.parse(value) - nowMs;
  if (ms === undefined) return RETRY_BASE_MS * 2 ** attempt;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/**
 * Send one request (no redirects, no retries) with the default headers, the context's headers
 * over them, and the context's abort signal.
 * @returns undici's response; its body is not read yet.
 * @throws {FetchError} when the request fails before a response ({@link networkError}).
 */
export async function send(
  url: URL,
  method: 'GET' | 'POST',
  body: string | undefined,
  context: RequestContext,
  authenticate: boolean,
): Promise<Dispatcher.ResponseData> {
  const shown = printableUrl(url, context.redactQuery);
  // Defaults first, then the caller's headers replace them case-insensitively.
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': userAgentHeader() };
  if (context.versionHeader !== undefined) headers['A2A-Version'] = context.versionHeader;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  for (const [name, value] of Object.entries(context.headers)) {
    for (const existing of Object.keys(headers))
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = value;
  }
  const platform = authenticate ? await context.platformAuth?.headersFor({ url, method, headers, body }) : undefined;
  if (platform) Object.assign(headers, checkHeaders(platform));
  try {
    // What undici's root `request(url, options)` does: origin and path from the URL, then its
    // request method called on the dispatcher (any Dispatcher, also one from another undici copy).
    return await requestThrough(context.dispatcher, {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method,
      signal: context.controller.signal,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
  } catch (error) {
    // The shared dispatcher's own refusals (a credential it will not send through a proxy in clear;
    // a proxy variable that is not an http(s) URL).
    if (error instanceof InvalidInputError || error instanceof UsageError) throw error;
    throw networkError(shown, error, context);
  }
}
