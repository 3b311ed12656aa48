/**
 * The update pull requests script shipped beside its workflow (docs/guide/workflows/a2a-update-pull-requests.mjs,
 * docs/guide/update-pull-requests.md), run as the workflow runs it: a real git repository with a bare `origin` on
 * disk, real SDK agents of which one changed its card, the built CLI, and a node:http recorder standing in for the
 * GitHub REST API (GITHUB_API_URL). One branch per moved agent holding only that agent's lockfile change, one pull
 * request per agent whose body is the markdown review; a second run updates that pull request; an agent that did
 * not move gets no branch.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { closeFetcher } from '../../src/index.js';
import { BIN, git, manifest, ROOT, research, resources, runCli, sampleCard, show, writeManifest } from './helpers.js';

const SCRIPT = join(ROOT, 'docs', 'guide', 'workflows', 'a2a-update-pull-requests.mjs');
const run = promisify(execFile);

interface Call {
  method: string;
  url: string;
  authorization?: string;
  body?: { title?: string; head?: string; base?: string; body?: string };
}

describe('the update pull requests script', () => {
  it('pushes one branch and opens one pull request per moved agent, the review as its body; a second run updates it', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    onTestFinished(() => closeFetcher());
    const [moving, still, refusing] = await Promise.all([res.sampleAgent(), res.sampleAgent(), res.sampleAgent()]);
    // The project in a folder of the repository, the script run from its root (A2A_LOCK_MANIFEST=svc/a2a.json).
    const dir = await res.dir();
    const project = join(dir, 'svc');
    await mkdir(project);
    await writeManifest(
      project,
      manifest({
        research: research(moving.origin),
        other: research(still.origin),
        pricing: research(refusing.origin),
      }),
    );
    const origin = await res.dir();
    git(origin, 'init', '-q', '--bare', '-b', 'main');
    git(dir, 'init', '-q', '-b', 'main');
    const lock = await runCli(['lock'], { cwd: project });
    expect(lock.code, show(lock)).toBe(0);
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'lock');
    git(dir, 'remote', 'add', 'origin', origin);
    git(dir, 'push', '-q', 'origin', 'main');
    const main = git(origin, 'rev-parse', 'main');

    // The GitHub REST API: a recorder that knows the pull requests it opened.
    const calls: Call[] = [];
    const pulls: Array<{ number: number; head: { ref: string }; base: { ref: string }; state: string }> = [];
    const github = await res.http((req, response) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        const call: Call = { method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization };
        if (text) call.body = JSON.parse(text) as Call['body'];
        calls.push(call);
        const url = new URL(call.url, 'http://api');
        response.setHeader('content-type', 'application/json');
        if (call.method === 'GET' && url.pathname === '/repos/acme/agents/pulls') {
          const head = url.searchParams.get('head');
          response.end(JSON.stringify(pulls.filter((p) => `acme:${p.head.ref}` === head && p.state === 'open')));
        } else if (call.method === 'POST' && url.pathname === '/repos/acme/agents/pulls') {
          const pull = {
            number: pulls.length + 1,
            head: { ref: call.body!.head! },
            base: { ref: call.body!.base! },
            state: 'open',
          };
          pulls.push(pull);
          response.statusCode = 201;
          response.end(JSON.stringify(pull));
        } else if (call.method === 'PATCH' && /^\/repos\/acme\/agents\/pulls\/\d+$/.test(url.pathname)) {
          response.end('{}');
        } else {
          response.statusCode = 404;
          response.end('{"message":"Not Found"}');
        }
      });
    });
    const script = () =>
      run(process.execPath, [SCRIPT], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          NO_COLOR: '1',
          GITHUB_API_URL: github.origin,
          GITHUB_REPOSITORY: 'acme/agents',
          GITHUB_TOKEN: 'gh-test-token',
          A2A_LOCK_CLI: BIN,
          A2A_LOCK_MANIFEST: 'svc/a2a.json',
        },
      }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    const lockAt = (rev: string) => JSON.parse(git(origin, 'show', `${rev}:svc/a2a.lock.json`));

    // Nothing moved: no branch, no pull request.
    const quiet = await script();
    expect(quiet.code, quiet.stdout + quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain('every agent is current');
    expect(calls).toEqual([]);

    const card = sampleCard(moving.origin, { version: '2.5.0' });
    card.skills[0]!.outputModes = ['text/plain'];
    moving.setCard(card);
    const first = await script();
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain('a2a-lock: research: opened pull request #1 from a2a-lock/update-research');
    // One branch, for the agent that moved, one commit on main holding only the lockfile, only that agent changed.
    expect(git(origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/').split('\n').sort()).toEqual([
      'refs/heads/a2a-lock/update-research',
      'refs/heads/main',
    ]);
    const branch = 'a2a-lock/update-research';
    expect(git(origin, 'rev-parse', `${branch}^`)).toBe(main);
    expect(git(origin, 'diff', '--name-only', main, branch)).toBe('svc/a2a.lock.json');
    const before = lockAt(main);
    const after = lockAt(branch);
    expect(after.agents.research.version).toBe('2.5.0');
    expect(after.agents.research.plans['market-size'].acceptedOutputModes).toEqual(['text/plain']);
    expect({ ...after, agents: { ...after.agents, research: before.agents.research } }).toEqual(before);
    expect(git(origin, 'log', '-1', '--format=%s', branch)).toBe('a2a-lock: update research to 2.5.0');
    // One pull request: the branch into main, the markdown review of that change as its body.
    const opened = calls.filter((c) => c.method === 'POST');
    expect(opened).toHaveLength(1);
    expect(opened[0]!.url).toBe('/repos/acme/agents/pulls');
    expect(opened[0]!.authorization).toBe('Bearer gh-test-token');
    expect(opened[0]!.body).toMatchObject({ title: 'a2a-lock: update research to 2.5.0', head: branch, base: 'main' });
    const review = opened[0]!.body!.body!;
    expect(review.split('\n', 1)[0]).toMatch(/^<!-- a2a-lock-diff svc\/a2a\.json /);
    expect(review).toContain('research');
    expect(review).toContain('2.4.0');
    expect(review).toContain('2.5.0');
    expect(review).toContain('text/plain');
    expect(review).not.toMatch(/\bother\b|\bpricing\b/);
    // The same review a2a diff gives of the branch against main (the base's label aside).
    git(dir, 'fetch', '-q', 'origin');
    const diff = await runCli(['diff', 'origin/main', `origin/${branch}`, '--format', 'markdown', '--no-summary'], {
      cwd: project,
    });
    expect(diff.code, show(diff)).toBe(0);
    const rows = (text: string) => text.split('\n').filter((l) => l.startsWith('|'));
    expect(rows(review)).toEqual(rows(diff.stdout));
    // The checkout is back on main, unchanged.
    expect(git(dir, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(main);

    // The agent moves again: the same branch is rebuilt, the open pull request updated, none opened.
    const again = sampleCard(moving.origin, { version: '2.6.0' });
    again.skills[0]!.outputModes = ['text/plain'];
    moving.setCard(again);
    calls.length = 0;
    const second = await script();
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain('a2a-lock: research: updated pull request #1 from a2a-lock/update-research');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    const patched = calls.filter((c) => c.method === 'PATCH');
    expect(patched.map((c) => c.url)).toEqual(['/repos/acme/agents/pulls/1']);
    expect(patched[0]!.body!.title).toBe('a2a-lock: update research to 2.6.0');
    expect(patched[0]!.body!.body).toContain('2.6.0');
    const lookup = calls.find((c) => c.method === 'GET')!;
    expect(new URL(lookup.url, 'http://api').searchParams.get('head')).toBe(`acme:${branch}`);
    expect(lockAt(branch).agents.research.version).toBe('2.6.0');
    expect(git(origin, 'rev-parse', `${branch}^`)).toBe(main);
    expect(git(origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).not.toContain('other');

    // Nothing new for research: its branch is not pushed again (same change on the same base), its pull request
    // kept current. An agent update would refuse (its locked skill is gone) gets a warning, no branch: exit 1.
    const pushed = git(origin, 'rev-parse', branch);
    const renamed = sampleCard(refusing.origin);
    renamed.skills[0]!.id = 'market-sizing';
    refusing.setCard(renamed);
    const third = await script();
    expect(third.code, third.stdout + third.stderr).toBe(1);
    expect(third.stdout).toContain('::warning::a2a-lock: "pricing" is refused: no pull request');
    expect(third.stdout).toContain('a2a-lock: research: updated pull request #1 from a2a-lock/update-research');
    expect(git(origin, 'rev-parse', branch)).toBe(pushed);
    expect(git(origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/').split('\n').sort()).toEqual([
      'refs/heads/a2a-lock/update-research',
      'refs/heads/main',
    ]);
    expect(pulls).toHaveLength(1);
    expect(git(dir, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
  }, 120_000);
});
