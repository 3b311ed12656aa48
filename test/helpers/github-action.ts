/**
 * Run the repository's composite action (action.yml) the way a GitHub runner does, step by step:
 * each `run:` written to a file and run as `bash --noprofile --norc -eo pipefail <file>` (GitHub's
 * `shell: bash`), each step with its own `GITHUB_OUTPUT` file, its `env:` values with `${{ inputs.* }}`,
 * `${{ steps.<id>.outputs.* }}` and `${{ steps.<id>.outcome }}` substituted (only there, as GitHub
 * does), its `if:` evaluated, and the action's `outputs` read from the steps. Any other expression
 * throws, so a new one in action.yml needs this file to learn it first.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const ACTION_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ACTION_FILE = join(ACTION_ROOT, 'action.yml');

export interface ActionStep {
  id?: string;
  name?: string;
  if?: string;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
  uses?: string;
}

export interface ActionMetadata {
  inputs: Record<string, { description?: string; default?: string; required?: boolean }>;
  outputs: Record<string, { description?: string; value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

/** action.yml, parsed. */
export function actionMetadata(): ActionMetadata {
  return parse(readFileSync(ACTION_FILE, 'utf8')) as ActionMetadata;
}

export interface StepRun {
  outcome: 'success' | 'failure' | 'skipped';
  code: number | null;
  outputs: Record<string, string>;
  stdout: string;
  stderr: string;
}

export interface ActionRun {
  /** Each step by id, in order. */
  steps: Array<{ id: string } & StepRun>;
  /** The action's outputs. */
  outputs: Record<string, string>;
  /** Failed when any step failed (the step's exit code is the action's failure). */
  failed: boolean;
  /** Every step's stdout and stderr, in order. */
  log: string;
}

/** `key=value` lines and `key<<DELIMITER` blocks of a GITHUB_OUTPUT file. */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) value.push(lines[i]!);
      out[heredoc[1]!] = value.join('\n');
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) throw new Error(`GITHUB_OUTPUT line without "=": ${line}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

type Context = { inputs: Record<string, string>; steps: Map<string, StepRun> };

function value(expression: string, ctx: Context): string {
  const e = expression.trim();
  let m = /^inputs\.([A-Za-z0-9_-]+)$/.exec(e);
  if (m) return ctx.inputs[m[1]!] ?? '';
  m = /^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$/.exec(e);
  if (m) return ctx.steps.get(m[1]!)?.outputs[m[2]!] ?? '';
  m = /^steps\.([A-Za-z0-9_-]+)\.outcome$/.exec(e);
  if (m) return ctx.steps.get(m[1]!)?.outcome ?? '';
  throw new Error(`expression not simulated: ${e}`);
}

/** A string with its `${{ … }}` parts replaced. */
export function substitute(text: string, ctx: Context): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, e: string) => value(e, ctx));
}

/** An `if:` of the shapes action.yml uses: terms joined by `&&`. */
function condition(expression: string | undefined, ctx: Context): boolean {
  const failed = [...ctx.steps.values()].some((s) => s.outcome === 'failure');
  if (expression === undefined) return !failed;
  const inner = /^\$\{\{(.*)\}\}$/s.exec(expression.trim())?.[1] ?? expression;
  return inner.split('&&').every((term) => {
    const t = term.trim();
    if (t === 'always()' || t === '!cancelled()') return true;
    if (t === 'success()') return !failed;
    if (t === 'failure()') return failed;
    const m = /^(.+?)\s*==\s*'([^']*)'$/.exec(t);
    if (m) return value(m[1]!, ctx) === m[2];
    throw new Error(`condition not simulated: ${t}`);
  });
}

function runBash(
  script: string,
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Run action.yml's steps in `workspace` with `inputs` (unset ones take their defaults) and the
 * runner's environment `env` (GITHUB_EVENT_PATH, GITHUB_STEP_SUMMARY, RUNNER_TEMP…; PATH and HOME
 * come from this process unless given). `scratch`: a folder for the step scripts and output files.
 */
export async function runAction(options: {
  workspace: string;
  scratch: string;
  inputs?: Record<string, string>;
  env: Record<string, string>;
}): Promise<ActionRun> {
  const action = actionMetadata();
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) inputs[name] = spec.default ?? '';
  for (const [name, given] of Object.entries(options.inputs ?? {})) {
    if (!(name in action.inputs)) throw new Error(`action.yml has no input ${name}`);
    inputs[name] = given;
  }
  const ctx: Context = { inputs, steps: new Map() };
  const run: ActionRun = { steps: [], outputs: {}, failed: false, log: '' };
  let index = 0;
  for (const step of action.runs.steps) {
    index++;
    const id = step.id ?? `__${index}`;
    if (!condition(step.if, ctx)) {
      const skipped: StepRun = { outcome: 'skipped', code: null, outputs: {}, stdout: '', stderr: '' };
      ctx.steps.set(id, skipped);
      run.steps.push({ id, ...skipped });
      continue;
    }
    if (step.run === undefined || step.shell !== 'bash')
      throw new Error(`step ${id}: only bash run steps are simulated`);
    const script = join(options.scratch, `step-${index}.sh`);
    const output = join(options.scratch, `output-${index}`);
    writeFileSync(script, step.run);
    writeFileSync(output, '');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...options.env,
      GITHUB_ACTION_PATH: ACTION_ROOT,
      GITHUB_OUTPUT: output,
    };
    for (const [key, raw] of Object.entries(step.env ?? {})) env[key] = substitute(String(raw), ctx);
    const r = await runBash(script, { cwd: options.workspace, env });
    const done: StepRun = {
      outcome: r.code === 0 ? 'success' : 'failure',
      code: r.code,
      outputs: parseOutputFile(readFileSync(output, 'utf8')),
      stdout: r.stdout,
      stderr: r.stderr,
    };
    ctx.steps.set(id, done);
    run.steps.push({ id, ...done });
    run.log += `--- ${step.name ?? id} (exit ${r.code})\n${r.stdout}${r.stderr}`;
  }
  for (const [name, spec] of Object.entries(action.outputs)) run.outputs[name] = substitute(spec.value, ctx);
  run.failed = run.steps.some((s) => s.outcome === 'failure');
  return run;
}
