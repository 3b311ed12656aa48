/**
 * GitHub Actions job summaries: a command's markdown report appended to the file
 * `GITHUB_STEP_SUMMARY` names (GitHub renders it on the run's page), the escaping that keeps text
 * from a card or an agent inert there, and what this job already wrote, so that a summary section
 * or an annotation is written once per job: a small file under `RUNNER_TEMP` (which the runner
 * empties at the start and end of every job) named by the run, its attempt and the job
 * (`GITHUB_RUN_ID`, `GITHUB_RUN_ATTEMPT`, `GITHUB_JOB`), one hash per line of each section and
 * annotation written. `a2a diff` run twice in one job (once for the comment, once for
 * `--fail-on`), in one step or in two, writes its summary and its annotations once. Outside a job
 * (no `RUNNER_TEMP`), or when that file cannot be read or written, nothing is recorded and
 * everything is printed: the state can only remove repeats, never output.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { escapeUntrusted } from './render/common.js';

/** The one markdown escaper, here where job summaries and the review renderers have always imported it. */
export { escapeMarkdown } from './markdown-escape.js';

/** Where {@link appendStepSummary} writes and complains. */
export interface SummaryTarget {
  env: Readonly<Record<string, string | undefined>>;
  stderr(text: string): void;
  /** Applied to the markdown before it is written (the credential values a run's output never shows). */
  redact?(text: string): string;
}

/** The hidden line that starts each section {@link appendStepSummary} writes: `<!-- a2a-lock-summary <hash> -->`. */
export function summaryMarker(section: string, markdown: string): string {
  return `<!-- a2a-lock-summary ${shortHash(`summary\0${section}\0${markdown}`)} -->`;
}

/**
 * Append the markdown `summary` (a string, or a function rendering it only when there is a file) and a
 * blank line to the file `GITHUB_STEP_SUMMARY` names; nothing when it is
 * unset or empty. `section` names what it is (`diff services/billing/a2a.json`): a section whose
 * command, manifest and content were already written in this job is not written again, whether in
 * this step (its {@link summaryMarker} is in the file) or in an earlier one (GitHub gives each step
 * its own file; the job's state under `RUNNER_TEMP` records it, {@link unseenInJob}). A file that
 * cannot be written is a warning on stderr, never a failure of the command.
 */
export function appendStepSummary(target: SummaryTarget, summary: string | (() => string), section = ''): void {
  const file = target.env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  // Rendered only for a job that has a summary (a diff of 1,000 agents: ≈ 35 ms).
  const rendered = typeof summary === 'function' ? summary() : summary;
  const markdown = target.redact ? target.redact(rendered) : rendered;
  const marker = summaryMarker(section, markdown);
  if (unseenInJob(target.env, [marker]).length === 0) return;
  try {
    // GitHub takes at most 1 MiB per step: a larger file is not ours to scan.
    const size = statSync(file, { throwIfNoEntry: false })?.size;
    if (size !== undefined && size <= 1_048_576 && readFileSync(file, 'utf8').includes(marker)) return;
  } catch {
    // Unreadable: appended below, which says why when it fails too.
  }
  try {
    appendFileSync(file, `${marker}\n${markdown.endsWith('\n') ? markdown : `${markdown}\n`}\n`, 'utf8');
    recordInJob(target.env, [marker]);
  } catch (error) {
    target.stderr(
      `warning step-summary-failed: GITHUB_STEP_SUMMARY (${escapeUntrusted(file)}) could not be written: ${escapeUntrusted((error as Error).message)}\n`,
    );
  }
}

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
  recordInJob(
    env,
    keys.filter((k) => fresh.has(k)),
  );
  return lines.filter((_, i) => fresh.has(keys[i]!));
}
