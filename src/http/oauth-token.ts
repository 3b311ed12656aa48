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
    let response: Response;
    try {
      response = await this.fetch(url, {
        method: 'POST',
        headers,
        body: form.toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      // The application's own fetch may quote the request (its Basic header, its form body): redacted.
      if (error instanceof A2aLockError) throw redactError(error, secrets);
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw new FetchError(
        timedOut ? 'timeout' : 'unreachable',
        shown,
        timedOut ? 'the token endpoint did not answer in time' : 'the token endpoint could not be reached',
        { cause: redactError(error, secrets) },
      );
    }
    return tokenOf(response, shown, echoes);
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

/** The response body as text, at most {@link MAX_RESPONSE_BYTES} bytes (the rest is not read). */
async function boundedText(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      break;
    }
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
 * The access token and its lifetime (seconds) from a token endpoint's answer: a redirect, a refusal
 * or any other failure is a FetchError naming `shown`; a token (or token type) that `echoes` the
 * client secret is refused without quoting it.
 */
async function tokenOf(
  response: Response,
  shown: string,
  echoes: (text: string) => boolean,
): Promise<{ token: string; lifetime: number }> {
  const text = await boundedText(response);
  const body = parseObject(text);
  // The OAuth error code is quoted, unless the endpoint echoes the secret in it.
  const oauthError =
    typeof body?.error === 'string' && /^[\x21-\x7e]{1,64}$/.test(body.error) && !echoes(body.error)
      ? ` ${body.error}`
      : '';
  if (response.status >= 300 && response.status < 400) {
    throw new FetchError(
      'unreachable',
      shown,
      `the token endpoint answered a redirect (HTTP ${response.status}), which is never followed: the client secret goes only to the locked token URL`,
      { status: response.status },
    );
  }
  if (response.status === 400 || response.status === 401 || response.status === 403) {
    throw new FetchError(
      'auth-refused',
      shown,
      `the token endpoint refused the client credentials (HTTP ${response.status}${oauthError})`,
      { status: response.status },
    );
  }
  if (!response.ok)
    throw new FetchError('unreachable', shown, `the token endpoint answered HTTP ${response.status}${oauthError}`, {
      status: response.status,
    });
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
    const type = body.token_type.slice(0, 20);
    throw new FetchError(
      'unreachable',
      shown,
      `the token endpoint answered a token of type ${echoes(body.token_type) ? '(not shown: it quotes the client secret)' : JSON.stringify(type)}, not Bearer`,
    );
  }
  const expiresIn = Number(body?.expires_in);
  return { token, lifetime: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_LIFETIME_S };
}
