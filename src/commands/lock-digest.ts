/** `a2a lock digest`: the digest of the lockfile's meaning, what a reviewer approves and a deploy pins. Reads only. */

import { ExitCode, OutOfDateError } from '../errors.js';
import { readLockfileDigest } from '../fs/lockfile.js';
import { readManifest } from '../fs/manifest.js';
import { type CommandResult, type GlobalOptions, paths } from './context.js';

/** The answer of `a2a lock digest`, all of it the `--json` document: `{"digest": "sha256-…", "lockfile": <absolute path>}`. */
export interface LockDigestData {
  /** `sha256-<base64>` over the canonical JSON of the lockfile (`lock/digest.ts`). */
  digest: string;
  /** The lockfile read (the manifest's, or `--lockfile`), absolute. */
  lockfile: string;
}

/**
 * `a2a lock digest`: the digest of the manifest's lockfile, or of `--lockfile` (then no manifest is
 * looked for: a lockfile taken out of git or a download has its digest anywhere). The lockfile is read
 * as every command reads it (checked against the lockfile schema); the manifest is only looked for.
 * @throws A2aLockError `manifest-not-found` (no `--lockfile`, no manifest found by the search); OutOfDateError
 *   `lockfile-out-of-date` (no lockfile: run a2a lock); InvalidInputError `lockfile-invalid`
 */
export async function runLockDigest(options: GlobalOptions): Promise<CommandResult<LockDigestData>> {
  // `--lockfile` names the file: no manifest search (nor its refusal outside a project).
  const p = paths(options, options.lockfile === undefined);
  // No manifest here or above: say so, naming where it was looked for.
  if (p.lookedUpTo !== undefined) await readManifest(p.manifest, p.lookedUpTo);
  const read = await readLockfileDigest(p.lockfile);
  if (!read) throw new OutOfDateError(`${p.lockfile}: not found`);
  return { exitCode: ExitCode.Ok, data: { digest: read.digest, lockfile: p.lockfile }, warnings: [] };
}
