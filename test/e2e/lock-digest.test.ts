/**
 * The digest of a reviewed lockfile (issue 27) through the built CLI and the built runtime:
 * `a2a lock digest` (the same for the same content whatever its whitespace or key order, another
 * after a value changed), `a2a verify --expect-digest` refusing any other lockfile (exit 1,
 * `digest-mismatch`) before anything is sent and without touching the file, a malformed digest a
 * usage error (exit 2), and `loadLock({ expectDigest })` of `dist/runtime` refusing it too.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lockDigest } from '../../src/lock/digest.js';
import {
  jsonOf,
  lockedProject,
  lockPath,
  manifest,
  noStack,
  ROOT,
  readLockBytes,
  resources,
  runCli,
  show,
  writeLockBytes,
} from './helpers.js';

const DIGEST = /^sha256-[A-Za-z0-9+/]{43}=$/;

/** `value` with every object's keys in reverse order (the same JSON meaning, other bytes). */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((k) => [k, reversedKeys((value as Record<string, unknown>)[k])]),
  );
}

describe('a2a lock digest', () => {
  it('prints sha256-… of the lockfile: the same after reformatting (whitespace, key order), another after a value change; --json; the official CLI spelling (a2a-lock digest)', async ({
    onTestFinished,
  }) => {
    const { dir } = await lockedProject(onTestFinished);
    const original = (await readLockBytes(dir))!.toString('utf8');
    const [plain, json, plugin] = await Promise.all([
      runCli(['lock', 'digest'], { cwd: dir }),
      runCli(['lock', 'digest', '--json'], { cwd: dir }),
      runCli(['digest'], { cwd: dir }),
    ]);
    expect(plain.code, show(plain)).toBe(0);
    const digest = plain.stdout.trim();
    expect(plain.stdout).toBe(`${digest}\n`);
    expect(digest).toMatch(DIGEST);
    expect(digest).toBe(lockDigest(JSON.parse(original)));
    expect(jsonOf(json)).toEqual({ digest, lockfile: lockPath(dir), warnings: [] });
    expect(plugin.stdout).toBe(plain.stdout);

    // The same content, other bytes: keys reversed everywhere, 7-space indent, CRLF, no final newline.
    const reformatted = JSON.stringify(reversedKeys(JSON.parse(original)), null, 7).replace(/\n/g, '\r\n');
    expect(reformatted).not.toBe(original);
    await writeLockBytes(dir, reformatted);
    const same = await runCli(['lock', 'digest'], { cwd: dir });
    expect(same.code, show(same)).toBe(0);
    expect(same.stdout).toBe(plain.stdout);

    // One value changed (the snapshot's description): another digest.
    const lock = JSON.parse(original);
    lock.agents.research.snapshot.description += ' ';
    await writeLockBytes(dir, `${JSON.stringify(lock, null, 2)}\n`);
    const changed = await runCli(['lock', 'digest'], { cwd: dir });
    expect(changed.code, show(changed)).toBe(0);
    expect(changed.stdout.trim()).toMatch(DIGEST);
    expect(changed.stdout).not.toBe(plain.stdout);
  });

  it('a missing lockfile is lockfile-out-of-date (exit 1), an invalid one lockfile-invalid (exit 2), no manifest manifest-not-found (exit 2); a2a lock still locks', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir(manifest({}));
    const missing = await runCli(['lock', 'digest'], { cwd: dir });
    expect(missing.code, show(missing)).toBe(1);
    expect(missing.stderr).toContain('error lockfile-out-of-date: ');
    noStack(missing);
    await writeLockBytes(dir, '{"lockfileVersion": 1, "settings": {}, "agents": {"x": 1}}\n');
    const invalid = await runCli(['lock', 'digest', '--json'], { cwd: dir });
    expect(invalid.code, show(invalid)).toBe(2);
    expect(jsonOf(invalid).error.code).toBe('lockfile-invalid');
    const none = await runCli(['lock', 'digest'], { cwd: await res.dir() });
    expect(none.code, show(none)).toBe(2);
    expect(none.stderr).toContain('error manifest-not-found: ');
    // `lock` itself, and `lock` with an unknown word, are as they were.
    await rm(lockPath(dir));
    const locked = await runCli(['lock'], { cwd: dir });
    expect(locked.code, show(locked)).toBe(0);
    const typo = await runCli(['lock', 'digset'], { cwd: dir });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('error usage: unknown command "lock digset"; did you mean lock digest?');
  });
  it('--lockfile <file> outside any project: the digest of that file, no manifest needed (a lockfile taken from git show)', async ({
    onTestFinished,
  }) => {
    const { dir } = await lockedProject(onTestFinished);
    const res = resources(onTestFinished);
    const elsewhere = await res.dir();
    const copy = join(elsewhere, 'approved.lock.json');
    await writeFile(copy, (await readLockBytes(dir))!);
    const [inProject, outside] = await Promise.all([
      runCli(['lock', 'digest'], { cwd: dir }),
      runCli(['lock', 'digest', '--lockfile', copy], { cwd: await res.dir() }),
    ]);
    expect(inProject.code, show(inProject)).toBe(0);
    expect(outside.code, show(outside)).toBe(0);
    expect(outside.stdout).toBe(inProject.stdout);
    // Without --lockfile, no manifest is still manifest-not-found.
    const none = await runCli(['lock', 'digest'], { cwd: elsewhere });
    expect(none.code, show(none)).toBe(2);
    expect(none.stderr).toContain('error manifest-not-found: ');
  });
});

describe('a2a verify --expect-digest', () => {
  it('another lockfile: exit 1, digest-mismatch in one line naming the lockfile, the expected and the actual digest, before any request, the file untouched; the reviewed one verifies', async ({
    onTestFinished,
  }) => {
    const { dir, agent } = await lockedProject(onTestFinished);
    const reviewed = (await runCli(['lock', 'digest'], { cwd: dir })).stdout.trim();
    const env = { RESEARCH_TOKEN: 't' };
    const ok = await runCli(['verify', '--expect-digest', reviewed], { cwd: dir, env });
    expect(ok.code, show(ok)).toBe(0);

    // What merged is not what was reviewed: one value changed since.
    const lock = JSON.parse((await readLockBytes(dir))!.toString('utf8'));
    lock.agents.research.snapshot.description += ' (changed after review)';
    await writeLockBytes(dir, `${JSON.stringify(lock, null, 2)}\n`);
    const bytes = await readLockBytes(dir);
    const actual = lockDigest(lock);
    agent.requests.length = 0;
    const [online, offline, json] = await Promise.all([
      runCli(['verify', '--expect-digest', reviewed], { cwd: dir, env }),
      runCli(['verify', '--offline', `--expect-digest=${reviewed}`], { cwd: dir, env }),
      runCli(['verify', '--expect-digest', reviewed, '--json'], { cwd: dir, env }),
    ]);
    for (const r of [online, offline]) {
      expect(r.code, show(r)).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines[0]).toBe(`error digest-mismatch: ${lockPath(dir)}: digest ${actual}, expected ${reviewed}`);
      expect(lines.slice(1).every((l) => l.startsWith('  hint: '))).toBe(true);
    }
    expect(json.code, show(json)).toBe(1);
    expect(jsonOf(json).error).toMatchObject({
      code: 'digest-mismatch',
      lockfile: lockPath(dir),
      expected: reviewed,
      actual,
    });
    // Nothing was asked of the agent, and the lockfile is as it was.
    expect(agent.requests).toEqual([]);
    expect(await readLockBytes(dir)).toEqual(bytes);
  });

  it('a malformed digest, or two, is a usage error (exit 2)', async ({ onTestFinished }) => {
    const dir = await resources(onTestFinished).dir(manifest({}));
    const good = lockDigest({});
    const malformed =
      'error usage: --expect-digest must be a lockfile digest, sha256- and 44 base64 characters ending in =';
    for (const [args, message] of [
      [['--expect-digest', 'sha256-abc'], `${malformed} (got "sha256-abc")`],
      [['--expect-digest', good.replace('sha256-', 'sha512-')], malformed],
      [['--expect-digest', good.slice(0, -1)], malformed],
      [['--expect-digest', good, '--expect-digest', good], 'error usage: --expect-digest given more than once'],
      [['--expect-digest'], 'error usage: --expect-digest needs a value'],
      [['--expect-digest', ''], 'error usage: --expect-digest is empty: no digest was given'],
    ] as const) {
      const r = await runCli(['verify', '--offline', ...args], { cwd: dir });
      expect(r.code, `${args.join(' ')}\n${show(r)}`).toBe(2);
      expect(r.stderr.split('\n')[0]).toContain(message);
      noStack(r);
    }
  });
});

describe('loadLock({ expectDigest }) of the built runtime', () => {
  it('refuses another lockfile with digest-mismatch before any request (lazy and eager); the reviewed one loads; a malformed digest is a usage error', async ({
    onTestFinished,
  }) => {
    const { dir, agent } = await lockedProject(onTestFinished);
    const runtime = (await import(
      pathToFileURL(join(ROOT, 'dist', 'runtime', 'index.js')).href
    )) as typeof import('../../src/runtime/index.js');
    const lockfile = lockPath(dir);
    const reviewed = lockDigest(JSON.parse(await readFile(lockfile, 'utf8')));
    const env = { RESEARCH_TOKEN: 't' };
    const lock = await runtime.loadLock({ lockfile, env, expectDigest: reviewed });
    expect(lock.agent('research', 'market-size').plan.url).toContain(agent.origin);

    const changed = JSON.parse(await readFile(lockfile, 'utf8'));
    changed.agents.research.snapshot.description += ' (changed after review)';
    await writeFile(lockfile, JSON.stringify(changed));
    agent.requests.length = 0;
    for (const eager of [false, true]) {
      const refused = await runtime.loadLock({ lockfile, env, eager, expectDigest: reviewed }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(runtime.A2aLockError);
      expect(refused).toBeInstanceOf(runtime.DigestMismatchError);
      expect(refused).toMatchObject({
        code: 'digest-mismatch',
        message: `${lockfile}: digest ${lockDigest(changed)}, expected ${reviewed}`,
        data: { lockfile, expected: reviewed, actual: lockDigest(changed) },
      });
    }
    expect(agent.requests).toEqual([]);
    await expect(runtime.loadLock({ lockfile, env, expectDigest: 'sha256-nope' })).rejects.toMatchObject({
      code: 'usage',
    });
  });
});
