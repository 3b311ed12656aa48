/**
 * Issue 13, "CI that sends secrets only where a reviewed lockfile already sent them", end to end:
 * the built CLI against real `@a2a-js/sdk` servers on 127.0.0.1, in a real git repository in a
 * temp folder (`main` holds the reviewed base, the working tree the pull request's head).
 *
 * The trusted agent serves an extended card to its bearer token; the attacker's server is an SDK
 * agent too (it records every request's headers, its gate accepts only the attacker's own token).
 * A pull request that adds an agent at the attacker's server, or re-points one there, naming the
 * CI's secret in `credentials`, must not receive the secret from `verify`; nor may an edit of the
 * locked extended snapshot pass as `ok` when CI lacks the secret.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import type { StartedAgent } from '../helpers/agents.js';
import { extendedCard, publicCard } from './cards.js';
import {
  allOutput,
  type CliResult,
  expectSecretContained,
  git,
  jsonOf,
  lockPath,
  type ManifestAgent,
  manifest,
  PROFILE,
  readLock,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
  writeLockBytes,
  writeManifest,
} from './helpers.js';

type Res = ReturnType<typeof resources>;

/** The CI's secret for the trusted agent. */
const TOKEN = 'ci-secret-T0ken-5e2a9f71c3';
/** The attacker's own token (its server's gate accepts it; it locks its agent with it). */
const ATTACKER = 'attacker-own-t0ken-0b1d';
/** A real SDK agent with an extended card behind a bearer gate accepting `token`. */
function extendedAgent(res: Res, token: string): Promise<StartedAgent> {
  return res.agent({ card: publicCard, bearerToken: token, extendedCard: (o: string) => extendedCard(o) });
}

function agentEntry(origin: string, skills = ['deep-research']): ManifestAgent {
  return { card: origin, skills, credentials: { bearer: { env: 'RESEARCH_TOKEN' } } };
}

/** Requests to the A2A endpoints (the extended card), not the public card. */
const a2aRequests = (agent: StartedAgent) => agent.requests.filter((r) => r.path.startsWith('/a2a'));

/**
 * A repository whose `main` holds a2a.json and a2a.lock.json locking `research` (the trusted
 * agent, with its token), on a branch `pr` ready for the pull request's edits; `origin/main` names
 * the base as a CI checkout with history has it.
 */
async function reviewedRepo(res: Res): Promise<{ dir: string; research: StartedAgent }> {
  const research = await extendedAgent(res, TOKEN);
  const dir = await res.dir(manifest({ research: agentEntry(research.origin) }));
  const lock = await runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } });
  expect(lock.code, show(lock)).toBe(0);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', 'a2a.json', 'a2a.lock.json');
  git(dir, 'commit', '-q', '-m', 'reviewed');
  git(dir, 'update-ref', 'refs/remotes/origin/main', 'main');
  git(dir, 'checkout', '-q', '-b', 'pr');
  research.requests.length = 0;
  return { dir, research };
}

/** Commit the pull request's edits on `pr`. */
function commitPr(dir: string): void {
  git(dir, 'commit', '-q', '-am', 'pull request');
}

/**
 * A pull request on {@link reviewedRepo} that adds `evil`, the attacker's agent, which the attacker
 * locked on its own machine with its own token; committed, both servers' request logs emptied.
 */
async function attackerPr(res: Res): Promise<{ dir: string; research: StartedAgent; evil: StartedAgent }> {
  const { dir, research } = await reviewedRepo(res);
  const evil = await extendedAgent(res, ATTACKER);
  await writeManifest(
    dir,
    manifest({ research: agentEntry(research.origin), evil: agentEntry(evil.origin, ['market-size']) }),
  );
  const lock = await runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: ATTACKER } });
  expect(lock.code, show(lock)).toBe(0);
  expect((await readLock(dir)).agents.evil.extended).toBeDefined();
  commitPr(dir);
  evil.requests.length = 0;
  research.requests.length = 0;
  return { dir, research, evil };
}

/** The environment of a GitHub Actions pull_request run against `main`, holding the secret. */
const PR_ENV = { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main', RESEARCH_TOKEN: TOKEN };

/** `verify`, `verify --strict` and `verify --json` on the pull request, at once (`env`: the first run's extra variables). */
function verifyThree(dir: string, env: Record<string, string> = {}): Promise<[CliResult, CliResult, CliResult]> {
  return Promise.all([
    runCli(['verify'], { cwd: dir, env: { ...PR_ENV, ...env } }),
    runCli(['verify', '--strict'], { cwd: dir, env: PR_ENV }),
    runCli(['verify', '--json'], { cwd: dir, env: PR_ENV }),
  ]);
}

/** No request `agent` received carries an Authorization header, nor the secret anywhere. */
async function expectNothingSentTo(agent: StartedAgent): Promise<void> {
  await expectSecretContained(TOKEN, { requests: agent.requests });
  for (const q of agent.requests) expect(q.headers.authorization, `${q.method} ${q.path}`).toBeUndefined();
}

/** The secret appears in no output and no file of the run. */
async function expectTokenNowhere(dir: string, results: CliResult[], files: string[] = []): Promise<void> {
  await expectSecretContained(TOKEN, { results, files: [lockPath(dir), join(dir, 'a2a.json'), ...files] });
}

describe.concurrent('verify on a pull request: credentials only where the base lockfile sent them', {
  timeout: SLOW,
}, () => {
  it("(a) a PR adds an agent at the attacker's server naming the secret: nothing sent, unchecked credential-route-new, exit 0 (1 with --strict); the trusted agent still checked with its token", async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research, evil } = await attackerPr(res);

    const summary = join(dir, 'step-summary.md');
    const [ci, strict, json, explicit] = await Promise.all([
      runCli(['verify'], { cwd: dir, env: { ...PR_ENV, GITHUB_STEP_SUMMARY: summary } }),
      runCli(['verify', '--strict'], { cwd: dir, env: PR_ENV }),
      runCli(['verify', '--json'], { cwd: dir, env: PR_ENV }),
      // A laptop or another CI: the base named on the command line.
      runCli(['verify', '--base', 'main'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } }),
    ]);
    expect(ci.code, show(ci)).toBe(0);
    expect(ci.stdout).toContain(
      '! evil: unchecked (credential-route-new): checked with credentials after this change is merged; review it in a2a diff',
    );
    expect(ci.stdout).toContain(`credential withheld: bearer → ${evil.origin}`);
    expect(ci.stdout).toMatch(/✓ research\n/);
    expect(ci.stdout).toMatch(
      /verified 2 agents: 1 ok · 1 unchecked \(credentials only along the routes of base [0-9a-f]{12}, merge-base with refs\/remotes\/origin\/main\)/,
    );
    // Exit 0, and still an annotation on the lockfile for the reviewer.
    expect(ci.stdout).toContain(
      '::warning file=a2a.lock.json,line=4,title=evil not checked::credential-route-new: checked with credentials after this change is merged',
    );
    expect(strict.code, show(strict)).toBe(1);
    expect(strict.stdout).toContain('✗ evil: unchecked (credential-route-new)');
    expect(strict.stdout).toContain('::error file=a2a.lock.json,line=4,title=evil not checked::credential-route-new');
    expect(explicit.code, show(explicit)).toBe(0);
    expect(explicit.stdout).toContain('evil: unchecked (credential-route-new)');
    const doc = jsonOf(json);
    expect(doc.base).toEqual({
      status: 'read',
      rev: git(dir, 'rev-parse', 'main'),
      ref: 'refs/remotes/origin/main',
      source: 'GITHUB_BASE_REF',
      lockfile: 'present',
    });
    expect(doc.agents.evil).toEqual({
      status: 'unchecked',
      exitCode: 0,
      unchecked: 'checked with credentials after this change is merged; review it in a2a diff',
      reason: 'credential-route-new',
      routes: [{ origin: evil.origin, scheme: 'bearer' }],
    });
    expect(doc.agents.research).toEqual({ status: 'ok', exitCode: 0 });

    // The attacker's server got its public card asked for, and nothing credentialed.
    expect(evil.requests.length).toBeGreaterThan(0);
    expect(a2aRequests(evil)).toEqual([]);
    await expectNothingSentTo(evil);
    // The trusted agent got the token along its reviewed route, once per run.
    const authed = a2aRequests(research).filter((q) => q.headers.authorization === `Bearer ${TOKEN}`);
    expect(authed).toHaveLength(4);
    // The job summary: counts and a table, the secret nowhere.
    const md = await readFile(summary, 'utf8');
    expect(md).toContain('1 ok · 1 unchecked');
    expect(md).toContain('| research | ✅ ok |  |');
    expect(md).toMatch(
      /\| evil \| ⚠️ unchecked \| credential-route-new: checked with credentials after this change is merged; review it in a2a diff; credential withheld: bearer to http\\:\/\/127\.0\.0\.1:\d+ \|\n/,
    );
    await expectTokenNowhere(dir, [ci, strict, json, explicit], [summary]);

    // Control: without the base (--no-base, as before this issue) the secret does go to the attacker.
    const unguarded = await runCli(['verify', '--no-base'], { cwd: dir, env: PR_ENV });
    expect(unguarded.code, show(unguarded)).toBe(4); // its gate refuses our token: it saw it
    expect(a2aRequests(evil).some((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it("outdated, lock, update and add on a pull request send no credential at all (found by an attack: they resolved the PR's own manifest with the secret)", async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research } = await reviewedRepo(res);
    const evil = await extendedAgent(res, ATTACKER);
    await writeManifest(
      dir,
      manifest({ research: agentEntry(research.origin), evil: agentEntry(evil.origin, ['market-size']) }),
    );
    commitPr(dir);
    const before = await readFile(lockPath(dir), 'utf8');
    evil.requests.length = 0;
    research.requests.length = 0;
    const runs = [];
    for (const args of [
      ['outdated'],
      ['lock'],
      ['update'],
      ['update', 'research'],
      ['add', 'evil2', evil.origin, '--skill', 'market-size', '--credential', 'bearer=RESEARCH_TOKEN'],
    ]) {
      const run = await runCli(args, { cwd: dir, env: PR_ENV });
      expect(run.code, `${args.join(' ')}: ${show(run)}`).not.toBe(0);
      expect(allOutput(run), args.join(' ')).toContain('this is a pull request run');
      runs.push(run);
    }
    await expectNothingSentTo(evil);
    await expectNothingSentTo(research);
    expect(await readFile(lockPath(dir), 'utf8')).toBe(before);
    await expectTokenNowhere(dir, runs);
    // Not a pull request (a push to main, a laptop): outdated sends the credential along the locked route as before.
    git(dir, 'checkout', '-q', 'main');
    const push = await runCli(['outdated'], { cwd: dir, env: { GITHUB_ACTIONS: 'true', RESEARCH_TOKEN: TOKEN } });
    expect(push.code, show(push)).toBe(0);
    expect(a2aRequests(research).some((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('(b) a PR re-points an existing agent to a new origin: nothing sent there, unchecked credential-route-new, exit 0 (1 with --strict)', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research } = await reviewedRepo(res);
    const evil = await extendedAgent(res, ATTACKER);
    const update = await runCli(['update', 'research', '--card', evil.origin], {
      cwd: dir,
      env: { RESEARCH_TOKEN: ATTACKER },
    });
    expect(update.code, show(update)).toBe(0);
    expect((await readLock(dir)).agents.research.resolved).toContain(evil.origin);
    commitPr(dir);
    evil.requests.length = 0;

    const [ci, strict, json] = await verifyThree(dir);
    expect(ci.code, show(ci)).toBe(0);
    expect(ci.stdout).toContain(
      '! research: unchecked (credential-route-new): checked with credentials after this change is merged; review it in a2a diff',
    );
    expect(strict.code, show(strict)).toBe(1);
    expect(jsonOf(json).agents.research).toMatchObject({
      status: 'unchecked',
      reason: 'credential-route-new',
      routes: [{ origin: evil.origin, scheme: 'bearer' }],
    });
    // GitLab names the base by its sha.
    const gitlab = await runCli(['verify', '--json'], {
      cwd: dir,
      env: { CI_MERGE_REQUEST_DIFF_BASE_SHA: git(dir, 'rev-parse', 'main'), RESEARCH_TOKEN: TOKEN },
    });
    expect(jsonOf(gitlab).base).toMatchObject({ status: 'read', source: 'CI_MERGE_REQUEST_DIFF_BASE_SHA' });
    expect(jsonOf(gitlab).agents.research).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });
    expect(a2aRequests(evil)).toEqual([]);
    await expectNothingSentTo(evil);
    // The old origin is not asked at all now.
    expect(research.requests).toEqual([]);
    await expectTokenNowhere(dir, [ci, strict, json]);
  });

  it('a PR keeping the origin but naming another secret variable for the scheme: withheld too', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research } = await reviewedRepo(res);
    await writeManifest(
      dir,
      manifest({ research: { ...agentEntry(research.origin), credentials: { bearer: { env: 'OTHER_TOKEN' } } } }),
    );
    commitPr(dir);
    const other = 'other-secret-V4lue-99aa';
    const r = await runCli(['verify', '--json'], { cwd: dir, env: { ...PR_ENV, OTHER_TOKEN: other } });
    expect(r.code, show(r)).toBe(0);
    expect(jsonOf(r).agents.research).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });
    await expectSecretContained([TOKEN, other], { requests: research.requests, results: [r] });
    expect(a2aRequests(research)).toEqual([]);
  });

  it('install on the same pull request: nothing sent to the new agent either', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const { dir, research, evil } = await attackerPr(res);
    const r = await runCli(['install', '--json'], { cwd: dir, env: PR_ENV });
    expect(r.code, show(r)).toBe(0);
    const doc = jsonOf(r);
    expect(doc.base).toMatchObject({ status: 'read', source: 'GITHUB_BASE_REF' });
    expect(doc.agents.evil).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });
    expect(doc.agents.research).toEqual({ status: 'ok', exitCode: 0 });
    expect(a2aRequests(evil)).toEqual([]);
    await expectNothingSentTo(evil);
    expect(a2aRequests(research).filter((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toHaveLength(1);
    const human = await runCli(['install'], { cwd: dir, env: PR_ENV });
    expect(human.stdout).toContain('! evil: unchecked (credential-route-new)');
    await expectTokenNowhere(dir, [r, human]);
  });

  it('a PR that brings the first lockfile: every agent is new, nothing sent', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const research = await extendedAgent(res, TOKEN);
    const dir = await res.dir();
    await writeFile(join(dir, 'README.md'), 'a project\n');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', 'README.md');
    git(dir, 'commit', '-q', '-m', 'before a2a');
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'main');
    git(dir, 'checkout', '-q', '-b', 'pr');
    await writeManifest(dir, manifest({ research: agentEntry(research.origin) }));
    expect((await runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } })).code).toBe(0);
    git(dir, 'add', 'a2a.json', 'a2a.lock.json');
    commitPr(dir);
    research.requests.length = 0;
    const r = await runCli(['verify', '--json'], { cwd: dir, env: PR_ENV });
    expect(r.code, show(r)).toBe(0);
    expect(jsonOf(r).base).toMatchObject({ status: 'read', lockfile: 'absent' });
    expect(jsonOf(r).agents.research).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });
    await expectNothingSentTo(research);
  });

  it('a base lockfile that does not parse allows no route: nothing sent, and a warning says why', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research } = await reviewedRepo(res);
    const valid = await readFile(lockPath(dir));
    git(dir, 'checkout', '-q', 'main');
    await writeLockBytes(dir, '{ "not": "a lockfile" }\n');
    git(dir, 'commit', '-q', '-am', 'broken on main');
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'main');
    // The pull request starts from the broken main and puts a lockfile back.
    git(dir, 'checkout', '-q', 'pr');
    git(dir, 'merge', '-q', '--ff-only', 'main');
    await writeLockBytes(dir, valid);
    commitPr(dir);
    const r = await runCli(['verify', '--json'], { cwd: dir, env: PR_ENV });
    expect(r.code, show(r)).toBe(0);
    const doc = jsonOf(r);
    expect(doc.base).toMatchObject({ status: 'read', lockfile: 'invalid' });
    expect(doc.agents.research).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });
    expect(doc.warnings).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'base-lockfile-invalid' })]));
    await expectNothingSentTo(research);
  });

  it('(c) a PR edits only the extended snapshot while CI lacks the secret: unchecked extended-changed, never ok; with the secret the edit is found', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research } = await reviewedRepo(res);
    const lock = await readLock(dir);
    const ext = lock.agents.research.extended;
    ext.snapshot = { ...ext.snapshot, description: 'edited in the pull request' };
    ext.integrity = integrityOf(ext.snapshot);
    await writeLockBytes(dir, `${JSON.stringify(lock, null, 2)}\n`);
    commitPr(dir);
    const noSecret = { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main' };

    const [ci, strict, json, laptop] = await Promise.all([
      runCli(['verify'], { cwd: dir, env: noSecret }),
      runCli(['verify', '--strict'], { cwd: dir, env: noSecret }),
      runCli(['verify', '--json'], { cwd: dir, env: noSecret }),
      runCli(['verify', '--json'], { cwd: dir, env: {} }),
    ]);
    expect(ci.code, show(ci)).toBe(0);
    expect(ci.stdout).toContain(
      "! research: unchecked (extended-changed): the lockfile's extended card changed since the base and was not checked (RESEARCH_TOKEN unset); review it in a2a diff",
    );
    expect(strict.code, show(strict)).toBe(1);
    expect(jsonOf(json).agents.research).toMatchObject({
      status: 'unchecked',
      reason: 'extended-changed',
      exitCode: 0,
    });
    expect(jsonOf(json).agents.research.status).not.toBe('ok');
    // Without a base nothing says the snapshot moved: the part unchecked all the same, never ok (issue 33).
    expect(jsonOf(laptop).agents.research).toEqual({
      status: 'unchecked',
      exitCode: 0,
      unchecked: 'extended card not checked (RESEARCH_TOKEN unset)',
      reason: 'credential-unset',
    });

    // With the secret, along the reviewed route, the extended card is fetched and the edit shows.
    const withSecret = await runCli(['verify', '--json'], { cwd: dir, env: PR_ENV });
    const checked = jsonOf(withSecret).agents.research;
    expect(checked.status, show(withSecret)).toBe('changed');
    expect(checked.cardChanges).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'extended:$.description', old: 'edited in the pull request' }),
      ]),
    );
    expect(a2aRequests(research).filter((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toHaveLength(1);
  });

  it('(d) GITHUB_BASE_REF set but origin/<ref> not in the clone: no credential to anyone, unchecked base-unreadable, the fetch-depth hint printed', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research, evil } = await attackerPr(res);
    // A shallow checkout of the pull request alone: no origin/main.
    git(dir, 'update-ref', '-d', 'refs/remotes/origin/main');

    const summary = join(dir, 'step-summary.md');
    const [ci, strict, json] = await verifyThree(dir, { GITHUB_STEP_SUMMARY: summary });
    expect(ci.code, show(ci)).toBe(0);
    for (const name of ['research', 'evil']) {
      expect(ci.stdout).toContain(
        `! ${name}: unchecked (base-unreadable): not checked with credentials: this run's review base could not be read, so no credential was sent`,
      );
    }
    expect(ci.stderr).toMatch(
      /warning base-unreadable: the pull request's base \(refs\/remotes\/origin\/main\) is not in this clone.*no credential was sent to any agent; to check with credentials, check out with the base branch: actions\/checkout with `fetch-depth: 0`/,
    );
    expect(strict.code, show(strict)).toBe(1);
    const doc = jsonOf(json);
    expect(doc.base).toMatchObject({
      status: 'unreadable',
      source: 'GITHUB_BASE_REF',
      hint: expect.stringContaining('fetch-depth: 0'),
    });
    expect(doc.agents.research).toMatchObject({ status: 'unchecked', reason: 'base-unreadable' });
    expect(doc.agents.evil).toMatchObject({ status: 'unchecked', reason: 'base-unreadable' });
    expect(doc.warnings).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'base-unreadable' })]));
    expect(a2aRequests(research)).toEqual([]);
    expect(a2aRequests(evil)).toEqual([]);
    await expectNothingSentTo(research);
    await expectNothingSentTo(evil);
    const md = await readFile(summary, 'utf8');
    expect(md).toContain('**No credential was sent**');
    expect(md).toContain('fetch-depth: 0');
    await expectTokenNowhere(dir, [ci, strict, json], [summary]);
  });

  it('(e) routes unchanged since the base: the credential is sent along the reviewed route and the agent is ok, as without a base', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research } = await reviewedRepo(res);
    // The pull request touches something else: an agent without credentials.
    const plain = await res.agent({
      card: (o: string) => ({ ...sampleCard(o), securitySchemes: {}, securityRequirements: [] }),
    });
    await writeManifest(
      dir,
      manifest({ research: agentEntry(research.origin), plain: { card: plain.origin, skills: ['market-size'] } }),
    );
    expect((await runCli(['lock'], { cwd: dir, env: {} })).code).toBe(0);
    commitPr(dir);
    research.requests.length = 0;

    const [ci, strict, json] = await verifyThree(dir);
    expect(ci.code, show(ci)).toBe(0);
    expect(ci.stdout).toMatch(
      /^✓ research\n✓ plain\nverified 2 agents: 2 ok \(credentials only along the routes of base [0-9a-f]{12}, merge-base with refs\/remotes\/origin\/main\)\n$/,
    );
    expect(strict.code, show(strict)).toBe(0);
    expect(jsonOf(json).agents).toEqual({
      research: { status: 'ok', exitCode: 0 },
      plain: { status: 'ok', exitCode: 0 },
    });
    const authed = a2aRequests(research).filter((q) => q.headers.authorization === `Bearer ${TOKEN}`);
    expect(authed).toHaveLength(3);
    await expectTokenNowhere(dir, [ci, strict, json]);
  });

  it('(f) no base (a push to main, a laptop): as before, the credential goes along the locked route; --base names a revision that is not one: usage error', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research } = await reviewedRepo(res);
    const [push, laptop, json, bad] = await Promise.all([
      runCli(['verify'], { cwd: dir, env: { GITHUB_ACTIONS: 'true', RESEARCH_TOKEN: TOKEN } }),
      runCli(['verify'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } }),
      runCli(['verify', '--json'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } }),
      runCli(['verify', '--base', 'no-such-branch'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } }),
    ]);
    expect(push.code, show(push)).toBe(0);
    expect(push.stdout).toBe('✓ research\nverified 1 agent: 1 ok\n');
    expect(laptop.stdout).toBe('✓ research\nverified 1 agent: 1 ok\n');
    expect(jsonOf(json)).toEqual({ ok: true, agents: { research: { status: 'ok', exitCode: 0 } }, warnings: [] });
    expect(bad.code, show(bad)).toBe(2);
    expect(bad.stderr).toContain('"no-such-branch" is not a git revision');
    expect(a2aRequests(research).filter((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toHaveLength(3);
    await expectTokenNowhere(dir, [push, laptop, json, bad]);
    expect(allOutput(bad)).not.toContain(TOKEN);
  });
});

/**
 * Issue 22, "the base of a pull request must be the base": the same attacker pull request, with the
 * base spoofed by a tag, or run as a push of its branch instead of a pull request.
 */
describe.concurrent('the base is the base: no tag stands in for it, and a push of another branch is gated as a pull request', {
  timeout: SLOW,
}, () => {
  it("a tag origin/main at the pull request's own commit: verify and install still gate by refs/remotes/origin/main (nothing sent to the added agent), diff --fail-on high reports it, --base origin/main is refused as ambiguous", async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research, evil } = await attackerPr(res);
    // actions/checkout with fetch-depth: 0 fetches every tag, the attacker's too.
    git(dir, 'tag', 'origin/main', 'HEAD');
    const main = git(dir, 'rev-parse', 'refs/remotes/origin/main');

    const [ci, json, install, diff, ambiguous, qualified] = await Promise.all([
      runCli(['verify'], { cwd: dir, env: PR_ENV }),
      runCli(['verify', '--json'], { cwd: dir, env: PR_ENV }),
      runCli(['install', '--json'], { cwd: dir, env: PR_ENV }),
      runCli(['diff', '--fail-on', 'high'], { cwd: dir, env: PR_ENV }),
      runCli(['verify', '--base', 'origin/main'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } }),
      runCli(['verify', '--json', '--base', 'refs/remotes/origin/main'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } }),
    ]);
    expect(ci.code, show(ci)).toBe(0);
    expect(ci.stdout).toContain('! evil: unchecked (credential-route-new)');
    expect(ci.stdout).toContain(
      `(credentials only along the routes of base ${main.slice(0, 12)}, merge-base with refs/remotes/origin/main)`,
    );
    expect(jsonOf(json).base).toEqual({
      status: 'read',
      rev: main,
      ref: 'refs/remotes/origin/main',
      source: 'GITHUB_BASE_REF',
      lockfile: 'present',
    });
    expect(jsonOf(json).agents.evil).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });
    expect(jsonOf(install).base).toMatchObject({ rev: main, ref: 'refs/remotes/origin/main' });
    expect(jsonOf(install).agents.evil).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });
    // The review names the added agent, its risk, and the base it read.
    expect(diff.code, show(diff)).toBe(1);
    expect(diff.stdout).toContain(
      `a2a.json: revision ${main.slice(0, 12)} (GITHUB_BASE_REF: merge-base with refs/remotes/origin/main) → working tree`,
    );
    expect(diff.stdout).toMatch(/^\+ evil \(/m);
    expect(diff.stdout).toContain('high new-credential-destination');
    // Named on the command line, the name is refused: git would take the tag.
    expect(ambiguous.code, show(ambiguous)).toBe(2);
    expect(ambiguous.stderr).toContain(
      '"origin/main" is ambiguous: both a tag and a branch (refs/tags/origin/main, refs/remotes/origin/main)',
    );
    expect(jsonOf(qualified).base).toEqual({
      status: 'read',
      rev: main,
      ref: 'refs/remotes/origin/main',
      source: '--base',
      lockfile: 'present',
    });
    expect(jsonOf(qualified).agents.evil).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });

    expect(a2aRequests(evil)).toEqual([]);
    await expectNothingSentTo(evil);
    expect(a2aRequests(research).filter((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toHaveLength(4);
    await expectTokenNowhere(dir, [ci, json, install, diff, ambiguous, qualified]);
  });

  it('--base main in a CI checkout (no local main, only refs/remotes/origin/main): a tag main pushed by the pull request is refused, nothing sent', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, evil } = await attackerPr(res);
    git(dir, 'branch', '-D', 'main');
    git(dir, 'tag', 'main', 'HEAD');
    const [text, diff] = await Promise.all([
      runCli(['verify', '--base', 'main'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } }),
      runCli(['diff', 'main', '--fail-on', 'high'], { cwd: dir }),
    ]);
    for (const r of [text, diff]) {
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr).toContain(
        '"main" is ambiguous: both a tag and a branch (refs/tags/main, refs/remotes/origin/main)',
      );
    }
    expect(a2aRequests(evil)).toEqual([]);
    await expectNothingSentTo(evil);
  });

  it('--base <rev> is gated by the merge-base of HEAD and <rev>, never a commit HEAD does not contain', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, evil } = await attackerPr(res);
    // A branch that locked the attacker's agent too, never merged into the pull request.
    const pr = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'checkout', '-q', '-b', 'elsewhere', 'main');
    git(dir, 'checkout', '-q', pr, '--', 'a2a.json', 'a2a.lock.json');
    git(dir, 'commit', '-q', '-m', 'elsewhere');
    git(dir, 'checkout', '-q', 'pr');
    const r = await runCli(['verify', '--json', '--base', 'elsewhere'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } });
    expect(r.code, show(r)).toBe(0);
    expect(jsonOf(r).base).toEqual({
      status: 'read',
      rev: git(dir, 'rev-parse', 'main'),
      ref: 'refs/heads/elsewhere',
      source: '--base',
      lockfile: 'present',
    });
    expect(jsonOf(r).agents.evil).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });
    await expectNothingSentTo(evil);
  });

  it("a push of the pull request's branch (GitHub on: push, GitLab push pipelines) is gated against the merge-base with the default branch; a push to the default branch is not", async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research, evil } = await attackerPr(res);
    const event = join(dir, 'event.json');
    await writeFile(
      event,
      JSON.stringify({ ref: 'refs/heads/pr', repository: { default_branch: 'main', full_name: 'o/r' } }),
    );
    const github = {
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: 'push',
      GITHUB_REF: 'refs/heads/pr',
      GITHUB_EVENT_PATH: event,
      RESEARCH_TOKEN: TOKEN,
    };
    const gitlab = {
      GITLAB_CI: 'true',
      CI_PIPELINE_SOURCE: 'push',
      CI_COMMIT_BRANCH: 'pr',
      CI_DEFAULT_BRANCH: 'main',
      RESEARCH_TOKEN: TOKEN,
    };
    const main = git(dir, 'rev-parse', 'main');
    const [text, json, lab, outdated] = await Promise.all([
      runCli(['verify'], { cwd: dir, env: github }),
      runCli(['verify', '--json'], { cwd: dir, env: github }),
      runCli(['verify', '--json'], { cwd: dir, env: gitlab }),
      runCli(['outdated'], { cwd: dir, env: github }),
    ]);
    expect(text.code, show(text)).toBe(0);
    expect(text.stdout).toContain('! evil: unchecked (credential-route-new)');
    expect(text.stdout).toMatch(/✓ research\n/);
    expect(jsonOf(json).base).toEqual({
      status: 'read',
      rev: main,
      ref: 'refs/remotes/origin/main',
      source: 'GITHUB_REF',
      lockfile: 'present',
    });
    expect(jsonOf(lab).base).toEqual({
      status: 'read',
      rev: main,
      ref: 'refs/remotes/origin/main',
      source: 'CI_COMMIT_BRANCH',
      lockfile: 'present',
    });
    expect(jsonOf(lab).agents.evil).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });
    expect(outdated.code, show(outdated)).not.toBe(0);
    expect(allOutput(outdated)).toContain('this is a push of refs/heads/pr, not the default branch main');
    expect(a2aRequests(evil)).toEqual([]);
    await expectNothingSentTo(evil);
    expect(a2aRequests(research).filter((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toHaveLength(3);
    await expectTokenNowhere(dir, [text, json, lab, outdated], [event]);

    // No origin/main in the clone (a shallow push checkout): nothing sent at all.
    git(dir, 'update-ref', '-d', 'refs/remotes/origin/main');
    const shallow = await runCli(['verify', '--json'], { cwd: dir, env: github });
    expect(jsonOf(shallow).base).toMatchObject({
      status: 'unreadable',
      source: 'GITHUB_REF',
      ref: 'refs/remotes/origin/main',
      hint: expect.stringContaining('fetch-depth: 0'),
    });
    expect(jsonOf(shallow).agents.research).toMatchObject({ status: 'unchecked', reason: 'base-unreadable' });
    await expectNothingSentTo(evil);

    // The default branch itself (HEAD at origin/main's tip, as actions/checkout leaves a push to it):
    // not gated, the credential goes along the locked route.
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'main');
    git(dir, 'checkout', '-q', 'main');
    research.requests.length = 0;
    const onMain = await runCli(['verify', '--json'], { cwd: dir, env: { ...github, GITHUB_REF: 'refs/heads/main' } });
    expect(jsonOf(onMain)).toEqual({ ok: true, agents: { research: { status: 'ok', exitCode: 0 } }, warnings: [] });
    expect(a2aRequests(research).filter((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toHaveLength(1);
  });

  it("any other run of a branch but the default one is gated too: workflow_dispatch on the branch (the README's daily workflow), merge_group, GitLab web/api pipelines; a schedule is not", async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research, evil } = await attackerPr(res);
    const event = join(dir, 'event.json');
    await writeFile(
      event,
      JSON.stringify({ ref: 'refs/heads/pr', inputs: {}, repository: { default_branch: 'main', full_name: 'o/r' } }),
    );
    const github = {
      GITHUB_ACTIONS: 'true',
      GITHUB_REF: 'refs/heads/pr',
      GITHUB_EVENT_PATH: event,
      RESEARCH_TOKEN: TOKEN,
    };
    const main = git(dir, 'rev-parse', 'main');
    const [dispatch, queue, web, api, text] = await Promise.all([
      runCli(['verify', '--json'], { cwd: dir, env: { ...github, GITHUB_EVENT_NAME: 'workflow_dispatch' } }),
      runCli(['verify', '--json'], {
        cwd: dir,
        env: { ...github, GITHUB_EVENT_NAME: 'merge_group', GITHUB_REF: 'refs/heads/gh-readonly-queue/main/pr-1-abc' },
      }),
      runCli(['verify', '--json'], {
        cwd: dir,
        env: {
          GITLAB_CI: 'true',
          CI_PIPELINE_SOURCE: 'web',
          CI_COMMIT_BRANCH: 'pr',
          CI_DEFAULT_BRANCH: 'main',
          RESEARCH_TOKEN: TOKEN,
        },
      }),
      runCli(['verify', '--json'], {
        cwd: dir,
        env: {
          GITLAB_CI: 'true',
          CI_PIPELINE_SOURCE: 'api',
          CI_COMMIT_BRANCH: 'pr',
          CI_DEFAULT_BRANCH: 'main',
          RESEARCH_TOKEN: TOKEN,
        },
      }),
      runCli(['outdated'], { cwd: dir, env: { ...github, GITHUB_EVENT_NAME: 'workflow_dispatch' } }),
    ]);
    expect(jsonOf(dispatch).base).toEqual({
      status: 'read',
      rev: main,
      ref: 'refs/remotes/origin/main',
      source: 'GITHUB_REF',
      lockfile: 'present',
    });
    expect(jsonOf(queue).base).toMatchObject({ status: 'read', rev: main, source: 'GITHUB_REF' });
    expect(jsonOf(web).base).toEqual({
      status: 'read',
      rev: main,
      ref: 'refs/remotes/origin/main',
      source: 'CI_COMMIT_BRANCH',
      lockfile: 'present',
    });
    expect(jsonOf(api).base).toMatchObject({ status: 'read', rev: main, source: 'CI_COMMIT_BRANCH' });
    for (const r of [dispatch, queue, web, api])
      expect(jsonOf(r).agents.evil, show(r)).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });
    expect(allOutput(text)).toContain('this is a workflow_dispatch run on refs/heads/pr, not the default branch main');
    await expectNothingSentTo(evil);
    await expectTokenNowhere(dir, [dispatch, queue, web, api, text], [event]);

    // A schedule (GitHub runs it on the default branch) and a dispatch of the default branch: no base.
    git(dir, 'checkout', '-q', 'main');
    research.requests.length = 0;
    const [schedule, onMain] = await Promise.all([
      runCli(['verify', '--json'], {
        cwd: dir,
        env: { ...github, GITHUB_EVENT_NAME: 'schedule', GITHUB_REF: 'refs/heads/main' },
      }),
      runCli(['verify', '--json'], {
        cwd: dir,
        env: { ...github, GITHUB_EVENT_NAME: 'workflow_dispatch', GITHUB_REF: 'refs/heads/main' },
      }),
    ]);
    for (const r of [schedule, onMain])
      expect(jsonOf(r), show(r)).toEqual({
        ok: true,
        agents: { research: { status: 'ok', exitCode: 0 } },
        warnings: [],
      });
  });
});

describe.concurrent('the gate follows what is checked out, not the ref the run names', { timeout: SLOW }, () => {
  it("workflow_run, issue_comment, repository_dispatch and workflow_dispatch runs carry the default branch's ref: with HEAD at the pull request's commit the secret is withheld from the agent it adds; with HEAD at origin/main's tip it is sent", async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { dir, research, evil } = await attackerPr(res);
    const event = join(dir, 'event.json');
    await writeFile(event, JSON.stringify({ repository: { default_branch: 'main', full_name: 'o/r' } }));
    // actions/checkout with `ref: <head sha>`: HEAD detached at the pull request's commit.
    git(dir, 'checkout', '-q', '--detach', 'pr');
    const onMain = (GITHUB_EVENT_NAME: string) => ({
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME,
      GITHUB_REF: 'refs/heads/main',
      GITHUB_EVENT_PATH: event,
      RESEARCH_TOKEN: TOKEN,
    });
    const events = ['workflow_run', 'issue_comment', 'repository_dispatch', 'workflow_dispatch'];
    const main = git(dir, 'rev-parse', 'main');
    const runs = await Promise.all([
      ...events.map((name) => runCli(['verify', '--json'], { cwd: dir, env: onMain(name) })),
      runCli(['verify'], { cwd: dir, env: onMain('workflow_run') }),
      runCli(['verify', '--json'], {
        cwd: dir,
        env: {
          GITLAB_CI: 'true',
          CI_PIPELINE_SOURCE: 'pipeline',
          CI_COMMIT_BRANCH: 'main',
          CI_DEFAULT_BRANCH: 'main',
          RESEARCH_TOKEN: TOKEN,
        },
      }),
    ]);
    for (const [i, r] of runs.entries()) {
      if (i === events.length) continue;
      expect(jsonOf(r).base, show(r)).toMatchObject({ status: 'read', rev: main, ref: 'refs/remotes/origin/main' });
      expect(jsonOf(r).agents.evil, show(r)).toMatchObject({ status: 'unchecked', reason: 'credential-route-new' });
    }
    const text = runs[events.length]!;
    expect(text.stdout).toContain('! evil: unchecked (credential-route-new)');
    await expectNothingSentTo(evil);
    await expectTokenNowhere(dir, runs, [event]);
    // The trusted agent still checked with its token along the reviewed route.
    expect(a2aRequests(research).filter((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toHaveLength(
      runs.length,
    );

    // HEAD at origin/main's tip: not gated, the credential goes along the locked route.
    git(dir, 'checkout', '-q', '--detach', 'refs/remotes/origin/main');
    research.requests.length = 0;
    const tip = await runCli(['verify', '--json'], { cwd: dir, env: onMain('workflow_run') });
    expect(jsonOf(tip), show(tip)).toEqual({
      ok: true,
      agents: { research: { status: 'ok', exitCode: 0 } },
      warnings: [],
    });
    expect(a2aRequests(research).filter((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toHaveLength(1);
  });
});

/**
 * Issue 25, "the pull-request gate sends no client secret to a token URL the base lockfile did not
 * have": an agent whose extended card is behind an OAuth 2.0 client credentials scheme; the pull
 * request moves the scheme's `tokenUrl` from the reviewed endpoint A to endpoint B (both node:http
 * token endpoints on 127.0.0.1 recording every request, body included).
 */
describe.concurrent('verify on a pull request: the OAuth client secret only to the token URL the base locked', {
  timeout: SLOW,
}, () => {
  const CLIENT_ID = 'ci-client-id-4410';
  const CLIENT_SECRET = 'ci-client-Secret-8d61f0a2b7';
  const ACCESS = 'issued-access-t0ken-77c1';

  /** A token endpoint issuing {@link ACCESS}, recording method, path, headers and body of every request. */
  async function tokenEndpoint(res: Res): Promise<{
    url: string;
    origin: string;
    seen: Array<{ path: string; headers: Record<string, string | string[] | undefined>; body: string }>;
  }> {
    const seen: Array<{ path: string; headers: Record<string, string | string[] | undefined>; body: string }> = [];
    const server = await res.http((req, reply) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', headers: { ...req.headers }, body });
        reply
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: ACCESS, token_type: 'Bearer', expires_in: 3600 }));
      });
    });
    return { url: `${server.origin}/oauth/token`, origin: server.origin, seen };
  }

  /** The public card (or, `extended`, the extended one) securing everything with the client credentials flow at `tokenUrl`. */
  function oauthCard(origin: string, tokenUrl: string, extended = false) {
    const card = extended ? extendedCard(origin) : publicCard(origin);
    return {
      ...card,
      securitySchemes: {
        oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl, scopes: { 'a2a.read': 'read' } } } } },
      },
      securityRequirements: [{ schemes: { oauth: { list: ['a2a.read'] } } }],
    };
  }

  const oauthEntry = (origin: string) => ({
    card: origin,
    skills: ['deep-research'],
    credentials: { oauth: { oauth: { clientId: { env: 'CLIENT_ID' }, clientSecret: { env: 'CLIENT_SECRET' } } } },
  });
  const CI = { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main', CLIENT_ID, CLIENT_SECRET };
  const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;

  it('a PR moving the tokenUrl from A to B: verify and install send nothing to B, the agent is unchecked credential-route-new, diff --fail-on high reports new-credential-destination; with --no-base the secret does reach B', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const [a, b] = [await tokenEndpoint(res), await tokenEndpoint(res)];
    const agent = await res.agent({
      card: (o: string) => oauthCard(o, a.url),
      extendedCard: (o: string) => oauthCard(o, a.url, true),
      bearerToken: ACCESS,
    });
    const dir = await res.dir({ profile: { ...PROFILE }, agents: { research: oauthEntry(agent.origin) } });
    // --no-probe: the token requests asserted are the extended card's (the probe's: lock-probe.test.ts).
    const locked = await runCli(['lock', '--no-probe'], { cwd: dir, env: { CLIENT_ID, CLIENT_SECRET } });
    expect(locked.code, show(locked)).toBe(0);
    expect(a.seen.map((q) => q.headers.authorization)).toEqual([basic]);
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', 'a2a.json', 'a2a.lock.json');
    git(dir, 'commit', '-q', '-m', 'reviewed');
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'main');
    git(dir, 'checkout', '-q', '-b', 'pr');

    // The pull request: the agent's cards (and so the lockfile) now name token URL B, re-locked by
    // the author with their own client.
    agent.setCard(oauthCard(agent.origin, b.url));
    agent.setExtendedCard(oauthCard(agent.origin, b.url, true));
    const update = await runCli(['update', 'research'], {
      cwd: dir,
      env: { CLIENT_ID: 'author-client', CLIENT_SECRET: 'author-secret' },
    });
    expect(update.code, show(update)).toBe(0);
    expect(JSON.stringify((await readLock(dir)).agents.research)).toContain(b.url);
    expect(JSON.stringify((await readLock(dir)).agents.research)).not.toContain(a.url);
    commitPr(dir);
    a.seen.length = 0;
    b.seen.length = 0;
    agent.requests.length = 0;

    const [ci, json, install, diff] = await Promise.all([
      runCli(['verify'], { cwd: dir, env: CI }),
      runCli(['verify', '--json'], { cwd: dir, env: CI }),
      runCli(['install', '--json'], { cwd: dir, env: CI }),
      runCli(['diff', '--fail-on', 'high'], { cwd: dir, env: CI }),
    ]);
    expect(ci.code, show(ci)).toBe(0);
    expect(ci.stdout).toContain(
      '! research: unchecked (credential-route-new): checked with credentials after this change is merged; review it in a2a diff',
    );
    expect(ci.stdout).toContain(`credential withheld: oauth → ${b.origin}`);
    for (const doc of [jsonOf(json), jsonOf(install)]) {
      expect(doc.base).toMatchObject({ status: 'read', source: 'GITHUB_BASE_REF' });
      expect(doc.agents.research).toMatchObject({
        status: 'unchecked',
        reason: 'credential-route-new',
        routes: expect.arrayContaining([{ origin: b.origin, scheme: 'oauth' }]),
      });
    }
    expect(diff.code, show(diff)).toBe(1);
    expect(diff.stdout).toContain('high new-credential-destination');
    expect(diff.stdout).toContain(`oauth client secret → ${b.url} (OAuth token request`);
    // Nothing reached B (nor A, nor the agent's A2A endpoints): no client id, no secret, no token request at all.
    expect(b.seen).toEqual([]);
    expect(a.seen).toEqual([]);
    expect(a2aRequests(agent)).toEqual([]);
    await expectSecretContained(CLIENT_SECRET, {
      requests: agent.requests,
      results: [ci, json, install, diff],
      files: [lockPath(dir), join(dir, 'a2a.json')],
    });

    // Control: without the gate the same run asks B for a token with the CI's client secret.
    const unguarded = await runCli(['verify', '--json', '--no-base'], { cwd: dir, env: CI });
    expect(jsonOf(unguarded).agents.research, show(unguarded)).toEqual({ status: 'ok', exitCode: 0 });
    expect(b.seen.map((q) => q.headers.authorization)).toEqual([basic]);
    expect(a.seen).toEqual([]);
  });
});
