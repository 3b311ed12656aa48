/**
 * `a2a verify` in CI through the built CLI (issue 27): `--ignore <code>` (the agent still shown,
 * marked ignored, not counted for the exit code), the last line's counts by outcome, and in a
 * repository with several manifests the job summary's heading and the diff's title naming the
 * manifest, each section written once per job.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeFetcher } from '../../src/index.js';
import { simulatedJob } from '../helpers/github-job.js';
import {
  git,
  jsonOf,
  lockedProject,
  manifest,
  readLockBytes,
  research,
  resources,
  runCli,
  show,
  writeLockBytes,
  writeManifest,
} from './helpers.js';

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

describe.concurrent('a2a verify in CI', () => {
  it('--ignore out-of-date never hides a snapshot that fails its integrity: an agent whose manifest entry also changed is lockfile-invalid (exit 2), not ignored', async ({
    onTestFinished,
  }) => {
    const { dir, agent } = await lockedProject(onTestFinished);
    // A pull request edits the snapshot (no longer its integrity) and the agent's manifest entry.
    const lock = JSON.parse((await readLockBytes(dir))!.toString('utf8'));
    lock.agents.research.snapshot.description = 'edited after the lock';
    await writeLockBytes(dir, JSON.stringify(lock, null, 2));
    await writeManifest(dir, manifest({ research: research(agent.origin, { version: '>=0.0.1' }) }));
    const [plain, ignored] = await Promise.all([
      runCli(['verify', '--offline'], { cwd: dir }),
      runCli(['verify', '--offline', '--json', '--ignore', 'out-of-date'], { cwd: dir }),
    ]);
    expect(plain.code, show(plain)).toBe(2);
    expect(plain.stdout).toContain('lockfile-invalid');
    expect(ignored.code, show(ignored)).toBe(2);
    const doc = jsonOf(ignored);
    expect(doc.agents.research).toMatchObject({ status: 'error', error: { code: 'lockfile-invalid' } });
    expect(doc.agents.research).not.toHaveProperty('ignored');
  });

  it('--ignore unreachable: the agent still shown, marked ignored (text, json), no annotation, exit 0; the last line counts each outcome; an unknown code is exit 2 naming the nearest', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    onTestFinished(() => closeFetcher());
    const a = await res.sampleAgent();
    const b = await res.sampleAgent();
    const dir = await res.dir(manifest({ a: research(a.origin), b: research(b.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    await b.close();
    const gh = { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir };
    const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env });
    const [failed, ignored, json, annotated, quiet, other, typo, offline] = await Promise.all([
      cli(['verify']),
      cli(['verify', '--ignore', 'unreachable']),
      cli(['verify', '--json', '--ignore', 'unreachable']),
      cli(['verify'], gh),
      cli(['verify', '--ignore', 'unreachable'], gh),
      cli(['verify', '--ignore', 'drift,timeout']),
      cli(['verify', '--ignore', 'unreachble']),
      cli(['verify', '--offline']),
    ]);
    expect(failed.code, show(failed)).toBe(3);
    expect(lastLine(failed.stdout)).toBe('verify failed (exit 3): 1 ok · 1 unreachable');
    expect(ignored.code, show(ignored)).toBe(0);
    expect(ignored.stdout).toMatch(/^✗ b: unreachable: /m);
    expect(ignored.stdout).toContain('\n    ignored (--ignore unreachable): not counted for the exit code\n');
    expect(lastLine(ignored.stdout)).toBe('verified 1 of 2 agents: 1 ok · 1 ignored');
    const doc = jsonOf(json);
    expect(json.code).toBe(0);
    expect(doc.ok).toBe(true);
    expect(doc.agents.b).toMatchObject({ status: 'error', exitCode: 3, ignored: true });
    expect(doc.agents.a).not.toHaveProperty('ignored');
    expect(annotated.stdout).toMatch(/^::error file=a2a\.lock\.json,line=\d+,title=b not verified::unreachable: /m);
    expect(quiet.code, show(quiet)).toBe(0);
    expect(quiet.stdout).not.toContain('::');
    // Other codes ignored: b still fails.
    expect(other.code, show(other)).toBe(3);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--ignore: unknown failure code "unreachble"; did you mean unreachable?');
    expect(offline.code, show(offline)).toBe(0);
    expect(lastLine(offline.stdout)).toBe('verified 2 agents (offline): 2 ok');
  });

  it('several manifests: the summary heading and the diff title name the manifest (the marker too); verify run twice in one job writes its summary once; --no-summary none', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    onTestFinished(() => closeFetcher());
    const a = await res.sampleAgent();
    const dir = await res.dir();
    const billing = join(dir, 'services', 'billing');
    mkdirSync(billing, { recursive: true });
    await writeManifest(billing, manifest({ a: research(a.origin) }));
    git(dir, 'init', '-q', '-b', 'main');
    const m = ['--manifest', 'services/billing/a2a.json'];
    expect((await runCli(['lock', ...m], { cwd: dir })).code).toBe(0);
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'lock');
    const job = { RUNNER_TEMP: join(dir, '.temp'), GITHUB_RUN_ID: '9', GITHUB_JOB: 'review' };
    const { step, summary } = simulatedJob(dir, job);
    const heading = /^### a2a verify services\/billing\/a2a\.json: ✅ verified 1 agent \(offline\)$/gm;
    for (const n of [1, 1, 2]) {
      const r = await runCli(['verify', '--offline', ...m], { cwd: dir, env: step(n) });
      expect(r.code, show(r)).toBe(0);
    }
    expect(summary(1).match(heading)).toHaveLength(1);
    expect(summary(1)).toContain('\n1 ok\n');
    expect(summary(2)).toBe('');
    const quiet = await runCli(['verify', '--offline', '--no-summary', ...m], {
      cwd: dir,
      env: step(3, { ...job, GITHUB_JOB: 'other' }),
    });
    expect(quiet.code, show(quiet)).toBe(0);
    expect(summary(3)).toBe('');

    const md = await runCli(['diff', ...m, '--format', 'markdown'], { cwd: dir, env: step(4) });
    expect(md.code, show(md)).toBe(0);
    expect(md.stdout.split('\n')[0]).toMatch(/^<!-- a2a-lock-diff services\/billing\/a2a\.json sha256-\S+ -->$/);
    expect(md.stdout).toMatch(/^services\/billing\/a2a\.json: revision HEAD /m);
    expect(summary(4)).toMatch(
      /^### a2a diff services\/billing\/a2a\.json\n\n<!-- a2a-lock-diff services\/billing\/a2a\.json sha256-\S+ -->$/m,
    );
  });
});
