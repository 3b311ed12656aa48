/**
 * Human output shared by the commands' renderers: plans, refusals, warnings and diffs (verify
 * failures, update, outdated), grouped by agent and skill; and the shape of a command's renderer.
 * Colour via kleur, switched on or off per run by the CLI (`cli/colour.ts`).
 */
import kleur from 'kleur';
import { contactedHostNote } from '../../card/host.js';
import type { Warning } from '../../card/model.js';
import type { GlobalOptions } from '../../commands/context.js';
import type { CardChange, EntryChanges } from '../../lock/changes.js';
import { updateResolves } from '../../lock/hints.js';
import type { AgentReport, PlanDrift, SignatureDrift, SyncFailure } from '../../lock/report.js';
import type { ExplainedStep } from '../../negotiate/explain.js';
import type { Plan } from '../../negotiate/types.js';
import { SGR_OR_UNTRUSTED, UNTRUSTED, unicodeEscape } from '../../untrusted.js';
import { elideJson, elideJsonPair } from './json-elide.js';

/**
 * How the CLI prints one command's data (`CommandResult.data`, see `commands/context.ts`). Each
 * module of `cli/render/` but this one exports one per command.
 */
export interface CommandRenderer<D> {
  /** The `--json` document: the data without its `human` field ({@link documentOf}); the CLI adds `warnings` when it has none. */
  json(data: D): unknown;
  /** The human output, one string per stdout line; `data` comes {@link untrusted} (the CLI makes each line {@link terminalSafe} too). */
  text(data: D): string[];
  /** GitHub Actions workflow commands (`::error …`) for the data; the CLI asks for them when `GITHUB_ACTIONS` is `true`. */
  annotations?(data: D, where: Pick<GlobalOptions, 'cwd' | 'env'>): string[];
}

/** A command's `--json` document: its data without the `human` field (the facts only the human output needs). */
export function documentOf<D extends object>(data: D): Omit<D, 'human'> {
  if (!('human' in data)) return data;
  const { human: _human, ...document } = data;
  return document;
}

/**
 * Text from a card, an agent or a file, made inert for a terminal: every character of
 * {@link UNTRUSTED} (control, C1, bidi control, line separator) shown as a `\u` escape, SGR
 * colour sequences included. Run on values before any colour is added around them.
 */
export function escapeUntrusted(text: string): string {
  return text.replace(UNTRUSTED, unicodeEscape);
}

/**
 * A command's data with every string in it, object keys included, made {@link escapeUntrusted}:
 * what a renderer gets, so nothing a card or an agent wrote can reach the terminal as a control
 * sequence, whatever the renderer interpolates. Plain objects and arrays are copied when anything
 * in them needs escaping (else the value itself is returned); other values are kept as they are.
 */
export function untrusted<T>(value: T): T {
  return escapeDeep(value, 0) as T;
}

/**
 * {@link untrusted} of one value, copy on write: a container comes back as it is when nothing in
 * it changes, so the result of a large command with nothing to escape (two 1000-agent lockfiles
 * in `a2a diff`) is walked but not copied.
 */
function escapeDeep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return escapeUntrusted(value);
  // Our own documents are at most 68 levels deep; a card snapshot 64. Deeper is kept as it is.
  if (depth > 100 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = escapeDeep(value[i], depth + 1);
      if (out === undefined && v !== value[i]) out = value.slice(0, i);
      out?.push(v);
    }
    return out ?? value;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const keys = Object.keys(value);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = (value as Record<string, unknown>)[k];
    const key = escapeUntrusted(k);
    const escaped = escapeDeep(v, depth + 1);
    if (out === undefined && (key !== k || escaped !== v)) {
      out = {};
      for (const before of keys.slice(0, i)) define(out, before, (value as Record<string, unknown>)[before]);
    }
    if (out) define(out, key, escaped);
  }
  return out ?? value;
}

/** A plain data member, even for a key such as `__proto__`. */
function define(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The last pass over a line the CLI prints, after the renderer coloured it: what came from a card
 * or an agent was already made {@link escapeUntrusted} (the renderer's data is {@link untrusted}),
 * so the only SGR sequences (`ESC [ … m`) left are the CLI's own colour, which pass; any other
 * control or bidi character is escaped all the same, and a line is never a workflow command
 * ({@link WORKFLOW_COMMAND_START}).
 */
export function terminalSafe(line: string): string {
  return line
    .replace(SGR_OR_UNTRUSTED, (m) => (m.length > 1 ? m : unicodeEscape(m)))
    .replace(WORKFLOW_COMMAND_START, (m) => `${m.slice(0, -2)}${unicodeEscape(':')}:`);
}

/**
 * A line that the GitHub Actions runner would read as a workflow command: `::` after blanks (it
 * trims them). A printed line starting with text from a manifest, a lockfile or a card (a skill id
 * in a drift line) must not forge an annotation or stop the commands after it (`::stop-commands::`),
 * so its first `:` is shown as `\u003a`; the CLI's own annotations are printed apart from these lines.
 */
const WORKFLOW_COMMAND_START = /^\s*::/;

/**
 * A value in a change line: one-line canonical JSON (keys sorted, whichever side it came from, so a
 * lock snapshot and a served card read alike), `(absent)` for undefined; a value over 120
 * characters is shortened at value boundaries, never inside a value (`json-elide.ts`).
 */
export function show(value: unknown): string {
  if (value === undefined) return '(absent)';
  return elideJson(value, 120);
}

/**
 * An `old → new` pair for one line: canonical JSON as {@link show}, each side within about 120
 * characters, shortened at value boundaries keeping first what differs (`json-elide.ts`), so a long
 * value (a plan's `fallbacks`, a card's interfaces) still shows its difference and no value is cut.
 * @internal
 */
export function showPair(a: unknown, b: unknown): [string, string] {
  if (a === undefined || b === undefined) return [show(a), show(b)];
  return elideJsonPair(a, b, 120);
}

/** The plan as aligned `field value` lines. */
export function renderPlan(plan: Plan, indent = '  '): string[] {
  const security = Object.entries(plan.security);
  return [
    `${indent}url          ${plan.url}${contactedHostNote(plan.url)}`,
    `${indent}binding      ${plan.protocolBinding} ${plan.protocolVersion}${plan.tenant ? ` (tenant ${plan.tenant})` : ''}`,
    `${indent}security     ${security.length ? security.map(([s, scopes]) => (scopes.length ? `${s} (${scopes.join(' ')})` : s)).join(' + ') : 'none'}`,
    `${indent}accept       ${plan.acceptedOutputModes.join(', ')}`,
    `${indent}delivery     ${plan.delivery}`,
    `${indent}extensions   ${plan.extensions.length ? plan.extensions.join(', ') : 'none'}`,
  ];
}

/** `warning <code>: message (path)`, prefixed with the agent name when given. */
export function renderWarning(w: Warning & { agent?: string }): string {
  return `${kleur.yellow('warning')} ${w.code}: ${w.agent ? `${w.agent}: ` : ''}${w.message}${w.path ? ` (${w.path})` : ''}`;
}

/** Card changes, structural first, as `path: old → new` lines (`- path: member` / `+ path: member` for a set, `reordered` where order is preference). */
export function renderCardChanges(changes: CardChange[], indent = '    ', limit = 20): string[] {
  const byPath = (a: CardChange, b: CardChange) => a.path.localeCompare(b.path, 'en', { numeric: true });
  const sorted = [
    ...changes.filter((c) => c.structural).sort(byPath),
    ...changes.filter((c) => !c.structural).sort(byPath),
  ];
  const lines = sorted.slice(0, limit).map((c) => {
    const tag = c.structural ? kleur.red('structural') : kleur.dim('descriptive');
    if (c.kind === 'added') return `${indent}${kleur.green('+')} ${c.path}: ${show(c.new)} ${tag}`;
    if (c.kind === 'removed') return `${indent}${kleur.red('-')} ${c.path}: ${show(c.old)} ${tag}`;
    if (c.kind === 'reordered')
      return `${indent}${kleur.yellow('~')} ${c.path}: reordered ${show(c.old)} → ${show(c.new)} ${tag}`;
    const [was, now] = showPair(c.old, c.new);
    return `${indent}${kleur.yellow('~')} ${c.path}: ${was} → ${now} ${tag}`;
  });
  if (sorted.length > limit) lines.push(`${indent}… and ${sorted.length - limit} more`);
  return lines;
}

/**
 * One value that changes, labelled: a list of strings (output modes, extensions) as the members
 * removed and added, one per line (`- application/json`, `+ text/plain`), or `reordered` when
 * only the order changed (order is preference there); anything else `label: old → new`.
 */
export function renderValueChange(label: string, old: unknown, now: unknown, indent = '    '): string[] {
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (strings(old) && strings(now)) {
    const removed = old.filter((x) => !now.includes(x));
    const added = now.filter((x) => !old.includes(x));
    if (!removed.length && !added.length) return [`${indent}${label}: reordered ${show(old)} → ${show(now)}`];
    return [
      `${indent}${label}:`,
      ...removed.map((x) => `${indent}  ${kleur.red('-')} ${x}`),
      ...added.map((x) => `${indent}  ${kleur.green('+')} ${x}`),
    ];
  }
  const [was, fresh] = showPair(old, now);
  return [`${indent}${label}: ${kleur.red(was)} → ${kleur.green(fresh)}`];
}

/** Plan drift grouped by skill: `skill › field: locked → fresh` ({@link renderValueChange}), or the refusal. */
export function renderDrift(drift: PlanDrift[], indent = '    '): string[] {
  const lines: string[] = [];
  for (const d of drift) {
    if (d.refusal)
      lines.push(
        `${indent}${kleur.bold(d.skill)}: refused with the locked choices: ${d.refusal.code}: ${d.refusal.message}`,
        ...(d.hint ? [`${indent}  hint: ${d.hint}`] : []),
      );
    else lines.push(...renderValueChange(`${kleur.bold(d.skill)} › ${d.field}`, d.locked, d.fresh, indent));
  }
  return lines;
}

/** `verified (kid k1, ES256, thumbprint …)`, `absent`, `unverifiable (kid k1)`. */
export function renderSignature(
  record: { status: string; kid?: string; alg?: string; thumbprint?: string } | undefined,
): string {
  if (!record) return 'not recorded';
  const parts = [
    record.kid ? `kid ${record.kid}` : '',
    record.alg ?? '',
    record.thumbprint ? `thumbprint ${record.thumbprint}` : '',
  ].filter(Boolean);
  return parts.length ? `${record.status} (${parts.join(', ')})` : record.status;
}

/** `    signature (card): locked → fresh`: a locked verified signature that no longer holds. */
function renderSignatureDrift(s: SignatureDrift): string {
  return `    signature (${s.snapshot}): ${kleur.red(renderSignature(s.locked))} → ${kleur.green(renderSignature(s.fresh))}`;
}

/** One agent's verify/install report as lines (its warnings, printed apart, are not needed). */
export function renderReport(
  name: string,
  report: Omit<AgentReport, 'warnings'>,
  options: { strict?: boolean } = {},
): string[] {
  switch (report.status) {
    case 'ok':
      if (report.unchecked)
        return [`${options.strict ? kleur.red('✗') : kleur.yellow('!')} ${name}: ${report.unchecked}`];
      return [`${kleur.green('✓')} ${name}`];
    case 'changed': {
      const head =
        report.change === 'structural'
          ? 'card changed (structural), plans unchanged'
          : 'card changed (descriptive), plans unchanged';
      const mark = options.strict ? kleur.red('✗') : kleur.yellow('!');
      return [
        `${mark} ${name}: ${head}`,
        ...renderCardChanges(report.cardChanges ?? []),
        ...(report.unchecked ? [`    ${report.unchecked}`] : []),
        ...(options.strict ? [`    run: a2a update ${name}`] : []),
      ];
    }
    case 'unchecked': {
      const mark = options.strict ? kleur.red('✗') : kleur.yellow('!');
      return [
        `${mark} ${name}: unchecked (${report.reason}): ${report.unchecked}`,
        ...(report.routes ?? []).map((r) => `    credential withheld: ${r.scheme} → ${r.origin}`),
        ...(report.cardChanges?.length
          ? [
              `    card changed (${report.change}), plans unchanged:`,
              ...renderCardChanges(report.cardChanges, '      '),
            ]
          : []),
      ];
    }
    case 'drift':
      return [
        `${kleur.red('✗')} ${name}: beyond the lockfile`,
        ...renderDrift(report.drift ?? []),
        ...(report.signatureDrift ?? []).map(renderSignatureDrift),
        ...(report.unchecked ? [`    ${report.unchecked}`] : []),
        ...(report.cardChanges?.length
          ? ['    card changes:', ...renderCardChanges(report.cardChanges, '      ')]
          : []),
        ...(updateResolves(report.drift ?? [], report.signatureDrift) ? [`    run: a2a update ${name}`] : []),
      ];
    case 'out-of-date':
      return [
        `${kleur.red('✗')} ${name}: lockfile out of date: ${(report.reasons ?? []).join('; ')}`,
        '    run: a2a lock',
      ];
    case 'error':
      return [
        `${kleur.red('✗')} ${name}: ${report.error?.code}: ${report.error?.message}`,
        ...(report.error?.hint ? [`    hint: ${report.error.hint}`] : []),
      ];
  }
}

/** A negotiation explained (`a2a why`): per step its outcome, its rule, and each candidate (→ chosen, ✓ qualified, ✗ not). */
export function renderExplanation(steps: ExplainedStep[], indent = '  ', limit = 12): string[] {
  const lines: string[] = [];
  steps.forEach((s, i) => {
    lines.push(
      `${indent}${i + 1}. ${kleur.bold(s.step.padEnd(10))} ${s.ok ? s.detail : kleur.red(s.detail)}`,
      `${indent}   ${kleur.dim(s.why)}`,
    );
    const width = Math.max(0, ...s.candidates.map((c) => c.value.length));
    for (const c of s.candidates.slice(0, limit)) {
      const mark = c.chosen ? kleur.green('→') : c.ok ? kleur.green('✓') : kleur.red('✗');
      lines.push(`${indent}   ${mark} ${c.value.padEnd(width)}  ${c.chosen ? kleur.bold(c.note) : c.note}`);
    }
    if (s.candidates.length > limit) lines.push(`${indent}   … and ${s.candidates.length - limit} more`);
  });
  return lines;
}

/** What replacing one agent's entry changes (update, outdated, lock, diff): version, plan fields per skill, card diff, signatures. */
export function renderEntryChanges(changes: EntryChanges, indent = '    '): string[] {
  return [
    ...(changes.version
      ? [`${indent}version: ${kleur.red(changes.version.old)} → ${kleur.green(changes.version.new)}`]
      : []),
    ...renderPlanChanges(changes.planChanges, indent),
    ...(changes.cardChanges.length ? [`${indent}card:`, ...renderCardChanges(changes.cardChanges, `${indent}  `)] : []),
    ...changes.signatureChanges.map(
      (c) => `${indent}signature (${c.snapshot}): ${renderSignature(c.old)} → ${renderSignature(c.new)}`,
    ),
  ];
}

/** A plan in one line: `url (binding version, delivery, accepts …)`. */
function planLine(plan: Plan): string {
  return `${plan.url}${contactedHostNote(plan.url)} (${plan.protocolBinding} ${plan.protocolVersion}, ${plan.delivery}, accepts ${plan.acceptedOutputModes.join(', ')})`;
}

/** Per skill the plan fields that change (`plan skill › field: old → new`, lists as members); a skill locked or no longer locked as `+`/`- plan skill: …`. */
export function renderPlanChanges(planChanges: EntryChanges['planChanges'], indent = '    '): string[] {
  return Object.entries(planChanges).flatMap(([skill, list]) =>
    list.flatMap((c) => {
      if (c.field === 'plan' && c.old === undefined)
        return [`${indent}${kleur.green('+')} plan ${kleur.bold(skill)}: ${planLine(c.new as Plan)}`];
      if (c.field === 'plan' && c.new === undefined)
        return [`${indent}${kleur.red('-')} plan ${kleur.bold(skill)}: ${planLine(c.old as Plan)}`];
      return renderValueChange(`plan ${kleur.bold(skill)} › ${c.field}`, c.old, c.new, indent);
    }),
  );
}

/** Why one agent could not be (re-)resolved by lock, add, update or outdated. */
export function renderSyncFailure(name: string, f: SyncFailure): string[] {
  const lines: string[] = [];
  if (f.error)
    lines.push(
      `${kleur.red('✗')} ${name}: ${f.error.code}: ${f.error.message}`,
      ...(f.error.hint ? [`    ${f.error.hint.replace(/^run /, 'run: ')}`] : []),
    );
  for (const r of f.refusals ?? [])
    lines.push(
      `${kleur.red('✗')} ${name} › ${r.skill}: refused: ${r.refusal.code}: ${r.refusal.message}`,
      ...(r.hint ? [`    hint: ${r.hint}`] : []),
    );
  if (f.drift?.length || f.signatureDrift?.length) {
    lines.push(
      `${kleur.red('✗')} ${name}: beyond the lockfile`,
      ...renderDrift(f.drift ?? []),
      ...(f.signatureDrift ?? []).map(renderSignatureDrift),
      ...(f.next || updateResolves(f.drift ?? [], f.signatureDrift)
        ? [`    run: ${f.next ?? `a2a update ${name}`}`]
        : []),
    );
  }
  return lines;
}
