/**
 * Card discovery over HTTP(S): where an agent's card is looked for (the well-known path, then the
 * legacy one) and fetching it with the safety rules of {@link requestJson} (`./request.js`). The
 * module `resolve/load-card` loads lazily: importing it loads undici.
 */

import { CARD_PATH, LEGACY_CARD_PATH } from '../card/location.js';
import type { Warning } from '../card/model.js';
import { CardVersionRefusedError, FetchError, InvalidInputError } from '../errors.js';
import { QUOTES_CREDENTIAL, quotesSecret, redactSecrets } from '../redact.js';
import { exchange, makeContext, type NetworkOptions, withDeadline } from './request.js';
import { checkUrlPolicy, parseLocation } from './url-policy.js';

// For the lazy loader of this module (`resolve/load-card`): closes the pool only if a card was fetched.
export { closeDefaultDispatcher } from './dispatcher.js';
// For the same loader: the manifest's originAuth on a card named on the command line (`a2a card`).
export { withOriginAuth } from './origin-auth.js';

/** Options for {@link fetchCard}. */
export interface FetchCardOptions extends NetworkOptions {
  /** Sent as the `A2A-Version` header on every card request (always sent). */
  versionHeader: string;
  /** Body limit in bytes; stop reading (destroy the stream) once exceeded. Default 1 MiB (1_048_576). */
  maxBytes?: number;
  /** The manifest's `cardPath` (see {@link cardUrlsFor}). */
  cardPath?: string;
}

/** A card as fetched: where it came from and its parsed (unvalidated) JSON. */
export interface FetchedCard {
  /** The URL that answered with the card (after redirects and the legacy-path fallback). */
  url: string;
  /** Parsed JSON body (not validated as a card here). Always a non-array object. */
  body: unknown;
  warnings: Warning[];
}

/**
 * The card URL(s) that would be tried for a location, in order. Pure; does no I/O and does not
 * apply the plain-http policy (that needs `allowHttp`; {@link fetchCard} checks it).
 *
 * With `cardPath` (the manifest's): `""` means the location is the card itself, whatever its path
 * (`https://…/v1/card`); any other value is joined to the location's path as the SDKs' card
 * resolvers join `relative_card_path` (trailing slashes of the one and leading slashes of the other
 * stripped, one `/` between): one URL either way. Without it, if the location's path ends in
 * `.json` it is the card itself (one URL); otherwise the path (trailing slashes stripped) gets
 * `/.well-known/agent-card.json` appended, followed by the legacy `/.well-known/agent.json`. The
 * query string is kept; the fragment is dropped.
 *
 * @param location An absolute `http:` or `https:` URL.
 * @param cardPath The manifest's `cardPath`, when set.
 * @returns One or two absolute URLs.
 * @throws {InvalidInputError} `insecure-url` if `location` is not an absolute http(s) URL or
 *   carries credentials (`user:pass@`).
 */
export function cardUrlsFor(location: string, cardPath?: string): string[] {
  const url = parseLocation(location);
  url.hash = '';
  if (cardPath === '') return [url.href];
  const base = url.pathname.replace(/\/+$/, '');
  if (cardPath !== undefined) {
    url.pathname = `${base}/${cardPath.replace(/^\/+/, '')}`;
    return [url.href];
  }
  if (url.pathname.endsWith('.json')) return [url.href];
  const primary = new URL(url.href);
  primary.pathname = base + CARD_PATH;
  const legacy = new URL(url.href);
  legacy.pathname = base + LEGACY_CARD_PATH;
  return [primary.href, legacy.href];
}

/**
 * Fetch an Agent Card and parse its JSON.
 *
 * Sends only `A2A-Version`, `Accept: application/json` and `User-Agent` (never Authorization or
 * cookies), follows up to 5 redirects itself (checking the URL policy on every hop), and falls
 * back to the legacy `/.well-known/agent.json` only when `/.well-known/agent-card.json` answers
 * 404, adding a `legacy-well-known-path` warning. The whole call, fallback included, runs under
 * one deadline of `timeoutMs` milliseconds.
 *
 * @param location An http(s) URL: the card itself if its path ends in `.json`, else the agent's base URL.
 * @param options See {@link FetchCardOptions}.
 * @returns The final URL, the parsed JSON object and any warnings.
 * @throws {InvalidInputError} `insecure-url`: not an http(s) URL, credentials in the URL, plain
 *   http to a non-loopback host without `allowHttp` (refused before connecting), or an https→http
 *   redirect. `card-invalid`: body over `maxBytes`, a non-JSON content type, empty body, invalid
 *   UTF-8 or JSON, or JSON that is not an object.
 * @throws {FetchError} `auth-refused` on 401/403; `unreachable` on 404 (after the legacy fallback),
 *   other 4xx/5xx (429/500/502/503/504 once `retries` are spent), too many redirects, or a network error (DNS, refused, reset, TLS, socket closed
 *   mid-body); `timeout` when the deadline passes anywhere (connect, headers, body).
 *   If the legacy URL fails with anything but 404, that error is thrown; if both 404, the error
 *   names both URLs (`data.tried`).
 * @throws {CardVersionRefusedError} when the card request is refused for its `A2A-Version`
 *   (see {@link versionRefusalOf}); {@link fetchCardForVersions} asks the next version.
 * @throws {UsageError} when the request would go through the proxy of a variable that is not an http(s) URL.
 */
export async function fetchCard(location: string, options: FetchCardOptions): Promise<FetchedCard> {
  const urls = cardUrlsFor(location, options.cardPath);
  const context = makeContext(options, {
    versionHeader: options.versionHeader,
    method: 'GET',
    body: undefined,
    headers: {},
    followRedirects: true,
    // A 400 is read (when JSON) to say why the version was refused.
    acceptErrorStatus: new Set([400]),
    subject: 'card',
    redactQuery: new Set(),
  });
  // Refuse plain http before any connection, for every candidate URL.
  for (const u of urls) checkUrlPolicy(new URL(u), u, context.allowHttp, undefined, context.redactQuery);

  return withDeadline(context, async () => {
    const [primary, legacy] = urls as [string, string | undefined];
    try {
      const { url, body } = await askCard(new URL(primary), context, options.versionHeader);
      return { url, body, warnings: [] };
    } catch (error) {
      if (legacy === undefined || !isNotFound(error)) throw error;
      try {
        const { url, body } = await askCard(new URL(legacy), context, options.versionHeader);
        const warning: Warning = {
          code: 'legacy-well-known-path',
          message: `card served at the legacy ${LEGACY_CARD_PATH}; A2A expects ${CARD_PATH} (${primary} answered 404)`,
        };
        return { url, body, warnings: [warning] };
      } catch (legacyError) {
        if (!isNotFound(legacyError)) throw legacyError;
        throw new FetchError('unreachable', primary, `not found (404); ${legacy}: not found (404) either`, {
          status: 404,
          data: { tried: [primary, legacy] },
        });
      }
    }
  });
}

/** Whether `error` is the {@link FetchError} of a 404 answer (the one status that tries the legacy path). */
function isNotFound(error: unknown): boolean {
  return error instanceof FetchError && error.code === 'unreachable' && error.status === 404;
}

/**
 * One card request; a refusal of its `A2A-Version` (HTTP 400, or a VersionNotSupported body with
 * any status) becomes a {@link CardVersionRefusedError}.
 */
async function askCard(
  url: URL,
  context: ReturnType<typeof makeContext>,
  version: string,
): Promise<{ url: string; body: unknown }> {
  let answer;
  try {
    answer = await exchange(url, context);
  } catch (error) {
    // A 400 whose body is not a JSON object: still a refusal of the request as sent.
    if (error instanceof FetchError && error.status === 400)
      throw new CardVersionRefusedError(error.url, version, 'HTTP 400', 400);
    throw error;
  }
  // The agent's words may quote the request: the platform credential it carried is not printed.
  const said = versionRefusalOf(answer.body);
  const why = said === undefined ? undefined : redactSecrets(said, context.platformAuth?.sentSecrets() ?? []);
  if (answer.status === 400 || why !== undefined) {
    throw new CardVersionRefusedError(
      answer.url,
      version,
      `HTTP ${answer.status}${why ? `: ${why}` : ''}`,
      answer.status,
    );
  }
  // A card that echoes the platform credential, or a credential the project names (an agent sent
  // its token by a lock's probe), would carry it into the lockfile and every output.
  if (quotesSecret(answer.body, [...(context.platformAuth?.sentSecrets() ?? []), ...(context.knownSecrets ?? [])]))
    throw new InvalidInputError('card-invalid', answer.url, QUOTES_CREDENTIAL);
  return answer;
}

/**
 * Whether a JSON body is an A2A VersionNotSupported error, and its words: the JSON-RPC form
 * `{"error":{"code":-32009,"message":…}}` (or its bare `{"code":-32009}`, as the SDK's card handler answers), the `google.rpc.Status` form whose `details` hold a
 * `google.rpc.ErrorInfo` with reason `VERSION_NOT_SUPPORTED`. Pure.
 * @returns e.g. `VersionNotSupported (-32009): version 9 not supported`, or `undefined` when the body is no such error.
 */
export function versionRefusalOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  // The @a2a-js/sdk card handler (v0.3 compat on) answers a bare `{"code":-32009,"message":…}`.
  const bare = body as { code?: unknown; message?: unknown };
  if (bare.code === -32009)
    return `VersionNotSupported (-32009)${typeof bare.message === 'string' && bare.message !== '' ? `: ${bare.message.slice(0, 200)}` : ''}`;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, details } = error as { code?: unknown; message?: unknown; details?: unknown };
  const words = typeof message === 'string' && message !== '' ? `: ${message.slice(0, 200)}` : '';
  if (code === -32009) return `VersionNotSupported (-32009)${words}`;
  if (
    Array.isArray(details) &&
    details.some(
      (d) => typeof d === 'object' && d !== null && (d as { reason?: unknown }).reason === 'VERSION_NOT_SUPPORTED',
    )
  ) {
    return `VERSION_NOT_SUPPORTED${words}`;
  }
  return undefined;
}

/** A card as fetched by {@link fetchCardForVersions}: also the `A2A-Version` that answered. */
export interface FetchedCardForVersion extends FetchedCard {
  /** The `A2A-Version` whose request the card answered. */
  versionHeader: string;
}

/**
 * Fetch a card asking with each of `versions` in order (the agent profile's order) until one is
 * not refused (see {@link CardVersionRefusedError}): one request when the first version answers.
 *
 * @param versions At least one `A2A-Version`, most preferred first.
 * @throws {FetchError} `unreachable` naming each version tried and its answer (`data.versionsTried`)
 *   when every version is refused; otherwise what {@link fetchCard} throws.
 */
export async function fetchCardForVersions(
  location: string,
  versions: readonly string[],
  options: Omit<FetchCardOptions, 'versionHeader'>,
): Promise<FetchedCardForVersion> {
  const refusals: CardVersionRefusedError[] = [];
  for (const version of versions) {
    try {
      return { ...(await fetchCard(location, { ...options, versionHeader: version })), versionHeader: version };
    } catch (error) {
      if (!(error instanceof CardVersionRefusedError)) throw error;
      refusals.push(error);
    }
  }
  const last = refusals[refusals.length - 1];
  if (last === undefined) throw new TypeError('fetchCardForVersions: no version to ask with');
  const tried = refusals.map((r) => `${r.version} (${r.answer})`).join(', ');
  throw new FetchError('unreachable', last.url, `every A2A-Version asked for was refused: ${tried}`, {
    status: last.status,
    hint: "the agent speaks none of the profile's versions; check the agent profile (versions) against the agent",
    data: { versionsTried: refusals.map((r) => ({ version: r.version, answer: r.answer })) },
  });
}
