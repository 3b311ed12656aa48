/**
 * File I/O for the documents we own: reading a file's text, and writing a file atomically (temp
 * file in the same directory, fsync, rename). Parsing them is pure: see `../json-document.ts`.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { A2aLockError, InvalidInputError } from '../errors.js';
import type { DocCode } from '../json-document.js';
import { processGone } from './pid.js';

/**
 * Read a file's text. Returns `undefined` when it does not exist.
 * @throws InvalidInputError for any other read failure
 */
export async function readTextIfExists(path: string, code: DocCode): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InvalidInputError(code, path, `cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`, {
      cause: error,
    });
  }
}

/**
 * Write `data` to `path` atomically: a temp file in the same directory, fsync, then rename over the
 * target. A crash leaves either the old file or the new one, never a mix. Temp files that killed
 * writers left beside `path` (their process is gone) are removed after a successful write.
 * @throws A2aLockError `write-failed` (exit 2) naming the file and the system error code
 */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  try {
    await writeAtomically(path, data);
  } catch (error) {
    throw new A2aLockError(
      'write-failed',
      `${path}: cannot write (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { cause: error },
    );
  }
}

async function writeAtomically(path: string, data: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', 0o644);
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {
      /* the write error is the one to report */
    });
    await unlink(tmp).catch(() => {
      /* an orphan left behind is removed by a later write */
    });
    throw error;
  }
  await handle.close();
  try {
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => {
      /* an orphan left behind is removed by a later write */
    });
    throw error;
  }
  await removeOrphans(path);
}

/** Remove `.<name>.<pid>.<hex>.tmp` files beside `path` whose writer process no longer exists. Never throws. */
async function removeOrphans(path: string): Promise<void> {
  const prefix = `.${basename(path)}.`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = /^(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name.slice(prefix.length))?.[1];
    if (pid === undefined || !processGone(Number(pid))) continue;
    await unlink(join(dirname(path), name)).catch(() => {
      /* best effort: never throws */
    });
  }
}
