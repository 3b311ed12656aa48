/**
 * One writer at a time: an inter-process lock beside a file (`a2a.lock.json` → `a2a.lock.json.lock`),
 * so two `a2a lock` runs in one directory never interleave their read-resolve-write.
 *
 * The lock is a file created with O_EXCL (`wx`) holding `{pid, hostname, nonce}`. A waiter polls
 * until it is gone, up to a bound. A lock whose holder is dead (same host, `kill(pid, 0)` says
 * ESRCH) is stale: it is removed and taken, after re-reading it to check it is still the one judged
 * stale. A SIGKILLed run therefore never blocks the next one. A lock file without a holder (a run
 * killed between creating it and writing it) is stale once it is {@link UNWRITTEN_STALE_MS} old.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2aLockError } from '../errors.js';
import { processGone } from './pid.js';

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** How long to wait for another holder, in ms. Default 60 000. */
  waitMs?: number;
  /** Poll interval while waiting, in ms. Default 100. */
  pollMs?: number;
}

/**
 * Age (ms) after which a lock file still holding no `{pid, hostname}` is stale: a live holder writes it at once.
 * @internal
 */
export const UNWRITTEN_STALE_MS = 2000;

interface Holder {
  pid: number;
  hostname: string;
  nonce: string;
}

/**
 * Run `fn` while holding the lock `<target>.lock`; release it afterwards (also when `fn` throws).
 * A directory where the lock cannot be created (read-only, no permission) runs `fn` unlocked: a
 * write there fails on its own, with its own error.
 *
 * @param target The file to guard (its lock lives beside it).
 * @throws A2aLockError `write-failed` (exit 2) when another live process held the lock for all of
 *   `waitMs`, naming the lock file and the holder's pid and host
 */
export async function withFileLock<T>(target: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const path = `${target}.lock`;
  const me: Holder = { pid: process.pid, hostname: hostname(), nonce: randomBytes(8).toString('hex') };
  // The lock file is ours from the moment open(wx) made it, written or not: a signal from then on
  // (Ctrl-C, a CI job cancelled) removes it ({@link onSignal}). It is tracked before the file
  // exists, so no signal falls between its creation and its removal.
  let created = false;
  const untrack = track(() => {
    if (created) removeOwnSync(path, me);
  });
  try {
    await acquire(target, path, me, options, () => {
      created = true;
    });
    return await fn();
  } finally {
    untrack();
    if (created) removeOwnSync(path, me);
  }
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** What each lock this process holds or waits for removes on a signal. */
const active = new Set<() => void>();

/** Track `remove` until the returned function is called; one listener per signal, however many locks. */
function track(remove: () => void): () => void {
  if (active.size === 0) for (const signal of SIGNALS) process.on(signal, onSignal);
  active.add(remove);
  return () => {
    active.delete(remove);
    if (active.size === 0) for (const signal of SIGNALS) process.off(signal, onSignal);
  };
}

/** Remove every lock file this process made, then let the signal take its default course (exit 130/143) unless the program listens too. */
function onSignal(signal: NodeJS.Signals): void {
  for (const remove of active) remove();
  active.clear();
  for (const s of SIGNALS) process.off(s, onSignal);
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/** Remove the lock file at `path` if it is still `me`'s (written, or made and not yet written). */
function removeOwnSync(path: string, me: Holder): void {
  try {
    const text = readFileSync(path, 'utf8');
    if (text === JSON.stringify(me) || text === '') unlinkSync(path);
  } catch {
    // gone already, or not ours
  }
}

/**
 * Wait for the lock file at `path` (see {@link withFileLock}); `onCreated` is called as soon as it is
 * made. Resolves when held, or when it cannot be created here (then `fn` runs unlocked).
 */
async function acquire(
  target: string,
  path: string,
  me: Holder,
  options: FileLockOptions,
  onCreated: () => void,
): Promise<void> {
  const waitMs = options.waitMs ?? 60_000;
  const pollMs = options.pollMs ?? 100;
  const started = performance.now();
  for (;;) {
    const outcome = await tryCreate(path, me, onCreated);
    if (outcome === 'created' || outcome === 'unavailable') return;
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // released between our attempt and the read
      throw new A2aLockError(
        'write-failed',
        `${target}: ${path} exists but is not a lock file that can be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        {
          hint: `remove ${path} if no a2a run is using it`,
        },
      );
    }
    const holder = parseHolder(text);
    const unwrittenAndOld =
      !holder &&
      (await stat(path).then(
        (st) => Date.now() - st.mtimeMs >= UNWRITTEN_STALE_MS,
        () => false,
      ));
    if (holder ? isDead(holder) : unwrittenAndOld) {
      // Remove only the stale lock we read, not one a third process took meanwhile.
      if ((await readFile(path, 'utf8').catch(() => undefined)) === text) await unlink(path).catch(() => undefined);
      continue;
    }
    if (performance.now() - started >= waitMs) {
      const who = holder ? `process ${holder.pid} on ${holder.hostname}` : 'another process';
      throw new A2aLockError('write-failed', `${target}: locked by ${who} (${path}); waited ${waitMs} ms`, {
        hint: `wait for that a2a run to finish; if none is running, delete ${path}`,
      });
    }
    await sleep(pollMs);
  }
}

async function tryCreate(
  path: string,
  me: Holder,
  onCreated: () => void,
): Promise<'created' | 'exists' | 'unavailable'> {
  let handle;
  try {
    handle = await open(path, 'wx', 0o644);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'exists' : 'unavailable';
  }
  onCreated();
  try {
    await handle.writeFile(JSON.stringify(me), 'utf8');
  } finally {
    await handle.close();
  }
  return 'created';
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (
      typeof value.pid === 'number' &&
      Number.isInteger(value.pid) &&
      value.pid > 0 &&
      typeof value.hostname === 'string'
    )
      return value as Holder;
  } catch {
    // A holder between creating the file and writing it (not stale while young), or a run killed there.
  }
  return undefined;
}

/** True when the holder ran on this host and its process no longer exists. */
function isDead(holder: Holder): boolean {
  return holder.hostname === hostname() && processGone(holder.pid);
}
