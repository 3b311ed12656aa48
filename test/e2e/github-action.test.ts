/**
 * The GitHub Action (action.yml) run step by step as a runner would (test/helpers/github-action.ts):
 * a real git repository with a base commit on `main` (`refs/remotes/origin/main`, as
 * `actions/checkout` with `fetch-depth: 0` leaves it) and a pull request commit that updates the
 * lockfile, a real SDK agent on 127.0.0.1, a pull_request event payload, GITHUB_BASE_REF,
 * GITHUB_STEP_SUMMARY and GITHUB_OUTPUT; the built CLI as the workspace's
 * node_modules/.bin/a2a-lock (or behind a stand-in `npx` for `install: registry`).
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeFetcher } from '../../src/index.js';
import { ACTION_ROOT, type ActionRun, runAction } from '../helpers/github-action.js';
import { BIN, git, manifest, type OnFinished, research, resources, runCli, SLOW, sampleCard, show } from './helpers.js';

const OWN_VERSION = (JSON.parse(readFileSync(join(ACTION_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

/** A project locked on `main`, then a pull request branch whose commit takes the agent's new output modes. */
async function pullRequest(onTestFinished: OnFinished) {
  const res = resources(onTestFinished);
  onTestFinished(() => closeFetcher());
  const agent = await res.agent({ card: (origin) => sampleCard(origin) });
  const dir = await res.dir(manifest({ research: research(agent.origin) }));
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  git(dir, 'init', '-q', '-b', 'main');
  const lock = await runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: 'token-of-the-step-env' } });
  expect(lock.code, show(lock)).toBe(0);
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'lock');
  const base = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'update-ref', 'refs/remotes/origin/main', base);
  git(dir, 'checkout', '-q', '-b', 'feature');
  const card = sampleCard(agent.origin, { version: '2.5.0' });
  card.skills[0]!.outputModes = ['application/pdf', 'text/plain'];
  agent.setCard(card);
  const update = await runCli(['update', 'research'], { cwd: dir, env: { RESEARCH_TOKEN: 'token-of-the-step-env' } });
  expect(update.code, show(update)).toBe(0);
  git(dir, 'commit', '-q', '-am', 'update research');
  const head = git(dir, 'rev-parse', 'HEAD');

  const runner = await res.dir();
  const event = join(runner, 'event.json');
  writeFileSync(
    event,
    JSON.stringify({
      action: 'synchronize',
      number: 7,
      pull_request: { number: 7, base: { ref: 'main', sha: base }, head: { ref: 'feature', sha: head } },
      repository: { full_name: 'o/r', default_branch: 'main' },
    }),
  );
  /** The workspace's install of a2a-lock: the built CLI. */
  const install = () => {
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(BIN, join(dir, 'node_modules', '.bin', 'a2a-lock'));
  };
  let runs = 0;
  /** One run of the action, with a fresh summary and runner temp. */
  const action = async (inputs: Record<string, string> = {}, extraEnv: Record<string, string> = {}) => {
    runs++;
    const scratch = join(runner, `run-${runs}`);
    const temp = join(scratch, 'temp');
    mkdirSync(temp, { recursive: true });
    const summary = join(scratch, 'summary.md');
    writeFileSync(summary, '');
    const result = await runAction({
      workspace: dir,
      scratch,
      inputs,
      env: {
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: event,
        GITHUB_BASE_REF: 'main',
        GITHUB_HEAD_REF: 'feature',
        GITHUB_REF: 'refs/pull/7/merge',
        GITHUB_REPOSITORY: 'o/r',
        GITHUB_WORKSPACE: dir,
        GITHUB_STEP_SUMMARY: summary,
        RUNNER_TEMP: temp,
        RESEARCH_TOKEN: 'token-of-the-step-env',
        ...extraEnv,
      },
    });
    return { result, summary: readFileSync(summary, 'utf8') };
  };
  return { dir, agent, runner, base, install, action, res };
}

const step = (run: ActionRun, id: string) => run.steps.find((s) => s.id === id)!;
const count = (text: string, needle: string) => text.split(needle).length - 1;

describe.concurrent('the GitHub Action (action.yml)', { timeout: SLOW }, () => {
  it('a pull request with a medium-risk change: verify passes, one markdown review with the marker, each summary written once, the outputs set; exit 0, and 1 with fail-on medium', async ({
    onTestFinished,
  }) => {
    const { install, action, base } = await pullRequest(onTestFinished);
    install();

    const { result, summary } = await action();
    expect(result.failed, result.log).toBe(false);
    expect(result.outputs).toMatchObject({
      'verify-exit-code': '0',
      'diff-exit-code': '0',
      'exit-code': '0',
      risk: 'medium',
    });
    expect(result.log).toContain("node_modules/.bin/a2a-lock (the workspace's install)");
    const markdown = readFileSync(result.outputs.markdown!, 'utf8');
    // The marker names the manifest (the digest, when there, follows it: match on the first three fields).
    expect(markdown.split('\n')[0]!.split(' ').slice(0, 3)).toEqual(['<!--', 'a2a-lock-diff', 'a2a.json']);
    expect(markdown).toContain(`GITHUB_BASE_REF: merge-base with refs/remotes/origin/main`);
    expect(markdown).toContain(base.slice(0, 12));
    expect(markdown).toContain('<details><summary>research: changed · medium</summary>');
    expect(result.outputs.markdown).toMatch(/a2a-diff-a2a-json\.md$/);
    // The job summary is the CLI's: verify's report once and the diff's once, nothing written twice.
    expect(count(summary, '### a2a verify: ✅ verified 1 agent')).toBe(1);
    expect(count(summary, '<!-- a2a-lock-diff a2a.json')).toBe(1);
    expect(count(summary, '### a2a verify')).toBe(1);
    // The diff's annotation reaches the log (stderr under --format markdown), not the comment.
    expect(step(result, 'diff').stderr).toContain('::warning file=a2a.lock.json,');
    expect(markdown).not.toContain('::warning');

    const failing = await action({ 'fail-on': 'medium' });
    expect(failing.result.failed).toBe(true);
    expect(failing.result.outputs).toMatchObject({
      'verify-exit-code': '0',
      'diff-exit-code': '1',
      'exit-code': '1',
      risk: 'medium',
    });
    expect(step(failing.result, 'result').code).toBe(1);
    // The threshold reached is said as such, not as a failure of a2a diff.
    expect(step(failing.result, 'result').stdout).toContain(
      '::error title=a2a-lock action::the review found 1 medium risk (fail-on: medium): see the review in the job summary',
    );
    expect(step(failing.result, 'result').stdout).not.toContain('a2a diff failed');
    // The review is still there for the comment.
    expect(readFileSync(failing.result.outputs.markdown!, 'utf8')).toContain(
      '**1 changed, 0 added, 0 removed · 1 medium',
    );

    const [high, none] = await Promise.all([action({ 'fail-on': 'high' }), action({ 'fail-on': 'none' })]);
    expect(high.result.outputs).toMatchObject({ 'diff-exit-code': '0', 'exit-code': '0' });
    expect(none.result.outputs['exit-code']).toBe('0');
  });

  it('fails closed: with no input, a pull request that points the credentialed agent at a new host fails on its high risk and says so; fail-on none turns it off', async ({
    onTestFinished,
  }) => {
    const { dir, install, action, res } = await pullRequest(onTestFinished);
    install();
    // The pull request moves research, and its bearer token, to another agent (another origin).
    const card = (origin: string) => {
      const moved = sampleCard(origin, { version: '2.5.0' });
      moved.skills[0]!.outputModes = ['application/pdf', 'text/plain'];
      return moved;
    };
    const elsewhere = await res.agent({ card });
    writeFileSync(
      join(dir, 'a2a.json'),
      `${JSON.stringify(manifest({ research: research(elsewhere.origin) }), null, 2)}\n`,
    );
    const update = await runCli(['update', 'research'], {
      cwd: dir,
      env: { RESEARCH_TOKEN: 'token-of-the-step-env' },
    });
    expect(update.code, show(update)).toBe(0);
    git(dir, 'commit', '-q', '-am', 'research elsewhere');

    const [fallback, empty, none] = await Promise.all([
      action(),
      action({ 'fail-on': '' }),
      action({ 'fail-on': 'none' }),
    ]);
    expect(fallback.result.failed, fallback.result.log).toBe(true);
    expect(fallback.result.outputs).toMatchObject({ 'diff-exit-code': '1', 'exit-code': '1', risk: 'high' });
    const said = step(fallback.result, 'result').stdout;
    expect(said).toContain(
      '::error title=a2a-lock action::the review found 1 high risk (fail-on: high): see the review in the job summary',
    );
    expect(said).not.toContain('a2a diff failed');
    expect(step(fallback.result, 'diff').stderr).toContain('new-credential-destination');
    // An empty fail-on is the default, not "never".
    expect(empty.result.outputs).toMatchObject({ 'diff-exit-code': '1', 'exit-code': '1', risk: 'high' });
    // none: the review is still written, the risk still an output, the check passes.
    expect(none.result.failed, none.result.log).toBe(false);
    expect(none.result.outputs).toMatchObject({ 'diff-exit-code': '0', 'exit-code': '0', risk: 'high' });
    expect(readFileSync(none.result.outputs.markdown!, 'utf8')).toContain('new-credential-destination');
  });

  it("a failing verify (the agent moved beyond the lockfile): the diff still runs and reports, the last step fails with verify's code; comment false prints the review as text", async ({
    onTestFinished,
  }) => {
    const { install, action, agent } = await pullRequest(onTestFinished);
    install();
    const card = sampleCard(agent.origin, { version: '2.6.0' });
    card.skills[0]!.outputModes = ['application/pdf'];
    agent.setCard(card);

    const { result, summary } = await action({ comment: 'false', strict: 'true' });
    expect(result.failed).toBe(true);
    expect(result.steps.map((s) => [s.id, s.outcome])).toEqual([
      ['setup', 'success'],
      ['verify', 'success'],
      ['diff', 'success'],
      ['result', 'failure'],
    ]);
    expect(result.outputs).toMatchObject({
      'verify-exit-code': '1',
      'diff-exit-code': '0',
      'exit-code': '1',
      risk: 'medium',
      markdown: '',
    });
    expect(step(result, 'diff').stdout).toContain('~ research (version 2.4.0 → 2.5.0) · medium');
    expect(step(result, 'result').stdout).toContain('a2a verify failed (exit 1)');
    expect(count(summary, '### a2a verify: ❌ verify failed (exit 1) (--strict)')).toBe(1);
    expect(count(summary, '<!-- a2a-lock-diff a2a.json')).toBe(1);
  });

  it("fails closed without an install: no registry fetch unless install is registry; then npx runs the action's own version or the one set; a runner that cannot start is said as such; anything else is refused before any a2a-lock runs", async ({
    onTestFinished,
  }) => {
    const { action, runner } = await pullRequest(onTestFinished);
    // A stand-in npx first on PATH: records its arguments, then runs the built CLI with what follows `-- a2a-lock`
    // (or fails as npm does for a name the registry does not have, when NPX_FAILS is set).
    const bin = join(runner, 'bin');
    mkdirSync(bin);
    const calls = join(runner, 'npx-calls');
    writeFileSync(
      join(bin, 'npx'),
      `#!/usr/bin/env bash\nprintf '%s\\n' "$*" >> ${JSON.stringify(calls)}\nif [ -n "$NPX_FAILS" ]; then echo 'npm error 404 Not Found - GET https://registry.npmjs.org/a2a-lock' >&2; exit 1; fi\nwhile [ "$1" != -- ]; do shift; done\nshift 2\nexec node ${JSON.stringify(BIN)} "$@"\n`,
      { mode: 0o755 },
    );
    const PATH = `${bin}:${process.env.PATH}`;
    const npxCalls = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trimEnd().split('\n') : []);
    const refusedBeforeAnyRun = (run: ActionRun, what: string) => {
      expect(
        run.steps.map((s) => [s.id, s.outcome]),
        what,
      ).toEqual([
        ['setup', 'failure'],
        ['verify', 'skipped'],
        ['diff', 'skipped'],
        ['result', 'failure'],
      ]);
      expect(run.outputs['exit-code'], what).toBe('2');
      expect(step(run, 'setup').stdout, what).toMatch(/^::error title=a2a-lock action::/m);
    };

    // No install in the workspace and no input: nothing is fetched, the action says why and how.
    const [missing, emptyInstall] = await Promise.all([action({}, { PATH }), action({ install: '' }, { PATH })]);
    for (const run of [missing.result, emptyInstall.result]) {
      refusedBeforeAnyRun(run, 'no install');
      expect(step(run, 'setup').stdout).toContain(
        '::error title=a2a-lock action::a2a-lock is not installed in the workspace (node_modules/.bin/a2a-lock): run npm ci before this action',
      );
    }
    // A version alone is no opt-in to the registry either.
    const versionOnly = await action({ version: '0.1.0' }, { PATH });
    refusedBeforeAnyRun(versionOnly.result, 'version without install: registry');
    expect(step(versionOnly.result, 'setup').stdout).toContain('version needs install: registry');
    expect(npxCalls()).toEqual([]);

    // install: registry, the explicit opt-in.
    const own = await action({ install: 'registry' }, { PATH });
    expect(own.result.outputs['exit-code'], own.result.log).toBe('0');
    expect(own.result.log).toContain(
      `a2a-lock: a2a-lock@${OWN_VERSION} from the npm registry through npx (install: registry)`,
    );
    const pinned = await action({ install: 'registry', version: '9.9.9-rc.1' }, { PATH });
    expect(pinned.result.outputs['exit-code'], pinned.result.log).toBe('0');
    expect(npxCalls()).toEqual([
      `--yes --package=a2a-lock@${OWN_VERSION} -- a2a-lock --version`,
      `--yes --package=a2a-lock@${OWN_VERSION} -- a2a-lock verify --manifest=a2a.json`,
      `--yes --package=a2a-lock@${OWN_VERSION} -- a2a-lock diff --manifest=a2a.json --fail-on=high --format markdown`,
      '--yes --package=a2a-lock@9.9.9-rc.1 -- a2a-lock --version',
      '--yes --package=a2a-lock@9.9.9-rc.1 -- a2a-lock verify --manifest=a2a.json',
      '--yes --package=a2a-lock@9.9.9-rc.1 -- a2a-lock diff --manifest=a2a.json --fail-on=high --format markdown',
    ]);

    // npx itself fails (npm's 404): said as a runner that could not start, not as a failed a2a verify.
    const broken = await action({ install: 'registry' }, { PATH, NPX_FAILS: '1' });
    refusedBeforeAnyRun(broken.result, 'npx fails');
    expect(step(broken.result, 'setup').stdout).toContain(
      '::error title=a2a-lock action::a2a-lock could not be started (see the log above: the install, npx or npm failed); a2a verify and a2a diff did not run',
    );
    expect(step(broken.result, 'setup').stderr).toContain('npm error 404');
    expect(broken.result.log).not.toContain('a2a verify failed');
    expect(broken.summary).toBe('');
    expect(npxCalls()).toHaveLength(7);

    const refusedInputs: Array<Record<string, string>> = [
      { install: 'registry', version: 'github:someone/a2a-lock' },
      { install: 'registry', version: '--registry=http://127.0.0.1:1' },
      { install: 'npm' },
      { 'fail-on': 'critical' },
      { strict: 'yes' },
      { manifest: '' },
    ];
    for (const inputs of refusedInputs) {
      const refused = await action(inputs, { PATH });
      refusedBeforeAnyRun(refused.result, JSON.stringify(inputs));
      // Nothing from the input is echoed into the workflow command.
      expect(step(refused.result, 'setup').stdout).not.toMatch(/someone|127\.0\.0\.1|npm:|critical|yes/);
    }
    expect(npxCalls()).toHaveLength(7);
  });

  it('a workspace install that cannot start: said as such, verify and diff do not run', async ({ onTestFinished }) => {
    const { dir, action } = await pullRequest(onTestFinished);
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(
      join(dir, 'node_modules', '.bin', 'a2a-lock'),
      '#!/usr/bin/env bash\necho "cannot find module" >&2\nexit 1\n',
      {
        mode: 0o755,
      },
    );
    const { result } = await action();
    expect(result.steps.map((s) => [s.id, s.outcome])).toEqual([
      ['setup', 'failure'],
      ['verify', 'skipped'],
      ['diff', 'skipped'],
      ['result', 'failure'],
    ]);
    expect(result.outputs['exit-code']).toBe('2');
    expect(step(result, 'setup').stdout).toContain('::error title=a2a-lock action::a2a-lock could not be started');
    expect(result.log).not.toContain('a2a verify failed');
  });

  it('strict: a card change that leaves the plans equal passes verify, and fails it with strict true; the base not in the clone: the diff cannot run (exit 2), no review, the action fails with 2', async ({
    onTestFinished,
  }) => {
    const { install, action, agent } = await pullRequest(onTestFinished);
    install();
    const card = sampleCard(agent.origin, { version: '2.5.0', description: 'Now with more charts' });
    card.skills[0]!.outputModes = ['application/pdf', 'text/plain'];
    agent.setCard(card);
    const [plain, strict, unreadable] = await Promise.all([
      action(),
      action({ strict: 'true' }),
      action({}, { GITHUB_BASE_REF: 'release' }),
    ]);
    expect(plain.result.outputs).toMatchObject({ 'verify-exit-code': '0', 'diff-exit-code': '0', 'exit-code': '0' });
    expect(strict.result.outputs).toMatchObject({ 'verify-exit-code': '1', 'diff-exit-code': '0', 'exit-code': '1' });
    expect(strict.summary).toContain('(--strict)');
    expect(unreadable.result.outputs).toMatchObject({
      'verify-exit-code': '0',
      'diff-exit-code': '2',
      'exit-code': '2',
      markdown: '',
      risk: '',
    });
    expect(step(unreadable.result, 'diff').stderr).toContain('fetch-depth: 0');
    expect(step(unreadable.result, 'result').stdout).toContain('a2a diff failed (exit 2)');
  });

  it('a manifest in a subfolder: the marker, the file name and the summary name its path', async ({
    onTestFinished,
  }) => {
    const { dir, install, action } = await pullRequest(onTestFinished);
    install();
    mkdirSync(join(dir, 'services', 'billing'), { recursive: true });
    git(dir, 'mv', 'a2a.json', 'a2a.lock.json', 'services/billing/');
    git(dir, 'commit', '-q', '-m', 'move');
    const { result, summary } = await action({ manifest: 'services/billing/a2a.json' });
    expect(result.outputs.markdown).toMatch(/a2a-diff-services-billing-a2a-json\.md$/);
    expect(readFileSync(result.outputs.markdown!, 'utf8').split('\n')[0]!.split(' ').slice(0, 3)).toEqual([
      '<!--',
      'a2a-lock-diff',
      'services/billing/a2a.json',
    ]);
    expect(count(summary, '<!-- a2a-lock-diff services/billing/a2a.json')).toBe(1);
  });
});
