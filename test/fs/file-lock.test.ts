import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aLockError } from '../../src/errors.js';
import { UNWRITTEN_STALE_MS, withFileLock } from '../../src/fs/file-lock.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-file-lock-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('withFileLock', () => {
  it('serialises holders: the second starts after the first ends; the lock file is gone afterwards', async () => {
    const target = join(dir, 'serial.json');
    const events: string[] = [];
    const holder = (name: string) => async () => {
      events.push(`${name} start`);
      expect(JSON.parse(await readFile(`${target}.lock`, 'utf8'))).toMatchObject({
        pid: process.pid,
        hostname: hostname(),
      });
      await new Promise((r) => setTimeout(r, 80));
      events.push(`${name} end`);
      return name;
    };
    expect(
      await Promise.all([
        withFileLock(target, holder('a'), { pollMs: 10 }),
        withFileLock(target, holder('b'), { pollMs: 10 }),
      ]),
    ).toEqual(['a', 'b']);
    expect(events).toEqual(['a start', 'a end', 'b start', 'b end']);
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it('listens for SIGINT, SIGTERM and SIGHUP before it makes the lock file (no signal falls between the file and its removal), once however many locks wait, and stops after', async () => {
    const target = join(dir, 'signals.json');
    const counts = () => ['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => process.listenerCount(s));
    const before = counts();
    const holder = async () => {
      expect(existsSync(`${target}.lock`)).toBe(true);
    };
    const held = Array.from({ length: 12 }, () => withFileLock(target, holder, { pollMs: 5 }));
    // Synchronously, before any await could have made the file; one listener for the 12.
    expect(counts()).toEqual(before.map((n) => n + 1));
    await Promise.all(held);
    expect(counts()).toEqual(before);
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it('releases the lock when the holder throws', async () => {
    const target = join(dir, 'throws.json');
    await expect(withFileLock(target, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it('a live holder: waits its bound, then fails with write-failed naming the lock file and the holder', async () => {
    const target = join(dir, 'held.json');
    const lock = JSON.stringify({ pid: process.pid, hostname: hostname(), nonce: 'x' });
    await writeFile(`${target}.lock`, lock);
    let ran = false;
    const error = await withFileLock(target, async () => (ran = true), { waitMs: 150, pollMs: 20 }).catch(
      (e: unknown) => e,
    );
    expect(ran).toBe(false);
    expect(error).toBeInstanceOf(A2aLockError);
    expect(error).toMatchObject({
      code: 'write-failed',
      message: `${target}: locked by process ${process.pid} on ${hostname()} (${target}.lock); waited 150 ms`,
    });
    expect((error as A2aLockError).hint).toContain(`delete ${target}.lock`);
    expect(await readFile(`${target}.lock`, 'utf8')).toBe(lock);
  });

  it('a stale lock (its process is dead, as after SIGKILL) is taken over at once', async () => {
    const target = join(dir, 'stale.json');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    await writeFile(`${target}.lock`, JSON.stringify({ pid: Number(dead.stdout), hostname: hostname(), nonce: 'y' }));
    expect(await withFileLock(target, async () => 'ran', { waitMs: 0 })).toBe('ran');
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it('an empty lock file (a run killed before writing its pid) is taken over once old; a young one is waited for', async () => {
    const target = join(dir, 'unwritten.json');
    await writeFile(`${target}.lock`, '');
    await expect(withFileLock(target, async () => 'early', { waitMs: 200, pollMs: 20 })).rejects.toMatchObject({
      code: 'write-failed',
    });
    const old = new Date(Date.now() - UNWRITTEN_STALE_MS - 1000);
    await utimes(`${target}.lock`, old, old);
    expect(await withFileLock(target, async () => 'taken', { waitMs: 200, pollMs: 20 })).toBe('taken');
    expect(existsSync(`${target}.lock`)).toBe(false);
  });

  it('a directory where the lock file belongs: write-failed naming it, at once', async () => {
    const target = join(dir, 'dir-lock.json');
    await mkdir(`${target}.lock`);
    await expect(withFileLock(target, async () => 'never', { waitMs: 60_000 })).rejects.toMatchObject({
      code: 'write-failed',
      message: expect.stringContaining(`${target}.lock exists but is not a lock file that can be read (EISDIR)`),
    });
  });

  it('a directory where no lock can be made (missing) runs unlocked: the write reports its own error', async () => {
    expect(await withFileLock(join(dir, 'missing', 'a.json'), async () => 'ran', { waitMs: 0 })).toBe('ran');
  });
});
