/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4): an access token for a card's `oauth2SecurityScheme`
 * whose `clientCredentials` flow names a `tokenUrl`, requested from exactly that URL (the one locked in
 * the snapshot; the caller passes it), cached until shortly before it expires. The client secret goes
 * to the token URL only: never to the agent, never along a redirect (a 3xx is an error), never over
 * plain http to a host that is not loopback. Used by the runtime (`a2a-lock/runtime`) and by the CLI
 * for an extended card.
 */
import { createHash } from 'node:crypto';
import { isCleartextOffLoopback } from '../card/host.js';
import { A2aLockError, FetchError } from '../errors.js';
import { redactError, redactSecrets } from '../redact.js';

/** What {@link ClientCredentialsTokens.token} needs for one token. */
export interface ClientCredentialsGrant {
  /** The flow's `tokenUrl`, as locked. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The scopes the locked security requirement lists for the scheme (sent space-separated; none: no `scope`). */
  scopes: readonly string[];
  /** Client authentication (RFC 6749 §2.3.1): HTTP Basic (default) or `client_id`/`client_secret` in the form body. */
  clientAuth?: 'basic' | 'form';
}

/** Seconds before `expires_in` runs out at which a cached token is no longer used. */
const TOKEN_EARLY_EXPIRY_S = 30;

/** A token with no `expires_in` is used for this long (s) before it is asked for again. */
const DEFAULT_LIFETIME_S = 300;

/** At most this many bytes of a token response are read. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * The OAuth `error` codes an error message quotes: RFC 6749's (§5.2, the token endpoint's, and §4.1.2.1's, which token
 * endpoints answer too: server_error, temporarily_unavailable), RFC 6750 §3.1's and RFC 8628 §3.5's. Any other value is the endpoint's own text (it may echo the client secret) and
 * is never quoted; nor are `error_description` and `error_uri`. python/src/a2a_lock/oauth.py holds the same list;
 * conformance/vectors/oauth-token-errors.json holds both to the same words.
 */
const OAUTH_ERROR_CODES: ReadonlySet<string> = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'access_denied',
  'unsupported_response_type',
  'server_error',
  'temporarily_unavailable',
  'invalid_token',
  'insufficient_scope',
  'authorization_pending',
  'slow_down',
  'expired_token',
]);

/**
 * The registered access token types (IANA "OAuth Access Token Types": RFC 6750, RFC 8693, RFC 9200, RFC 9449), by
 * their lower-case spelling (RFC 6749 §5.1: `token_type` is case-insensitive). A token type other than Bearer is
 * refused, named in its registered spelling when it is one of these, else as an unsupported token_type.
 */
const TOKEN_TYPES: ReadonlyMap<string, string> = new Map(
  ['Bearer', 'N_A', 'PoP', 'DPoP'].map((type) => [type.toLowerCase(), type]),
);

/**
 * A cache of client-credentials access tokens, one per (token URL, client id, client secret, scopes). `fetch` sends
 * the token requests (the runtime's send, or the CLI's proxy-aware fetch); `now` gives ms (tests).
 */
export class ClientCredentialsTokens {
  readonly #cache = new Map<string, { token: string; expiresAt: number }>();
  readonly #pending = new Map<string, Promise<string>>();

  constructor(
    private readonly fetch: typeof globalThis.fetch,
    private readonly options: { timeoutMs?: number; now?: () => number } = {},
  ) {}

  /**
   * The access token for `grant`: the cached one while it has more than {@link TOKEN_EARLY_EXPIRY_S}
   * left, else a new one from the token URL (concurrent callers share one request).
   * @throws A2aLockError `insecure-url` (a token URL that is not https, loopback aside; nothing sent);
   *   FetchError `auth-refused` (the endpoint answered 400/401/403), `unreachable` (a network error,
   *   a redirect, any other status, a response that is not a token), `timeout`
   */
  async token(grant: ClientCredentialsGrant): Promise<string> {
    const key = cacheKey(grant);
    const now = this.options.now ?? Date.now;
    const cached = this.#cache.get(key);
    if (cached && cached.expiresAt > now()) return cached.token;
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#request(grant)
        .then(({ token, lifetime }) => {
          this.#cache.set(key, { token, expiresAt: now() + Math.max(0, lifetime - TOKEN_EARLY_EXPIRY_S) * 1000 });
          return token;
        })
        .finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /** Forget the cached token for `grant` (the agent refused it: the next {@link token} asks anew). */
  forget(grant: ClientCredentialsGrant): void {
    this.#cache.delete(cacheKey(grant));
  }

  async #request(grant: ClientCredentialsGrant): Promise<{ token: string; lifetime: number }> {
    const url = grant.tokenUrl;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new A2aLockError('insecure-url', `the token URL is not an absolute URL`, {
        data: { url: url.slice(0, 200) },
      });
    }
    const shown = `${parsed.origin}${parsed.pathname}`;
    if (parsed.protocol !== 'https:' && (parsed.protocol !== 'http:' || isCleartextOffLoopback(url))) {
      throw new A2aLockError(
        'insecure-url',
        `${shown}: a client secret is sent only over https (or to a loopback host); nothing was sent`,
        { data: { url: shown } },
      );
    }
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (grant.scopes.length > 0) form.set('scope', grant.scopes.join(' '));
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    // RFC 6749 §2.3.1: each part form-encoded (then, for Basic, joined and base64-encoded).
    const encode = (s: string) => new URLSearchParams({ x: s }).toString().slice(2);
    const basic = Buffer.from(`${encode(grant.clientId)}:${encode(grant.clientSecret)}`, 'utf8').toString('base64');
    // Every spelling of the secret this request carries: kept out of what is thrown or passed on.
    const secrets = [grant.clientSecret, encode(grant.clientSecret), basic].filter((s) => s.length > 0);
    const echoes = (text: string) => redactSecrets(text, secrets) !== text;
    if (grant.clientAuth === 'form') {
      form.set('client_id', grant.clientId);
      form.set('client_secret', grant.clientSecret);
    } else {
      headers.authorization = `Basic ${basic}`;
    }
    // One deadline for the whole exchange: the answer's headers and its body (an endpoint that drips its body).
    const signal = AbortSignal.timeout(this.options.timeoutMs ?? 10_000);
    let response: Response | undefined;
    let text: string;
    try {
      response = await this.fetch(url, {
        method: 'POST',
        headers,
        body: form.toString(),
        redirect: 'manual',
        signal,
      });
      text = await boundedText(response, signal);
    } catch (error) {
      // The application's own fetch may quote the request (its Basic header, its form body): redacted.
      if (error instanceof A2aLockError) throw redactError(error, secrets);
      const timedOut = signal.aborted || (error instanceof Error && error.name === 'TimeoutError');
      throw new FetchError(
        timedOut ? 'timeout' : 'unreachable',
        shown,
        timedOut
          ? 'the token endpoint did not answer in time'
          : response
            ? "the token endpoint's answer broke off"
            : 'the token endpoint could not be reached',
        { cause: redactError(error, secrets), ...(response && !timedOut ? { status: response.status } : {}) },
      );
    }
    return tokenOf(response.status, text, shown, echoes);
  }
}

/**
 * The cache key of a grant: token URL, client id, a digest of the client secret (a token obtained
 * with one secret is never handed to a grant holding another: two agents' clients), scopes sorted.
 */
function cacheKey(grant: ClientCredentialsGrant): string {
  return JSON.stringify([
    grant.tokenUrl,
    grant.clientId,
    createHash('sha256').update(grant.clientSecret).digest('base64'),
    [...grant.scopes].sort(),
  ]);
}

/**
 * The response body as text, at most {@link MAX_RESPONSE_BYTES} bytes (the rest is not read), read before `signal`
 * aborts (also when the application's fetch does not pass the signal on to the body).
 * @throws the signal's reason (a TimeoutError) when it aborts first; the body stream's error
 */
async function boundedText(response: Response, signal: AbortSignal): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  // The pending read then ends; the read loop throws the signal's reason.
  const onAbort = () => void reader.cancel(signal.reason).catch(() => undefined);
  signal.throwIfAborted();
  signal.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      signal.throwIfAborted();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size > MAX_RESPONSE_BYTES) {
        await reader.cancel();
        break;
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8');
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The words for a token endpoint's OAuth `error` (appended to the status): the code when it is one of
 * {@link OAUTH_ERROR_CODES}, else that it is not one of those; nothing when the answer has none. Never the endpoint's
 * own text.
 */
function oauthErrorWords(body: Record<string, unknown> | undefined): string {
  if (body?.error === undefined) return '';
  return typeof body.error === 'string' && OAUTH_ERROR_CODES.has(body.error)
    ? ` ${body.error}`
    : " with an error code that is not one of RFC 6749's";
}

/**
 * The access token and its lifetime (seconds) from a token endpoint's answer (`status`, the body `text`): a redirect,
 * a refusal or any other failure is a FetchError naming `shown`, in the tool's own words only (the status, a known
 * OAuth error code, a registered token type: never the endpoint's text, which may echo the client secret); a token
 * that `echoes` the client secret is refused.
 */
function tokenOf(
  status: number,
  text: string,
  shown: string,
  echoes: (text: string) => boolean,
): { token: string; lifetime: number } {
  const body = parseObject(text);
  const oauthError = oauthErrorWords(body);
  if (status >= 300 && status < 400) {
    throw new FetchError(
      'unreachable',
      shown,
      `the token endpoint answered a redirect (HTTP ${status}), which is never followed: the client secret goes only to the locked token URL`,
      { status },
    );
  }
  if (status === 400 || status === 401 || status === 403) {
    throw new FetchError(
      'auth-refused',
      shown,
      `the token endpoint refused the client credentials (HTTP ${status}${oauthError})`,
      {
        status,
      },
    );
  }
  if (status < 200 || status >= 300)
    throw new FetchError('unreachable', shown, `the token endpoint answered HTTP ${status}${oauthError}`, { status });
  const token = body?.access_token;
  if (typeof token !== 'string' || token === '')
    throw new FetchError('unreachable', shown, 'the token endpoint answered without an access_token');
  // The token goes to the agent: one that holds the client secret would take it there.
  if (echoes(token))
    throw new FetchError(
      'unreachable',
      shown,
      'the token endpoint answered an access_token that holds the client secret: refused (the client secret goes to the token URL only)',
    );
  if (typeof body?.token_type === 'string' && body.token_type.toLowerCase() !== 'bearer') {
    const type = TOKEN_TYPES.get(body.token_type.toLowerCase());
    throw new FetchError(
      'unreachable',
      shown,
      `the token endpoint answered ${type ? `a token of type ${type}` : 'an unsupported token_type'}, not Bearer`,
    );
  }
  const expiresIn = Number(body?.expires_in);
  return { token, lifetime: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_LIFETIME_S };
}
