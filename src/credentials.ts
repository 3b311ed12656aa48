/**
 * How a held credential goes on an HTTP request for one security scheme (pure; no I/O).
 *
 * The schemes are A2A's (A2A 1.0 §4.5 / `SecurityScheme` in a2a.proto; notes §2.6, §3.3), which
 * follow the OpenAPI 3 Security Scheme Object:
 *
 * | scheme                     | placement                                                      |
 * |----------------------------|----------------------------------------------------------------|
 * | `http` `Bearer`            | `Authorization: Bearer <secret>` (RFC 6750 §2.1)               |
 * | `http` `Basic`             | `Authorization: Basic base64(utf8("user:password"))` (RFC 7617) |
 * | `http` other (`Digest`, …) | `Authorization: <Scheme> <secret>` (scheme spelled as the card) |
 * | `apiKey`                   | header, query parameter or cookie `name` = secret (`location`)  |
 * | `oauth2`, `openIdConnect`  | `Authorization: Bearer <access token>`                          |
 * | `mtls`                     | not placeable: a client certificate is a TLS matter             |
 *
 * Every error is a {@link UsageError} (code `usage`, exit 2). No message ever contains the
 * secret, any part of it, or a header value built from it.
 */

import type { SecurityScheme } from './card/model.js';
import type { OriginAuth } from './manifest/schema.js';
import { UsageError } from './errors.js';

/** Where one credential goes on a request. Every record may be empty; names are as the scheme spells them. */
export interface CredentialPlacement {
  /** Request headers (e.g. `Authorization`, or an apiKey header such as `X-API-Key`). */
  headers: Record<string, string>;
  /** Query parameters to add to the URL (unencoded; {@link applyCredentials} encodes them). */
  query: Record<string, string>;
  /** Cookies, name → value (joined into one `Cookie` header by {@link applyCredentials}). */
  cookies: Record<string, string>;
}

/** RFC 9110 §5.6.2 token: header names and auth-scheme names. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters other than HTAB: they would split or corrupt a header. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/** Characters a cookie value cannot carry unencoded (RFC 6265 §4.1.1 cookie-octet excludes them). */
const COOKIE_FORBIDDEN = /[\u0000-\u0020\u007f",;\\]/;

/**
 * Where to put `secret` for `scheme` (A2A 1.0 §7 / OpenAPI semantics; see the module table).
 *
 * http `Bearer` and `Basic` are matched case-insensitively and sent in their canonical spelling;
 * any other http scheme is sent as the card spells it. An apiKey `location` is matched
 * case-insensitively (`header`, `query`, `cookie`; the 0.3 `in` field is read into `location`
 * by the card normaliser).
 *
 * @param scheme The security scheme from the (normalised) card.
 * @param secret The credential: a token, an API key, `user:password` for Basic, or an OAuth 2.0 /
 *   OpenID Connect access token. Not trimmed: a trailing newline is an error, not silently dropped.
 * @param name The scheme's name in `securitySchemes`, used only to make messages clearer.
 * @returns One placement: exactly one entry in one of its three records.
 * @throws {UsageError} `mtls` (a client certificate cannot be sent in headers; unsupported); an
 *   empty secret; a secret with a line break or control character (or, for a cookie, a character a
 *   cookie value cannot carry); Basic without `:`; an http scheme name or apiKey header/cookie name
 *   that is not an HTTP token; an empty apiKey name; an unknown apiKey location or scheme type.
 */
export function placeCredential(scheme: SecurityScheme, secret: string, name?: string): CredentialPlacement {
  const what =
    name === undefined ? `security scheme (${scheme.type})` : `security scheme "${oneLine(name)}" (${scheme.type})`;
  const fail = (message: string): never => {
    throw new UsageError(`${what}: ${message}`);
  };
  const placement: CredentialPlacement = { headers: {}, query: {}, cookies: {} };

  if (scheme.type === 'mtls') {
    return fail(
      'mutual TLS needs a client certificate, which cannot be sent in HTTP headers; mtls credentials are not supported',
    );
  }
  if (typeof secret !== 'string' || secret === '') return fail('the credential is empty');
  if (CONTROL.test(secret))
    return fail('the credential contains a line break or control character (a trailing newline?)');

  switch (scheme.type) {
    case 'http': {
      const authScheme = scheme.scheme;
      if (typeof authScheme !== 'string' || !TOKEN.test(authScheme))
        return fail('the http scheme name is not a valid HTTP auth-scheme token');
      const lower = authScheme.toLowerCase();
      if (lower === 'bearer') {
        placement.headers.Authorization = `Bearer ${secret}`;
      } else if (lower === 'basic') {
        if (!secret.includes(':')) return fail('a Basic credential must be "user:password" (no ":" found)');
        placement.headers.Authorization = `Basic ${base64(utf8(secret), 'base64')}`;
      } else {
        placement.headers.Authorization = `${authScheme} ${secret}`;
      }
      return placement;
    }
    case 'apiKey': {
      const keyName = scheme.name;
      if (typeof keyName !== 'string' || keyName === '') return fail('the apiKey has no name');
      const location = typeof scheme.location === 'string' ? scheme.location.toLowerCase() : '';
      if (location === 'header') {
        if (!TOKEN.test(keyName)) return fail('the apiKey name is not a valid HTTP header name');
        placement.headers[keyName] = secret;
      } else if (location === 'query') {
        placement.query[keyName] = secret;
      } else if (location === 'cookie') {
        if (!TOKEN.test(keyName)) return fail('the apiKey name is not a valid cookie name');
        if (COOKIE_FORBIDDEN.test(secret))
          return fail(
            'the credential contains a character a cookie value cannot carry (space, quote, comma, semicolon or backslash)',
          );
        placement.cookies[keyName] = secret;
      } else {
        return fail(
          `apiKey location ${JSON.stringify(oneLine(String(scheme.location)).slice(0, 32))} is not header, query or cookie`,
        );
      }
      return placement;
    }
    case 'oauth2':
    case 'openIdConnect':
      placement.headers.Authorization = `Bearer ${secret}`;
      return placement;
    default: {
      const type = (scheme as { type?: unknown }).type;
      return fail(`unknown scheme type ${JSON.stringify(String(type)).slice(0, 40)}`);
    }
  }
}

/**
 * The `tokenUrl` of an `oauth2` scheme's client credentials flow (A2A 1.0 `OAuthFlows.client_credentials`,
 * 0.3 `flows.clientCredentials`; either JSON spelling), or undefined when the scheme has none: where
 * an OAuth client's secret is sent to obtain the access token (RFC 6749 §4.4). A credential
 * destination like an interface URL.
 */
export function clientCredentialsTokenUrl(scheme: SecurityScheme | undefined): string | undefined {
  if (scheme?.type !== 'oauth2') return undefined;
  const flows = scheme.flows as Record<string, unknown>;
  const flow = flows.clientCredentials ?? flows.client_credentials;
  if (typeof flow !== 'object' || flow === null) return undefined;
  const url = (flow as Record<string, unknown>).tokenUrl ?? (flow as Record<string, unknown>).token_url;
  return typeof url === 'string' && url !== '' ? url : undefined;
}

/**
 * Put placements on a request: query parameters are added to `url` (replacing a parameter of
 * the same name), headers replace same-named headers in `headers` (case-insensitively), and all
 * cookies are joined (`a=1; b=2`) into one `Cookie` header, after any `Cookie` already present.
 * Pure: the inputs are not modified.
 *
 * @param url An absolute URL.
 * @param headers The request's headers so far.
 * @param placements From {@link placeCredential}, one per scheme of the chosen security
 *   requirement (all of them must be satisfied: A2A requirements AND their schemes).
 * @returns The new URL and headers.
 * @throws {UsageError} `url` is not an absolute URL; or two placements need the same header,
 *   query parameter or cookie (e.g. a requirement that ANDs two `Authorization` schemes), which
 *   one request cannot satisfy. Messages name the header/parameter, never a value.
 */
export function applyCredentials(
  url: string,
  headers: Record<string, string>,
  placements: CredentialPlacement[],
): { url: string; headers: Record<string, string> } {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new UsageError('cannot apply credentials: the request URL is not an absolute URL');
  }

  const seenHeaders = new Set<string>();
  const seenQuery = new Set<string>();
  const cookies: string[] = [];
  const seenCookies = new Set<string>();
  const outHeaders: Record<string, string> = { ...headers };

  for (const placement of placements) {
    for (const [name, value] of Object.entries(placement.headers)) {
      const key = name.toLowerCase();
      if (seenHeaders.has(key))
        throw new UsageError(`two credentials both need the ${name} header; one request cannot carry both`);
      seenHeaders.add(key);
      for (const existing of Object.keys(outHeaders)) if (existing.toLowerCase() === key) delete outHeaders[existing];
      outHeaders[name] = value;
    }
    for (const [name, value] of Object.entries(placement.query)) {
      if (seenQuery.has(name)) throw new UsageError(`two credentials both need the query parameter "${oneLine(name)}"`);
      seenQuery.add(name);
      target.searchParams.set(name, value);
    }
    for (const [name, value] of Object.entries(placement.cookies)) {
      if (seenCookies.has(name)) throw new UsageError(`two credentials both need the cookie "${oneLine(name)}"`);
      seenCookies.add(name);
      cookies.push(`${name}=${value}`);
    }
  }

  if (cookies.length > 0) {
    let existing: string | undefined;
    for (const key of Object.keys(outHeaders)) {
      if (key.toLowerCase() === 'cookie') {
        existing = outHeaders[key];
        delete outHeaders[key];
      }
    }
    outHeaders.Cookie = [existing, ...cookies].filter((c): c is string => c !== undefined && c !== '').join('; ');
  }
  return { url: target.href, headers: outHeaders };
}

/** The query parameter names a set of placements adds (to redact them in printed URLs). */
export function credentialQueryNames(placements: CredentialPlacement[]): string[] {
  return [...new Set(placements.flatMap((p) => Object.keys(p.query)))];
}

/** True when any placement carries anything (header, query parameter or cookie). */
export function hasCredentials(placements: CredentialPlacement[]): boolean {
  return placements.some(
    (p) => Object.keys(p.headers).length + Object.keys(p.query).length + Object.keys(p.cookies).length > 0,
  );
}

/**
 * Every string a credential value can be found as in a server's echo (A2A agents quote request
 * URLs and headers in their errors): the value itself; percent-encoded (`encodeURIComponent`, and
 * encoded twice), form-encoded (`application/x-www-form-urlencoded`: space as `+`), JSON-escaped;
 * base64 and base64url of it, as a whole and as the run of characters that encodes only its bytes
 * at each of the three byte alignments (so it is found inside a longer encoding, such as Basic
 * `base64(user:password)`); hex of its bytes; the value reversed. Case is not part of a spelling:
 * {@link redactSecrets} matches every
 * one case-insensitively (a lower-cased echo, `%2f` for `%2F`). Derived spellings shorter than 4
 * characters are left out (they would mask ordinary text); the value itself always counts.
 */
function secretSpellings(secret: string): string[] {
  if (secret === '') return [];
  const out = new Set<string>([secret]);
  const add = (text: string) => {
    if (text.length >= 4) out.add(text);
  };
  const percent = encodeURIComponent(secret);
  add(percent);
  add(encodeURIComponent(percent));
  add(new URLSearchParams({ x: secret }).toString().slice(2));
  add(percent.replace(/%20/g, '+'));
  add(JSON.stringify(secret).slice(1, -1));
  const bytes = utf8(secret);
  // Hex of its bytes (matched ignoring case, so upper-case hex too), and the secret reversed: both
  // seen in agents' error echoes by an attack run.
  add(hex(bytes));
  add([...secret].reverse().join(''));
  for (const alphabet of ['base64', 'base64url'] as const) {
    add(base64(bytes, alphabet));
    for (const shift of [0, 1, 2]) {
      const encoded = base64(shifted(bytes, shift), alphabet);
      const core = encoded.slice(shift === 0 ? 0 : 4, Math.floor((shift + bytes.length) / 3) * 4);
      if (core.length >= 8) out.add(core);
    }
  }
  return [...out];
}

/**
 * The secrets a set of placements puts on a request, as {@link redactSecrets} takes them: each
 * header, query and cookie value; the credentials part of `<auth-scheme> <credentials>` alone; and
 * for Basic the decoded `user:password` and the password alone.
 */
export function placementSecrets(placements: readonly CredentialPlacement[]): string[] {
  const out = new Set<string>();
  for (const p of placements) {
    for (const value of [...Object.values(p.headers), ...Object.values(p.query), ...Object.values(p.cookies)]) {
      out.add(value);
      const parts = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\s+(.+)$/.exec(value);
      if (parts?.[1] && parts[1].length >= 4) out.add(parts[1]);
      const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(value);
      if (basic?.[1]) {
        const decoded = fromBase64(basic[1]);
        out.add(decoded);
        const password = decoded.slice(decoded.indexOf(':') + 1);
        if (password.length >= 4) out.add(password);
      }
    }
  }
  return [...out].filter((s) => s.length > 0);
}

/**
 * The shortest run of a secret's characters that counts as an echo of it when an agent cuts the
 * secret short ({@link redactSecrets}): a run this long that starts (or ends) a secret, in any
 * spelling. Secrets no longer than this are matched whole only.
 */
const PARTIAL_SECRET_MIN = 12;

/**
 * A spelling of a secret as a sequence of units, each unit the spelling of a stretch of the
 * secret, and how many leading (or trailing) units cover {@link PARTIAL_SECRET_MIN} characters of
 * it: a run of whole units that starts (ends) the spelling and is at least `min` units long is an
 * echo of a cut-short secret.
 */
interface UnitSpelling {
  units: string[];
  min: number;
}

/**
 * The unit spellings of `secret` ({@link UnitSpelling}): per character, the value itself, each
 * encoding of {@link secretSpellings} that maps character by character (percent-encoded, once and
 * twice; form-encoded; JSON-escaped; hex of the bytes) and the value reversed; and base64 and
 * base64url in whole 4-character groups (3 bytes each) at each of the three byte alignments.
 * Empty for a secret of at most {@link PARTIAL_SECRET_MIN} characters.
 */
function unitSpellings(secret: string): UnitSpelling[] {
  const chars = [...secret];
  if (chars.length <= PARTIAL_SECRET_MIN) return [];
  const out: UnitSpelling[] = [];
  const perChar: Array<(c: string) => string> = [
    (c) => c,
    (c) => encodeURIComponent(c),
    (c) => encodeURIComponent(encodeURIComponent(c)),
    (c) => new URLSearchParams({ x: c }).toString().slice(2),
    (c) => encodeURIComponent(c).replace(/%20/g, '+'),
    (c) => JSON.stringify(c).slice(1, -1),
    (c) => hex(utf8(c)),
  ];
  const seen = new Set<string>();
  for (const spell of perChar) {
    let units: string[];
    try {
      units = chars.map(spell);
    } catch {
      continue; // a lone surrogate: no percent-encoding of it exists
    }
    const key = units.join('\u0000');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ units, min: PARTIAL_SECRET_MIN });
  }
  out.push({ units: [...chars].reverse(), min: PARTIAL_SECRET_MIN });
  const bytes = utf8(secret);
  for (const alphabet of ['base64', 'base64url'] as const) {
    for (const shift of [0, 1, 2]) {
      const encoded = base64(shifted(bytes, shift), alphabet);
      const core = encoded.slice(shift === 0 ? 0 : 4, Math.floor((shift + bytes.length) / 3) * 4);
      const units = core.match(/.{4}/g) ?? [];
      if (units.length > PARTIAL_SECRET_MIN / 3) out.push({ units, min: PARTIAL_SECRET_MIN / 3 });
    }
  }
  return out.filter((u) => u.units.length > u.min);
}

/** One seed of a partial echo: the first (or last) `min` units of a unit spelling, extended by whole units as far as the text goes. */
interface Seed {
  spelling: UnitSpelling;
  /** True: the seed starts the spelling (extend forward); false: it ends it (extend backward). */
  start: boolean;
}

/** A compiled redaction for one list of secrets: one pattern, and the partial-echo seeds by their lower-case text. */
interface Redactor {
  pattern: RegExp;
  seeds: Map<string, Seed[]>;
}

/** Redactors by their secrets (joined with NUL): redaction runs on every output, so each list is compiled once. */
const redactors = new Map<string, Redactor>();

function redactorFor(secrets: readonly string[]): Redactor | undefined {
  const key = secrets.join('\u0000');
  const cached = redactors.get(key);
  if (cached) return cached;
  const seeds = new Map<string, Seed[]>();
  const alternatives = new Set(secrets.flatMap(secretSpellings));
  for (const spelling of secrets.flatMap(unitSpellings)) {
    const { units, min } = spelling;
    for (const [text, start] of [
      [units.slice(0, min).join(''), true],
      [units.slice(-min).join(''), false],
    ] as const) {
      alternatives.add(text);
      const lower = text.toLowerCase();
      seeds.set(lower, [...(seeds.get(lower) ?? []), { spelling, start }]);
    }
  }
  if (alternatives.size === 0) return undefined;
  const sorted = [...alternatives].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(sorted.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'giu');
  const redactor = { pattern, seeds };
  if (redactors.size >= 64) redactors.clear();
  redactors.set(key, redactor);
  return redactor;
}

/** Whether `text` holds `unit` at `at`, ignoring case. */
function unitAt(text: string, at: number, unit: string): boolean {
  return at >= 0 && text.slice(at, at + unit.length).toLowerCase() === unit.toLowerCase();
}

/**
 * `text` with every spelling ({@link secretSpellings}) of every secret replaced by `***`, matched
 * case-insensitively, longest first; and, for a secret longer than {@link PARTIAL_SECRET_MIN}
 * characters, every run of at least that many of its characters that starts or ends it (an agent
 * that echoes all but the last few characters), raw or in any of those spellings. For text that
 * may quote a credential: an agent's error message, an SDK error built from the agent's answer.
 * One compiled pattern per list of secrets (cached), one pass over `text`.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0 || text === '') return text;
  const redactor = redactorFor(secrets);
  if (!redactor) return text;
  const { pattern, seeds } = redactor;
  let out = '';
  let done = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    let from = m.index;
    let to = from + m[0].length;
    for (const { spelling, start } of seeds.get(m[0].toLowerCase()) ?? []) {
      const { units, min } = spelling;
      if (start) {
        let end = from + m[0].length;
        for (let i = min; i < units.length && unitAt(text, end, units[i]!); i++) end += units[i]!.length;
        to = Math.max(to, end);
      } else {
        let begin = m.index;
        for (
          let i = units.length - min - 1;
          i >= 0 && begin - units[i]!.length >= done && unitAt(text, begin - units[i]!.length, units[i]!);
          i--
        )
          begin -= units[i]!.length;
        from = Math.min(from, begin);
      }
    }
    out += `${text.slice(done, from)}***`;
    done = to;
    pattern.lastIndex = to;
  }
  return done === 0 ? text : out + text.slice(done);
}

/** The refusal of a card that {@link quotesSecret}: said without the value. */
export const QUOTES_CREDENTIAL =
  'the card quotes the credential its request carried (the agent or a gateway echoed it): refused, so it is neither written to the lockfile nor shown';

/**
 * Whether the JSON document `value` (a card as served) holds one of `secrets` (those of at least 8
 * characters; a shorter one could occur in any text by chance) in any spelling or cut short
 * ({@link redactSecrets}): an agent or gateway that echoed the credential its request carried. A
 * document too deep to print is left to the depth check that refuses it.
 */
export function quotesSecret(value: unknown, secrets: readonly string[]): boolean {
  const searched = secrets.filter((secret) => secret.length >= 8);
  if (searched.length === 0) return false;
  let text: string;
  try {
    text = JSON.stringify(value) ?? '';
  } catch {
    return false;
  }
  return redactSecrets(text, searched) !== text;
}

/**
 * A copy of `value` (an error and its `cause` chain, or any plain data) in which every string
 * is {@link redactSecrets}-ed: own properties of errors, plain objects and arrays are walked
 * (message, stack, cause, data, response text; non-enumerable ones too), to a depth of 8; the copy
 * of an error keeps its prototype (so `instanceof` and `name` still hold). Other objects (class
 * instances with internal state) are kept as they are. `value` itself when nothing changed.
 */
export function redactError<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const copies = new Map<object, unknown>();
  let changed = false;
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      const r = redactSecrets(v, secrets);
      if (r !== v) changed = true;
      return r;
    }
    if (typeof v !== 'object' || v === null || depth > 8) return v;
    const proto = Object.getPrototypeOf(v) as object | null;
    if (!(v instanceof Error) && !Array.isArray(v) && proto !== Object.prototype && proto !== null) return v;
    if (copies.has(v)) return copies.get(v);
    const copy: object = Array.isArray(v) ? [] : Object.create(proto);
    copies.set(v, copy);
    for (const key of Reflect.ownKeys(v)) {
      const descriptor = Object.getOwnPropertyDescriptor(v, key)!;
      if ('value' in descriptor) descriptor.value = walk(descriptor.value, depth + 1);
      Object.defineProperty(copy, key, descriptor);
    }
    return copy;
  };
  const copy = walk(value, 0);
  return changed ? (copy as T) : value;
}

function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

// ---------------------------------------------------------------------------------------------
// Platform authentication per origin (the manifest's `originAuth`), in words: never a value.

/**
 * A placement as a reader sees it, never a value: `Authorization: Bearer $TOKEN`,
 * `X-Serverless-Authorization: Bearer $TOKEN`, `AWS SigV4 (us-west-2, bedrock-agentcore)`.
 */
export function describeOriginAuth(auth: OriginAuth): string {
  if ('bearer' in auth) return `Authorization: Bearer $${auth.bearer.env}`;
  if ('header' in auth) return `${auth.header.name}: ${auth.header.prefix ?? ''}$${auth.header.env}`;
  return `AWS SigV4 (${auth.awsSigV4.region}, ${auth.awsSigV4.service})`;
}

/** {@link describeOriginAuth} of each origin of a recorded `originAuth`. */
export function describeOriginAuths(record: Readonly<Record<string, OriginAuth>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([origin, auth]) => [origin, describeOriginAuth(auth)]));
}

/** The manifest snippet that authenticates `origin` with a bearer token: for the error of a card refused 401/403 without one. */
export function originAuthExample(origin: string): string {
  return `"originAuth": {"${origin}": {"bearer": {"env": "ORIGIN_TOKEN"}}}`;
}

/**
 * Why a run cannot authenticate at the origins of `config` (a placement's variable unset, with no
 * provider for its origin): `ORIGIN_TOKEN is not set (originAuth for https://…)`; undefined when
 * every value is there. Reads the names only, never sends.
 */
export function unsetOriginAuth(
  config: Readonly<Record<string, OriginAuth>>,
  run: { env?: Readonly<Record<string, string | undefined>>; originAuthProviders?: Readonly<Record<string, unknown>> },
): string | undefined {
  const env = run.env ?? {};
  for (const [origin, auth] of Object.entries(config)) {
    if (run.originAuthProviders && Object.hasOwn(run.originAuthProviders, origin)) continue;
    const names =
      'awsSigV4' in auth
        ? ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']
        : ['bearer' in auth ? auth.bearer.env : auth.header.env];
    const missing = names.find((name) => !env[name]);
    if (missing !== undefined) return `${missing} is not set (originAuth for ${origin})`;
  }
  return undefined;
}

/** The UTF-8 bytes of `text` (a lone surrogate as U+FFFD). */
function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** `bytes` after `shift` zero bytes (a base64 spelling of the secret at another byte alignment). */
function shifted(bytes: Uint8Array, shift: number): Uint8Array {
  const out = new Uint8Array(shift + bytes.length);
  out.set(bytes, shift);
  return out;
}

/** Lower-case hex of `bytes`. */
function hex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** `bytes` in base64 (padded) or base64url (unpadded, RFC 4648 §5). */
function base64(bytes: Uint8Array, alphabet: 'base64' | 'base64url'): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const text = btoa(binary);
  return alphabet === 'base64' ? text : text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * Base64 text (`[A-Za-z0-9+/=]`) decoded leniently and read as UTF-8 (invalid sequences as
 * U+FFFD): it ends at the first `=`, and a last lone character is dropped.
 */
function fromBase64(text: string): string {
  const end = text.indexOf('=');
  let data = end >= 0 ? text.slice(0, end) : text;
  if (data.length % 4 === 1) data = data.slice(0, -1);
  const binary = atob(data + '='.repeat((4 - (data.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}
