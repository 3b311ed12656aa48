/**
 * The digest of a lockfile's meaning: `sha256-<base64>` over the canonical JSON of the parsed file
 * (keys sorted, no whitespace; see canonical.ts), so the same content gives the same digest whatever
 * its whitespace or key order. `a2a lock digest` prints it, `a2a verify --expect-digest` and
 * `loadLock({ expectDigest })` compare it, the markdown review's marker carries it. Pure.
 */
import { integrityOf } from '../canonical.js';

/** The digest of a parsed lockfile (any JSON value read from `a2a.lock.json`): `sha256-<base64>`, 51 characters. */
export function lockDigest(lock: unknown): string {
  return integrityOf(lock);
}
