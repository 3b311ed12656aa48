import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ciBase, gitRoot, readAtRevision } from '../../src/fs/git.js';

let repo: string;
const run = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } }).trim();

beforeAll(() => {
  repo = realpathSync(mkdtempSync(join(tmpdir(), 'a2a-git-')));
  run('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'a2a.lock.json'), '{"v":1}\n');
  run('add', '.');
  run('commit', '-q', '-m', 'one');
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
    await expect(readAtRevision('no-such-branch', join(repo, 'a2a.lock.json'))).rejects.toThrow(/"no-such-branch" is not a git revision/);
    await expect(readAtRevision('--output=/tmp/x', join(repo, 'a2a.lock.json'))).rejects.toThrow(/is not a git revision/);
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
    expect(await ciBase(repo, { CI_MERGE_REQUEST_DIFF_BASE_SHA: first })).toEqual({ kind: 'base', rev: first, source: 'CI_MERGE_REQUEST_DIFF_BASE_SHA' });
    expect((await ciBase(repo, { CI_MERGE_REQUEST_DIFF_BASE_SHA: 'f'.repeat(40) })).kind).toBe('unreadable');
    const missing = await ciBase(repo, { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main' });
    expect(missing).toMatchObject({ kind: 'unreadable', source: 'GITHUB_BASE_REF' });
    expect(missing.kind === 'unreadable' && missing.hint).toMatch(/fetch-depth: 0/);
    run('update-ref', 'refs/remotes/origin/main', first);
    expect(await ciBase(repo, { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main' })).toEqual({ kind: 'base', rev: first, source: 'GITHUB_BASE_REF' });
  });
});
