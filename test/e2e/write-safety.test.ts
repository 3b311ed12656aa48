/**
 * Lockfile write safety across processes: a writer SIGKILLed mid-write leaves the old file or the
 * new one, never a mix; two `a2a lock` runs in one directory take turns (the inter-process lock
 * beside the lockfile), so the second sees the first's result instead of interleaving with it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/fs/atomic-write.js';
import {
  BIN,
  cardRequests,
  manifest,
  ROOT,
  readLock,
  research,
  resources,
  runCli,
  sampleCard,
  show,
} from './helpers.js';

const WRITER = `
import { writeFileAtomic } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'fs', 'atomic-write.js')).href)};
const [path] = process.argv.slice(1);
const versions = ['a', 'b'].map((c) => JSON.stringify({ fill: c.repeat(4 << 20) }) + '\\n');
for (let i = 0; ; i++) {
  await writeFileAtomic(path, versions[i % 2]);
  process.stdout.write('.');
}
`;

/** Start the writer, let it finish `writes` writes, then SIGKILL it `extraMs` later. */
function killMidWrite(path: string, writes: number, extraMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let done = 0;
    child.stdout.on('data', (d: Buffer) => {
      done += d.length;
      if (done >= writes && !child.killed) setTimeout(() => child.kill('SIGKILL'), extraMs);
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited ${String(_code)} without SIGKILL`)),
    );
  });
}

describe('lockfile write safety', () => {
  it("Ctrl-C (SIGINT) while lock waits on an agent: the lock file beside the lockfile goes with it, the exit is the signal's, nothing is written", async ({
    onTestFinished,
  }) => {
    // An agent that never answers: lock holds its file lock while it waits.
    const silent = createServer(() => undefined);
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    onTestFinished(() => {
      silent.closeAllConnections();
      silent.close();
    });
    const dir = await resources(onTestFinished).dir(
      manifest({ slow: research(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`) }),
    );
    const child = spawn(process.execPath, [BIN, 'lock'], {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, NO_COLOR: '1' },
    });
    const exited = once(child, 'exit');
    for (let i = 0; i < 100 && !(await readdir(dir)).includes('a2a.lock.json.lock'); i++) await sleep(50);
    expect(await readdir(dir)).toContain('a2a.lock.json.lock');
    child.kill('SIGINT');
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGINT' });
    expect(await readdir(dir)).toEqual(['a2a.json']);
  });

  it('SIGKILL during writes leaves the old or the new file, never a mix; the next write clears the orphaned temp files', async ({
    onTestFinished,
  }) => {
    const dir = await resources(onTestFinished).dir();
    const path = join(dir, 'a2a.lock.json');
    const versions = ['a', 'b'].map((c) => `${JSON.stringify({ fill: c.repeat(4 << 20) })}\n`);
    await writeFile(path, versions[0]!);
    // Kill writers at varied points until one dies mid-write (leaves its temp file); each time the
    // lockfile must be one whole version. Bounded: 40 kills without one mid-write fails the test.
    const delays = [0, 3, 7, 11, 1, 5, 2, 13];
    let names: string[] = [];
    for (let i = 0; i < 40 && names.length < 2; i++) {
      await killMidWrite(path, 1 + (i % 3), delays[i % delays.length]!);
      expect(versions).toContain(await readFile(path, 'utf8'));
      names = await readdir(dir);
    }
    // Only temp files of killed writers remain beside it (at least one kill landed mid-write).
    for (const name of names) expect(name).toMatch(/^(a2a\.lock\.json|\.a2a\.lock\.json\.\d+\.[0-9a-f]{8}\.tmp)$/);
    expect(names.length).toBeGreaterThan(1);
    // The next write removes what the killed writers left.
    await writeFileAtomic(path, versions[1]!);
    expect(await readdir(dir)).toEqual(['a2a.lock.json']);
  });

  it('two a2a lock runs at once in one directory take turns: one resolves and writes, the other finds it up to date', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    let card: unknown;
    const slow = await res.http((_req, response) => {
      setTimeout(() => {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify(card));
      }, 400);
    });
    card = sampleCard(slow.origin);
    const dir = await res.dir(manifest({ research: research(slow.origin) }));
    // Two processes (the lock is between processes).
    const [first, second] = await Promise.all([
      runCli(['lock'], { cwd: dir, spawn: true }),
      runCli(['lock'], { cwd: dir, spawn: true }),
    ]);
    expect(first.code, show(first)).toBe(0);
    expect(second.code, show(second)).toBe(0);
    const outputs = [first.stdout, second.stdout];
    expect(outputs.filter((o) => o.includes('wrote '))).toHaveLength(1);
    expect(outputs.filter((o) => o.includes('is up to date'))).toHaveLength(1);
    expect(cardRequests(slow.requests)).toHaveLength(1);
    expect(Object.keys((await readLock(dir)).agents)).toEqual(['research']);
    expect(await readdir(dir)).toEqual(['a2a.json', 'a2a.lock.json']);
  });
});
