/**
 * Card discovery over HTTP(S): where an agent's card is looked for (the well-known path, then the
 * legacy one) and fetching it with the safety rules of {@link requestJson} (`./request.js`). The
 * module `resolve/load-card` loads lazily: importing it loads undici.
 */

import { CARD_PATH, LEGACY_CARD_PATH } from '../card/location.js';
import type { Warning } from '../card/model.js';
import { FetchError } from '../errors.js';
import { exchange, makeContext, withDeadline, type NetworkOptions } from './request.js';
import { checkUrlPolicy, parseLocation } from './url-policy.js';

// For the lazy loader of this module (`resolve/load-card`): closes the pool only if a card was fetched.
export { closeDefaultDispatcher } from './dispatcher.js';

/** Options for {@link fetchCard}. */
export interface FetchCardOptions extends NetworkOptions {
  /** Sent as the `A2A-Version` header on every card request (always sent). */
  versionHeader: string;
  /** Body limit in bytes; stop reading (destroy the stream) once exceeded. Default 1 MiB (1_048_576). */
  maxBytes?: number;
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
 * If the location's path ends in `.json` it is the card itself (one URL). Otherwise the path
 * (trailing slashes stripped) gets `/.well-known/agent-card.json` appended, followed by the legacy
 * `/.well-known/agent.json`. The query string is kept; the fragment is dropped.
 *
 * @param location An absolute `http:` or `https:` URL.
 * @returns One or two absolute URLs.
 * @throws {InvalidInputError} `insecure-url` if `location` is not an absolute http(s) URL or
 *   carries credentials (`user:pass@`).
 */
export function cardUrlsFor(location: string): string[] {
  const url = parseLocation(location);
  url.hash = '';
  if (url.pathname.endsWith('.json')) return [url.href];
  const base = url.pathname.replace(/\/+$/, '');
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
 *   names the primary URL.
 * @throws {UsageError} when the shared dispatcher is needed and a proxy variable is not an http(s) URL.
 */
export async function fetchCard(location: string, options: FetchCardOptions): Promise<FetchedCard> {
  const urls = cardUrlsFor(location);
  const context = makeContext(options, {
    versionHeader: options.versionHeader,
    method: 'GET',
    body: undefined,
    headers: {},
    followRedirects: true,
    acceptErrorStatus: new Set(),
    subject: 'card',
    redactQuery: new Set(),
  });
  // Refuse plain http before any connection, for every candidate URL.
  for (const u of urls) checkUrlPolicy(new URL(u), u, context.allowHttp, undefined, context.redactQuery);

  return withDeadline(context, async () => {
    const [primary, legacy] = urls as [string, string | undefined];
    try {
      const { url, body } = await exchange(new URL(primary), context);
      return { url, body, warnings: [] };
    } catch (error) {
      if (legacy === undefined || !isNotFound(error)) throw error;
      try {
        const { url, body } = await exchange(new URL(legacy), context);
        const warning: Warning = {
          code: 'legacy-well-known-path',
          message: `card served at the legacy ${LEGACY_CARD_PATH}; A2A expects ${CARD_PATH} (${primary} answered 404)`,
        };
        return { url, body, warnings: [warning] };
      } catch (legacyError) {
        throw isNotFound(legacyError) ? error : legacyError;
      }
    }
  });
}

/** Whether `error` is the {@link FetchError} of a 404 answer (the one status that tries the legacy path). */
function isNotFound(error: unknown): boolean {
  return error instanceof FetchError && error.code === 'unreachable' && error.status === 404;
}
