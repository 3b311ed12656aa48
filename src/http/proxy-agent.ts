/**
 * The shared dispatcher when a proxy variable is set: every request goes where the one proxy
 * decision (`./proxy-rule.js`) sends it, through undici's `ProxyAgent` for the variable's proxy
 * (an HTTP CONNECT tunnel) or its plain `Agent`; a request the proxy of a variable that is not an
 * http(s) URL would carry is refused (a `UsageError` naming the variable), and a plain-http request
 * that carries a credential and would be proxied is refused instead (an `insecure-url` error naming
 * the proxy variable).
 * Thin: the decision is the pure function's; this only routes.
 */

import type { Dispatcher } from 'undici';
import symbols from 'undici/lib/core/symbols.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import DispatcherBase from 'undici/lib/dispatcher/dispatcher-base.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import { InvalidInputError, UsageError } from '../errors.js';
import { cleartextProxyRefusal, invalidProxyRefusal, type ProxyEnv, proxyDecision } from './proxy-rule.js';

const { kDispatch, kClose, kDestroy } = symbols;

/**
 * Request headers that carry no credential. Any other header (Authorization, Cookie, an API-key
 * header, a SigV4 signature, a header this list does not know) counts as one: fail closed.
 */
const NOT_CREDENTIALS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'a2a-version',
  'a2a-extensions',
  'x-a2a-extensions',
  'cache-control',
  'connection',
  'content-encoding',
  'content-length',
  'content-type',
  'host',
  'if-modified-since',
  'if-none-match',
  'pragma',
  'sec-fetch-mode',
  'te',
  'traceparent',
  'tracestate',
  'transfer-encoding',
  'user-agent',
]);

/** A dispatcher that routes each request by {@link proxyDecision} over `env` (read once, at creation). */
export class ProxyRuleAgent extends DispatcherBase {
  readonly #options: Agent.Options;
  readonly #env: ProxyEnv;
  readonly #direct: Agent;
  /** One `ProxyAgent` per proxy URL in use (the http and https variables may name two). */
  readonly #proxies = new Map<string, ProxyAgent>();

  /**
   * @param options The connection options of every agent (connections per origin, keep-alive).
   * @param env The proxy variables (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`, either case).
   */
  constructor(options: Agent.Options, env: ProxyEnv) {
    super();
    this.#options = options;
    this.#env = env;
    this.#direct = new Agent(options);
  }

  /** Whether a request to `target` goes through a proxy ({@link proxyDecision}). */
  proxies(target: URL): boolean {
    return proxyDecision(target, this.#env).route === 'proxy';
  }

  [kDispatch](opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const target = new URL(String(opts.origin));
    const decision = proxyDecision(target, this.#env);
    if (decision.route === 'direct') return this.#direct.dispatch(opts, handler);
    const invalid = invalidProxyRefusal(decision);
    if (invalid !== undefined) throw new UsageError(invalid);
    const refusal = cleartextProxyRefusal(decision, target, credentialIn(opts.headers));
    if (refusal !== undefined) throw new InvalidInputError('insecure-url', target.origin, refusal);
    let proxy = this.#proxies.get(decision.proxy);
    if (!proxy) {
      proxy = new ProxyAgent({ ...this.#options, uri: decision.proxy });
      this.#proxies.set(decision.proxy, proxy);
    }
    return proxy.dispatch(opts, handler);
  }

  [kClose](): Promise<unknown> {
    return Promise.all([this.#direct, ...this.#proxies.values()].map((agent) => agent.close()));
  }

  [kDestroy](error: Error | null): Promise<unknown> {
    return Promise.all([this.#direct, ...this.#proxies.values()].map((agent) => agent.destroy(error)));
  }
}

/** Where a request's headers carry a credential ("the authorization header"), or undefined when none does. */
function credentialIn(headers: Dispatcher.DispatchOptions['headers']): string | undefined {
  const name = headerNames(headers).find((n) => !NOT_CREDENTIALS.has(n.toLowerCase()));
  return name === undefined ? undefined : `the ${name.toLowerCase()} header`;
}

/** The names of `headers` in any form undici takes: an object, a flat `[name, value, ...]` array, pairs, an iterable. */
function headerNames(headers: unknown): string[] {
  if (headers === null || headers === undefined) return [];
  if (Array.isArray(headers)) {
    if (headers.every((h) => Array.isArray(h))) return headers.map((h: unknown[]) => String(h[0]));
    return headers.filter((_, i) => i % 2 === 0).map(String);
  }
  if (typeof headers !== 'object') return [];
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function')
    return [...(headers as Iterable<[unknown, unknown]>)].map((pair) => String(pair[0]));
  return Object.keys(headers);
}
