/**
 * Hosts as a reader should see them: loopback and unspecified addresses, the ASCII (punycode) and
 * Unicode forms of an internationalised name, and labels that mix scripts (a Cyrillic `а` in a
 * Latin name). Pure: the global WHATWG `URL` (which applies IDNA and gives the punycode form) and
 * string tests; no Node module.
 */

import { remembered } from '../remembered.js';

/**
 * The host of a URL string or a scheme-less `host:port` (gRPC), as written: no userinfo, no port,
 * IPv6 brackets kept. Undefined when none can be read.
 */
export function rawHost(location: string): string | undefined {
  const m = /^(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/)?(?:[^@/?#]*@)?(\[[^\]/?#]*\]|[^:/?#\s]+)/.exec(location.trim());
  return m?.[1] || undefined;
}

/**
 * The host in its ASCII form as a URL parser sends it (punycode labels, lower case, IPv4 dotted,
 * IPv6 compressed in brackets), or undefined when it is not a valid host.
 */
function asciiHost(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

/** `host` without IPv6 brackets or a trailing root dot, lower case. */
function bare(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/**
 * True for a loopback host: `localhost`, 127.0.0.0/8, `::1` and IPv4-mapped `::ffff:127.x.x.x` (in
 * any spelling a URL parser accepts: `[0:0::1]`, `0x7f.1`). Not `*.localhost` nor `localhost.`:
 * Node's resolver (getaddrinfo) does not pin them to loopback but asks DNS, which may answer any
 * address, so a credential sent there in cleartext could leave the machine. The ASCII form of a
 * URL's `hostname` is expected; anything else is parsed first.
 */
export function isLoopbackHost(host: string): boolean {
  const ascii = (asciiHost(host) ?? host).toLowerCase();
  if (ascii === 'localhost') return true;
  const h = bare(ascii);
  if (h === '::1') return true;
  if (/^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h)) return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * True for an address no client can reach as a server: the unspecified `0.0.0.0` (and all of
 * 0.0.0.0/8, "this network"), `::` (and its IPv4-mapped form) and the broadcast 255.255.255.255.
 * A server that binds `0.0.0.0` and advertises it in its card is the usual cause.
 */
export function isUnspecifiedHost(host: string): boolean {
  const h = bare(asciiHost(host) ?? host);
  if (h === '::' || /^::ffff:0{1,4}:[0-9a-f]{1,4}$/.test(h) || h === '::ffff:0.0.0.0') return true;
  return /^0\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '255.255.255.255';
}

/**
 * The host a URL parser contacts for a URL string (or a scheme-less gRPC `host:port`): the WHATWG
 * `hostname`, after it drops tabs and newlines, decodes `%2e`, ends the authority at a `\` and
 * maps IDNA; undefined when the location does not parse.
 * @internal
 */
export function contactedHost(location: string): string | undefined {
  const trimmed = location.trim();
  const hasScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(trimmed);
  try {
    return new URL(hasScheme ? trimmed : `http://${trimmed}`).hostname || undefined;
  } catch {
    return undefined;
  }
}

/**
 * True for a URL string (or `host:port`) whose host is loopback ({@link isLoopbackHost}) both as
 * written and as a URL parser contacts it ({@link contactedHost}): `http://127.0.0.1<TAB>.evil.example/`
 * reads as 127.0.0.1 but goes to `127.0.0.1.evil.example`.
 */
export function isLoopbackUrl(location: string): boolean {
  const host = rawHost(location);
  const sent = contactedHost(location);
  return host !== undefined && sent !== undefined && isLoopbackHost(host) && isLoopbackHost(sent);
}

/** True for a URL string (or `host:port`) whose host is unspecified ({@link isUnspecifiedHost}): a bind address. */
export function isUnspecifiedUrl(location: string): boolean {
  const host = rawHost(location);
  return host !== undefined && isUnspecifiedHost(host);
}

/**
 * An interface URL moved to the card's origin (the manifest's `rebaseInterfaces`): when `url` is
 * an http(s) URL whose host is unspecified (`0.0.0.0`, `::`) or loopback and `cardUrl` (where the
 * card was fetched) is on another host, the card URL's scheme, host and port with the interface's
 * own path and query; undefined otherwise (nothing to rebase: another host, the card's own host, a
 * gRPC `host:port`, a card read from a file).
 */
export function rebasedInterfaceUrl(url: string, cardUrl: string | undefined): string | undefined {
  if (cardUrl === undefined || !/^https?:\/\//i.test(url) || !URL.canParse(url) || !URL.canParse(cardUrl))
    return undefined;
  const iface = new URL(url);
  const card = new URL(cardUrl);
  if (!/^https?:$/.test(card.protocol) || iface.hostname === card.hostname) return undefined;
  if (!isUnspecifiedHost(iface.hostname) && !isLoopbackHost(iface.hostname)) return undefined;
  return `${card.origin}${iface.pathname}${iface.search}`;
}

/**
 * True for a plain-http URL (`http:`, or gRPC's `grpc:` plaintext scheme) to a host that is not
 * loopback: a request there crosses the network in cleartext.
 */
export const isCleartextOffLoopback = remembered((location: string): boolean => {
  return /^(http|grpc):\/\//i.test(location.trim()) && !isLoopbackUrl(location);
});

/** The forms of an internationalised host: what a reader sees and what is sent (punycode). */
export interface HostForms {
  /** The Unicode form (punycode labels decoded). */
  unicode: string;
  /** The ASCII form a URL parser sends (`xn--` labels): the host that is contacted. */
  ascii: string;
  /**
   * The host as written, when it is neither form: characters a URL parser maps away, such as the
   * dots U+3002, U+FF0E and U+FF61 (`research.example.com。evil.example` is sent to
   * `research.example.com.evil.example`) or full-width letters.
   */
  written?: string;
}

/**
 * The forms of `host` when it has a non-ASCII character or a punycode (`xn--`) label; undefined
 * for a plain ASCII host or one that is not a valid host. `written` is set when the host as
 * written (lower-cased) is not its Unicode form.
 * @internal
 */
export function internationalHost(host: string): HostForms | undefined {
  const ascii = asciiHost(host);
  if (ascii === undefined) return undefined;
  const labels = ascii.split('.');
  const nonAscii = /[^\u0000-\u007f]/.test(host);
  if (!nonAscii && !labels.some((l) => l.startsWith('xn--'))) return undefined;
  const decoded = labels.map((l) => (l.startsWith('xn--') ? punycodeDecode(l.slice(4)) : l));
  if (decoded.some((l) => l === undefined)) return undefined;
  const unicode = decoded.join('.');
  return { unicode, ascii, ...(nonAscii && host.toLowerCase() !== unicode ? { written: host } : {}) };
}

/**
 * The forms of the host of `location` (a URL or gRPC `host:port`) when a reader would see another
 * host than the one contacted: an internationalised one ({@link internationalHost}), or one a URL
 * parser reads otherwise than it is written (`research.example.com%2eevil.example`,
 * `evil.example\\.research.example.com`, a tab inside it: `written` is the host as
 * written, `ascii` and `unicode` the host contacted). Undefined when both agree (case and a trailing
 * dot aside) or the location has no host.
 */
export function locationHostForms(location: string): HostForms | undefined {
  const host = rawHost(location);
  if (host === undefined) return undefined;
  const forms = internationalHost(host);
  const sent = contactedHost(location);
  // An address spelt otherwise (`0x7f.1`, `[0:0::1]`) is the same address: only names are noted.
  const address = sent !== undefined && (sent.startsWith('[') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(sent));
  if (sent === undefined || address || bare(sent) === bare(forms ? forms.ascii : host)) return forms;
  const unicode = internationalHost(sent)?.unicode ?? sent;
  return { unicode, ascii: sent, written: host };
}

/** `bücher.example is sent as xn--bcher-kva.example`: the host as a reader sees it, then the host contacted. */
export function hostSentAs(forms: HostForms): string {
  return `${forms.written ?? forms.unicode} is sent as ${forms.ascii}${forms.written !== undefined && forms.unicode !== forms.ascii ? ` (${forms.unicode})` : ''}`;
}

/** `bücher.example (xn--bcher-kva.example)` for an internationalised host, else the host as given. */
export function showHost(host: string): string {
  const forms = internationalHost(host);
  return forms ? `${forms.written ?? forms.unicode} (${forms.ascii})` : host;
}

/**
 * What to print after a URL (or gRPC `host:port`) whose host is internationalised or written with
 * characters a URL parser maps away: ` (host research.example.com。evil.example is sent as
 * research.example.com.evil.example)`, so the host contacted stands beside the card's spelling;
 * '' for any other location.
 */
export const contactedHostNote = remembered((location: string): string => {
  const forms = locationHostForms(location);
  return forms ? ` (host ${hostSentAs(forms)})` : '';
});

/**
 * `host-international` warnings for locations (URLs or gRPC `host:port`) as `[what, location]`:
 * one per distinct location whose host is internationalised or written with characters a URL
 * parser maps away, naming the host as written and the host contacted. For reports made from a
 * lockfile (`why`), where the card's own warnings are not produced again.
 */
export function internationalHostWarnings(
  locations: ReadonlyArray<readonly [what: string, location: string]>,
): Array<{ code: 'host-international'; message: string }> {
  const seen = new Set<string>();
  const out: Array<{ code: 'host-international'; message: string }> = [];
  for (const [what, location] of locations) {
    if (seen.has(location)) continue;
    seen.add(location);
    const forms = locationHostForms(location);
    if (forms) out.push({ code: 'host-international', message: `${what} host ${hostSentAs(forms)}` });
  }
  return out;
}

/**
 * The letter scripts readers tell apart by sight. Han, Hiragana and Katakana mix in Japanese names
 * (and Han and Hangul in Korean ones), so they count as one group.
 */
const SCRIPTS: ReadonlyArray<[string, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Georgian', /\p{Script=Georgian}/u],
  ['Hebrew', /\p{Script=Hebrew}/u],
  ['Arabic', /\p{Script=Arabic}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
  ['CJK', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u],
];

/** The scripts (see {@link SCRIPTS}) of the letters of `label`, in first-seen order. */
function scriptsOf(label: string): string[] {
  const found: string[] = [];
  for (const ch of label) {
    const script = SCRIPTS.find(([, re]) => re.test(ch))?.[0];
    if (script && !found.includes(script)) found.push(script);
  }
  return found;
}

/**
 * The labels of `host` (Unicode form) whose letters come from more than one script, each with
 * its scripts: `[{label: "pаypal", scripts: ["Latin", "Cyrillic"]}]` for a Cyrillic `а`. Empty for
 * a single-script host.
 */
export function mixedScriptLabels(host: string): Array<{ label: string; scripts: string[] }> {
  const unicode = internationalHost(host)?.unicode ?? host;
  return unicode
    .split('.')
    .map((label) => ({ label, scripts: scriptsOf(label) }))
    .filter((l) => l.scripts.length > 1);
}

/**
 * Decode one punycode label body (RFC 3492, the part after `xn--`); undefined when it is not valid
 * punycode. Bounded: a label is at most 63 characters.
 * @internal
 */
export function punycodeDecode(input: string): string | undefined {
  const BASE = 36,
    TMIN = 1,
    TMAX = 26,
    SKEW = 38,
    DAMP = 700;
  if (input.length > 63) return undefined;
  const adapt = (delta: number, points: number, first: boolean): number => {
    delta = first ? Math.floor(delta / DAMP) : Math.floor(delta / 2);
    delta += Math.floor(delta / points);
    let k = 0;
    while (delta > ((BASE - TMIN) * TMAX) >> 1) {
      delta = Math.floor(delta / (BASE - TMIN));
      k += BASE;
    }
    return k + Math.floor(((BASE - TMIN + 1) * delta) / (delta + SKEW));
  };
  const digit = (c: number): number =>
    c >= 48 && c <= 57 ? c - 22 : c >= 65 && c <= 90 ? c - 65 : c >= 97 && c <= 122 ? c - 97 : BASE;
  const end = input.lastIndexOf('-');
  const output: number[] = [];
  for (let j = 0; j < Math.max(end, 0); j++) {
    const c = input.charCodeAt(j);
    if (c >= 0x80) return undefined;
    output.push(c);
  }
  let n = 0x80,
    i = 0,
    bias = 72;
  for (let at = end > 0 ? end + 1 : 0; at < input.length; ) {
    const old = i;
    for (let w = 1, k = BASE; ; k += BASE) {
      if (at >= input.length) return undefined;
      const d = digit(input.charCodeAt(at++));
      if (d >= BASE) return undefined;
      i += d * w;
      const t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
      if (d < t) break;
      w *= BASE - t;
      if (i > 0x10ffff * 64 || w > 0x10ffff * 64) return undefined;
    }
    bias = adapt(i - old, output.length + 1, old === 0);
    n += Math.floor(i / (output.length + 1));
    i %= output.length + 1;
    if (n > 0x10ffff) return undefined;
    output.splice(i++, 0, n);
  }
  return String.fromCodePoint(...output);
}

/**
 * `interface-other-origin` warnings: each interface whose origin (scheme, host, port; for gRPC's
 * `host:port` the host alone) differs from the card URL's. Such a card is fine (an API gateway, a
 * separate gRPC port), but a reader should know where the calls and the credential go. Empty for a
 * card read from a file (`cardUrl` undefined).
 */
export function otherOriginWarnings(
  interfaces: ReadonlyArray<{ url: string; protocolBinding: string }>,
  cardUrl: string | undefined,
): Array<{ code: string; message: string }> {
  if (cardUrl === undefined || !URL.canParse(cardUrl)) return [];
  const card = new URL(cardUrl);
  const out: Array<{ code: string; message: string }> = [];
  for (const i of interfaces) {
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(i.url);
    const grpcHostOnly = i.protocolBinding === 'GRPC' && (!scheme || /^grpcs?:/i.test(i.url));
    let same: boolean;
    if (grpcHostOnly) {
      const host = rawHost(i.url);
      same = host !== undefined && asciiHost(host) === card.hostname;
    } else {
      same = URL.canParse(i.url) && new URL(i.url).origin === card.origin;
    }
    if (same) continue;
    const host = rawHost(i.url);
    out.push({
      code: 'interface-other-origin',
      message: `${i.protocolBinding} interface ${i.url} is on another ${grpcHostOnly ? 'host' : 'origin'} (${host !== undefined ? showHost(host) : i.url}) than the card (${card.origin}): calls and their credential go there`,
    });
  }
  return out;
}

/**
 * The http(s) URL of the HTTP/2 origin a gRPC target is dialled at (the channel rule of
 * `runtime/grpc.ts`, the form A2A 1.0.0 gave gRPC interfaces): `https://host:port/` over TLS
 * (`grpcs://`, or a scheme-less `host:port` on a host that is not loopback), `http://host:port/` in
 * plaintext (`grpc://`, or a loopback `host:port`). Undefined for an http(s) URL, another scheme,
 * a target naming a user, or one that does not parse.
 */
export function grpcDialledUrl(url: string): string | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'grpc' && scheme !== 'grpcs') return undefined;
  const tls = scheme === 'grpcs' || (scheme === undefined && !isLoopbackUrl(url));
  // The target is host:port (a path is no part of it, nor a user).
  const authority = (scheme === undefined ? url : url.slice(scheme.length + 3)).split(/[/?#]/, 1)[0]!;
  const dialled = `${tls ? 'https' : 'http'}://${authority}/`;
  return !authority.includes('@') && URL.canParse(dialled) ? new URL(dialled).href : undefined;
}

/**
 * The origin a credential sent along interface `url` reaches, spelled as `credentialDestinations`
 * entries spell origins (`scheme://host[:port]`, lower case, no default port): a gRPC target's by
 * the channel it is dialled on ({@link grpcDialledUrl}: `host:port` is `https://host:port`), any
 * other URL's {@link originOf}.
 */
export function credentialOriginOf(url: string): string {
  return originOf(grpcDialledUrl(url) ?? url);
}

/** `scheme://host[:port]` of an interface URL, lower-cased; the URL itself when it does not parse. */
export function originOf(url: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `grpc://${url}`;
  try {
    const u = new URL(withScheme);
    return `${u.protocol}//${u.host}`.toLowerCase();
  } catch {
    return url.toLowerCase();
  }
}
