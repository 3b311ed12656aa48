/**
 * The shared undici dispatchers (keep-alive connection pools, proxy-aware when a proxy variable is
 * set) and the one place undici itself is loaded. Everything else in `http/` reaches undici
 * through here, so a module that does not import this one does not load undici.
 */

// undici's root loads all of undici (~45 ms a run): import the modules used, by path, and give
// dispatchers their API methods as the root does (docs/explanation/performance.md; undici pinned exactly).
import type { Dispatcher } from 'undici';
import dispatcherApi from 'undici/lib/api/index.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import { PROXY_RULE_VARIABLES, PROXY_VARIABLES, proxyVariableSet } from './network-options.js';
import { ProxyRuleAgent } from './proxy-agent.js';
import type { ProxyEnv } from './proxy-rule.js';

Object.assign(DispatcherClass.prototype, dispatcherApi);

/**
 * Per-origin connection cap of the shared dispatcher when the caller names none.
 * @internal
 */
export const DEFAULT_CONNECTIONS = 8;

/** The shared keep-alive dispatchers, by per-origin connection cap (a run uses one). */
const defaultDispatchers = new Map<number, Dispatcher>();

/**
 * The shared keep-alive undici dispatcher used when a request's `dispatcher` option is not
 * given, with at most `connections` connections per origin. Created on first use.
 *
 * The cap should equal the caller's concurrency (`resolve/options.ts` passes `--concurrency`): below it,
 * requests to one host queue (32 agents on one host at concurrency 32 would run 8 at a time);
 * without one, undici opens a fresh socket for a request dispatched in the instant a finished
 * one's socket is not yet free, so a run at concurrency 12 ends up with twice as many sockets.
 * At the cap, sockets are kept alive and reused across cards. Idle sockets are unref'd by undici
 * and do not keep the process alive. When `HTTPS_PROXY` or `HTTP_PROXY` (or their lower-case
 * forms) is set at creation, it is a {@link ProxyRuleAgent}: each request goes where the one proxy
 * decision (`./proxy-rule.js`, the environment as it was at creation) sends it, through the proxy
 * (an HTTP CONNECT tunnel) or directly (loopback always; `NO_PROXY` hosts as curl matches them),
 * and a plain-http request carrying a credential is refused rather than proxied. A request the
 * proxy of a variable that is not an http(s) URL would carry is refused with a `UsageError` naming
 * the variable (loopback and `NO_PROXY` hosts still go direct).
 */
export function getDefaultDispatcher(connections = DEFAULT_CONNECTIONS): Dispatcher {
  let dispatcher = defaultDispatchers.get(connections);
  if (!dispatcher) {
    const options = { connections, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 };
    dispatcher = proxyConfigured() ? new ProxyRuleAgent(options, { ...process.env }) : new Agent(options);
    defaultDispatchers.set(connections, dispatcher);
  }
  return dispatcher;
}

/** The proxy-aware dispatchers of {@link proxyDispatcherFor}, by their variables' values. */
const proxyDispatchers = new Map<string, Dispatcher>();

/**
 * A keep-alive {@link ProxyRuleAgent} for exactly these proxy variables (a snapshot:
 * `proxyEnvironment` in `./network-options.js`), shared by every caller that gives the same values: each loaded lock
 * goes through the proxies set when it was loaded, whatever the process environment says later
 * (the shared {@link getDefaultDispatcher} keeps the values of its own first use).
 */
export function proxyDispatcherFor(env: ProxyEnv): Dispatcher {
  const key = JSON.stringify(PROXY_RULE_VARIABLES.map((name) => env[name] ?? null));
  let dispatcher = proxyDispatchers.get(key);
  if (!dispatcher) {
    dispatcher = new ProxyRuleAgent(
      { connections: DEFAULT_CONNECTIONS, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 },
      env,
    );
    proxyDispatchers.set(key, dispatcher);
  }
  return dispatcher;
}

/**
 * Whether a proxy variable is set (`HTTPS_PROXY`, `HTTP_PROXY`, either case). A value that is not an
 * http(s) URL is refused per request, for the requests it would carry (`./proxy-rule.js`).
 */
function proxyConfigured(): boolean {
  return proxyVariableSet(process.env);
}

/**
 * Close the shared dispatchers (those created) and forget them; the next fetch creates a new one.
 * For tests and for a CLI that wants to exit promptly: requests still in flight are aborted (a
 * proxy that never answered a CONNECT would otherwise hold a graceful close for minutes).
 */
export async function closeDefaultDispatcher(): Promise<void> {
  const agents = [...defaultDispatchers.values(), ...proxyDispatchers.values()];
  defaultDispatchers.clear();
  proxyDispatchers.clear();
  await Promise.all(agents.map((agent) => agent.destroy()));
}

/**
 * Send one request through `dispatcher` with undici's `request` API: what undici's root
 * `request(url, options)` does once it has the origin and path, its request method called on the
 * dispatcher (any Dispatcher, also one from another undici copy or a wrapper that only implements
 * `dispatch()`).
 * @returns The response (status, headers, body stream); rejects with undici's error on failure.
 */
export function requestThrough(
  dispatcher: Dispatcher,
  options: Dispatcher.RequestOptions,
): Promise<Dispatcher.ResponseData> {
  return dispatcherApi.request.call(dispatcher, options);
}

/**
 * When a request to `url` went through `dispatcher` and it is the proxy-aware one (a proxy
 * variable was set when the shared dispatcher was made) and sent it through the proxy (not
 * direct: loopback, `NO_PROXY`), the hint that the proxy may be at fault, naming the variables
 * set; `undefined` otherwise.
 */
export function proxyHint(dispatcher: Dispatcher, url: string | undefined): string | undefined {
  if (!(dispatcher instanceof ProxyRuleAgent)) return undefined;
  if (url !== undefined && URL.canParse(url) && !dispatcher.proxies(new URL(url))) return undefined;
  const names = PROXY_VARIABLES.filter((name) => process.env[name]).join(', ');
  return `a proxy is set (${names}); check that it is reachable, or list this host in NO_PROXY`;
}
