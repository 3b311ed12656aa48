/**
 * Media type comparison: how a card's modes are read and negotiation step 3 matches them. A2A leaves matching unspecified (spec §10.1 of our
 * notes: "exact strings"); a2a-lock compares `type/subtype` case-insensitively (RFC 9110 §8.3.1)
 * and parameters as exact strings, and a bare `text` as `text/plain`. No wildcards: `*\/*` and
 * `text/*` are opaque strings.
 */

/**
 * Split a media type into its lower-cased essence and its parameter string (trimmed, exact). A bare
 * `text` (how ADK, VoltAgent and gemini-cli spell their modes) is `text/plain`.
 */
function split(mediaType: string): [essence: string, params: string] {
  const semi = mediaType.indexOf(';');
  const essence = (semi === -1 ? mediaType : mediaType.slice(0, semi)).trim().toLowerCase();
  return [essence === 'text' ? 'text/plain' : essence, semi === -1 ? '' : mediaType.slice(semi + 1).trim()];
}

/** True when two media types are the same: essence case-insensitive, parameters exact. */
export function sameMediaType(a: string, b: string): boolean {
  const [ea, pa] = split(a);
  const [eb, pb] = split(b);
  return ea === eb && pa === pb;
}

/** The comparison key of a media type: two types are the same ({@link sameMediaType}) exactly when their keys are equal. */
function mediaTypeKey(mediaType: string): string {
  const [essence, params] = split(mediaType);
  return params === '' ? essence : `${essence};${params}`;
}

/** True when `mediaType` is one of `modes` ({@link sameMediaType}). */
export function mediaTypeIn(modes: readonly string[], mediaType: string): boolean {
  return modes.some((m) => sameMediaType(m, mediaType));
}

/**
 * The comparison keys of a list of modes, for a list asked many times (the runtime's locked modes,
 * on every request): `hasMediaType(mediaTypeKeys(modes), t)` is `mediaTypeIn(modes, t)`.
 */
export function mediaTypeKeys(modes: readonly string[]): ReadonlySet<string> {
  return new Set(modes.map(mediaTypeKey));
}

/** True when `mediaType` is one of the modes whose keys are `keys` ({@link mediaTypeKeys}). */
export function hasMediaType(keys: ReadonlySet<string>, mediaType: string): boolean {
  // A type already in key form (`text/plain`, the usual case) is its own key (a speed seam: docs/explanation/performance.md).
  return keys.has(mediaType) || keys.has(mediaTypeKey(mediaType));
}

/** True for a type with a `*` in type or subtype (never allowed in a profile). */
export function isWildcardMediaType(mediaType: string): boolean {
  return split(mediaType)[0].includes('*');
}

/** Concrete media type syntax: `type/subtype` with optional parameters. */
export const CONCRETE_MEDIA_TYPE = /^[!#$%&'+.^_`|~0-9A-Za-z-]+\/[!#$%&'+.^_`|~0-9A-Za-z-]+(\s*;.*)?$/;
