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

import { base64, utf8 } from './bytes.js';
import type { SecurityScheme } from './card/model.js';
import { UsageError } from './errors.js';
import type { OriginAuth } from './manifest/schema.js';

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
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters other than HTAB: they would split or corrupt a header. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Whether `value` holds a control character other than HTAB (a line break would split a header or corrupt a request). */
export function hasControlCharacter(value: string): boolean {
  return CONTROL.test(value);
}

/**
 * What a credential placed as it is in a header or a cookie must be (the Python runtime's `credentials.py` holds the
 * same rule): printable ASCII (RFC 9110 §5.5 field-vchar and space; a header cannot carry another character as it is,
 * and clients disagree on what they send instead), with no leading or trailing space (which a header value loses).
 */
const HEADER_SAFE = /^[\u0021-\u007e](?:[\u0020-\u007e]*[\u0021-\u007e])?$/;

/**
 * Whether `value` may go as it is into a header or a cookie ({@link HEADER_SAFE}: printable ASCII, no leading or
 * trailing space): the runtime loaders hold every credential placement and `originAuth` value to it before anything
 * is sent.
 */
export function isHeaderSafe(value: string): boolean {
  return HEADER_SAFE.test(value);
}
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
 * @param runtime For the runtime loaders: `owner`, who needs it (`agent (skill)`), named first in
 *   messages; `headerSafe`, a secret placed as it is in a header or cookie held to {@link isHeaderSafe}
 *   (the Python runtime's rule too). Without it (the CLI's card fetches and probes) a header value is
 *   what `checkHeaders` lets undici send.
 * @returns One placement: exactly one entry in one of its three records.
 * @throws {UsageError} `mtls` (a client certificate cannot be sent in headers; unsupported); an
 *   empty secret; a secret with a line break or control character; with `headerSafe`, a secret
 *   placed as it is in a header or cookie (Bearer, another http scheme, an apiKey header or cookie,
 *   an access token) that is not printable ASCII or has a leading or trailing space; for a cookie, a
 *   character a cookie value cannot carry; Basic without `:`; an http scheme name or apiKey
 *   header/cookie name that is not an HTTP token; an empty apiKey name; an unknown apiKey location or
 *   scheme type.
 */
export function placeCredential(
  scheme: SecurityScheme,
  secret: string,
  name?: string,
  runtime?: { owner: string; headerSafe: boolean },
): CredentialPlacement {
  const named =
    name === undefined
      ? `security scheme (${scheme.type})`
      : `security scheme "${controlsAsSpaces(name)}" (${scheme.type})`;
  const what = runtime === undefined ? named : `${controlsAsSpaces(runtime.owner)}: ${named}`;
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
  if (hasControlCharacter(secret))
    return fail('the credential contains a line break or control character (a trailing newline?)');
  /** The secret goes as it is into a header or cookie: printable ASCII, no leading or trailing space. */
  const verbatim = (): void => {
    if (runtime?.headerSafe && !isHeaderSafe(secret))
      fail(
        'the credential has a character that is not printable ASCII, or a leading or trailing space, which a header or cookie cannot carry as it is',
      );
  };

  switch (scheme.type) {
    case 'http': {
      const authScheme = scheme.scheme;
      if (typeof authScheme !== 'string' || !HTTP_TOKEN.test(authScheme))
        return fail('the http scheme name is not a valid HTTP auth-scheme token');
      const lower = authScheme.toLowerCase();
      if (lower === 'bearer') {
        verbatim();
        placement.headers.Authorization = `Bearer ${secret}`;
      } else if (lower === 'basic') {
        if (!secret.includes(':')) return fail('a Basic credential must be "user:password" (no ":" found)');
        placement.headers.Authorization = `Basic ${base64(utf8(secret), 'base64')}`;
      } else {
        verbatim();
        placement.headers.Authorization = `${authScheme} ${secret}`;
      }
      return placement;
    }
    case 'apiKey': {
      const keyName = scheme.name;
      if (typeof keyName !== 'string' || keyName === '') return fail('the apiKey has no name');
      const location = typeof scheme.location === 'string' ? scheme.location.toLowerCase() : '';
      if (location === 'header') {
        if (!HTTP_TOKEN.test(keyName)) return fail('the apiKey name is not a valid HTTP header name');
        verbatim();
        placement.headers[keyName] = secret;
      } else if (location === 'query') {
        placement.query[keyName] = secret;
      } else if (location === 'cookie') {
        if (!HTTP_TOKEN.test(keyName)) return fail('the apiKey name is not a valid cookie name');
        verbatim();
        if (COOKIE_FORBIDDEN.test(secret))
          return fail(
            'the credential contains a character a cookie value cannot carry (space, quote, comma, semicolon or backslash)',
          );
        placement.cookies[keyName] = secret;
      } else {
        return fail(
          `apiKey location ${JSON.stringify(controlsAsSpaces(String(scheme.location)).slice(0, 32))} is not header, query or cookie`,
        );
      }
      return placement;
    }
    case 'oauth2':
    case 'openIdConnect':
      verbatim();
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
      if (seenQuery.has(name))
        throw new UsageError(`two credentials both need the query parameter "${controlsAsSpaces(name)}"`);
      seenQuery.add(name);
      target.searchParams.set(name, value);
    }
    for (const [name, value] of Object.entries(placement.cookies)) {
      if (seenCookies.has(name))
        throw new UsageError(`two credentials both need the cookie "${controlsAsSpaces(name)}"`);
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

/** `text` with every run of control characters (line breaks included) as one space, trimmed: a name or a server's words on one line. */
export function controlsAsSpaces(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}
