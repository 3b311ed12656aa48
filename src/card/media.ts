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

/** The keys of a list of modes, made once per list (the runtime asks the same locked list on every request). */
const listKeys = new WeakMap<readonly string[], ReadonlySet<string>>();

/**
 * True when `mediaType` is one of `modes` ({@link sameMediaType}). For a frozen `modes` (the
 * runtime's locked lists, asked on every request) its keys are made once and kept.
 */
export function mediaTypeIn(modes: readonly string[], mediaType: string): boolean {
  if (!Object.isFrozen(modes)) return modes.some((m) => sameMediaType(m, mediaType));
  let keys = listKeys.get(modes);
  if (!keys) {
    keys = new Set(modes.map(mediaTypeKey));
    listKeys.set(modes, keys);
  }
  return keys.has(mediaTypeKey(mediaType));
}

/** True for a type with a `*` in type or subtype (never allowed in a profile). */
export function isWildcardMediaType(mediaType: string): boolean {
  return split(mediaType)[0].includes('*');
}

/** Concrete media type syntax: `type/subtype` with optional parameters. */
export const CONCRETE_MEDIA_TYPE = /^[!#$%&'+.^_`|~0-9A-Za-z-]+\/[!#$%&'+.^_`|~0-9A-Za-z-]+(\s*;.*)?$/;
