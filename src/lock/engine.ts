/**
 * The lock engine: resolve agents (load card → normalise → negotiate every skill), check a locked
 * agent against its snapshot (offline) or against the card served now (online, "beyond the
 * lockfile"), and compare a lockfile with the manifest. Commands compose these; nothing here
 * prints or exits.
 */
import type { Dispatcher } from 'undici';
import { cardSourceOf, loadCard } from '../card/load.js';
import type { NormalizedCard, Warning } from '../card/model.js';
import { normalizeCard } from '../card/normalize.js';
import { integrityOf } from '../canonical.js';
import { A2aLockError, ExitCode, exitCodeFor, type ErrorCode } from '../errors.js';
import { agentSettings, profileOf, type AgentEntry, type AgentSettings, type Manifest } from '../manifest/schema.js';
import { diffPlans, negotiate } from '../negotiate/negotiate.js';
import type { Plan, Refusal, TraceStep } from '../negotiate/types.js';
import { diffCards, type CardChange } from './card-diff.js';
import type { LockEntry, Lockfile } from './schema.js';

/** Network and file options shared by every command that loads cards. */
export interface EngineOptions {
  /** Directory of the manifest (file cards are relative to it). */
  baseDir: string;
  /** Per-card deadline (ms). Default 10 000. */
  timeoutMs?: number;
  /** Allow plain http to non-loopback hosts. */
  allowHttp?: boolean;
  /** At most this many cards in flight. Default 8. */
  concurrency?: number;
  dispatcher?: Dispatcher;
}

/** Default bound on concurrent card fetches. */
export const DEFAULT_CONCURRENCY = 8;

/** A refusal for one skill. */
export interface SkillRefusal {
  skill: string;
  refusal: Refusal;
}

/** Outcome of resolving one agent without the lock's constraint. */
export interface Resolution {
  /** The new lock entry; absent when any skill was refused. */
  entry?: LockEntry;
  refusals: SkillRefusal[];
  traces: Record<string, TraceStep[]>;
  warnings: Warning[];
  card: NormalizedCard;
}

function loadOptions(settings: AgentSettings, options: EngineOptions) {
  return {
    baseDir: options.baseDir,
    a2aVersion: settings.versions[0]!,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.allowHttp !== undefined ? { allowHttp: options.allowHttp } : {}),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  };
}

/**
 * Resolve one agent from scratch: load its card, validate it, negotiate every manifest skill.
 * @throws InvalidInputError / FetchError when the card cannot be loaded or is invalid
 */
export async function resolveAgent(entry: AgentEntry, settings: AgentSettings, options: EngineOptions): Promise<Resolution> {
  const loaded = await loadCard(entry.card, loadOptions(settings, options));
  const { card, warnings } = normalizeCard(loaded.raw, cardSourceOf(loaded));
  const plans: Record<string, Plan> = {};
  const refusals: SkillRefusal[] = [];
  const traces: Record<string, TraceStep[]> = {};
  for (const skill of entry.skills) {
    const result = negotiate(card, skill, profileOf(settings), settings.credentials, versionRangeOption(settings));
    traces[skill] = result.trace;
    if (result.plan) plans[skill] = result.plan;
    else refusals.push({ skill, refusal: result.refusal });
  }
  const all = [...loaded.warnings, ...warnings];
  if (refusals.length > 0) return { refusals, traces, warnings: all, card };
  return {
    entry: {
      card: entry.card,
      resolved: loaded.resolved,
      a2aVersion: card.shape,
      version: card.version,
      integrity: integrityOf(loaded.raw),
      snapshot: loaded.raw,
      plans,
    },
    refusals,
    traces,
    warnings: all,
    card,
  };
}

function versionRangeOption(settings: AgentSettings): { versionRange?: string } {
  return settings.versionRange !== undefined ? { versionRange: settings.versionRange } : {};
}

/** Per-agent verification status. */
export type AgentStatus = 'ok' | 'changed' | 'drift' | 'out-of-date' | 'error';

/** One way a fresh card goes beyond a locked plan. */
export interface PlanDrift {
  skill: string;
  /** The plan field that differs (absent when negotiation refused). */
  field?: string;
  locked?: unknown;
  fresh?: unknown;
  /** Set when the narrowed negotiation refused. */
  refusal?: Refusal;
}

/** What verify/install found for one agent. `exitCode` is this agent's contribution. */
export interface AgentReport {
  status: AgentStatus;
  exitCode: ExitCode;
  /** For `changed` and `drift`: whether any card change can decide a plan. */
  change?: 'structural' | 'descriptive';
  cardChanges?: CardChange[];
  drift?: PlanDrift[];
  /** For `out-of-date`: why the lock does not match the manifest. */
  reasons?: string[];
  /** For `error`: the typed error. */
  error?: { code: ErrorCode; message: string };
  warnings: Warning[];
}

function errorReport(error: unknown): AgentReport {
  if (!(error instanceof A2aLockError)) throw error;
  return { status: 'error', exitCode: exitCodeFor(error), error: { code: error.code, message: error.message }, warnings: [] };
}

/**
 * Why a lockfile does not satisfy the manifest, per agent name (empty map when it does): agents
 * missing from the lock, agents no longer in the manifest, a changed `card`, changed settings
 * (effective profile, credentials held, version range) or a changed skill list.
 */
export function manifestMismatches(manifest: Manifest, lock: Lockfile | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (name: string, reason: string) => out.set(name, [...(out.get(name) ?? []), reason]);
  for (const [name, entry] of Object.entries(manifest.agents)) {
    const locked = lock?.agents[name];
    if (!locked) {
      add(name, 'not in the lockfile');
      continue;
    }
    if (locked.card !== entry.card) add(name, `card changed in the manifest (${locked.card} → ${entry.card})`);
    const settings = lock?.settings[name];
    if (!settings || JSON.stringify(sortKeys(settings)) !== JSON.stringify(sortKeys(agentSettings(manifest, name)))) {
      add(name, 'profile, credentials or version range changed in the manifest');
    }
    const lockedSkills = Object.keys(locked.plans).sort();
    const wanted = [...entry.skills].sort();
    if (lockedSkills.join('\n') !== wanted.join('\n')) add(name, `skills changed (${lockedSkills.join(', ')} → ${wanted.join(', ')})`);
  }
  for (const name of Object.keys(lock?.agents ?? {})) {
    if (!(name in manifest.agents)) add(name, 'no longer in the manifest');
  }
  return out;
}

function sortKeys(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * Check a locked agent against its own snapshot, without network: the snapshot's integrity, that it
 * is still a valid card, and that negotiating it with the locked settings yields exactly the
 * locked plans. Returns undefined when all holds.
 */
export function checkOffline(entry: LockEntry, settings: AgentSettings, source: string): AgentReport | undefined {
  if (integrityOf(entry.snapshot) !== entry.integrity) {
    return {
      status: 'error',
      exitCode: ExitCode.Invalid,
      error: { code: 'lockfile-invalid', message: `${source}: snapshot does not match its integrity ${entry.integrity}` },
      warnings: [],
    };
  }
  let card: NormalizedCard;
  try {
    const baseUrl = /^https?:\/\//i.test(entry.resolved) ? entry.resolved : undefined;
    card = normalizeCard(entry.snapshot, { source, ...(baseUrl ? { baseUrl } : {}), ...(entry.resolved.endsWith('/.well-known/agent.json') ? { legacyWellKnown: true } : {}) }).card;
  } catch (error) {
    return errorReport(error);
  }
  const reasons: string[] = [];
  for (const [skill, plan] of Object.entries(entry.plans)) {
    const result = negotiate(card, skill, profileOf(settings), settings.credentials, versionRangeOption(settings));
    if (!result.plan) reasons.push(`skill "${skill}": the snapshot no longer negotiates (${result.refusal.code})`);
    else if (diffPlans(plan, result.plan).length > 0) {
      reasons.push(`skill "${skill}": locked plan differs from the plan its snapshot negotiates (${diffPlans(plan, result.plan).map((d) => d.field).join(', ')})`);
    }
  }
  if (reasons.length > 0) return { status: 'out-of-date', exitCode: ExitCode.Drift, reasons, warnings: [] };
  return undefined;
}

/**
 * Fetch the card as served now and check it against the lock ("beyond the lockfile"): each locked
 * plan is re-negotiated with the profile narrowed to its locked choices; a refusal or any differing
 * field is drift. A card change that leaves every plan equal is `changed`, structural or descriptive.
 */
export async function checkOnline(entry: LockEntry, settings: AgentSettings, options: EngineOptions): Promise<AgentReport> {
  let raw: Record<string, unknown>;
  let fresh: NormalizedCard;
  const warnings: Warning[] = [];
  try {
    const loaded = await loadCard(entry.card, loadOptions(settings, options));
    raw = loaded.raw;
    warnings.push(...loaded.warnings);
    if (integrityOf(raw) === entry.integrity) return { status: 'ok', exitCode: ExitCode.Ok, warnings };
    const normalized = normalizeCard(raw, cardSourceOf(loaded));
    fresh = normalized.card;
    warnings.push(...normalized.warnings);
  } catch (error) {
    return { ...errorReport(error), warnings };
  }
  const cardChanges = diffCards(entry.snapshot, raw);
  const change = cardChanges.some((c) => c.structural) ? 'structural' : 'descriptive';
  const drift: PlanDrift[] = [];
  for (const [skill, locked] of Object.entries(entry.plans)) {
    const result = negotiate(fresh, skill, profileOf(settings), settings.credentials, { ...versionRangeOption(settings), locked });
    if (!result.plan) {
      drift.push({ skill, refusal: result.refusal });
      // Name the fields and their locked vs fresh values too: the plan `a2a update` would lock.
      const unconstrained = negotiate(fresh, skill, profileOf(settings), settings.credentials, versionRangeOption(settings));
      if (unconstrained.plan) {
        for (const d of diffPlans(locked, unconstrained.plan)) drift.push({ skill, field: d.field, locked: d.locked, fresh: d.fresh });
      }
      continue;
    }
    for (const d of diffPlans(locked, result.plan)) drift.push({ skill, field: d.field, locked: d.locked, fresh: d.fresh });
  }
  if (drift.length > 0) return { status: 'drift', exitCode: ExitCode.Drift, change, cardChanges, drift, warnings };
  return { status: 'changed', exitCode: ExitCode.Ok, change, cardChanges, warnings };
}

/** The overall exit code of a multi-agent run: the lowest non-zero agent code, else 0. */
export function overallExitCode(codes: Iterable<ExitCode>): ExitCode {
  let worst: ExitCode = ExitCode.Ok;
  for (const code of codes) {
    if (code === ExitCode.Ok) continue;
    if (worst === ExitCode.Ok || code < worst) worst = code;
  }
  return worst;
}
