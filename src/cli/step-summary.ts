/**
 * GitHub Actions job summaries: a command's markdown report appended to the file
 * `GITHUB_STEP_SUMMARY` names (GitHub renders it on the run's page), and the escaping that keeps
 * text from a card or an agent inert there.
 */
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { recordInJob, shortHash, unseenInJob } from './job-state.js';
import { escapeUntrusted } from './render/common.js';

/**
 * The one markdown escaper (job summaries, `a2a diff --format markdown`, `a2a update --format
 * markdown`): text from a card, an agent or a file as inert markdown for one table cell or line.
 * Control and bidi characters shown as `\u` escapes ({@link escapeUntrusted}, so no newline can
 * end a cell or forge a line); `&`, `<` and `>` as HTML entities (no tag, no comment); `@` as an
 * entity followed by a zero-width space (GitHub finds mentions in the rendered text, where the
 * entity is an `@` again: `@org/team` pings nobody); every other markdown punctuation
 * backslash-escaped (no emphasis, link, image, code span, heading, math, or `|` ending a table
 * cell; `:` and `.` too, so `https://…` and `www.…` are not autolinked).
 */
export function escapeMarkdown(text: string): string {
  return escapeUntrusted(text)
    .replace(/[\\`*_{}[\]()#+\-.!|~:$]/g, (c) => `\\${c}`)
    .replace(/[&<>@]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '@': '&#64;&#8203;' })[c]!);
}

/** Where {@link appendStepSummary} writes and complains. */
export interface SummaryTarget {
  env: Readonly<Record<string, string | undefined>>;
  stderr(text: string): void;
}

/** The hidden line that starts each section {@link appendStepSummary} writes: `<!-- a2a-lock-summary <hash> -->`. */
export function summaryMarker(section: string, markdown: string): string {
  return `<!-- a2a-lock-summary ${shortHash(`summary\0${section}\0${markdown}`)} -->`;
}

/**
 * Append `markdown` (and a blank line) to the file `GITHUB_STEP_SUMMARY` names; nothing when it is
 * unset or empty. `section` names what it is (`diff services/billing/a2a.json`): a section whose
 * command, manifest and content were already written in this job is not written again, whether in
 * this step (its {@link summaryMarker} is in the file) or in an earlier one (GitHub gives each step
 * its own file; the job's state under `RUNNER_TEMP` records it, see `./job-state.ts`). A file that
 * cannot be written is a warning on stderr, never a failure of the command.
 */
export function appendStepSummary(target: SummaryTarget, markdown: string, section = ''): void {
  const file = target.env.GITHUB_STEP_SUMMARY;
  if (!file) return;
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
