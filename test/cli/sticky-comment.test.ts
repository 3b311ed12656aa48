/**
 * The CI guide's GitHub Actions recipe for the one pull request comment (docs/guide/ci-github-actions.md):
 * its `actions/github-script` step, taken from the guide as written and run against a recorded comment list, updates only the
 * workflow bot's own comment for the same manifest (never a user's comment that starts with the
 * marker, never the comment of another service's manifest).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diffMarkdown } from '../../src/cli/render/diff.js';
import { lockDigest } from '../../src/lock/digest.js';

const GUIDE = readFileSync(new URL('../../docs/guide/ci-github-actions.md', import.meta.url), 'utf8');

/** The `script: |` block of the guide's sticky-comment step, unindented. */
function stickyScript(): string {
  const lines = GUIDE.split('\n');
  const step = lines.findIndex((l) => /- name: one sticky comment/.test(l));
  expect(step).toBeGreaterThan(0);
  const start = lines.findIndex((l, i) => i > step && /^\s+script: \|$/.test(l)) + 1;
  const indent = /^\s*/.exec(lines[start]!)![0].length;
  const body: string[] = [];
  for (let i = start; i < lines.length && (lines[i]!.trim() === '' || /^\s*/.exec(lines[i]!)![0].length >= indent); i++)
    body.push(lines[i]!.slice(indent));
  return body.join('\n');
}

interface Comment {
  id: number;
  body: string;
  user: { login: string; type: string };
}

/** Run the guide's script with `body` as a2a-diff.md against `comments`; what it called. */
async function runRecipe(body: string, comments: Comment[]): Promise<Array<[string, Record<string, unknown>]>> {
  const calls: Array<[string, Record<string, unknown>]> = [];
  const github = {
    paginate: async (fn: (args: unknown) => Promise<Comment[]>, args: unknown) => fn(args),
    rest: {
      issues: {
        listComments: async () => comments,
        updateComment: async (args: Record<string, unknown>) => void calls.push(['update', args]),
        createComment: async (args: Record<string, unknown>) => void calls.push(['create', args]),
      },
    },
  };
  const context = { repo: { owner: 'o', repo: 'r' }, issue: { number: 7 } };
  const require = (name: string) => {
    expect(name).toBe('fs');
    return {
      readFileSync: (path: string) => {
        expect(path).toBe('a2a-diff.md');
        return body;
      },
    };
  };
  const AsyncFunction = Object.getPrototypeOf(async () => {
    /* only its constructor is used */
  }).constructor as new (
    ...args: string[]
  ) => (...a: unknown[]) => Promise<void>;
  await new AsyncFunction('require', 'github', 'context', stickyScript())(require, github, context);
  return calls;
}

const BOT = { login: 'github-actions[bot]', type: 'Bot' };

describe("the CI guide's sticky-comment recipe", () => {
  const md = (manifest: string, digest?: string) =>
    diffMarkdown(
      [],
      { changed: 0, added: 0, removed: 0, renamed: 0, unchanged: 0, high: 0, medium: 0, low: 0, info: 0, better: 0 },
      undefined,
      { manifest, ...(digest ? { digest } : {}) },
    );
  const first = lockDigest({ lockfileVersion: 1, settings: {}, agents: {} });
  const second = lockDigest({ lockfileVersion: 1, settings: {}, agents: { a: {} } });

  it("updates only the workflow bot's own comment for the same manifest", async () => {
    const body = md('services/billing/a2a.json', first);
    expect(body.split('\n')[0]).toBe(`<!-- a2a-lock-diff services/billing/a2a.json ${first} -->`);
    const comments: Comment[] = [
      // Anyone can write a comment starting with the marker: never adopted.
      {
        id: 1,
        body: '<!-- a2a-lock-diff services/billing/a2a.json -->\nall good',
        user: { login: 'mallory', type: 'User' },
      },
      { id: 2, body: `${md('a2a.json')}`, user: BOT },
      // A bot, but not this workflow's.
      { id: 3, body: body, user: { login: 'other-app[bot]', type: 'Bot' } },
      { id: 4, body: 'old review', user: BOT },
      { id: 5, body: `${body}\nolder`, user: BOT },
    ];
    expect(await runRecipe(body, comments)).toEqual([['update', { owner: 'o', repo: 'r', comment_id: 5, body }]]);
  });

  it('creates a comment when only a user (or another manifest) has one with the marker', async () => {
    const body = md('a2a.json');
    const comments: Comment[] = [
      { id: 1, body: '<!-- a2a-lock-diff a2a.json -->\nforged', user: { login: 'mallory', type: 'User' } },
      { id: 2, body: md('services/billing/a2a.json'), user: BOT },
    ];
    expect(await runRecipe(body, comments)).toEqual([['create', { owner: 'o', repo: 'r', issue_number: 7, body }]]);
  });

  it('updates (never duplicates) its comment when the lockfile, and so the digest in the marker, changed; and one from before the digest', async () => {
    const body = md('a2a.json', second);
    // The marker changed with the lockfile: the comment's first line is no longer the new body's.
    expect(md('a2a.json', first).split('\n')[0]).not.toBe(body.split('\n')[0]);
    const comments: Comment[] = [
      { id: 1, body: md('services/billing/a2a.json', first), user: BOT },
      { id: 2, body: md('a2a.json', first), user: BOT },
    ];
    expect(await runRecipe(body, comments)).toEqual([['update', { owner: 'o', repo: 'r', comment_id: 2, body }]]);
    // A comment written before the marker carried a digest (three fields and `-->`) is the same comment.
    const older: Comment[] = [{ id: 3, body: '<!-- a2a-lock-diff a2a.json -->\nold', user: BOT }];
    expect(await runRecipe(body, older)).toEqual([['update', { owner: 'o', repo: 'r', comment_id: 3, body }]]);
  });
});
