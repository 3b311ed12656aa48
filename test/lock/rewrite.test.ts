/**
 * Lockfile rewrites, in process with file cards (no network): fields a newer minor writer added
 * survive `a2a lock`; a lockfile from a newer major format is refused with the version it needs,
 * its bytes untouched.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GlobalOptions } from '../../src/commands/context.js';
import { runLock } from '../../src/commands/lock.js';
import { runVerify } from '../../src/commands/verify.js';

const CARD = new URL('../fixtures/cards/worked-example.json', import.meta.url);
const PROFILE = {
  bindings: ['JSONRPC'],
  versions: ['1.0'],
  accepts: ['application/json'],
  sends: ['text/plain'],
  streaming: false,
  pushEndpoint: null,
  extensions: [],
};

let dir: string;
let options: GlobalOptions;
const lockPath = () => join(dir, 'a2a.lock.json');
const writeManifest = (agents: string[]) =>
  writeFile(
    join(dir, 'a2a.json'),
    JSON.stringify({
      profile: PROFILE,
      agents: Object.fromEntries(agents.map((a) => [a, { card: 'card.json', skills: ['market-size'] }])),
    }),
  );

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-rewrite-'));
  await copyFile(CARD, join(dir, 'card.json'));
  options = { manifest: 'a2a.json', json: false, verbose: false, cwd: dir, env: {} };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('lockfile rewrites', () => {
  it('unknown top-level and entry fields are kept when a2a lock rewrites the file', async () => {
    await writeManifest(['a']);
    const first = await runLock(options);
    expect(first.exitCode, JSON.stringify(first.data)).toBe(0);
    const lock = JSON.parse(await readFile(lockPath(), 'utf8'));
    lock.futureTopLevel = { note: 'written by a newer minor version' };
    lock.agents.a.futureEntryField = [1, 2];
    await writeFile(lockPath(), JSON.stringify(lock));
    await writeManifest(['a', 'b']);
    const result = await runLock(options);
    expect(result.exitCode).toBe(0);
    const rewritten = JSON.parse(await readFile(lockPath(), 'utf8'));
    expect(Object.keys(rewritten.agents)).toEqual(['a', 'b']);
    expect(rewritten.futureTopLevel).toEqual({ note: 'written by a newer minor version' });
    expect(rewritten.agents.a.futureEntryField).toEqual([1, 2]);
  });

  it('a newer lockfileVersion is refused by lock and verify, naming the version needed; the bytes stay', async () => {
    const lock = JSON.parse(await readFile(lockPath(), 'utf8'));
    lock.lockfileVersion = 2;
    const text = `${JSON.stringify(lock, null, 2)}\n`;
    await writeFile(lockPath(), text);
    for (const run of [
      () => runLock(options),
      () => runVerify(options, { agents: [], offline: true, strict: false }),
    ]) {
      await expect(run()).rejects.toMatchObject({
        code: 'lockfile-invalid',
        message: `${lockPath()} $.lockfileVersion: lockfileVersion 2 needs a newer a2a-lock (this one reads version 1)`,
      });
    }
    expect(await readFile(lockPath(), 'utf8')).toBe(text);
  });
});
