/**
 * The one network options type of a run, and picking it out of a larger options object. Types
 * and a pure function only: modules loaded at start-up (`resolve/load-card`, `commands/context`)
 * import these from here, which loads no undici; `./request.js` re-exports them.
 */

import type { Dispatcher } from 'undici';

/** The proxy variables the shared dispatcher honours (`NO_PROXY` lists the hosts reached directly; `./proxy-rule.js` decides). */
export const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'];

/** The variables the proxy rule reads (`./proxy-rule.js`): the proxies and `NO_PROXY`, either case. */
export const PROXY_RULE_VARIABLES = [...PROXY_VARIABLES, 'no_proxy', 'NO_PROXY'];

/**
 * The proxy rule's variables of `env` as they are now (a copy: later changes to `env` do not reach
 * it). What the runtime's default fetch takes when `loadLock` runs.
 */
export function proxyEnvironment(env: NodeJS.ProcessEnv): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of PROXY_RULE_VARIABLES) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Whether one of {@link PROXY_VARIABLES} is set (non-empty) in `env`. */
export function proxyVariableSet(env: NodeJS.ProcessEnv): boolean {
  return PROXY_VARIABLES.some((name) => Boolean(env[name]));
}

/** The deadline of one card (or other document) when `timeoutMs` is not set, in ms. */
export const DEFAULT_TIMEOUT_MS = 10_000;

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
  /** undici Dispatcher; default: the shared module-level keep-alive `Agent` from `getDefaultDispatcher` (`./dispatcher.js`). */
  dispatcher?: Dispatcher;
  /**
   * How many requests the caller keeps in flight. Without `dispatcher`, the per-origin connection
   * cap of the shared `Agent` (default `DEFAULT_CONNECTIONS` of `./dispatcher.js`; `resolve/` passes its own default).
   */
  concurrency?: number;
  /**
   * Platform authentication per origin (`originAuth`): applied to the first hop of each request to
   * an origin it names, never after a redirect. Default none.
   */
  platformAuth?: OriginAuthenticator;
  /**
   * Credential values the project names (the manifest's, `manifest/secret-values.ts`) that no card
   * may quote, whether or not this request carried them: such a card is refused `card-invalid`
   * before it is written to the lockfile or printed. Default none.
   */
  knownSecrets?: readonly string[];
}

/**
 * Platform authentication per origin (the manifest's `originAuth`): the headers one request to an
 * origin carries, computed when it is sent (tokens expire). `http/origin-auth.ts` builds one.
 */
export interface OriginAuthenticator {
  /** The manifest's placement for `origin` (`scheme://host[:port]`), if it has one: for messages, never a value. */
  placementFor(origin: string): Readonly<Record<string, unknown>> | undefined;
  /**
   * The headers to add to one request (its final method, URL, headers and body), or undefined
   * when its origin has no placement. Only https, or plain http to a loopback host, ever gets any.
   * @throws A2aLockError `credential-unset` (a variable unset, credentials withheld in this run);
   *   UsageError (the optional signing package missing, a provider's bad answer)
   */
  headersFor(request: {
    url: URL;
    method: string;
    headers: Readonly<Record<string, string>>;
    body: string | Uint8Array | undefined;
  }): Promise<Record<string, string> | undefined>;
  /**
   * Every value {@link headersFor} has placed so far (each header value, and a bearer or header
   * value without its prefix): what an answer quoting the request must not print.
   */
  sentSecrets(): string[];
}

/** The {@link NetworkOptions} members of `options` that are set (the rest of it left behind). */
export function networkOptionsOf(options: NetworkOptions): NetworkOptions {
  const { timeoutMs, allowHttp, retries, dispatcher, concurrency, platformAuth, knownSecrets } = options;
  return {
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(allowHttp !== undefined ? { allowHttp } : {}),
    ...(retries !== undefined ? { retries } : {}),
    ...(dispatcher !== undefined ? { dispatcher } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(platformAuth !== undefined ? { platformAuth } : {}),
    ...(knownSecrets !== undefined ? { knownSecrets } : {}),
  };
}
