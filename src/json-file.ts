/**
 * Reading JSON documents we own (manifest, lockfile, profile) with one-line, path-naming errors,
 * and writing files atomically (temp file in the same directory, fsync, rename).
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { z } from 'zod';
import { A2aLockError, InvalidInputError } from './errors.js';
import { formatPath } from './json-path.js';
import { zodMessage } from './card/normalize.js';

type DocCode = 'manifest-invalid' | 'profile-invalid' | 'lockfile-invalid' | 'card-invalid';

/**
 * Read a file's text. Returns `undefined` when it does not exist.
 * @throws InvalidInputError for any other read failure
 */
export async function readTextIfExists(path: string, code: DocCode): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InvalidInputError(code, path, `cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`, { cause: error });
  }
}

/**
 * Parse JSON text, turning a syntax error into a one-line error with line and column.
 * @throws InvalidInputError
 */
export function parseJson(text: string, source: string, code: DocCode): unknown {
  // A UTF-8 byte-order mark (some editors save one) is not JSON's business: skip it, as npm does.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    // Node 20 gives no position for a document that ends early; that position is its end.
    const pos = /position (\d+)/.exec(message) ?? (/end of JSON input/.test(message) ? [, String(text.trimEnd().length)] : null);
    let where = '';
    if (pos) {
      const offset = Number(pos[1]);
      const before = text.slice(0, offset).split('\n');
      where = ` at line ${before.length} column ${before[before.length - 1]!.length + 1}`;
    }
    const conflict = /^<{7} /m.test(text) && /^>{7} /m.test(text);
    const reason = text.trim() === '' ? 'empty file' : conflict ? `git merge conflict markers${where}: resolve the conflict` : `invalid JSON${where}`;
    throw new InvalidInputError(code, source, reason, { cause: error });
  }
}

/**
 * Validate a parsed document with a zod schema; the first issue becomes the error, naming its JSON path.
 * @throws InvalidInputError
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown, source: string, code: DocCode): z.infer<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new InvalidInputError(code, source, zodMessage(issue, { showValues: false }), { path: formatPath(issue.path) });
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
    throw new A2aLockError('write-failed', `${path}: cannot write (${(error as NodeJS.ErrnoException).code ?? String(error)})`, { cause: error });
  }
}

async function writeAtomically(path: string, data: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', 0o644);
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw error;
  }
  await handle.close();
  try {
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => {});
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
    if (pid === undefined || isAlive(Number(pid))) continue;
    await unlink(join(dirname(path), name)).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
