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
