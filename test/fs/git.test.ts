import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ciBase, gitRoot, readAtRevision, resolveRevision } from '../../src/fs/git.js';

let repo: string;
/** `git` in `cwd`, with an author; what git prints on stderr is kept (in the error when it fails), not shown. */
const gitIn = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  }).trim();
const run = (...args: string[]) => gitIn(repo, ...args);

/** A new repository on `main` whose one commit holds a2a.lock.json `{"v":1}`. */
function newRepo(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'a2a-git-')));
  gitIn(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'a2a.lock.json'), '{"v":1}\n');
  gitIn(dir, 'add', '.');
  gitIn(dir, 'commit', '-q', '-m', 'one');
  return dir;
}

beforeAll(() => {
  repo = newRepo();
  writeFileSync(join(repo, 'a2a.lock.json'), '{"v":2}\n');
  run('commit', '-q', '-am', 'two');
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('git', () => {
  it('reads a file at a revision, and nothing where it did not exist', async () => {
    expect(await gitRoot(repo)).toBe(repo);
    expect(await readAtRevision('HEAD~1', join(repo, 'a2a.lock.json'))).toBe('{"v":1}\n');
    expect(await readAtRevision('HEAD', join(repo, 'a2a.lock.json'))).toBe('{"v":2}\n');
    expect(await readAtRevision('HEAD', join(repo, 'other.json'))).toBeUndefined();
  });

  it('refuses a revision that is not a commit, and an option spelt as one', async () => {
    await expect(readAtRevision('no-such-branch', join(repo, 'a2a.lock.json'))).rejects.toThrow(
      /"no-such-branch" is not a git revision/,
    );
    await expect(readAtRevision('--output=/tmp/x', join(repo, 'a2a.lock.json'))).rejects.toThrow(
      /is not a git revision/,
    );
  });

  it('gitRoot: a directory below the work tree finds its root; one with no .git above it, none; GIT_DIR is still honoured', async () => {
    const below = join(repo, 'sub', 'dir');
    execFileSync('mkdir', ['-p', below]);
    expect(await gitRoot(below)).toBe(repo);
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'a2a-nogit-')));
    const saved = process.env.GIT_DIR;
    try {
      expect(await gitRoot(outside)).toBeUndefined();
      process.env.GIT_DIR = join(repo, '.git');
      process.env.GIT_WORK_TREE = repo;
      expect(await gitRoot(outside)).toBe(repo);
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
      delete process.env.GIT_WORK_TREE;
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('outside a repository says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-nogit-'));
    try {
      await expect(readAtRevision('HEAD', join(dir, 'a2a.lock.json'))).rejects.toThrow(/not inside a git repository/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the CI base from the environment, or says it is unreadable', async () => {
    expect(await ciBase(repo, {})).toEqual({ kind: 'none' });
    const first = run('rev-parse', 'HEAD~1');
    expect(await ciBase(repo, { CI_MERGE_REQUEST_DIFF_BASE_SHA: first })).toEqual({
      kind: 'base',
      rev: first,
      ref: first,
      source: 'CI_MERGE_REQUEST_DIFF_BASE_SHA',
      run: 'a merge request run',
    });
    expect((await ciBase(repo, { CI_MERGE_REQUEST_DIFF_BASE_SHA: 'f'.repeat(40) })).kind).toBe('unreadable');
    const missing = await ciBase(repo, { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main' });
    expect(missing).toMatchObject({ kind: 'unreadable', source: 'GITHUB_BASE_REF' });
    expect(missing.kind === 'unreadable' && missing.hint).toMatch(/fetch-depth: 0/);
    run('update-ref', 'refs/remotes/origin/main', first);
    expect(await ciBase(repo, { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main' })).toEqual({
      kind: 'base',
      rev: first,
      ref: 'refs/remotes/origin/main',
      source: 'GITHUB_BASE_REF',
      run: 'a pull request run',
    });
  });
});

/**
 * Issue 22, "the base of a pull request must be the base": a repository whose `main` (c1) is the
 * reviewed base, checked out on `feature` (c2, the pull request), with `refs/remotes/origin/main`
 * at c1 as a CI checkout has it, and `side` (c3), a commit off c1 that HEAD does not contain.
 */
describe('the review base', () => {
  let dir: string;
  let c1: string;
  let c2: string;
  let c3: string;
  const sh = (...args: string[]) => gitIn(dir, ...args);
  beforeAll(() => {
    dir = newRepo();
    c1 = sh('rev-parse', 'HEAD');
    sh('checkout', '-q', '-b', 'side');
    sh('commit', '-q', '--allow-empty', '-m', 'side');
    c3 = sh('rev-parse', 'HEAD');
    sh('checkout', '-q', '-b', 'feature', 'main');
    writeFileSync(join(dir, 'a2a.lock.json'), '{"v":2}\n');
    sh('commit', '-q', '-am', 'pull request');
    c2 = sh('rev-parse', 'HEAD');
    sh('update-ref', 'refs/remotes/origin/main', c1);
    // The attack: the pull request's author pushes their own commit as the tag `origin/main`.
    sh('tag', 'origin/main', c2);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('GITHUB_BASE_REF resolves through refs/remotes/origin/<ref>: a tag named origin/main does not stand in for the base', async () => {
    // git's short-name rules would take the tag (the pull request's own commit).
    expect(sh('rev-parse', 'origin/main')).toBe(c2);
    expect(await ciBase(dir, { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main' })).toEqual({
      kind: 'base',
      rev: c1,
      ref: 'refs/remotes/origin/main',
      source: 'GITHUB_BASE_REF',
      run: 'a pull request run',
    });
  });

  it('a revision that is both a tag and a branch is refused, naming both; a fully qualified one resolves', async () => {
    await expect(resolveRevision(dir, 'origin/main')).rejects.toThrow(
      '"origin/main" is ambiguous: both a tag and a branch (refs/tags/origin/main, refs/remotes/origin/main)',
    );
    await expect(resolveRevision(dir, 'origin/main~0')).rejects.toThrow(/ambiguous: both a tag and a branch/);
    await expect(readAtRevision('origin/main', join(dir, 'a2a.lock.json'))).rejects.toThrow(/ambiguous/);
    expect(await resolveRevision(dir, 'refs/remotes/origin/main')).toEqual({
      ref: 'refs/remotes/origin/main',
      commit: c1,
    });
    expect(await resolveRevision(dir, 'main')).toEqual({ ref: 'refs/heads/main', commit: c1 });
    expect(await resolveRevision(dir, 'HEAD~1')).toEqual({ ref: undefined, commit: c1 });
  });

  it('a tag named like a remote branch with no local branch of that name (a CI checkout: the tag trunk, refs/remotes/origin/trunk) is refused too', async () => {
    sh('update-ref', 'refs/remotes/origin/trunk', c1);
    sh('tag', 'trunk', c2);
    try {
      // git reads the tag, silently.
      expect(sh('rev-parse', 'trunk')).toBe(c2);
      await expect(resolveRevision(dir, 'trunk')).rejects.toThrow(
        '"trunk" is ambiguous: both a tag and a branch (refs/tags/trunk, refs/remotes/origin/trunk)',
      );
      await expect(resolveRevision(dir, 'trunk~0')).rejects.toThrow(/ambiguous: both a tag and a branch/);
      expect(await resolveRevision(dir, 'refs/remotes/origin/trunk')).toEqual({
        ref: 'refs/remotes/origin/trunk',
        commit: c1,
      });
    } finally {
      sh('tag', '-d', 'trunk');
      sh('update-ref', '-d', 'refs/remotes/origin/trunk');
    }
  });

  it("GitLab's base sha must be an ancestor of HEAD, else the base is unreadable", async () => {
    expect(await ciBase(dir, { CI_MERGE_REQUEST_DIFF_BASE_SHA: c1 })).toMatchObject({ kind: 'base', rev: c1 });
    const notAncestor = await ciBase(dir, { CI_MERGE_REQUEST_DIFF_BASE_SHA: c3 });
    expect(notAncestor).toMatchObject({ kind: 'unreadable', source: 'CI_MERGE_REQUEST_DIFF_BASE_SHA' });
    expect(notAncestor.kind === 'unreadable' && notAncestor.reason).toContain('is not an ancestor of HEAD');
    // A short sha could be read as a ref name: refused as unreadable.
    expect((await ciBase(dir, { CI_MERGE_REQUEST_DIFF_BASE_SHA: c1.slice(0, 12) })).kind).toBe('unreadable');
  });

  it('a push of a branch other than the default one is gated against the merge-base with the default branch; so is a push to it whose HEAD is elsewhere', async () => {
    const event = join(dir, '..', `${dir.split('/').pop()}-event.json`);
    writeFileSync(event, JSON.stringify({ ref: 'refs/heads/feature', repository: { default_branch: 'main' } }));
    try {
      const push = { GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'push', GITHUB_EVENT_PATH: event };
      expect(await ciBase(dir, { ...push, GITHUB_REF: 'refs/heads/feature' })).toEqual({
        kind: 'base',
        rev: c1,
        ref: 'refs/remotes/origin/main',
        source: 'GITHUB_REF',
        run: 'a push of refs/heads/feature, not the default branch main',
      });
      // The default branch's ref with HEAD at the pull request's commit (issue 33): gated all the same.
      expect(await ciBase(dir, { ...push, GITHUB_REF: 'refs/heads/main' })).toEqual({
        kind: 'base',
        rev: c1,
        ref: 'refs/remotes/origin/main',
        source: 'GITHUB_REF',
        run: 'a push of refs/heads/main whose HEAD is not on the default branch main',
      });
      // The default branch unknown: nothing is sent rather than guessing.
      expect(
        await ciBase(dir, { ...push, GITHUB_EVENT_PATH: join(dir, 'missing.json'), GITHUB_REF: 'refs/heads/feature' }),
      ).toMatchObject({ kind: 'unreadable', source: 'GITHUB_REF' });
      // A schedule (its ref names the default branch) that checked out another commit: gated.
      expect(
        await ciBase(dir, { GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'schedule', GITHUB_REF: 'refs/heads/main' }),
      ).toMatchObject({ kind: 'base', rev: c1, source: 'GITHUB_REF' });
      const gitlab = { CI_PIPELINE_SOURCE: 'push', CI_DEFAULT_BRANCH: 'main' };
      expect(await ciBase(dir, { ...gitlab, CI_COMMIT_BRANCH: 'feature' })).toMatchObject({
        kind: 'base',
        rev: c1,
        ref: 'refs/remotes/origin/main',
        source: 'CI_COMMIT_BRANCH',
      });
      expect(await ciBase(dir, { ...gitlab, CI_COMMIT_BRANCH: 'main' })).toMatchObject({
        kind: 'base',
        rev: c1,
        run: 'a push of branch main whose HEAD is not on the default branch main',
      });
      expect(await ciBase(dir, { ...gitlab, CI_DEFAULT_BRANCH: 'trunk', CI_COMMIT_BRANCH: 'feature' })).toMatchObject({
        kind: 'unreadable',
        ref: 'refs/remotes/origin/trunk',
      });
      // Any other run of a branch but the default one (attack run on issue 22): a dispatch, a merge
      // queue, a GitLab pipeline from the web, the API or a schedule, a merge request pipeline
      // without its base sha; and (issue 33) a dispatch of the default branch whose HEAD is not on it.
      const other = { GITHUB_ACTIONS: 'true', GITHUB_EVENT_PATH: event, GITHUB_REF: 'refs/heads/feature' };
      for (const GITHUB_EVENT_NAME of ['workflow_dispatch', 'merge_group', 'release', 'pull_request_review']) {
        expect(await ciBase(dir, { ...other, GITHUB_EVENT_NAME }), GITHUB_EVENT_NAME).toMatchObject({
          kind: 'base',
          rev: c1,
          source: 'GITHUB_REF',
          run: `a ${GITHUB_EVENT_NAME} run on refs/heads/feature, not the default branch main`,
        });
      }
      expect(
        await ciBase(dir, { ...other, GITHUB_EVENT_NAME: 'workflow_dispatch', GITHUB_REF: 'refs/heads/main' }),
      ).toMatchObject({ kind: 'base', rev: c1, source: 'GITHUB_REF' });
      expect(
        await ciBase(dir, {
          ...other,
          GITHUB_EVENT_NAME: 'workflow_dispatch',
          GITHUB_EVENT_PATH: join(dir, 'missing.json'),
        }),
      ).toMatchObject({ kind: 'unreadable', source: 'GITHUB_REF' });
      for (const CI_PIPELINE_SOURCE of ['web', 'api', 'schedule', 'trigger']) {
        expect(
          await ciBase(dir, { CI_PIPELINE_SOURCE, CI_DEFAULT_BRANCH: 'main', CI_COMMIT_BRANCH: 'feature' }),
          CI_PIPELINE_SOURCE,
        ).toMatchObject({ kind: 'base', rev: c1, source: 'CI_COMMIT_BRANCH' });
        expect(
          await ciBase(dir, { CI_PIPELINE_SOURCE, CI_DEFAULT_BRANCH: 'main', CI_COMMIT_BRANCH: 'main' }),
        ).toMatchObject({ kind: 'base', rev: c1, source: 'CI_COMMIT_BRANCH' });
      }
      expect(
        await ciBase(dir, {
          CI_PIPELINE_SOURCE: 'merge_request_event',
          CI_DEFAULT_BRANCH: 'main',
          CI_COMMIT_REF_NAME: 'feature',
        }),
      ).toMatchObject({
        kind: 'base',
        rev: c1,
        run: 'a merge_request_event pipeline of ref feature, not the default branch main',
      });
    } finally {
      rmSync(event, { force: true });
    }
  });
});

/**
 * Issue 33, "the CI gate follows what is checked out": `workflow_run`, `issue_comment`,
 * `repository_dispatch` and `workflow_dispatch` runs carry the default branch's ref while a workflow
 * may check out a pull request's head. `main` is c1 → c2 (`refs/remotes/origin/main` at c2); the
 * pull request's c3 is a commit on c2.
 */
describe('the gate follows HEAD, not the ref the run names', () => {
  let dir: string;
  let c1: string;
  let c2: string;
  let c3: string;
  let event: string;
  const sh = (...args: string[]) => gitIn(dir, ...args);
  beforeAll(() => {
    dir = newRepo();
    c1 = sh('rev-parse', 'HEAD');
    sh('commit', '-q', '--allow-empty', '-m', 'two');
    c2 = sh('rev-parse', 'HEAD');
    sh('update-ref', 'refs/remotes/origin/main', c2);
    sh('checkout', '-q', '-b', 'pr');
    writeFileSync(join(dir, 'a2a.lock.json'), '{"v":3}\n');
    sh('commit', '-q', '-am', 'pull request');
    c3 = sh('rev-parse', 'HEAD');
    event = join(dir, '..', `${dir.split('/').pop()}-event.json`);
    writeFileSync(event, JSON.stringify({ repository: { default_branch: 'main' } }));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(event, { force: true });
  });
  const EVENTS = ['workflow_run', 'issue_comment', 'repository_dispatch', 'workflow_dispatch', 'schedule', 'push'];
  const onMain = (GITHUB_EVENT_NAME: string) => ({
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME,
    GITHUB_EVENT_PATH: event,
    GITHUB_REF: 'refs/heads/main',
  });
  const gitlab = { CI_DEFAULT_BRANCH: 'main', CI_COMMIT_BRANCH: 'main' };

  it("a run on the default branch's ref with HEAD at a pull request's commit is gated against the merge-base", async () => {
    sh('checkout', '-q', '--detach', c3);
    for (const name of EVENTS)
      expect(await ciBase(dir, onMain(name)), name).toEqual({
        kind: 'base',
        rev: c2,
        ref: 'refs/remotes/origin/main',
        source: 'GITHUB_REF',
        run: `${name === 'push' ? 'a push of' : `a ${name} run on`} refs/heads/main whose HEAD is not on the default branch main`,
      });
    for (const CI_PIPELINE_SOURCE of ['push', 'pipeline', 'trigger', 'web'])
      expect(await ciBase(dir, { ...gitlab, CI_PIPELINE_SOURCE }), CI_PIPELINE_SOURCE).toMatchObject({
        kind: 'base',
        rev: c2,
        ref: 'refs/remotes/origin/main',
        source: 'CI_COMMIT_BRANCH',
      });
  });

  it("HEAD at the default branch's tip, or an ancestor of it, is not gated", async () => {
    for (const at of [c2, c1]) {
      sh('checkout', '-q', '--detach', at);
      for (const name of EVENTS) expect(await ciBase(dir, onMain(name)), `${name} at ${at}`).toEqual({ kind: 'none' });
      expect(await ciBase(dir, { ...gitlab, CI_PIPELINE_SOURCE: 'push' })).toEqual({ kind: 'none' });
    }
  });

  it('the default branch not in the clone: unreadable, naming fetch-depth: 0, whatever HEAD is', async () => {
    sh('update-ref', '-d', 'refs/remotes/origin/main');
    try {
      for (const at of [c3, c2]) {
        sh('checkout', '-q', '--detach', at);
        const gate = await ciBase(dir, onMain('workflow_run'));
        expect(gate).toMatchObject({ kind: 'unreadable', source: 'GITHUB_REF', ref: 'refs/remotes/origin/main' });
        expect(gate.kind === 'unreadable' && gate.hint).toContain('fetch-depth: 0');
      }
    } finally {
      sh('update-ref', 'refs/remotes/origin/main', c2);
    }
  });
});
