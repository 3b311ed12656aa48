/**
 * Where a manifest `card` value points: an http(s) URL (fetched) or a file path (read relative to
 * the manifest). Pure: string tests, no I/O.
 */

/** The well-known card path of A2A 0.3 and 1.0 (appended to a base URL). */
export const CARD_PATH = '/.well-known/agent-card.json';
/** The card path before A2A 0.3, tried when {@link CARD_PATH} answers 404. */
export const LEGACY_CARD_PATH = '/.well-known/agent.json';

/** True when a manifest `card` value is a URL (http or https) rather than a file path. */
export function isCardUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/** The origin a manifest `card` value is fetched from (`''` for a file path or a malformed URL). */
export function cardOrigin(location: string): string {
  if (!isCardUrl(location)) return '';
  try {
    return new URL(location).origin;
  } catch {
    return '';
  }
}

/** True when a card answered at the pre-0.3 well-known path (its interfaces then read as 0.2). */
export function isLegacyWellKnown(resolved: string): boolean {
  return resolved.endsWith(LEGACY_CARD_PATH);
}

/**
 * True when a location (a card, `trust.jwks` or interface URL) carries a user name or password.
 * A URL that parses (WHATWG) counts when it has a `username`/`password` in any spelling it accepts
 * (`http:/user:pw@host`, `http:\\user:pw@host`, `https:user:pw@host`). After a `//`, an `@` before the
 * first `/` counts too, even an empty userinfo and even past a `?` or `#` (`http://user:123#abc@host`
 * parses as host `user`, port 123 and a fragment holding the rest of the password); a string that
 * does not parse counts as soon as an `@` follows its `//`: where its authority ends cannot be told
 * (`http://user:tok+/=en@host` puts a `/` in the password), so any `@` may close one.
 */
export function hasUserInfo(location: string): boolean {
  const parsed = URL.canParse(location) ? new URL(location) : undefined;
  if (parsed && (parsed.username !== '' || parsed.password !== '')) return true;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(location);
  const afterSlashes = scheme
    ? location.slice(scheme[0].length)
    : location.startsWith('//')
      ? location.slice(2)
      : undefined;
  if (afterSlashes === undefined) return false;
  if (/^[^/]*@/.test(afterSlashes)) return true;
  return !scheme || !parsed ? afterSlashes.includes('@') : false;
}

/**
 * A location as messages show it: one line, and when it carries a user name or password
 * ({@link hasUserInfo}), everything from the slashes after its scheme (`//`, or the `/` or `\\`
 * a URL parser takes for them) to the last `@` dropped (`http://host:1/x`), so no part of a password
 * is printed even when the URL does not parse. Callers say the URL is not shown in full
 * ({@link USERINFO_NOT_SHOWN}) when `location` had any.
 */
export function showLocation(location: string): string {
  const line = location.replace(/[\r\n\t]+/g, ' ').trim();
  if (!hasUserInfo(line)) return line;
  const start = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?[\\/]*/.exec(line)![0].length;
  return line.slice(0, start) + line.slice(line.lastIndexOf('@') + 1);
}

/** What a message adds after a location whose user name and password {@link showLocation} left out. */
export const USERINFO_NOT_SHOWN = 'the URL is not shown in full: its user name and password are left out';
