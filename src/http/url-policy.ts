/**
 * Which URLs a request may go to, and how a URL is printed in errors. Pure: URL parsing and
 * string tests, no I/O and no undici.
 *
 * The policy: only absolute `https:` URLs, plus plain `http:` to loopback hosts (or to any host
 * with `allowHttp`); never credentials in the URL; a redirect never leaves https for plain http.
 * Printed URLs never carry userinfo, a fragment or a secret query value.
 */

import { isLoopbackHost } from '../card/host.js';
import { hasUserInfo, showLocation, USERINFO_NOT_SHOWN } from '../card/location.js';
import { InvalidInputError } from '../errors.js';

/** How the URLs of one request are reported: the noun for messages and the query parameters whose values are secret. */
export interface UrlReporting {
  /** Noun in error messages: "card", "response", "extended card". */
  subject: string;
  /** Query parameter names whose values are shown as `***`. */
  redactQuery: ReadonlySet<string>;
}

/**
 * Parse and check a location: an absolute http(s) URL without credentials. With a `reporting`
 * that redacts query values, an unparseable URL is shown without its query; without one, the
 * messages say "card URL".
 * @throws {InvalidInputError} `insecure-url`: not an absolute URL, not http(s), or `user:pass@` in it
 *   (that one checked on the string first, so no part of a password is shown even when it does not parse).
 */
export function parseLocation(location: string, reporting?: UrlReporting): URL {
  // Before parsing: a URL that does not parse may still hold a password (`user:tok+/=en@host`).
  if (hasUserInfo(location)) {
    const shown = showLocation(
      reporting && reporting.redactQuery.size > 0 ? location.replace(/[?#].*$/s, '') : location,
    );
    throw new InvalidInputError(
      'insecure-url',
      shown,
      `credentials in a ${reporting?.subject ?? 'card'} URL are not allowed (${USERINFO_NOT_SHOWN})`,
    );
  }
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    const shown = reporting && reporting.redactQuery.size > 0 ? location.replace(/[?#].*$/s, '') : location;
    throw new InvalidInputError('insecure-url', showLocation(shown), 'not an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidInputError(
      'insecure-url',
      printableUrl(url, reporting?.redactQuery),
      `not an http(s) URL (${url.protocol})`,
    );
  }
  return url;
}

/**
 * Apply the URL policy to one hop. `shown` is `url` as printed; `from` is the URL that redirected
 * here, if any (printed with `redactQuery` values as `***` when it is the one blamed).
 * @throws {InvalidInputError} `insecure-url`: a redirect to a non-http(s) URL or from https to
 *   plain http, or plain http to a non-loopback host without `allowHttp`.
 */
export function checkUrlPolicy(
  url: URL,
  shown: string,
  allowHttp: boolean,
  from: URL | undefined,
  redactQuery: ReadonlySet<string>,
): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    // Only reachable through a redirect (locations are checked by parseLocation).
    throw new InvalidInputError(
      'insecure-url',
      from ? printableUrl(from, redactQuery) : shown,
      'redirect to a non-http(s) URL refused',
    );
  }
  if (url.protocol === 'http:') {
    if (from?.protocol === 'https:') {
      throw new InvalidInputError(
        'insecure-url',
        printableUrl(from, redactQuery),
        'redirect from https to plain http refused',
      );
    }
    if (!allowHttp && !isLoopbackHost(url.hostname)) {
      throw new InvalidInputError('insecure-url', shown, 'plain http to a non-loopback host is not allowed', {
        hint: 'use https, or pass --allow-http (or set "allowHttp": true on the agent in a2a.json)',
      });
    }
  }
}

/**
 * The URL without userinfo or fragment, the values of the `redactQuery` parameters as `***`:
 * safe to print. `url` itself is not changed.
 */
export function printableUrl(url: URL, redactQuery: ReadonlySet<string> | undefined): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  copy.hash = '';
  if (redactQuery && redactQuery.size > 0 && copy.search !== '') {
    const kept = new URLSearchParams();
    for (const [name, value] of copy.searchParams) kept.append(name, redactQuery.has(name) ? '***' : value);
    copy.search = kept.toString(); // '*' needs no escaping in application/x-www-form-urlencoded
  }
  return copy.href;
}

/** `text` on one line: runs of CR, LF and tab become one space; trimmed. For text put into messages. */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ').trim();
}
