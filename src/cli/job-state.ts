/**
 * What this GitHub Actions job already printed: a small file under `RUNNER_TEMP` (which the runner
 * empties at the start and end of every job) named by the run, its attempt and the job
 * (`GITHUB_RUN_ID`, `GITHUB_RUN_ATTEMPT`, `GITHUB_JOB`), holding one hash per line of each job
 * summary section and annotation written. So `a2a diff` run twice in one job (once for the comment,
 * once for `--fail-on`), in one step or in two, writes its summary and its annotations once.
 * Outside a job (no `RUNNER_TEMP`), or when the file cannot be read or written, nothing is
 * recorded and everything is printed: the state can only remove repeats, never output.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** A short stable hash of `text` (base64url of sha256, 22 characters). */
export function shortHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 22);
}

/** The state file of this job, undefined outside one (no `RUNNER_TEMP`). */
function stateFile(env: Env): string | undefined {
  if (!env.RUNNER_TEMP) return undefined;
  const job = shortHash(`${env.GITHUB_RUN_ID ?? ''}\0${env.GITHUB_RUN_ATTEMPT ?? ''}\0${env.GITHUB_JOB ?? ''}`);
  return join(env.RUNNER_TEMP, 'a2a-lock', `job-${job}.txt`);
}

function recorded(file: string): Set<string> {
  try {
    return new Set(readFileSync(file, 'utf8').split('\n'));
  } catch {
    return new Set();
  }
}

/** Of `entries` (each a summary section's or an annotation's identity), those this job has not recorded yet; all of them outside a job. */
export function unseenInJob(env: Env, entries: readonly string[]): string[] {
  const file = stateFile(env);
  if (file === undefined || entries.length === 0) return [...entries];
  const seen = recorded(file);
  return entries.filter((e) => !seen.has(shortHash(e)));
}

/** Record `entries` as printed in this job (nothing outside a job, or when the file cannot be written). */
export function recordInJob(env: Env, entries: readonly string[]): void {
  const file = stateFile(env);
  if (file === undefined || entries.length === 0) return;
  try {
    mkdirSync(join(file, '..'), { recursive: true });
    appendFileSync(file, `${entries.map(shortHash).join('\n')}\n`, 'utf8');
  } catch {
    // Not recorded: a later run prints again, as it did before this state existed.
  }
}

/**
 * The workflow commands (annotations) of `lines` this job has not printed yet, recorded as printed
 * now: the caller prints what this returns.
 */
export function annotationsOnce(env: Env, lines: readonly string[]): string[] {
  const keys = lines.map((l) => `annotation\0${l}`);
  const fresh = new Set(unseenInJob(env, keys));
  const out = lines.filter((_, i) => fresh.has(keys[i]!));
  recordInJob(
    env,
    out.map((l) => `annotation\0${l}`),
  );
  return out;
}
