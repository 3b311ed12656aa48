/**
 * The one proxy decision of every request (CLI, `lock.refresh()`, the runtime's default fetch):
 * whether a URL is reached directly or through the proxy a variable names, and whether a request
 * may go there at all. Pure: environment values in, a decision out; no undici, no `process.env`
 * (`./dispatcher.js` applies it).
 *
 * The rules:
 * - Loopback (127.0.0.0/8, `::1`, `localhost`: `isLoopbackHost`) is never proxied, whatever
 *   `NO_PROXY` says (Go's `ProxyFromEnvironment` does the same).
 * - `https:` goes through `https_proxy` / `HTTPS_PROXY` (else the http proxy, as undici's
 *   `EnvHttpProxyAgent` did), `http:` through `http_proxy` / `HTTP_PROXY`. As curl reads them, a
 *   lower-case variable that is set wins, even empty (then there is no proxy of that scheme); the
 *   upper-case one is read only when the lower-case one is not set at all.
 * - `no_proxy` / `NO_PROXY` (read the same way) is matched as curl matches it: entries split
 *   by commas or white space; `*` matches every host; a name with or without a leading dot matches
 *   itself and its subdomains (`example.com` and `.example.com` both cover `api.example.com`; a
 *   leading `*.` is read as a dot); an IP literal matches that address (IPv6 with or without
 *   brackets), a CIDR range (`10.0.0.0/8`, `fd00::/8`) every address in it; an entry with a port
 *   (`example.com:8443`, `[::1]:80`) only that port. Case and a trailing root dot do not count.
 * - A proxy variable whose value is not an http(s) URL refuses every request it would carry
 *   ({@link invalidProxyRefusal}, naming the variable, never its value); a request it would not
 *   carry (loopback, `NO_PROXY`, the other scheme) is not its concern.
 * - A plain-http request that carries a credential is never sent through a proxy (the proxy would
 *   read it): {@link cleartextProxyRefusal} says so, naming the variable.
 *
 * `conformance/vectors/proxy.json` is the definition: this module and the Python runtime's
 * (`python/src/a2a_lock/proxy.py`) are both tested against every vector.
 */

import { isLoopbackHost } from '../card/host.js';

/** The environment values the decision reads (any object of strings: `process.env`, a test's table). */
export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/** How one URL is reached. */
export type ProxyDecision =
  | {
      route: 'direct';
      /** Why: no proxy variable for the scheme, a loopback host, or a `NO_PROXY` entry. */
      reason: 'no-proxy-variable' | 'loopback' | 'no-proxy';
    }
  | {
      route: 'proxy';
      /** The proxy URL, as the variable gives it (may hold `user:password@`: never print it). */
      proxy: string;
      /** The variable it comes from (`HTTPS_PROXY`, `http_proxy`, ...): what messages name. */
      variable: string;
    };

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy decision for `target` (an absolute http(s) URL) under `env`. Pure.
 * @returns `direct` (with its reason) or `proxy` (the proxy URL and the variable naming it).
 */
export function proxyDecision(target: URL, env: ProxyEnv): ProxyDecision {
  if (isLoopbackHost(target.hostname)) return { route: 'direct', reason: 'loopback' };
  const variable = proxyVariable(target.protocol, env);
  if (variable === undefined) return { route: 'direct', reason: 'no-proxy-variable' };
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0;
  if (noProxyMatches(target.hostname, port, env[setName(env, 'no_proxy')] ?? ''))
    return { route: 'direct', reason: 'no-proxy' };
  return { route: 'proxy', proxy: env[variable]!, variable };
}

/**
 * The variable whose proxy a URL of `protocol` goes through, if one gives a proxy (non-empty): for
 * `https:`, `https_proxy` (when set, even empty) else `HTTPS_PROXY`, then the `http:` pair; for
 * `http:`, `http_proxy` (when set, even empty) else `HTTP_PROXY`.
 */
function proxyVariable(protocol: string, env: ProxyEnv): string | undefined {
  const pairs = protocol === 'https:' ? ['https_proxy', 'http_proxy'] : ['http_proxy'];
  for (const lower of pairs) {
    const name = setName(env, lower);
    if (env[name]) return name;
  }
  return undefined;
}

/**
 * Whether `noProxy` (a `NO_PROXY` value) lists `hostname` (a URL's `hostname`: IPv6 in brackets)
 * at `port`, as curl matches it (see the module comment). Entries that are not a host, an IP, a
 * CIDR range or `*` match nothing.
 */
function noProxyMatches(hostname: string, port: number, noProxy: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  const address = parseIp(host);
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = parseEntry(raw);
    if (entry === undefined) continue;
    if (entry.port !== undefined && entry.port !== port) continue;
    if (entry.kind === 'any') return true;
    if (entry.kind === 'name') {
      if (address === undefined && (host === entry.name || host.endsWith(`.${entry.name}`))) return true;
      continue;
    }
    if (address !== undefined && address.family === entry.network.family && inRange(address, entry)) return true;
  }
  return false;
}

/**
 * The refusal of a request the proxy would read in clear: `decision` sends it through a proxy,
 * `target` is plain `http:`, and the request carries a credential (`credential` names where, e.g.
 * "the Authorization header"). `undefined` when the request may go.
 */
export function cleartextProxyRefusal(
  decision: ProxyDecision,
  target: URL,
  credential: string | undefined,
): string | undefined {
  if (decision.route !== 'proxy' || target.protocol !== 'http:' || credential === undefined) return undefined;
  return `a credential is never sent through a proxy in cleartext: this plain-http request carries one (${credential}) and ${decision.variable} would send it through the proxy; use https, or list ${target.hostname} in NO_PROXY to reach it directly`;
}

/**
 * The refusal of a request `decision` sends through a proxy whose variable is not an http(s) URL
 * with a host (`socks5://...`, `proxy:3128`, a broken URL): the message names the variable, never
 * its value (it may hold a password). `undefined` when the request may go.
 */
export function invalidProxyRefusal(decision: ProxyDecision): string | undefined {
  if (decision.route !== 'proxy') return undefined;
  let proxy: URL | undefined;
  try {
    proxy = new URL(decision.proxy);
  } catch {
    proxy = undefined;
  }
  if (proxy !== undefined && (proxy.protocol === 'http:' || proxy.protocol === 'https:') && proxy.hostname !== '')
    return undefined;
  return `${decision.variable} is set but is not an http:// or https:// proxy URL`;
}

// ---------------------------------------------------------------------------------------------

type Ip = { family: 4 | 6; value: bigint };
type Entry =
  | { kind: 'any'; port?: number }
  | { kind: 'name'; name: string; port?: number }
  | { kind: 'ip'; network: Ip; bits: number; port?: number };

/** The name curl reads of the pair `lower` / its upper case: the lower-case one when set (even empty), else the upper-case one. */
function setName(env: ProxyEnv, lower: string): string {
  return env[lower] !== undefined ? lower : lower.toUpperCase();
}

/** One `NO_PROXY` entry, or undefined for an empty or unreadable one. */
function parseEntry(raw: string): Entry | undefined {
  let text = raw.trim().toLowerCase();
  if (text === '') return undefined;
  let port: number | undefined;
  // `[v6]:port`, `[v6]`, `name:port`, `v4:port`; a bare IPv6 (two or more colons) has no port.
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    text = bracketed[1]!;
    port = bracketed[2] !== undefined ? Number(bracketed[2]) : undefined;
  } else if ((text.match(/:/g) ?? []).length === 1) {
    const [name, digits] = text.split(':') as [string, string];
    if (!/^\d+$/.test(digits)) return undefined;
    text = name;
    port = Number(digits);
  }
  const withPort = <T extends object>(entry: T) => (port === undefined ? entry : { ...entry, port });
  if (text === '*') return withPort({ kind: 'any' as const });
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(text);
  const network = parseIp(cidr ? cidr[1]! : text);
  if (network !== undefined) {
    const width = network.family === 4 ? 32 : 128;
    const bits = cidr ? Number(cidr[2]) : width;
    if (bits > width) return undefined;
    return withPort({ kind: 'ip' as const, network, bits });
  }
  if (cidr) return undefined;
  const name = text.replace(/^\*?\./, '').replace(/\.$/, '');
  if (name === '' || !/^[a-z0-9_.-]+$/.test(name)) return undefined;
  return withPort({ kind: 'name' as const, name });
}

/** An IPv4 dotted quad or an IPv6 literal (no brackets, IPv4-mapped tail allowed) as a number. */
function parseIp(text: string): Ip | undefined {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    if (parts.some((p) => p > 255)) return undefined;
    return { family: 4, value: parts.reduce((n, p) => (n << 8n) | BigInt(p), 0n) };
  }
  if (!text.includes(':') || !/^[0-9a-f:.]+$/.test(text)) return undefined;
  // An IPv4-mapped tail (`::ffff:1.2.3.4`) as its two hex groups.
  let head = text;
  const mapped = /^(.*:)(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(text);
  if (mapped) {
    const four = parseIp(mapped[2]!);
    if (four === undefined) return undefined;
    head = `${mapped[1]}${(four.value >> 16n).toString(16)}:${(four.value & 0xffffn).toString(16)}`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  if ([...left, ...right].some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return undefined;
  const given = left.length + right.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  const all = [
    ...left.map((g) => parseInt(g, 16)),
    ...Array<number>(8 - given).fill(0),
    ...right.map((g) => parseInt(g, 16)),
  ];
  return { family: 6, value: all.reduce((n, g) => (n << 16n) | BigInt(g), 0n) };
}

function inRange(address: Ip, entry: { network: Ip; bits: number }): boolean {
  const width = address.family === 4 ? 32 : 128;
  const shift = BigInt(width - entry.bits);
  return address.value >> shift === entry.network.value >> shift;
}
