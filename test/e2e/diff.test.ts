/**
 * `a2a diff` through the built CLI in a real git repository: HEAD (or the pull request base CI
 * names) → the working tree, revisions and file paths as sides, a side without a lockfile, the
 * three formats, --fail-on, the GitHub job summary and annotations, and git's external diff driver
 * (`.gitattributes` + `diff.a2a-lock.command`) through a real `git diff`, `git show` and `git log -p`.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeFetcher } from '../../src/index.js';
import { lockDigest } from '../../src/lock/digest.js';
import { simulatedJob } from '../helpers/github-job.js';
import { BIN, jsonOf, manifest, oneJsonDocument, research, resources, runCli, sampleCard, show } from './helpers.js';

const IDENTITY = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...IDENTITY, GIT_CONFIG_NOSYSTEM: '1', NO_COLOR: '1' },
  });
}

/** The digest of the lockfile at `file` (`lock/digest.ts`: sha256 over its canonical JSON). */
function digestOf(file: string): string {
  return lockDigest(JSON.parse(readFileSync(file, 'utf8')));
}

type OnFinished = (fn: () => void | Promise<void>) => void;

/** A project locked against a real SDK agent and committed on `main` (`extra`: more files for that commit). */
async function lockedProject(
  onTestFinished: OnFinished,
  extra: (dir: string) => void = () => {
    /* nothing more */
  },
) {
  const res = resources(onTestFinished);
  onTestFinished(() => closeFetcher());
  const agent = await res.sampleAgent();
  const dir = await res.dir(manifest({ research: research(agent.origin) }));
  git(dir, 'init', '-q', '-b', 'main');
  expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
  extra(dir);
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'lock');
  return { dir, agent };
}

/** {@link lockedProject}; then the agent stops offering application/json and `a2a update` takes it. */
async function reviewedProject(onTestFinished: OnFinished) {
  const { dir, agent } = await lockedProject(onTestFinished);
  const card = sampleCard(agent.origin, { version: '2.5.0' });
  card.skills[0]!.outputModes = ['application/pdf', 'text/plain'];
  agent.setCard(card);
  const update = await runCli(['update', 'research'], { cwd: dir });
  expect(update.code, show(update)).toBe(0);
  return { dir, agent };
}

describe.concurrent('a2a diff', () => {
  it('HEAD → working tree: one block per agent, plan fields as set members, risks, the count line; exit 0 (or 1 with --fail-on)', async ({
    onTestFinished,
  }) => {
    const { dir } = await reviewedProject(onTestFinished);
    const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env });
    const [text, json, formatJson, failMedium, failHigh, explicit] = await Promise.all([
      cli(['diff']),
      cli(['diff', '--json']),
      cli(['diff', '--format', 'json']),
      cli(['diff', '--fail-on', 'medium']),
      cli(['diff', '--fail-on', 'high']),
      cli(['diff', 'HEAD', 'a2a.lock.json']),
    ]);
    expect(text.code, show(text)).toBe(0);
    expect(text.stdout).toMatch(/^a2a\.json: revision HEAD \(refs\/heads\/main at [0-9a-f]{12}\) → working tree$/m);
    expect(text.stdout).toContain('~ research (version 2.4.0 → 2.5.0) · medium');
    expect(text.stdout).toContain(
      '    plan market-size › acceptedOutputModes:\n      - application/json\n      + text/plain',
    );
    expect(text.stdout).toContain('      - $.skills["market-size"].outputModes: "application/json" structural');
    expect(text.stdout).toContain(
      'medium output-modes-changed: plan market-size accepted output modes: - application/json, + text/plain',
    );
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('1 changed, 0 added, 0 removed · 1 medium, 1 low');
    expect(text.stdout).not.toMatch(/outputModes\[\d\]/);

    const doc = oneJsonDocument(json);
    expect(json.code).toBe(0);
    expect(doc).toMatchObject({
      ok: true,
      base: {
        kind: 'revision',
        label: 'HEAD',
        ref: 'refs/heads/main',
        commit: git(dir, 'rev-parse', 'HEAD').trim(),
        found: true,
      },
      head: { kind: 'worktree', found: true },
      counts: { changed: 1, added: 0, removed: 0, medium: 1 },
    });
    expect(doc.agents.research).toMatchObject({
      verdict: 'changed',
      version: { old: '2.4.0', new: '2.5.0' },
      level: 'medium',
    });
    expect(doc.agents.research.risks).toContainEqual({
      code: 'output-modes-changed',
      level: 'medium',
      message: 'plan market-size accepted output modes: - application/json, + text/plain',
      skill: 'market-size',
    });
    expect(doc.agents.research.changes.planChanges['market-size']).toEqual([
      { field: 'acceptedOutputModes', old: ['application/json'], new: ['text/plain'] },
    ]);
    expect(jsonOf(formatJson)).toEqual(doc);

    expect(failMedium.code, show(failMedium)).toBe(1);
    expect(failMedium.stdout).toContain('a2a diff failed: a change at or above --fail-on medium (exit 1)');
    expect(failHigh.code, show(failHigh)).toBe(0);
    expect(explicit.code, show(explicit)).toBe(0);
    expect(explicit.stdout).toContain('~ research (version 2.4.0 → 2.5.0) · medium');
  });

  it('sides as files or revisions; a side without a lockfile is all added; bad sides are usage errors (exit 2)', async ({
    onTestFinished,
  }) => {
    const { dir } = await reviewedProject(onTestFinished);
    writeFileSync(join(dir, 'base.lock.json'), git(dir, 'show', 'HEAD:a2a.lock.json'));
    git(dir, 'commit', '-q', '-am', 'update');
    const [files, revisions, none, bogus, tooMany] = await Promise.all([
      runCli(['diff', 'base.lock.json', 'a2a.lock.json', '--json'], { cwd: dir }),
      runCli(['diff', 'HEAD~1', 'HEAD', '--json'], { cwd: dir }),
      runCli(['diff', 'no-such-file.json'], { cwd: dir }),
      runCli(['diff', 'HEAD', 'also-missing'], { cwd: dir }),
      runCli(['diff', 'a', 'b', 'c'], { cwd: dir }),
    ]);
    expect(files.code, show(files)).toBe(0);
    expect(jsonOf(files)).toMatchObject({
      base: { kind: 'file', label: 'base.lock.json' },
      head: { kind: 'file' },
      counts: { changed: 1 },
    });
    expect(jsonOf(revisions)).toMatchObject({
      base: { kind: 'revision', label: 'HEAD~1' },
      head: { kind: 'revision', label: 'HEAD' },
      counts: { changed: 1 },
    });
    expect(jsonOf(revisions).agents).toEqual(jsonOf(files).agents);
    // Card text reaches the terminal inert: control and bidi characters escaped, in text and markdown.
    const hostile = JSON.parse(readFileSync(join(dir, 'a2a.lock.json'), 'utf8'));
    hostile.agents.research.snapshot.description = 'evil \u001b[2J\u001b]0;title\u0007 \u202e reversed';
    writeFileSync(join(dir, 'hostile.lock.json'), `${JSON.stringify(hostile, null, 2)}\n`);
    const [plainText, markdown] = await Promise.all([
      runCli(['diff', 'a2a.lock.json', 'hostile.lock.json'], { cwd: dir }),
      runCli(['diff', 'a2a.lock.json', 'hostile.lock.json', '--format', 'markdown'], { cwd: dir }),
    ]);
    for (const r of [plainText, markdown]) {
      expect(r.code, show(r)).toBe(0);
      expect(r.stdout).toMatch(/evil \\+u001b\[2J\\+u001b\]0;title\\+u0007 \\+u202e reversed/);
      expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/);
    }
    expect(none.code, show(none)).toBe(2);
    expect(none.stderr).toContain('"no-such-file.json" is not a git revision');
    expect(bogus.code).toBe(2);
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toContain('at most two sides');
    // `a2a diff <agent>`, as `a2a outdated <agent>` was spelt before: says so.
    const agentName = Object.keys(JSON.parse(readFileSync(join(dir, 'a2a.json'), 'utf8')).agents)[0]!;
    const asAgent = await runCli(['diff', agentName], { cwd: dir });
    expect(asAgent.code, show(asAgent)).toBe(2);
    expect(asAgent.stderr).toContain(`"${agentName}" is an agent, not a lockfile or a git revision`);
    expect(asAgent.stderr).toContain(`a2a outdated ${agentName}`);

    // A commit before the lockfile existed: every agent added.
    const empty = await resources(onTestFinished).dir();
    git(empty, 'init', '-q', '-b', 'main');
    writeFileSync(join(empty, 'README'), 'x\n');
    git(empty, 'add', '.');
    git(empty, 'commit', '-q', '-m', 'first');
    writeFileSync(join(empty, 'a2a.lock.json'), readFileSync(join(dir, 'a2a.lock.json')));
    const added = await runCli(['diff', '--lockfile', 'a2a.lock.json'], { cwd: empty });
    expect(added.code, show(added)).toBe(0);
    expect(added.stdout).toMatch(
      /^a2a\.json: revision HEAD \(refs\/heads\/main at [0-9a-f]{12}, no lockfile\) → working tree$/m,
    );
    expect(added.stdout).toMatch(/^\+ research \(http:\/\/127\.0\.0\.1:\d+, version 2\.5\.0\) · high$/m);
    expect(added.stdout).toMatch(
      /high new-credential-destination: new agent sends bearer → http:\/\/127\.0\.0\.1:\d+ \(plan market-size\)/,
    );
    expect(added.stdout).toContain('0 changed, 1 added, 0 removed');
    // The other way round the head side has no lockfile: the marker's digest is `none`.
    const removed = await runCli(
      ['diff', '--lockfile', 'a2a.lock.json', './a2a.lock.json', 'HEAD', '--format', 'markdown'],
      {
        cwd: empty,
      },
    );
    expect(removed.code, show(removed)).toBe(0);
    expect(removed.stdout.split('\n')[0]).toBe('<!-- a2a-lock-diff a2a.json none -->');
  });

  it('in CI: the pull request base (GITHUB_BASE_REF), the markdown job summary, annotations at the agent line; an unreadable base is exit 2 with the fetch hint', async ({
    onTestFinished,
  }) => {
    const { dir } = await reviewedProject(onTestFinished);
    const base = git(dir, 'rev-parse', 'HEAD').trim();
    git(dir, 'update-ref', 'refs/remotes/origin/main', base);
    git(dir, 'checkout', '-q', '-b', 'feature');
    git(dir, 'commit', '-q', '-am', 'update research');
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_BASE_REF: 'main',
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_WORKSPACE: dir,
    };
    const r = await runCli(['diff'], { cwd: dir, env });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain(
      `a2a.json: revision ${base.slice(0, 12)} (GITHUB_BASE_REF: merge-base with refs/remotes/origin/main) → working tree`,
    );
    const line = readFileSync(join(dir, 'a2a.lock.json'), 'utf8').split('\n').indexOf('    "research": {') + 1;
    expect(line).toBeGreaterThan(1);
    expect(r.stdout.split('\n')).toContain(
      `::warning file=a2a.lock.json,line=${line},title=research%3A output-modes-changed::plan market-size accepted output modes: - application/json, + text/plain; review it in a2a diff`,
    );
    const written = readFileSync(summary, 'utf8');
    expect(written).toMatch(/^# earlier step\n<!-- a2a-lock-summary [\w-]{22} -->\n### a2a diff\n\n/);
    expect(written).toContain(
      `\n<!-- a2a-lock-diff a2a.json ${digestOf(join(dir, 'a2a.lock.json'))} -->\n**1 changed, 0 added, 0 removed · 1 medium, 1 low**`,
    );
    expect(written).toContain('| Agent | Change | Card version | Plan impact | Signature | Risk |');
    expect(written).toContain(
      '| research | changed | 2.4.0 → 2.5.0 | market-size: acceptedOutputModes | absent | **medium**: output-modes-changed |',
    );

    const md = await runCli(['diff', '--format', 'markdown'], {
      cwd: dir,
      env: { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main' },
    });
    // stdout is the comment alone; the annotation goes to stderr. The marker carries the head (working tree) lockfile's digest.
    expect(md.stdout.split('\n')[0]).toBe(`<!-- a2a-lock-diff a2a.json ${digestOf(join(dir, 'a2a.lock.json'))} -->`);
    expect(md.stdout).not.toContain('::warning');
    expect(md.stderr).toContain(`::warning file=a2a.lock.json,line=${line},title=research%3A output-modes-changed::`);
    expect(md.stdout).toContain('<details><summary>research: changed · medium</summary>');

    const unreadable = await runCli(['diff'], {
      cwd: dir,
      env: { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'release' },
    });
    expect(unreadable.code, show(unreadable)).toBe(2);
    expect(unreadable.stderr).toContain("the pull request's base (refs/remotes/origin/release) is not in this clone");
    expect(unreadable.stderr).toContain('fetch-depth: 0');
  });

  it('--ignore <code>: the risk still shown, marked ignored, in text, json and markdown; no longer counted for --fail-on or annotated; an unknown code is exit 2 naming the nearest', async ({
    onTestFinished,
  }) => {
    const { dir } = await reviewedProject(onTestFinished);
    const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env });
    const ignore = ['--ignore', 'output-modes-changed'];
    const [failing, text, json, md, gh, typo, unknown] = await Promise.all([
      cli(['diff', '--fail-on', 'medium']),
      // A side after --ignore is a side (`HEAD`, the default base here), not a code.
      cli(['diff', '--fail-on', 'medium', ...ignore, 'HEAD']),
      cli(['diff', '--json', '--fail-on', 'medium', '--ignore=output-modes-changed,skill-added']),
      cli(['diff', '--format', 'markdown', ...ignore]),
      cli(['diff', '--fail-on', 'low', ...ignore], { GITHUB_ACTIONS: 'true' }),
      cli(['diff', '--ignore', 'output-modes-chnged']),
      cli(['diff', '--ignore', 'nothing-like-any-code']),
    ]);
    expect(failing.code, show(failing)).toBe(1);
    expect(text.code, show(text)).toBe(0);
    expect(text.stdout).toContain('~ research (version 2.4.0 → 2.5.0) · low');
    expect(text.stdout).toMatch(
      /^ {4}medium output-modes-changed \(ignored\): plan market-size accepted output modes/m,
    );
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('1 changed, 0 added, 0 removed · 1 low · 1 ignored');
    expect(json.code, show(json)).toBe(0);
    const doc = jsonOf(json);
    expect(doc.ok).toBe(true);
    expect(doc.counts).toMatchObject({ medium: 0, low: 1, ignored: 1 });
    expect(doc.agents.research.level).toBe('low');
    expect(doc.agents.research.risks).toContainEqual(
      expect.objectContaining({ code: 'output-modes-changed', level: 'medium', ignored: true }),
    );
    expect(
      doc.agents.research.risks.filter((r: { ignored?: boolean }) => r.ignored).map((r: { code: string }) => r.code),
    ).toEqual(['output-modes-changed']);
    expect(md.stdout).toMatch(
      /^\| research \| changed \|.*\| \*\*low\*\*: [a-z-]+; ignored: output-modes-changed \|$/m,
    );
    // The ignored code still fails nothing, and no annotation names it (a low risk has none).
    expect(gh.code, show(gh)).toBe(1);
    expect(gh.stdout).not.toContain('::');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      '--ignore: unknown risk code "output-modes-chnged"; did you mean output-modes-changed?',
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /unknown risk code "nothing-like-any-code" \(risk codes: new-credential-destination, .*agent-removed\)/,
    );
  });

  it('run twice in one job (the comment, then --fail-on): the job summary and the annotations once, in one step or two; again in another job; --no-summary writes none', async ({
    onTestFinished,
  }) => {
    const { dir } = await reviewedProject(onTestFinished);
    const job = {
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: dir,
      RUNNER_TEMP: join(dir, '.runner-temp'),
      GITHUB_RUN_ID: '4242',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_JOB: 'review',
    };
    const { step, summary } = simulatedJob(dir, job);
    const sections = (n: number) => summary(n).match(/^<!-- a2a-lock-diff a2a\.json sha256-\S+ -->$/gm)?.length ?? 0;
    const annotation = /^::warning file=a2a\.lock\.json,line=\d+,title=research%3A output-modes-changed::/m;
    // One step: `a2a diff --format markdown > comment.md && a2a diff --fail-on high`.
    const comment = await runCli(['diff', '--format', 'markdown'], { cwd: dir, env: step(1) });
    const gate = await runCli(['diff', '--fail-on', 'high'], { cwd: dir, env: step(1) });
    expect(comment.code, show(comment)).toBe(0);
    expect(gate.code, show(gate)).toBe(0);
    expect(comment.stderr).toMatch(annotation);
    expect(gate.stdout).not.toContain('::warning');
    expect(sections(1)).toBe(1);
    // A later step of the same job (its own summary file): nothing again.
    const later = await runCli(['diff', '--fail-on', 'high'], { cwd: dir, env: step(2) });
    expect(later.code, show(later)).toBe(0);
    expect(later.stdout).not.toContain('::warning');
    expect(sections(2)).toBe(0);
    // Another job: written and annotated again; --no-summary: annotated, no summary.
    const other = await runCli(['diff'], { cwd: dir, env: step(3, { ...job, GITHUB_JOB: 'deploy' }) });
    expect(other.stdout).toMatch(annotation);
    expect(sections(3)).toBe(1);
    const quiet = await runCli(['diff', '--no-summary'], { cwd: dir, env: step(4, { ...job, GITHUB_JOB: 'third' }) });
    expect(quiet.code, show(quiet)).toBe(0);
    expect(quiet.stdout).toMatch(annotation);
    expect(summary(4)).toBe('');
  });

  it('a job summary that cannot be written is one warning, step-summary-failed (the code verify gives it), and the review still prints', async ({
    onTestFinished,
  }) => {
    const { dir } = await reviewedProject(onTestFinished);
    const r = await runCli(['diff'], { cwd: dir, env: { GITHUB_STEP_SUMMARY: join(dir, 'no', 'such', 'summary.md') } });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('~ research (version 2.4.0 → 2.5.0) · medium');
    expect(r.stderr).toMatch(
      /^warning step-summary-failed: GITHUB_STEP_SUMMARY \(.*summary\.md\) could not be written: /m,
    );
  });

  it("a word that is both a file and a revision is refused, as git does (a PR committing its own lockfile as `main` reviewed itself); files are spelt ./x, absolute or after --; the header names each side's kind", async ({
    onTestFinished,
  }) => {
    const { dir } = await reviewedProject(onTestFinished);
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    // The pull request's own lockfile, committed under the names a reviewer would type for the base.
    const own = readFileSync(join(dir, 'a2a.lock.json'));
    writeFileSync(join(dir, 'main'), own);
    writeFileSync(join(dir, head), own);
    const cli = (...args: string[]) => runCli(['diff', ...args], { cwd: dir });
    const [byName, bySha, revision, dotted, dashed, json, missing] = await Promise.all([
      cli('main', '--fail-on', 'any'),
      cli(head),
      cli('--fail-on', 'any', 'main', '--'),
      cli('./main', '--fail-on', 'any'),
      cli('--', 'main', 'a2a.lock.json'),
      cli('--json', 'main', '--'),
      cli('main', '--', 'no-such.json'),
    ]);
    for (const [r, word] of [
      [byName, 'main'],
      [bySha, head],
    ] as const) {
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr).toContain(`error usage: "${word}" is ambiguous: both a file and a git revision`);
      expect(r.stderr).toContain(`hint: write ./${word} for the file, or the revision before -- (a2a diff ${word} --)`);
    }
    expect(revision.code, show(revision)).toBe(1);
    expect(revision.stdout).toMatch(/^a2a\.json: revision main \(refs\/heads\/main at [0-9a-f]{12}\) → working tree$/m);
    expect(revision.stdout).toContain('~ research (version 2.4.0 → 2.5.0) · medium');
    expect(dotted.code, show(dotted)).toBe(0);
    expect(dotted.stdout).toContain('a2a.json: file ./main → working tree');
    expect(dashed.code, show(dashed)).toBe(0);
    expect(dashed.stdout).toContain('a2a.json: file main → file a2a.lock.json');
    expect(jsonOf(json)).toMatchObject({
      base: { kind: 'revision', label: 'main', ref: 'refs/heads/main', commit: head, found: true },
      head: { kind: 'worktree' },
      counts: { changed: 1 },
    });
    expect(missing.code, show(missing)).toBe(2);
    expect(missing.stderr).toContain('no-such.json: no such file');
  });

  it('under CI a bare word is a revision: in a real shallow clone (git clone --depth 1) a committed file named origin/main is not read as the base; the missing revision is exit 2 naming fetch-depth: 0; ./origin/main reads the file; outside CI the file is read and the header says so', async ({
    onTestFinished,
  }) => {
    const { dir } = await reviewedProject(onTestFinished);
    // The pull request: its lockfile changed (update), and a copy of it committed as `origin/main`,
    // so a diff against that "base" says no change.
    git(dir, 'checkout', '-q', '-b', 'pr');
    mkdirSync(join(dir, 'origin'));
    copyFileSync(join(dir, 'a2a.lock.json'), join(dir, 'origin', 'main'));
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'pull request');
    // actions/checkout's default: fetch-depth 1, the pull request's branch only (no refs/remotes/origin/main).
    const clone = join(dir, '..', `${dir.split('/').pop()}-shallow`);
    git(join(dir, '..'), 'clone', '-q', '--depth', '1', '--branch', 'pr', `file://${dir}`, clone);
    onTestFinished(() => {
      execFileSync('rm', ['-rf', clone]);
    });
    expect(git(clone, 'rev-parse', '--is-shallow-repository').trim()).toBe('true');
    const cli = (env: Record<string, string>, ...args: string[]) => runCli(['diff', ...args], { cwd: clone, env });
    const [ci, gh, lab, dotted, dashed, laptop] = await Promise.all([
      cli({ CI: 'true' }, 'origin/main', '--fail-on', 'any'),
      cli({ GITHUB_ACTIONS: 'true' }, 'origin/main', '--fail-on', 'any'),
      cli({ GITLAB_CI: 'true' }, 'origin/main', '--fail-on', 'any'),
      cli({ CI: 'true' }, './origin/main', '--fail-on', 'any'),
      cli({ CI: 'true' }, '--', 'origin/main'),
      cli({}, 'origin/main', '--fail-on', 'any'),
    ]);
    for (const r of [ci, gh, lab]) {
      expect(r.code, show(r)).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('"origin/main" is not a git revision');
      expect(r.stderr).toContain('under CI a bare word is always a revision');
      expect(r.stderr).toContain('fetch-depth: 0');
    }
    // Spelt as a file, it is the file (and the header says so).
    expect(dotted.code, show(dotted)).toBe(0);
    expect(dotted.stdout).toContain('a2a.json: file ./origin/main → working tree');
    expect(dashed.code, show(dashed)).toBe(0);
    expect(dashed.stdout).toContain('a2a.json: file origin/main → working tree');
    // verify --base: a revision too, the same hint.
    const online = await runCli(['verify', '--base', 'origin/main'], { cwd: clone, env: { GITHUB_ACTIONS: 'true' } });
    expect(online.code, show(online)).toBe(2);
    expect(online.stderr).toContain('fetch-depth: 0');
    // Outside CI the rule of issue 22 stays (no such revision: the file), and the header names it.
    expect(laptop.code, show(laptop)).toBe(0);
    expect(laptop.stdout).toContain('a2a.json: file origin/main → working tree');
    // With the history fetched (fetch-depth: 0), origin/main is the base revision and the change shows.
    git(clone, 'fetch', '-q', '--unshallow', 'origin', '+refs/heads/main:refs/remotes/origin/main');
    const fetched = await cli({ CI: 'true' }, 'origin/main', '--fail-on', 'any');
    expect(fetched.code, show(fetched)).toBe(1);
    expect(fetched.stdout).toMatch(
      /^a2a\.json: revision origin\/main \(refs\/remotes\/origin\/main at [0-9a-f]{12}\) → working tree$/m,
    );
  });

  it('a pull request that only changes credentials.<scheme>.env in a2a.json: credential-source-changed (high) in every format, --fail-on counts it; the marker names the manifest', async ({
    onTestFinished,
  }) => {
    const { dir } = await lockedProject(onTestFinished, (project) => {
      // A second service in the same repository, with its own manifest and lockfile.
      mkdirSync(join(project, 'billing'));
      copyFileSync(join(project, 'a2a.json'), join(project, 'billing', 'a2a.json'));
      copyFileSync(join(project, 'a2a.lock.json'), join(project, 'billing', 'a2a.lock.json'));
    });
    const lockBefore = readFileSync(join(dir, 'a2a.lock.json'), 'utf8');
    const edited = JSON.parse(readFileSync(join(dir, 'a2a.json'), 'utf8'));
    edited.agents.research.credentials.bearer.env = 'PROD_DEPLOY_TOKEN';
    writeFileSync(join(dir, 'a2a.json'), `${JSON.stringify(edited, null, 2)}\n`);
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'main');
    git(dir, 'checkout', '-q', '-b', 'feature');
    git(dir, 'commit', '-q', '-am', 'only the secret variable');
    expect(readFileSync(join(dir, 'a2a.lock.json'), 'utf8')).toBe(lockBefore);
    const message =
      'credential bearer now read from env PROD_DEPLOY_TOKEN (was env RESEARCH_TOKEN), for a route the base already sent it along';
    const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env });
    const [text, json, md, any, high, revisions, billing, annotated] = await Promise.all([
      cli(['diff', 'main']),
      cli(['diff', 'main', '--json']),
      cli(['diff', 'main', '--format', 'markdown']),
      cli(['diff', 'main', '--fail-on', 'any']),
      cli(['diff', 'main', '--fail-on', 'high']),
      cli(['diff', 'main', 'feature', '--json']),
      cli(['diff', 'main', '--manifest', 'billing/a2a.json', '--format', 'markdown']),
      cli(['diff'], { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main', GITHUB_WORKSPACE: dir }),
    ]);
    expect(text.code, show(text)).toBe(0);
    expect(text.stdout).toContain('~ research (version 2.4.0) · high');
    expect(text.stdout).toContain('    a2a.json › credentials › bearer: env RESEARCH_TOKEN → env PROD_DEPLOY_TOKEN');
    expect(text.stdout).toContain(`    high credential-source-changed: ${message}`);
    expect(text.stdout).not.toContain('No agent changed');
    expect(jsonOf(json).agents.research).toMatchObject({
      verdict: 'changed',
      level: 'high',
      credentialSources: [{ scheme: 'bearer', old: 'RESEARCH_TOKEN', new: 'PROD_DEPLOY_TOKEN' }],
      risks: [{ code: 'credential-source-changed', level: 'high', message }],
    });
    expect(jsonOf(revisions).agents.research.risks).toEqual([
      { code: 'credential-source-changed', level: 'high', message },
    ]);
    expect(md.stdout.split('\n')[0]).toBe(`<!-- a2a-lock-diff a2a.json ${digestOf(join(dir, 'a2a.lock.json'))} -->`);
    expect(md.stdout).toContain(
      '| research | changed | 2.4.0 | credentials: bearer | absent | **high**: credential-source-changed |',
    );
    expect([any.code, high.code]).toEqual([1, 1]);
    expect(high.stdout).toContain('a2a diff failed: a change at or above --fail-on high (exit 1)');
    // The other service's manifest did not change: its own comment, under its own marker.
    expect(billing.code, show(billing)).toBe(0);
    expect(billing.stdout.split('\n')[0]).toBe(
      `<!-- a2a-lock-diff billing/a2a.json ${digestOf(join(dir, 'billing', 'a2a.lock.json'))} -->`,
    );
    expect(billing.stdout).toContain('No agent changed.');
    // A side whose manifest is not valid: the lockfiles are still compared, the sources are not, and a warning says so.
    writeFileSync(join(dir, 'billing', 'a2a.json'), '{ not json');
    const invalid = await cli(['diff', 'main', '--manifest', 'billing/a2a.json', '--json']);
    expect(invalid.code, show(invalid)).toBe(0);
    expect(jsonOf(invalid).warnings).toEqual([expect.objectContaining({ code: 'manifest-not-compared' })]);
    expect(annotated.code, show(annotated)).toBe(0);
    expect(annotated.stdout).toMatch(
      /^::error file=a2a\.lock\.json,line=\d+,title=research%3A credential-source-changed::credential bearer now read from env PROD_DEPLOY_TOKEN/m,
    );

    // The base lockfile as a file (attack run on issue 22): beside the working tree's a2a.json it
    // would be compared with the head's own manifest and say "No agent changed"; in a folder without
    // one, nothing at all. Either way a warning says the credential sources were not compared.
    writeFileSync(join(dir, 'base.lock.json'), git(dir, 'show', 'main:a2a.lock.json') + '\n');
    mkdirSync(join(dir, 'copy'));
    writeFileSync(join(dir, 'copy', 'base.lock.json'), git(dir, 'show', 'main:a2a.lock.json') + '\n');
    const [beside, alone] = await Promise.all([
      cli(['diff', './base.lock.json', '--json']),
      cli(['diff', './copy/base.lock.json', '--json']),
    ]);
    expect(jsonOf(beside).warnings).toEqual([
      {
        code: 'manifest-not-compared',
        message: `both sides read the manifest ${join(dir, 'a2a.json')}: credential sources not compared (compare revisions, or put the base lockfile beside its own a2a.json)`,
      },
    ]);
    expect(jsonOf(alone).warnings).toEqual([
      {
        code: 'manifest-not-compared',
        message: 'no manifest beside the lockfile of ./copy/base.lock.json: credential sources not compared',
      },
    ]);
    // Nothing to compare, so the one manifest both sides read is not parsed: not valid, it is the same one warning.
    writeFileSync(join(dir, 'a2a.json'), '{ not json');
    const unparsed = await cli(['diff', './base.lock.json', '--json']);
    expect(unparsed.code, show(unparsed)).toBe(0);
    expect(jsonOf(unparsed).warnings).toEqual(jsonOf(beside).warnings);
  });

  it("git's external diff driver: git diff, git show and git log -p print the change view for the lockfile", async ({
    onTestFinished,
  }) => {
    const { dir } = await reviewedProject(onTestFinished);
    writeFileSync(join(dir, '.gitattributes'), 'a2a.lock.json diff=a2a-lock\n');
    git(dir, 'config', 'diff.a2a-lock.command', `"${process.execPath}" "${BIN}" diff --git-external`);
    const diff = git(dir, 'diff', '--', 'a2a.lock.json');
    expect(diff).toContain('a2a.json: a/a2a.lock.json → b/a2a.lock.json');
    expect(diff).toContain('~ research (version 2.4.0 → 2.5.0) · medium');
    expect(diff).toContain('      - application/json\n      + text/plain');
    expect(diff).not.toContain('"snapshot"'); // not the raw JSON
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'update');
    expect(git(dir, 'show', '--ext-diff', 'HEAD', '--', 'a2a.lock.json')).toContain(
      '1 changed, 0 added, 0 removed · 1 medium, 1 low',
    );
    const log = git(dir, 'log', '-p', '--ext-diff', '--', 'a2a.lock.json');
    expect(log).toContain('1 changed, 0 added, 0 removed · 1 medium, 1 low'); // the update
    expect(log).toMatch(/\+ research \(http:\/\/127\.0\.0\.1:\d+, version 2\.4\.0\)/); // the first lock: no old side (/dev/null)
    // The driver takes exactly git's 7 arguments.
    const [unmerged, wrong] = await Promise.all([
      runCli(['diff', '--git-external', 'a2a.lock.json'], { cwd: dir }),
      runCli(['diff', '--git-external', 'a2a.lock.json', 'x', 'y'], { cwd: dir }),
    ]);
    expect(unmerged.code).toBe(2);
    expect(unmerged.stderr).toContain('a2a.lock.json is unmerged');
    expect(unmerged.stderr).toContain('hint: resolve the lockfile with a2a lock');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('the 7 arguments git passes');
  });

  it('a2a update --format markdown: a pull request body listing every agent and skill it changed', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    onTestFinished(() => closeFetcher());
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const card = sampleCard(agent.origin, { version: '2.5.0' });
    card.skills[0]!.outputModes = ['text/plain'];
    agent.setCard(card);
    const r = await runCli(['update', '--format', 'markdown'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    const lines = r.stdout.split('\n');
    // The marker carries the digest of the lockfile update wrote.
    expect(lines[0]).toBe(`<!-- a2a-lock-diff a2a.json ${digestOf(join(dir, 'a2a.lock.json'))} -->`);
    expect(lines[1]).toBe('**1 changed, 0 added, 0 removed · 1 medium, 1 low**');
    expect(r.stdout).toContain('| research | changed | 2.4.0 → 2.5.0 | market-size: acceptedOutputModes |');
    expect(r.stdout).toContain('plan market-size › acceptedOutputModes:');
    expect(r.stdout).not.toMatch(/all locks refreshed/i);
    const again = await runCli(['update', '--format', 'markdown'], { cwd: dir });
    expect(again.stdout).toContain('No agent changed.');
  });
});
