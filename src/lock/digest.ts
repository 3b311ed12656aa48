/**
 * The digest of a lockfile's meaning: `sha256-<base64>` over the canonical JSON of the parsed file
 * (keys sorted, no whitespace; see canonical.ts), so the same content gives the same digest whatever
 * its whitespace or key order. `a2a lock digest` prints it, `a2a verify --expect-digest` and
 * `loadLock({ expectDigest })` compare it, the markdown review's marker carries it. Pure.
 */
import { integrityOf } from '../canonical.js';
import { DigestMismatchError, UsageError } from '../errors.js';

/** The digest of a parsed lockfile (any JSON value read from `a2a.lock.json`): `sha256-<base64>`, 51 characters. */
export function lockDigest(lock: unknown): string {
  return integrityOf(lock);
}

/** Whether `value` is spelt as a lockfile digest: `sha256-`, 43 base64 characters and `=` (a SHA-256 in base64). */
export function isLockDigest(value: unknown): value is string {
  return typeof value === 'string' && /^sha256-[A-Za-z0-9+/]{43}=$/.test(value);
}

/**
 * `value` when it is spelt as a lockfile digest (`sha256-<base64>`, as {@link lockDigest} writes
 * it), for `--expect-digest` and `loadLock`'s `expectDigest` (`label` names which).
 * @throws UsageError `<label> must be a lockfile digest …`, or `<label> is empty …` (exit 2)
 */
export function lockDigestOption(label: string, value: unknown): string {
  if (isLockDigest(value)) return value;
  // A workflow that found no review to read the digest from passes an empty value.
  if (value === '')
    throw new UsageError(`${label} is empty: no digest was given to check the lockfile against`, {
      hint: 'give the digest the review recorded (a2a lock digest prints the digest of a lockfile)',
    });
  const got =
    typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value) : typeof value;
  throw new UsageError(
    `${label} must be a lockfile digest, sha256- and 44 base64 characters ending in = (got ${got})`,
    { hint: 'a2a lock digest prints the digest of a lockfile' },
  );
}

/**
 * Refuse any lockfile but the expected one: `lock` (the JSON value read from `source`) must have
 * the digest `expected`.
 * @throws DigestMismatchError `digest-mismatch` naming `source`, the expected and the actual digest
 */
export function expectLockDigest(lock: unknown, expected: string, source: string): void {
  const actual = lockDigest(lock);
  if (actual !== expected) throw new DigestMismatchError(source, expected, actual);
}
