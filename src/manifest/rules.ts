/**
 * The manifest's refinements: the checks of `a2a.json` that a JSON Schema cannot state, each a
 * named predicate. The zod schemas (`schema.ts`) refine with them. Pure; no zod.
 */
// The function used, not the package index (which loads all of semver: 47 modules).
import validRange from 'semver/ranges/valid.js';
import { isLoopbackHost } from '../card/host.js';
import { CONCRETE_MEDIA_TYPE, isWildcardMediaType } from '../card/media.js';
import { CORE_BINDINGS } from '../card/model.js';
import { parseDestination } from './credential-destinations.js';

/** No `*` in the type or subtype (a profile must not accept anything). */
export function isNotWildcard(mediaType: string): boolean {
  return !isWildcardMediaType(mediaType);
}

/** `type/subtype[;params]` ({@link CONCRETE_MEDIA_TYPE}). */
export function isMediaType(mediaType: string): boolean {
  return CONCRETE_MEDIA_TYPE.test(mediaType);
}

/** No entry twice. */
export function hasNoRepeats(list: readonly string[]): boolean {
  return new Set(list).size === list.length;
}

/** At least one entry. */
export function isNonEmpty(list: readonly string[]): boolean {
  return list.length > 0;
}

/** A core binding spelled canonically (`JSONRPC`, not `jsonrpc`), or a binding that is not a core one. */
export function isCanonicalBinding(binding: string): boolean {
  return !CORE_BINDINGS.some((core) => core !== binding && core.toLowerCase() === binding.toLowerCase());
}

/** An origin `scheme://host[:port]` exactly as a URL parser prints it. */
export function isOrigin(value: string): boolean {
  return /^https?:\/\//.test(value) && URL.canParse(value) && new URL(value).origin === value;
}

/** Not plain http, unless to a loopback host (a platform credential is never sent in cleartext). */
export function isTlsOrLoopback(value: string): boolean {
  return !value.startsWith('http:') || !URL.canParse(value) || isLoopbackHost(new URL(value).hostname);
}

/** A path only: no scheme, host, query, fragment or `..` segment. */
export function isCardPath(path: string): boolean {
  return !/^[A-Za-z][A-Za-z0-9+.-]*:|^\/\/|[#?\\]|(^|\/)\.\.(\/|$)/.test(path);
}

/** Not `__proto__` (a skill id keys the lockfile's plans, where `__proto__` would not survive). */
export function isNotProto(id: string): boolean {
  return id !== '__proto__';
}

/** A semver range (npm's grammar). */
export function isSemverRange(range: string): boolean {
  return validRange(range) !== null;
}

/**
 * A well-formed `credentialDestinations` entry (`credential-destinations.ts`): an origin as a URL parser prints it (lower case, no default port, no path,
 * no trailing slash), its host optionally opened by `*.` (then not an IP address).
 */
export function isDestinationPattern(entry: string): boolean {
  const parsed = parseDestination(entry);
  if (!parsed) return false;
  return !parsed.wildcard || !/^[\d.]+$|^\[/.test(new URL(parsed.origin).hostname.slice(2));
}

/** A `credentialDestinations` entry that is not plain http, unless to a loopback host (a credential never crosses the network in cleartext). */
export function isTlsOrLoopbackDestination(entry: string): boolean {
  const parsed = parseDestination(entry);
  if (!parsed || !entry.startsWith('http:')) return true;
  return !parsed.wildcard && isLoopbackHost(new URL(parsed.origin).hostname);
}
