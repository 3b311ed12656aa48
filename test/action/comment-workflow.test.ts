/**
 * The shipped comment workflow (docs/guide/workflows/a2a-review-comment.yml): its `actions/github-script`
 * step, taken from the YAML as shipped and run with a real artifact folder and a recorded GitHub API,
 * finds the pull request from the run's head commit, repository and branch (forks included), treats the artifact as untrusted
 * (size, marker, length), and posts or updates only the workflow bot's own comment for the same manifest.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { diffMarkdown } from '../../src/cli/render/diff.js';
import { lockDigest } from '../../src/lock/digest.js';

/** A GitHub expression, `${{ e }}`, spelt so that no string literal holds a template-like `${`. */
const expr = (e: string) => `\${{ ${e} }}`;

const WORKFLOW = new URL('../../docs/guide/workflows/a2a-review-comment.yml', import.meta.url);

interface Step {
  name?: string;
  uses?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

/** The github-script step of the shipped workflow. */
function scriptStep(): Step {
  const { readFileSync } = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');
  const doc = parse(readFileSync(WORKFLOW, 'utf8')) as { jobs: Record<string, { steps: Step[] }> };
  const step = doc.jobs.comment!.steps.find((s) => s.uses?.startsWith('actions/github-script@'));
  expect(step?.with?.script).toBeTruthy();
  return step!;
}

interface User {
  login: string;
  type: string;
}
interface Comment {
  id: number;
  body: string;
  user: User;
}
interface Pull {
  number: number;
  state: string;
  head: { sha: string; ref: string; repo: { full_name: string } | null };
  base: { repo: { full_name: string } };
}

const BOT: User = { login: 'github-actions[bot]', type: 'Bot' };
const HEAD = 'a'.repeat(40);
const FORK_PR: Pull = {
  number: 7,
  state: 'open',
  head: { sha: HEAD, ref: 'feature', repo: { full_name: 'alice/r' } },
  base: { repo: { full_name: 'o/r' } },
};
/** The run of FORK_PR's review: GitHub's workflow_run fields that name where its head comes from. */
const FORK_RUN = { head_repository: { full_name: 'alice/r' }, head_branch: 'feature' };

type Call = [string, Record<string, unknown>];

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A downloaded artifact folder with these files (undefined: no folder at all). */
function artifact(files: Record<string, string> | undefined): string {
  const root = mkdtempSync(join(tmpdir(), 'a2a-comment-'));
  dirs.push(root);
  const dir = join(root, 'a2a-lock-diff');
  if (files) {
    mkdirSync(dir);
    for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  }
  return dir;
}

/**
 * Run the shipped script against `dir`, `pulls` and `comments`, for the review run `run` (FORK_PR's unless
 * given); the API calls it made and what it told core.
 */
async function runScript(dir: string, pulls: Pull[], comments: Comment[], run: Record<string, unknown> = FORK_RUN) {
  const step = scriptStep();
  const calls: Call[] = [];
  const said: string[] = [];
  const github = {
    paginate: async (fn: (args: Record<string, unknown>) => Promise<unknown[]>, args: Record<string, unknown>) =>
      fn(args),
    rest: {
      repos: {
        listPullRequestsAssociatedWithCommit: async (args: Record<string, unknown>) => {
          calls.push(['pulls', args]);
          return pulls;
        },
      },
      issues: {
        listComments: async (args: Record<string, unknown>) => {
          calls.push(['list', args]);
          return comments;
        },
        updateComment: async (args: Record<string, unknown>) => void calls.push(['update', args]),
        createComment: async (args: Record<string, unknown>) => void calls.push(['create', args]),
      },
    },
  };
  const context = {
    repo: { owner: 'o', repo: 'r' },
    // A fork's run: GitHub leaves pull_requests empty.
    payload: { workflow_run: { id: 99, event: 'pull_request', head_sha: HEAD, pull_requests: [], ...run } },
  };
  const core = {
    notice: (m: string) => void said.push(`notice ${m}`),
    warning: (m: string) => void said.push(`warning ${m}`),
    setFailed: (m: string) => void said.push(`failed ${m}`),
  };
  const nodeRequire = createRequire(import.meta.url);
  const require = (name: string) => {
    expect(['fs', 'path']).toContain(name);
    return nodeRequire(`node:${name}`);
  };
  // The step's env reaches the script as process.env; `${{ runner.temp }}` stands for the runner's folder.
  expect(step.env?.A2A_LOCK_DIFF_DIR).toBe(`${expr('runner.temp')}/a2a-lock-diff`);
  const process = { env: { A2A_LOCK_DIFF_DIR: dir } };
  const AsyncFunction = Object.getPrototypeOf(async () => {
    /* only its constructor is used */
  }).constructor as new (
    ...args: string[]
  ) => (...a: unknown[]) => Promise<void>;
  await new AsyncFunction('require', 'github', 'context', 'core', 'process', step.with!.script!)(
    require,
    github,
    context,
    core,
    process,
  );
  return { calls: calls.filter(([kind]) => kind === 'update' || kind === 'create'), all: calls, said };
}

const md = (manifest: string, digest?: string) =>
  diffMarkdown(
    [],
    { changed: 0, added: 0, removed: 0, renamed: 0, unchanged: 0, high: 0, medium: 0, low: 0, info: 0, better: 0 },
    undefined,
    { manifest, ...(digest ? { digest } : {}) },
  );
const FIRST = lockDigest({ lockfileVersion: 1, settings: {}, agents: {} });
const SECOND = lockDigest({ lockfileVersion: 1, settings: {}, agents: { a: {} } });

describe("the shipped comment workflow's script", () => {
  it("a fork's pull request, found by the run's head commit: updates only the workflow bot's own comment for the same manifest", async () => {
    const body = md('services/billing/a2a.json');
    const comments: Comment[] = [
      // Anyone can write a comment starting with the marker: never adopted.
      {
        id: 1,
        body: '<!-- a2a-lock-diff services/billing/a2a.json -->\nall good',
        user: { login: 'mallory', type: 'User' },
      },
      // This workflow's comment for another manifest.
      { id: 2, body: md('a2a.json'), user: BOT },
      // A bot, but not this workflow's.
      { id: 3, body, user: { login: 'other-app[bot]', type: 'Bot' } },
      { id: 4, body: 'old review', user: BOT },
      { id: 5, body: `${body}\nolder`, user: BOT },
    ];
    const pulls: Pull[] = [
      // The same commit in a closed pull request, and in one of another repository: not ours to comment on.
      { ...FORK_PR, number: 3, state: 'closed' },
      { ...FORK_PR, number: 4, base: { repo: { full_name: 'someone/else' } } },
      FORK_PR,
    ];
    const { calls, all } = await runScript(
      artifact({ 'a2a-diff-services-billing-a2a-json.md': body }),
      pulls,
      comments,
    );
    expect(all[0]).toEqual(['pulls', { owner: 'o', repo: 'r', commit_sha: HEAD }]);
    expect(all[1]).toEqual(['list', { owner: 'o', repo: 'r', issue_number: 7 }]);
    expect(calls).toEqual([['update', { owner: 'o', repo: 'r', comment_id: 5, body }]]);
  });

  it('creates a comment when only a user (or another manifest) has one with the marker; one comment per manifest file', async () => {
    const body = md('a2a.json');
    const billing = md('services/billing/a2a.json');
    const comments: Comment[] = [
      { id: 1, body: '<!-- a2a-lock-diff a2a.json -->\nforged', user: { login: 'mallory', type: 'User' } },
      { id: 2, body: billing, user: BOT },
    ];
    const { calls } = await runScript(
      artifact({ 'a2a-diff-a2a-json.md': body, 'a2a-diff-services-billing-a2a-json.md': `${billing}\nnew` }),
      [FORK_PR],
      comments,
    );
    expect(calls).toEqual(
      expect.arrayContaining([
        ['create', { owner: 'o', repo: 'r', issue_number: 7, body }],
        ['update', { owner: 'o', repo: 'r', comment_id: 2, body: `${billing}\nnew` }],
      ]),
    );
    expect(calls).toHaveLength(2);
  });

  it('the marker with a digest and without one name the same comment (its first three fields)', async () => {
    const plain = '<!-- a2a-lock-diff a2a.json -->\n**0 changed, 0 added, 0 removed · no risk**\n';
    const digested =
      '<!-- a2a-lock-diff a2a.json sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU= -->\n**review**\n';
    const updatePlain = await runScript(artifact({ 'a.md': digested }), [FORK_PR], [{ id: 8, body: plain, user: BOT }]);
    expect(updatePlain.calls).toEqual([['update', { owner: 'o', repo: 'r', comment_id: 8, body: digested }]]);
    const updateDigested = await runScript(
      artifact({ 'a.md': plain }),
      [FORK_PR],
      [{ id: 9, body: digested, user: BOT }],
    );
    expect(updateDigested.calls).toEqual([['update', { owner: 'o', repo: 'r', comment_id: 9, body: plain }]]);
  });

  it('updates (never duplicates) its comment when the lockfile, and so the digest in the marker, changed', async () => {
    const body = md('a2a.json', SECOND);
    expect(body.split('\n')[0]).toBe(`<!-- a2a-lock-diff a2a.json ${SECOND} -->`);
    const comments: Comment[] = [
      { id: 1, body: md('services/billing/a2a.json', FIRST), user: BOT },
      { id: 2, body: md('a2a.json', FIRST), user: BOT },
    ];
    const { calls } = await runScript(artifact({ 'a2a-diff-a2a-json.md': body }), [FORK_PR], comments);
    expect(calls).toEqual([['update', { owner: 'o', repo: 'r', comment_id: 2, body }]]);
  });

  it('no open pull request with that head (a later push, or none at all), or no artifact: no comment, no failure', async () => {
    const body = md('a2a.json');
    const moved = await runScript(
      artifact({ 'a.md': body }),
      [{ ...FORK_PR, head: { ...FORK_PR.head, sha: 'b'.repeat(40) } }],
      [],
    );
    expect(moved.calls).toEqual([]);
    expect(moved.said).toEqual([
      `notice a2a-lock: 0 open pull requests from "alice/r:feature" have head ${HEAD}: no comment`,
    ]);
    const missing = await runScript(artifact(undefined), [FORK_PR], []);
    expect(missing.calls).toEqual([]);
    expect(missing.said).toEqual(['notice a2a-lock: no review artifact: no comment']);
  });

  it("another fork's pull request from the same head commit, opened then closed: its run's review never lands on the victim's pull request", async () => {
    // Mallory pushes Alice's head commit to a branch of their own fork and opens a pull request from it: their
    // review run uploads "no risk" (and its own digest). They close it before this workflow runs, so the only
    // open pull request with that head commit is Alice's.
    const forged = md('a2a.json', FIRST);
    const alice = md('a2a.json', SECOND);
    const mallory: Pull = {
      number: 8,
      state: 'closed',
      head: { sha: HEAD, ref: 'x', repo: { full_name: 'mallory/r' } },
      base: { repo: { full_name: 'o/r' } },
    };
    const comments: Comment[] = [{ id: 2, body: alice, user: BOT }];
    const mallorysRun = { head_repository: { full_name: 'mallory/r' }, head_branch: 'x' };
    const closed = await runScript(artifact({ 'a.md': forged }), [FORK_PR, mallory], comments, mallorysRun);
    expect(closed.calls).toEqual([]);
    expect(closed.all.map(([kind]) => kind)).toEqual(['pulls']);
    expect(closed.said).toEqual([
      `notice a2a-lock: 0 open pull requests from "mallory/r:x" have head ${HEAD}: no comment`,
    ]);
    // Still open: only Mallory's own pull request gets their review.
    const open = await runScript(
      artifact({ 'a.md': forged }),
      [FORK_PR, { ...mallory, state: 'open' }],
      [],
      mallorysRun,
    );
    expect(open.calls).toEqual([['create', { owner: 'o', repo: 'r', issue_number: 8, body: forged }]]);
    // The same fork but another branch, the same branch name in another fork, a deleted fork (head.repo null),
    // a run without its head repository: no match, no comment.
    for (const [pulls, run] of [
      [[FORK_PR], { head_repository: { full_name: 'alice/r' }, head_branch: 'other' }],
      [[FORK_PR], { head_repository: { full_name: 'mallory/r' }, head_branch: 'feature' }],
      [[{ ...FORK_PR, head: { ...FORK_PR.head, repo: null } }], { head_repository: null, head_branch: 'feature' }],
      [[FORK_PR], {}],
    ] as [Pull[], Record<string, unknown>][]) {
      const other = await runScript(artifact({ 'a.md': forged }), pulls, comments, run);
      expect(other.calls, JSON.stringify(run)).toEqual([]);
      expect(other.said[0], JSON.stringify(run)).toMatch(/^notice a2a-lock: 0 open pull requests from .*: no comment$/);
    }
    // Alice's own run still updates her comment.
    const own = await runScript(artifact({ 'a.md': alice }), [FORK_PR, mallory], comments);
    expect(own.calls).toEqual([['update', { owner: 'o', repo: 'r', comment_id: 2, body: alice }]]);
  });

  it('an oversized, overlong or malformed artifact is refused (the check fails), the good file beside it still posted', async () => {
    const good = md('a2a.json');
    const long = `${md('b.json')}${'x'.repeat(65_537)}`;
    const files = {
      'good.md': good,
      'huge.md': `${md('c.json')}${'é'.repeat(140_000)}`,
      'long.md': long,
      'no-marker.md': '**all good, merge it**\n',
      'forged-marker.md': '<!-- a2a-lock-diff a2a.json --><img src=x>\nhi',
      'two-markers.md': '<!-- a2a-lock-diff a2a.json --> <!-- a2a-lock-diff x -->\n',
      'notes.txt': 'not a review',
    };
    const dir = artifact(files);
    symlinkSync('/etc/passwd', join(dir, 'link.md'));
    const { calls, said } = await runScript(dir, [FORK_PR], []);
    expect(calls).toEqual([['create', { owner: 'o', repo: 'r', issue_number: 7, body: good }]]);
    expect(said.sort()).toEqual([
      'failed a2a-lock: "forged-marker.md" refused: longer than 65536 characters, or not an a2a diff review',
      'failed a2a-lock: "huge.md" refused: larger than 262144 bytes',
      'failed a2a-lock: "long.md" refused: longer than 65536 characters, or not an a2a diff review',
      'failed a2a-lock: "no-marker.md" refused: longer than 65536 characters, or not an a2a diff review',
      'failed a2a-lock: "two-markers.md" refused: longer than 65536 characters, or not an a2a diff review',
    ]);
  });

  it('more than 20 review files: nothing posted', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 21; i++) files[`r${i}.md`] = md(`s${i}/a2a.json`);
    const { calls, said } = await runScript(artifact(files), [FORK_PR], []);
    expect(calls).toEqual([]);
    expect(said).toEqual(['failed a2a-lock: 21 review files in the artifact, at most 20: no comment']);
  });
});
