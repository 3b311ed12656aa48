/**
 * Lock a project: read its lockfile (merging one with git conflict markers), resolve the manifest's
 * agents against it ({@link syncLock}) and, when every agent resolved, write the new lockfile, all
 * or nothing. The shell of `a2a lock`, `a2a update` and `a2a add`, which shape its result.
 */
import { A2aLockError } from '../errors.js';
import { readLockfileForRewrite, writeLockfile } from '../fs/lockfile.js';
import { mergeLockfiles, parseLockfile } from '../lock/format.js';
import type { Lockfile } from '../lock/schema.js';
import type { Manifest } from '../manifest/schema.js';
import type { ResolveOptions } from './options.js';
import { type SyncResult, syncLock } from './sync.js';

/** What {@link lockProject} locks, and how. */
export interface LockProjectOptions {
  /** The lockfile's path: read (absent: a first lock), and written when every agent resolved. */
  lockfile: string;
  /** The manifest to satisfy. */
  manifest: Manifest;
  /** `a2a update`: the agents re-resolved without their lock's constraint (`all`: every one). */
  force?: ReadonlySet<string> | 'all' | undefined;
  /** How agents are resolved (network, trust, base directory): asked once the lockfile has been read. */
  resolve: () => Promise<ResolveOptions>;
  /** Runs once the new lockfile is known to be good, just before it is written (add writes the manifest there). */
  beforeWrite?: (() => Promise<void>) | undefined;
}

/** What {@link lockProject} did. */
export interface LockProjectResult {
  /** The resolution: per agent its action or its failure, the new lockfile, the warnings. */
  sync: SyncResult;
  /** The lockfile before (merged from both sides of a conflict); undefined for a first lock. */
  previous: Lockfile | undefined;
  /** Whether the lockfile's bytes were written (false: an agent failed, or nothing changed). */
  written: boolean;
}

/**
 * Lock the project (see the module comment). A lockfile with git merge conflicts is merged (npm
 * and pnpm repair theirs too): the union of both sides, the agents they lock differently
 * re-resolved with our plans as constraints (`lockfile-merge-conflict` warned). Any other invalid
 * lockfile is left alone.
 *
 * @throws A2aLockError `lockfile-invalid` (exit 2, the bytes as they were), with a hint to fix it
 */
export async function lockProject(options: LockProjectOptions): Promise<LockProjectResult> {
  const { lockfile, manifest, force } = options;
  const previous = await readPrevious(lockfile);
  const merged = previous?.merged;
  const sync = await syncLock(
    manifest,
    previous?.lock,
    {
      // Only update (force) accepts a new place for the extended card's credential.
      ...(force ? { force, acceptServedCredentialRoute: true } : {}),
      ...(merged ? { recheck: merged } : {}),
      source: lockfile,
    },
    await options.resolve(),
  );
  if (merged) {
    const which = merged.size ? `; re-checked ${[...merged].join(', ')}, which the two sides locked differently` : '';
    sync.warnings.unshift({
      code: 'lockfile-merge-conflict',
      message: `${lockfile} had merge conflict markers: merged both sides${which}`,
    });
  }
  if (Object.keys(sync.failures).length > 0) return { sync, previous: previous?.lock, written: false };
  await options.beforeWrite?.();
  const written = await writeLockfile(lockfile, sync.lock, previous?.text);
  return { sync, previous: previous?.lock, written };
}

/** The lockfile to rewrite: as read (with its text), or merged from a conflict's two sides (`merged`: the agents they lock differently). */
async function readPrevious(
  lockfile: string,
): Promise<{ lock: Lockfile; text?: string; merged?: Set<string> } | undefined> {
  const hint = `fix ${lockfile} (git checkout it), or delete it and run a2a lock`;
  let read: Awaited<ReturnType<typeof readLockfileForRewrite>>;
  try {
    read = await readLockfileForRewrite(lockfile);
  } catch (error) {
    if (error instanceof A2aLockError && error.code === 'lockfile-invalid' && !error.hint) {
      throw new A2aLockError(error.code, error.message, {
        hint,
        cause: error,
        ...(error.data ? { data: error.data } : {}),
      });
    }
    throw error;
  }
  if (!read || !('conflict' in read)) return read;
  try {
    const merged = mergeLockfiles(
      parseLockfile(read.conflict.ours, `${lockfile} (our side)`),
      parseLockfile(read.conflict.theirs, `${lockfile} (their side)`),
    );
    return { lock: merged.lock, merged: merged.differing };
  } catch (sideError) {
    if (sideError instanceof A2aLockError)
      throw new A2aLockError(sideError.code, `${sideError.message} (in a merge conflict)`, {
        hint,
        cause: sideError,
      });
    throw sideError;
  }
}
