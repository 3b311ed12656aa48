/** The output of `a2a verify` and `a2a install`: one report per agent and a summary line; verify's GitHub annotations. */
import kleur from 'kleur';
import type { InstallData, ReportDocument, VerifyData } from '../../commands/verify.js';
import { ExitCode } from '../../errors.js';
import { failureCodes } from '../../lock/report.js';
import { bounded } from '../../untrusted.js';
import { annotationFile, verifyAnnotations } from '../github.js';
import { escapeMarkdown } from '../step-summary.js';
import { type CommandRenderer, documentOf, renderReport, show } from './common.js';
import { MARKDOWN_CELL, MARKDOWN_DETAIL_LINE, summaryManifest } from './diff.js';

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * What one agent's report counts as in verify's counts: `ignored` (`--ignore`), its error's code
 * (`unreachable`, `timeout`, …) for an `error`, else its status (`ok`, `changed`, `unchecked`,
 * `drift`, `out-of-date`).
 */
function outcomeOf(r: ReportDocument): string {
  return r.ignored ? 'ignored' : r.status === 'error' ? (r.error?.code ?? 'error') : r.status;
}

/** The statuses in the order verify's counts give them; error codes follow, then `ignored`. */
const OUTCOME_ORDER: readonly string[] = ['ok', 'changed', 'unchecked', 'drift', 'out-of-date'];

/**
 * `17 ok · 3 unreachable · 1 ignored`: one count per outcome present ({@link outcomeOf}): the
 * statuses in their order, then the error codes as met, then `ignored`; `no agents` for none.
 */
function outcomeCounts(reports: readonly ReportDocument[]): string {
  const counts = new Map<string, number>();
  for (const r of reports) counts.set(outcomeOf(r), (counts.get(outcomeOf(r)) ?? 0) + 1);
  const rank = (o: string) => (o === 'ignored' ? 2 : OUTCOME_ORDER.includes(o) ? 0 : 1);
  const order = [...counts.keys()].sort(
    (a, b) => rank(a) - rank(b) || (rank(a) === 0 ? OUTCOME_ORDER.indexOf(a) - OUTCOME_ORDER.indexOf(b) : 0),
  );
  return order.map((o) => `${counts.get(o)} ${o}`).join(' · ') || 'no agents';
}

/** `verified 3 agents`, or with agents `--ignore` passed over `verified 2 of 3 agents` (an ignored one was not). */
function verifiedText(reports: ReadonlyArray<{ ignored?: boolean }>): string {
  const ignored = reports.filter((r) => r.ignored).length;
  return ignored
    ? `verified ${reports.length - ignored} of ${plural(reports.length, 'agent')}`
    : `verified ${plural(reports.length, 'agent')}`;
}

/**
 * `a2a verify`: the document is `{"ok", "agents"}`; the lines are each agent's report (an ignored
 * one followed by the codes it was ignored for), then `verified N agents: 17 ok · 3 changed` or
 * `verify failed (exit N): 17 ok · 3 unreachable` ({@link outcomeCounts}). The annotations (one per
 * failing agent not ignored) name the lockfile relative to the repository root
 * (`GITHUB_WORKSPACE`), or to the working directory when it lies outside it.
 */
export const verifyRenderer: CommandRenderer<VerifyData> = {
  json: documentOf,
  text: (data) => {
    const { exitCode, offline, strict } = data.human;
    const reports = Object.values(data.agents);
    const counts = `: ${outcomeCounts(reports)}${baseNote(data.base)}`;
    return [
      ...Object.entries(data.agents).flatMap(([name, report]) => [
        ...renderReport(name, report, { strict }),
        ...unrecordedProbes(report),
        ...(report.ignored
          ? [
              kleur.dim(
                `    ignored (--ignore ${failureCodes(report, strict).join(', ')}): not counted for the exit code`,
              ),
            ]
          : []),
      ]),
      exitCode === ExitCode.Ok
        ? kleur.green(`${verifiedText(reports)}${offline ? ' (offline)' : ''}${counts}`)
        : kleur.red(`verify failed (exit ${exitCode})${counts}`),
    ];
  },
  annotations: (data, where) =>
    verifyAnnotations(annotationFile(data.human.lockfile, where), data.agents, data.human.files),
};

/**
 * `--probe`: one line per interface the lockfile records no probe outcome for (an older lockfile,
 * `lock --no-probe`), with what its probe found now; the others (and a probe that was not sent,
 * said by the agent's `unchecked` line) are in the report itself.
 */
function unrecordedProbes(report: ReportDocument): string[] {
  return (report.probes ?? [])
    .filter((p) => p.recorded === undefined && p.kind !== 'not-probed')
    .map(
      (p) =>
        `    probe ${p.protocolBinding} ${p.protocolVersion} ${p.url}: ${p.kind}${p.answered ? ` (${p.answered})` : ''}; the lockfile records no outcome for it`,
    );
}

/**
 * ` (credentials only along the routes of base abc123456789, merge-base with refs/remotes/origin/main)`:
 * the commit and the ref the base resolved to; nothing without a base.
 */
function baseNote(base: VerifyData['base']): string {
  if (!base) return '';
  if (base.status === 'unreadable')
    return ` (base${base.ref !== undefined ? ` ${base.ref}` : ''} unreadable: no credential sent)`;
  return ` (credentials only along the routes of base ${base.rev.slice(0, 12)}${base.ref === base.rev ? '' : `, merge-base with ${base.ref}`})`;
}

/** What the status column of the job summary says. */
const STATUS_CELL: Record<ReportDocument['status'], string> = {
  ok: '✅ ok',
  changed: '⚠️ changed',
  unchecked: '⚠️ unchecked',
  drift: '❌ drift',
  'out-of-date': '❌ out of date',
  error: '❌ error',
};

/** One agent's detail cell: what was found, in one line (plain text, escaped by the caller). */
function detailOf(r: ReportDocument): string {
  switch (r.status) {
    case 'ok':
      return r.unchecked ? `${r.reason ?? 'unchecked'}: ${r.unchecked}` : '';
    case 'changed':
      return `${r.change ?? 'card'} card change, plans unchanged${r.unchecked ? `; ${r.unchecked}` : ''}`;
    case 'unchecked':
      return [
        `${r.reason}: ${r.unchecked}`,
        ...(r.routes ?? []).map((x) => `credential withheld: ${x.scheme} to ${x.origin}`),
      ].join('; ');
    case 'drift':
      return [
        ...(r.drift ?? []).map((d) =>
          d.refusal
            ? `${d.skill}: refused (${d.refusal.code})`
            : `${d.skill} › ${d.field}: ${show(d.locked)} → ${show(d.fresh)}`,
        ),
        ...(r.signatureDrift ?? []).map((x) => `signature (${x.snapshot}): ${x.locked.status} → ${x.fresh.status}`),
      ].join('; ');
    case 'out-of-date':
      return (r.reasons ?? []).join('; ');
    case 'error':
      return r.error ? `${r.error.code}: ${r.error.message}` : '';
  }
}

/** Most characters of the table of a verify job summary (GitHub takes up to 1 MiB per step). */
const SUMMARY_LIMIT = 500_000;

/**
 * The job summary of a verify run (GitHub's `GITHUB_STEP_SUMMARY`): a heading with the outcome (and
 * the manifest's path when it is not the root `a2a.json`), the counts ({@link outcomeCounts}), the base credentials were gated by, and a table `Agent | Status | Detail`.
 * Every text from a card, an agent or a file is {@link escapeMarkdown}; `data` is taken as the
 * command returned it.
 */
export function verifySummary(data: VerifyData): string {
  const { exitCode, offline, strict } = data.human;
  const reports = Object.entries(data.agents);
  const documents = Object.values(data.agents);
  const unchecked = documents.filter((r) => r.status === 'unchecked').length;
  // Exit 0 with agents not checked with their credentials is not a plain pass: a reviewer must see it.
  const outcome =
    exitCode !== ExitCode.Ok
      ? `❌ verify failed (exit ${exitCode})`
      : unchecked > 0
        ? `⚠️ ${verifiedText(documents)}, ${unchecked} unchecked`
        : `✅ ${verifiedText(documents)}`;
  const lines = [
    `### a2a verify${summaryManifest(data.human.manifest)}: ${outcome}${offline ? ' (offline)' : ''}${strict ? ' (--strict)' : ''}`,
    '',
    // Outcomes are this tool's own words: statuses and error codes.
    outcomeCounts(documents),
    '',
  ];
  if (data.base?.status === 'read')
    lines.push(
      `Credentials were sent only along the routes the lockfile of base ${escapeMarkdown(data.base.rev.slice(0, 12))} (${escapeMarkdown(data.base.source)}${data.base.ref === data.base.rev ? '' : `: merge-base with ${escapeMarkdown(data.base.ref)}`}) had.`,
      '',
    );
  if (data.base?.status === 'unreadable')
    lines.push(
      `**No credential was sent**: ${escapeMarkdown(data.base.reason)}. To check with credentials, ${escapeMarkdown(data.base.hint)}.`,
      '',
    );
  if (reports.length) {
    lines.push('| Agent | Status | Detail |', '|---|---|---|');
    // Bounded, so no agent's detail (a card's field, an agent's error) can push the summary past
    // GitHub's limit (1 MiB per step) and lose every row: rows past SUMMARY_LIMIT are counted instead.
    let size = lines.join('\n').length;
    const left: string[] = [];
    for (const [name, r] of reports) {
      const row = `| ${escapeMarkdown(bounded(name, MARKDOWN_CELL))} | ${STATUS_CELL[r.status]}${r.ignored ? ' (ignored)' : ''} | ${escapeMarkdown(bounded(detailOf(r), MARKDOWN_DETAIL_LINE))} |`;
      if (size + row.length + 1 > SUMMARY_LIMIT) {
        left.push(r.status);
      } else {
        lines.push(row);
        size += row.length + 1;
      }
    }
    if (left.length)
      lines.push(
        '',
        `_${plural(left.length, 'more agent')} not in the table (${[...new Set(left)].map((st) => `${left.filter((x) => x === st).length} ${st}`).join(', ')}); run \`a2a verify\` to see all._`,
      );
  }
  return `${lines.join('\n')}\n`;
}

/** `a2a install`: the document is `{"ok", "credentialsUnset", "agents"}`; the lines are each agent's report, then `checked N agents (M skills) against <lockfile>` (install writes nothing) or `install failed (exit N): 1 ok · 1 drift` ({@link outcomeCounts}). */
export const installRenderer: CommandRenderer<InstallData> = {
  json: documentOf,
  text: (data) => {
    const { exitCode, lockfile, skills } = data.human;
    return [
      ...Object.entries(data.agents).flatMap(([name, report]) => renderReport(name, report)),
      exitCode === ExitCode.Ok
        ? kleur.green(
            `checked ${plural(Object.keys(data.agents).length, 'agent')} (${plural(skills, 'skill')}) against ${lockfile}${baseNote(data.base)}`,
          )
        : kleur.red(
            `install failed (exit ${exitCode}): ${outcomeCounts(Object.values(data.agents))}${baseNote(data.base)}`,
          ),
    ];
  },
};
