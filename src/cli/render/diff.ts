/**
 * The change view of two lockfiles (`a2a diff`; `a2a update` and `a2a lock` show what they wrote
 * with it): text for a terminal, markdown for a pull request comment or a job summary, JSON. One
 * block per agent (verdict, plan fields per skill, card changes, signatures, settings, risks,
 * improvements), unchanged agents folded, and one count line.
 */
import kleur from 'kleur';
import { type DiffData, diffAgents } from '../../commands/diff.js';
import { isLockDigest } from '../../lock/digest.js';
import type { AgentDiff, DiffCounts, PolicyChange } from '../../lock/lockfile-diff.js';
import { RISK_LEVELS, type Risk, type RiskLevel } from '../../lock/risk-codes.js';
import { bounded } from '../../untrusted.js';
import { annotationFile, diffAnnotations } from '../github.js';
import { escapeMarkdown } from '../step-summary.js';
import {
  type CommandRenderer,
  documentOf,
  renderCardChanges,
  renderPlanChanges,
  renderSignature,
  renderValueChange,
} from './common.js';

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** `2 changed, 1 added, 0 removed · 2 high, 1 medium · 1 better · 1 ignored` (renamed, low, better and ignored counted when any; `no risk` when none). */
export function countsLine(c: DiffCounts): string {
  const agents = [
    `${c.changed} changed`,
    `${c.added} added`,
    `${c.removed} removed`,
    ...(c.renamed ? [`${c.renamed} renamed`] : []),
  ].join(', ');
  const levels = (['high', 'medium', 'low'] as const).filter((l) => c[l] > 0).map((l) => `${c[l]} ${l}`);
  return [
    agents,
    levels.length ? levels.join(', ') : 'no risk',
    ...(c.better ? [`${c.better} better`] : []),
    ...(c.ignored ? [`${c.ignored} ignored`] : []),
  ].join(' · ');
}

function paintLevel(level: RiskLevel, text: string): string {
  return level === 'high'
    ? kleur.red(text)
    : level === 'medium'
      ? kleur.yellow(text)
      : level === 'low'
        ? kleur.cyan(text)
        : kleur.dim(text);
}

function versionText(a: AgentDiff): string {
  const { old, new: now } = a.version;
  if (old !== undefined && now !== undefined) return old === now ? `version ${now}` : `version ${old} → ${now}`;
  return `version ${now ?? old}`;
}

/** The agent's first line: `+ name (card, version)`, `- name`, `~ name (version a → b)`, `~ renamed a → b`; with its highest risk level. */
function agentHeadline(a: AgentDiff): string {
  const level = a.level && a.level !== 'info' ? ` · ${paintLevel(a.level, a.level)}` : '';
  switch (a.verdict) {
    case 'added':
      return `${kleur.green('+')} ${kleur.bold(a.name)} (${a.card}, ${versionText(a)})${level}`;
    case 'removed':
      return `${kleur.red('-')} ${kleur.bold(a.name)} (was ${a.card}, ${versionText(a)})${level}`;
    case 'renamed':
      return `${kleur.yellow('~')} renamed ${kleur.bold(a.from ?? '?')} → ${kleur.bold(a.name)} (${versionText(a)})${level}`;
    case 'changed':
      return `${kleur.yellow('~')} ${kleur.bold(a.name)} (${versionText(a)})${level}`;
    case 'unchanged':
      return `  ${a.name} (${versionText(a)})`;
  }
}

/** `high new-credential-destination: …`; an ignored one `high new-credential-destination (ignored): …`, dimmed. */
function riskLine(r: Risk, indent: string): string {
  if (r.ignored) return `${indent}${kleur.dim(`${r.level} ${r.code} (ignored)`)}: ${r.message}`;
  return `${indent}${paintLevel(r.level, `${r.level} ${r.code}`)}: ${r.message}`;
}

/**
 * An agent's changes under its headline: per skill the plan fields (`old → new`, lists as members
 * removed and added), then the card changes, the signatures, the locked settings, then each risk
 * (`high new-credential-destination: …`) and improvement (`better signature-verified: …`).
 */
export function agentBody(a: AgentDiff, indent = '    '): string[] {
  const c = a.changes;
  return [
    ...renderPlanChanges(c.planChanges, indent),
    ...(c.cardChanges.length ? [`${indent}card:`, ...renderCardChanges(c.cardChanges, `${indent}  `)] : []),
    ...c.signatureChanges.map(
      (s) => `${indent}signature (${s.snapshot}): ${renderSignature(s.old)} → ${renderSignature(s.new)}`,
    ),
    ...a.settingsChanges.flatMap((s) => renderValueChange(`settings › ${s.field}`, s.old, s.new, indent)),
    ...(a.credentialSources ?? []).map(
      (c) =>
        `${indent}a2a.json › credentials › ${c.scheme}: ${c.old !== undefined ? `env ${c.old}` : 'none'} → ${c.new !== undefined ? `env ${c.new}` : 'none'}`,
    ),
    // Of the info risks, descriptive changes and a host spelt otherwise than it is contacted are listed.
    ...a.risks
      .filter((r) => r.level !== 'info' || r.code === 'descriptive' || r.code === 'host-international')
      .map((r) => riskLine(r, indent)),
    ...a.better.map((b) => `${indent}${kleur.green(`better ${b.code}`)}: ${b.message}`),
  ];
}

/**
 * The whole text view: each changed agent, the unchanged ones folded into one line, and the count line.
 * @internal
 */
export function diffLines(agents: readonly AgentDiff[], counts: DiffCounts): string[] {
  const lines: string[] = [];
  for (const a of agents) if (a.verdict !== 'unchanged') lines.push(agentHeadline(a), ...agentBody(a));
  const same = agents.filter((a) => a.verdict === 'unchanged').map((a) => a.name);
  if (same.length)
    lines.push(
      kleur.dim(
        `  ${plural(same.length, 'agent')} unchanged: ${same.slice(0, 10).join(', ')}${same.length > 10 ? `, … and ${same.length - 10} more` : ''}`,
      ),
    );
  lines.push(countsLine(counts));
  return lines;
}

/**
 * The first line of the markdown view names the manifest and the head lockfile's digest:
 * `<!-- a2a-lock-diff a2a.json sha256-… -->` (a workflow finds and updates its one comment by the
 * first three fields, and reads the reviewed digest from the fourth).
 */
const MARKDOWN_MARKER_PREFIX = '<!-- a2a-lock-diff ';
/**
 * Most characters of the markdown view (GitHub's comment limit is 65,536).
 * @internal
 */
export const MARKDOWN_LIMIT = 60_000;
/** Most characters of one table cell or headline value in the markdown view, before escaping (longer ones end with `…`). */
export const MARKDOWN_CELL = 100;
/** Most characters of one line of an agent's details in the markdown view (longer ones end with `…`). */
export const MARKDOWN_DETAIL_LINE = 1_000;

/**
 * The marker line for the manifest at `manifest` (its path from the repository root) and the head
 * lockfile's `digest` (`lock/digest.ts`; `none` when the head side has no lockfile):
 * `<!-- a2a-lock-diff services/billing/a2a.json sha256-… -->`. Its identity is the first three
 * space-separated fields, one per manifest, so two services in one repository keep two comments;
 * the fourth is the digest of what was reviewed. Characters of the path other than letters, digits
 * and `._/+@=,~-` are percent-encoded (nothing can end the comment); bounded like a cell.
 * @internal
 */
export function markdownMarker(manifest: string, digest: string | undefined): string {
  const path = bounded(manifest, 200).replace(/[^A-Za-z0-9._/+@=,~-]/gu, (c) =>
    encodeURIComponent(c).replace(/[!'()*]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`),
  );
  return `${MARKDOWN_MARKER_PREFIX}${path || 'a2a.json'} ${isLockDigest(digest) ? digest : 'none'} -->`;
}

/** One table cell or headline value: {@link bounded}, then {@link escapeMarkdown} (the one markdown escaper). */
function cell(text: string): string {
  return escapeMarkdown(bounded(text, MARKDOWN_CELL));
}

function changeLabel(a: AgentDiff): string {
  return a.verdict === 'renamed' ? `renamed from ${cell(a.from ?? '?')}` : a.verdict;
}

function cardVersionCell(a: AgentDiff): string {
  const { old, new: now } = a.version;
  return old !== undefined && now !== undefined && old !== now ? `${cell(old)} → ${cell(now)}` : cell(now ?? old ?? '');
}

function planImpactCell(a: AgentDiff): string {
  const parts = Object.entries(a.changes.planChanges).map(([skill, list]) => {
    if (list.length === 1 && list[0]!.field === 'plan') return `${list[0]!.old === undefined ? '+' : '−'}${skill}`;
    return `${skill}: ${list.map((c) => c.field).join(', ')}`;
  });
  if (a.credentialSources?.length) parts.push(`credentials: ${a.credentialSources.map((c) => c.scheme).join(', ')}`);
  return parts.length ? cell(parts.join('; ')) : '—';
}

function signatureCell(a: AgentDiff): string {
  const { old, new: now } = a.signature;
  return old !== undefined && now !== undefined && old !== now ? `${cell(old)} → ${cell(now)}` : cell(now ?? old ?? '');
}

/** `**high**: code, code (and better)`, then `ignored: code` for the codes `--ignore` named (any level). */
function riskCell(a: AgentDiff): string {
  const weighed = a.risks.filter((r) => r.level !== 'info' && !r.ignored);
  const ignored = [...new Set(a.risks.filter((r) => r.ignored).map((r) => r.code))];
  const also = ignored.length ? `ignored: ${ignored.join(', ')}` : '';
  if (!weighed.length) return also || (a.better.length ? 'better' : '—');
  const codes = [...new Set(weighed.filter((r) => r.level === a.level).map((r) => r.code))];
  // Risk codes are this tool's own words ([a-z-]): shown as they are.
  return `**${a.level}**: ${codes.join(', ')}${a.better.length ? ' (and better)' : ''}${also ? `; ${also}` : ''}`;
}

/** A fence longer than any run of backticks in `text`. */
function fenceFor(text: string): string {
  // A loop, not Math.max(...runs): a hostile head lockfile's details can hold a million runs (a spread that long overflows the stack).
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) if (m[0].length > longest) longest = m[0].length;
  return '`'.repeat(Math.max(3, longest + 1));
}

/** 0 for high … 3 for info, 4 without a risk: the order of the markdown's rows and details. */
function riskOrder(a: AgentDiff): number {
  return a.level === undefined ? RISK_LEVELS.length : RISK_LEVELS.indexOf(a.level);
}

/**
 * `2 high, 1 medium: new-credential-destination, delivery-changed`: how many of `agents` are at
 * high and medium risk, and those risks' codes (this tool's own words, a bounded list); empty when
 * none is.
 */
function weightyLevels(agents: readonly AgentDiff[]): string {
  const levels = (['high', 'medium'] as const)
    .map((l) => [l, agents.filter((a) => a.level === l).length] as const)
    .filter(([, n]) => n > 0)
    .map(([l, n]) => `${n} ${l}`);
  const codes = new Set(
    agents.flatMap((a) =>
      a.risks.filter((r) => !r.ignored && (r.level === 'high' || r.level === 'medium')).map((r) => r.code),
    ),
  );
  return levels.length ? `${levels.join(', ')}: ${[...codes].join(', ')}` : '';
}

/**
 * The markdown view: the marker ({@link markdownMarker} of `options.manifest`, `a2a.json` when not
 * given, and `options.digest`, the head lockfile's, `none` when not given), the count line, a table `Agent | Change | Card version | Plan impact | Signature | Risk`
 * (changed agents, highest risk first), the unchanged ones in one line, then one `<details>` per
 * changed agent with its text view. Every cell and headline value is bounded
 * ({@link MARKDOWN_CELL}) and escaped ({@link escapeMarkdown}); a row or an agent's details that
 * would pass {@link MARKDOWN_LIMIT} is left out on its own, with a note counting what was left out
 * (so an agent at high or medium risk is always named: its row comes first). `title` is a line
 * under the counts (what was compared).
 */
export function diffMarkdown(
  agents: readonly AgentDiff[],
  counts: DiffCounts,
  title?: string,
  options: { manifest?: string; digest?: string } = {},
): string {
  const wasEnabled = kleur.enabled;
  kleur.enabled = false;
  try {
    const changed = agents.filter((a) => a.verdict !== 'unchanged').sort((a, b) => riskOrder(a) - riskOrder(b));
    const head = [
      markdownMarker(options.manifest ?? 'a2a.json', options.digest),
      `**${countsLine(counts)}**`,
      ...(title ? ['', escapeMarkdown(bounded(title, 2 * MARKDOWN_CELL))] : []),
      '',
    ];
    const notes: string[] = [];
    if (changed.length === 0) head.push('No agent changed.', '');
    else {
      head.push('| Agent | Change | Card version | Plan impact | Signature | Risk |', '|---|---|---|---|---|---|');
      let size = head.join('\n').length;
      const left: AgentDiff[] = [];
      for (const a of changed) {
        const row = `| ${cell(a.name)} | ${changeLabel(a)} | ${cardVersionCell(a)} | ${planImpactCell(a)} | ${signatureCell(a)} | ${riskCell(a)} |`;
        if (size + row.length + 1 > MARKDOWN_LIMIT / 2) {
          left.push(a);
          continue;
        }
        head.push(row);
        size += row.length + 1;
      }
      if (left.length) {
        const weighty = weightyLevels(left);
        notes.push(
          `_${plural(left.length, 'more agent')} changed${weighty ? ` (${weighty})` : ''}, not in the table (the comment's size limit); run \`a2a diff\` to see all._`,
        );
      }
      head.push('');
    }
    const same = agents.filter((a) => a.verdict === 'unchanged').length;
    if (same) head.push(`${plural(same, 'agent')} unchanged.`, '');
    const out = [...head];
    let size = out.join('\n').length + notes.join('\n').length;
    const cut: AgentDiff[] = [];
    for (const a of changed) {
      const body = [agentHeadline(a), ...agentBody(a)].map((line) => bounded(line, MARKDOWN_DETAIL_LINE)).join('\n');
      const fence = fenceFor(body);
      const block = [
        `<details><summary>${cell(a.name)}: ${changeLabel(a)}${a.level && a.level !== 'info' ? ` · ${a.level}` : ''}</summary>`,
        '',
        fence,
        body,
        fence,
        '',
        '</details>',
        '',
      ];
      const length = block.join('\n').length + 1;
      if (size + length > MARKDOWN_LIMIT - 400) {
        cut.push(a);
        continue;
      }
      out.push(...block);
      size += length;
    }
    if (cut.length) {
      const weighty = weightyLevels(cut);
      notes.push(
        `_The details of ${plural(cut.length, 'agent')}${weighty ? ` (${weighty})` : ''} are cut to stay under GitHub's comment limit; run \`a2a diff\` locally to see them._`,
      );
    }
    return `${[...out, ...notes].join('\n').trimEnd()}\n`;
  } finally {
    kleur.enabled = wasEnabled;
  }
}

/**
 * One side for the header, naming its kind: `revision main (refs/heads/main at 0123456789ab)`,
 * `revision 3f9a1c0b7d2e (GITHUB_BASE_REF: merge-base with refs/remotes/origin/main)` (a commit by 12 characters), `file ./old.json`,
 * `working tree`; git's `a/…` and `b/…` for an external diff; `no lockfile` when none was there.
 */
function sideText(side: DiffData['base']): string {
  const notes: string[] = [];
  if (side.kind === 'revision' && side.commit !== undefined) {
    if (side.source !== undefined)
      notes.push(
        side.ref !== undefined && side.ref !== side.commit
          ? `${side.source}: merge-base with ${side.ref}`
          : side.source,
      );
    else if (side.ref !== undefined) notes.push(`${side.ref} at ${side.commit.slice(0, 12)}`);
    else if (side.commit !== side.label) notes.push(side.commit.slice(0, 12));
  }
  if (!side.found) notes.push('no lockfile');
  // A revision named by its full commit (the CI base's merge-base) is named by 12 characters.
  const label =
    side.kind === 'revision' && side.commit !== undefined && side.label === side.commit
      ? side.commit.slice(0, 12)
      : side.label;
  const what =
    side.kind === 'worktree' ? 'working tree' : side.kind === 'git-external' ? label : `${side.kind} ${label}`;
  return notes.length ? `${what} (${notes.join(', ')})` : what;
}

/**
 * What was compared, for the title of every view: the manifest by its path from the repository root
 * (`services/billing/a2a.json`, so each manifest's comment and summary say whose lockfile it is),
 * then the two sides.
 */
function diffTitle(data: Pick<DiffData, 'base' | 'head'> & { human: Pick<DiffData['human'], 'manifest'> }): string {
  return `${data.human.manifest}: ${sideText(data.base)} → ${sideText(data.head)}`;
}

const annotations: CommandRenderer<DiffData>['annotations'] = (data, where) =>
  diffAnnotations(annotationFile(data.human.lockfile, where), diffAgents(data), data.human.lines);

/**
 * `a2a diff` (text): the document is `{"ok", "base", "head", "failOn"?, "counts", "agents"}`; the
 * lines are {@link diffLines}, then, when `--fail-on` failed, which level failed it.
 */
export const diffRenderer: CommandRenderer<DiffData> = {
  json: documentOf,
  text: (data) => [
    kleur.dim(diffTitle(data)),
    ...policyLines(data.policy),
    ...diffLines(diffAgents(data), data.counts),
    ...(data.ok ? [] : [kleur.red(`a2a diff failed: a change at or above --fail-on ${data.failOn} (exit 1)`)]),
  ],
  annotations,
};

/**
 * `a2a diff --format markdown`: {@link diffMarkdown}, for a pull request comment. Its annotations
 * ({@link diffStderrAnnotations}) go to stderr, so that stdout is the comment alone.
 */
export const diffMarkdownRenderer: CommandRenderer<DiffData> = {
  json: documentOf,
  text: (data) => diffDataMarkdown(data).replace(/\n$/, '').split('\n'),
};

/** The markdown view of a diff's data (what `--format markdown` prints and the job summary gets): {@link diffMarkdown} with its title and its manifest's marker. */
function diffDataMarkdown(data: DiffData): string {
  const text = diffMarkdown(diffAgents(data), data.counts, diffTitle(data), {
    manifest: data.human.manifest,
    ...(data.human.digest !== undefined ? { digest: data.human.digest } : {}),
  });
  if (!data.policy) return text;
  // The policy change, once, right under the counts line (the marker and counts stay first).
  const [marker, counts, ...rest] = text.split('\n');
  const risk = data.policy.risk;
  const line = `**${risk.ignored ? 'ignored' : risk.level}** credential-policy-changed: ${escapeMarkdown(bounded(risk.message, MARKDOWN_DETAIL_LINE))}`;
  return [marker, counts, '', line, ...rest].join('\n');
}

/** The text lines of a change of `credentialDestinations` (stated once, before the agents). */
function policyLines(policy: PolicyChange | undefined): string[] {
  return policy ? [riskLine(policy.risk, '')] : [];
}

/**
 * What a job summary's heading says after the command: ` services/billing/a2a.json` (bounded and
 * escaped) for a manifest other than the root `a2a.json`, nothing for that one.
 */
export function summaryManifest(manifest: string): string {
  return manifest === 'a2a.json' ? '' : ` ${escapeMarkdown(bounded(manifest, 200))}`;
}

/** The job summary of a diff: a heading `### a2a diff` naming the manifest ({@link summaryManifest}), then {@link diffDataMarkdown}. */
export function diffSummary(data: DiffData): string {
  return `### a2a diff${summaryManifest(data.human.manifest)}\n\n${diffDataMarkdown(data)}`;
}

/** The annotations of a diff, for the CLI to print on stderr (markdown output). */
export const diffStderrAnnotations = (data: DiffData, where: { cwd: string; env: NodeJS.ProcessEnv }): string[] =>
  annotations!(data, where);
