/** Reading and writing `a2a.lock.json` on disk: the thin I/O shell around `lock/format.ts`. */
import { hasConflictMarkers } from '../json-document.js';
import { expectLockDigest } from '../lock/digest.js';
import { parseLockfile, parseLockfileWithDigest, serializeLockfile, splitConflict } from '../lock/format.js';
import type { Lockfile } from '../lock/schema.js';
import { parseLockfileJson } from '../lock/top.js';
import { readTextIfExists, writeFileAtomic } from './atomic-write.js';

/**
 * Read the lockfile; `undefined` when it does not exist.
 * @throws InvalidInputError `lockfile-invalid`
 */
export async function readLockfile(path: string): Promise<{ lock: Lockfile; text: string } | undefined> {
  const text = await readTextIfExists(path, 'lockfile-invalid');
  if (text === undefined) return undefined;
  return { lock: parseLockfile(text, path), text };
}

/**
 * Read the lockfile with its digest (`lock/digest.ts`); `undefined` when it does not exist.
 * @throws InvalidInputError `lockfile-invalid`, as {@link readLockfile}
 */
export async function readLockfileDigest(path: string): Promise<{ lock: Lockfile; digest: string } | undefined> {
  const text = await readTextIfExists(path, 'lockfile-invalid');
  return text === undefined ? undefined : parseLockfileWithDigest(text, path);
}

/**
 * Refuse the lockfile at `path` unless its digest is `expected`: read and compared before anything
 * else reads it (its schema included). A missing lockfile is left to the caller's own error.
 * @throws DigestMismatchError `digest-mismatch`; InvalidInputError `lockfile-invalid` when it is not JSON
 */
export async function expectLockfileDigest(path: string, expected: string): Promise<void> {
  const text = await readTextIfExists(path, 'lockfile-invalid');
  if (text !== undefined) expectLockDigest(parseLockfileJson(text, path), expected, path);
}

/**
 * Read the lockfile for a rewrite (`lock`, `update`, `add`): as {@link readLockfile}, except that a
 * file with git merge-conflict markers (`<<<<<<< ` and `>>>>>>> ` lines) comes back as the text of
 * its two sides, to be merged, instead of as an error.
 * @throws InvalidInputError `lockfile-invalid` for any other unreadable or invalid lockfile
 */
export async function readLockfileForRewrite(
  path: string,
): Promise<{ lock: Lockfile; text: string } | { conflict: { ours: string; theirs: string } } | undefined> {
  const text = await readTextIfExists(path, 'lockfile-invalid');
  if (text === undefined) return undefined;
  const sides = hasConflictMarkers(text) ? splitConflict(text) : undefined;
  if (sides) return { conflict: sides };
  return { lock: parseLockfile(text, path), text };
}

/**
 * Write the lockfile atomically when its bytes change. Returns whether it wrote.
 * @throws A2aLockError `write-failed` when the file cannot be written
 */
export async function writeLockfile(path: string, lock: Lockfile, previousText?: string): Promise<boolean> {
  const text = serializeLockfile(lock);
  if (text === previousText) return false;
  await writeFileAtomic(path, text);
  return true;
}
