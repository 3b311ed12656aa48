/**
 * Make a lockfile satisfy a manifest (`a2a lock`, `a2a add`, `a2a update`): resolve what is missing,
 * changed, corrupt or forced; drop what the manifest no longer names; keep every other entry as it
 * is, without network. All or nothing: the caller writes only when `failures` is empty.
 *
 * A plan never moves silently: when `lock` re-resolves an agent whose card and settings did not
 * change (a skill was added, or its entry failed the offline check), the skills it already locked
 * are negotiated with the profile narrowed to their locked plans, and anything beyond them is a
 * failure that names `a2a update`. Only `update` (force) or a change of the agent's own inputs in
 * the manifest resolves them afresh.
 */
import type { Warning } from '../card/model.js';
import { sameJson } from '../canonical.js';
import { formatPath, own } from '../json-path.js';
import { A2aLockError, ExitCode, exitCodeFor, type ErrorCode } from '../errors.js';
import { agentSettings, profileOf, type Manifest } from '../manifest/schema.js';
import { cardOrigin } from '../card/load.js';
import { interleaveBy, mapSettled } from '../pool.js';
import {
  checkOffline,
  DEFAULT_CONCURRENCY,
  manifestMismatches,
  replanFromSnapshot,
  resolveAgent,
  type EngineOptions,
  type PlanDrift,
  type Resolution,
  type SignatureDrift,
  type SkillRefusal,
} from './engine.js';
import type { AgentSettings } from '../manifest/schema.js';
import { LOCKFILE_SCHEMA_REF, LOCKFILE_VERSION, type LockEntry, type Lockfile } from './schema.js';

/** Why one agent could not be resolved. */
export interface SyncFailure {
  exitCode: ExitCode;
  /** A load/validation error. */
  error?: { code: ErrorCode; message: string; hint?: string };
  /** Skills negotiation refused. */
  refusals?: SkillRefusal[];
  /** Locked skills whose fresh plan goes beyond the lockfile (run `a2a update`). */
  drift?: PlanDrift[];
  /** A locked verified signature that no longer holds (run `a2a update`). */
  signatureDrift?: SignatureDrift[];
}

/** The `--json` form of a failure: `{status: "error"|"drift"|"refused", exitCode, error?, refusals? (skill → refusal), drift?, signatureDrift?}`. */
export function syncFailureJson(f: SyncFailure): Record<string, unknown> {
  return {
    status: f.error ? 'error' : f.drift || f.signatureDrift ? 'drift' : 'refused',
    exitCode: f.exitCode,
    ...(f.error ? { error: f.error } : {}),
    ...(f.refusals ? { refusals: Object.fromEntries(f.refusals.map((r) => [r.skill, r.refusal])) } : {}),
    ...(f.drift ? { drift: f.drift } : {}),
    ...(f.signatureDrift ? { signatureDrift: f.signatureDrift } : {}),
  };
}

/** What a sync did, per agent. */
export type SyncAction = 'added' | 'updated' | 'unchanged' | 'removed';

/** Result of {@link syncLock}. */
export interface SyncResult {
  /** The new lockfile (meaningful only when `failures` is empty). */
  lock: Lockfile;
  actions: Record<string, SyncAction>;
  /** The entries that were replaced, by agent name (for diffs). */
  previous: Record<string, LockEntry>;
  failures: Record<string, SyncFailure>;
  warnings: Array<Warning & { agent?: string }>;
}

/**
 * Compute the lockfile that satisfies `manifest`.
 *
 * @param force agent names to re-resolve even when their entry is up to date (`update`), or 'all'
 */
export async function syncLock(
  manifest: Manifest,
  previous: Lockfile | undefined,
  options: EngineOptions & {
    force?: ReadonlySet<string> | 'all';
    /** Agents to re-resolve with their locked plans as constraints (the two sides of a merge conflict differed). */
    recheck?: ReadonlySet<string>;
    /**
     * `a2a update`: forced agents may send the extended card's credential as the card served now
     * defines its scheme, to the interface it offers now. Otherwise (lock, outdated) an agent whose
     * card location is unchanged sends it only along its locked route; a changed one is drift.
     */
    acceptServedCredentialRoute?: boolean;
    source: string;
  },
): Promise<SyncResult> {
  const mismatches = manifestMismatches(manifest, previous);
  const names = Object.keys(manifest.agents);
  const isForced = (name: string) => options.force === 'all' || options.force?.has(name) === true;
  // Entries whose locked plans are not what their own snapshot negotiates with the current
  // settings (hand edits, a clean git merge of two branches) are re-planned from the snapshot,
  // offline: no fresh card is accepted on the way. A snapshot that fails its integrity is an error.
  const replanned = new Map<string, Resolution | A2aLockError>();
  const wanted = names.filter((name) => {
    if (isForced(name) || mismatches.has(name) || options.recheck?.has(name)) return true;
    const entry = previous!.agents[name]!;
    const settings = previous!.settings[name]!;
    const report = checkOffline(entry, settings, `${options.source} ${formatPath(['agents', name])}`);
    if (report?.status === 'error') {
      replanned.set(name, new A2aLockError(report.error!.code, report.error!.message, { hint: `run a2a update ${name} to fetch the card again` }));
    } else if (report) {
      replanned.set(name, replanFromSnapshot(entry, settings, manifest.agents[name]!.skills, options.source));
    }
    return false;
  });
  // Hosts in turn (round-robin), so connections spread over them instead of `concurrency` to each.
  const toResolve = interleaveBy(wanted, (name) => cardOrigin(manifest.agents[name]!.card));

  const outcomes = await mapSettled(toResolve, options.concurrency ?? DEFAULT_CONCURRENCY, (name) => {
    const entry = manifest.agents[name]!;
    const settings = agentSettings(manifest, name);
    const old = own(previous?.agents, name);
    const oldSettings = own(previous?.settings, name);
    // A locked plan never moves silently: unless forced (update) or the agent's own negotiation
    // inputs (profile, credentials held) changed, its locked skills must negotiate exactly as locked.
    // Locked settings that do not reproduce the locked plans were edited in the lockfile, not in
    // the manifest: they do not lift the constraint.
    const inputsChanged =
      old !== undefined && oldSettings !== undefined && !sameNegotiationInputs(oldSettings, settings) && checkOffline(old, oldSettings, options.source) === undefined;
    const constrained = !isForced(name) && old !== undefined && oldSettings !== undefined && !inputsChanged;
    const routeFrom = old !== undefined && old.card === entry.card && !(isForced(name) && options.acceptServedCredentialRoute) ? old : undefined;
    return resolveAgent(entry, settings, options, constrained ? old : undefined, routeFrom ?? null);
  }, options.onProgress);

  const agents: Record<string, LockEntry> = {};
  const settings: Lockfile['settings'] = {};
  const actions: Record<string, SyncAction> = {};
  const replaced: Record<string, LockEntry> = {};
  const failures: Record<string, SyncFailure> = {};
  const warnings: Array<Warning & { agent: string }> = [];

  for (const name of names) {
    settings[name] = agentSettings(manifest, name);
    const index = toResolve.indexOf(name);
    const old = own(previous?.agents, name);
    const replan = replanned.get(name);
    if (index === -1 && !replan) {
      agents[name] = old!;
      actions[name] = 'unchanged';
      continue;
    }
    const outcome: PromiseSettledResult<Resolution> =
      replan instanceof A2aLockError ? { status: 'rejected', reason: replan } : replan ? { status: 'fulfilled', value: replan } : outcomes[index]!;
    if (outcome.status === 'rejected') {
      const error = outcome.reason;
      if (!(error instanceof A2aLockError)) throw error;
      failures[name] = { exitCode: exitCodeFor(error), error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
      continue;
    }
    const resolution = outcome.value;
    warnings.push(...resolution.warnings.map((w) => ({ ...w, agent: name })));
    if (!resolution.entry) {
      failures[name] = {
        exitCode: ExitCode.Drift,
        ...(resolution.refusals.length ? { refusals: resolution.refusals } : {}),
        ...(resolution.drift.length ? { drift: resolution.drift } : {}),
        ...(resolution.signatureDrift?.length ? { signatureDrift: resolution.signatureDrift } : {}),
      };
      continue;
    }
    agents[name] = old ? { ...unknownFields(old), ...resolution.entry } : resolution.entry;
    if (!old) actions[name] = 'added';
    else {
      replaced[name] = old;
      actions[name] = sameJson(old, agents[name]) ? 'unchanged' : 'updated';
    }
  }
  for (const name of Object.keys(previous?.agents ?? {})) {
    if (!Object.hasOwn(manifest.agents, name)) {
      actions[name] = 'removed';
      replaced[name] = previous!.agents[name]!;
    }
  }

  // Keep unknown top-level fields of an existing lockfile (written by a newer minor version) and
  // its `$schema`; a lockfile without one gets the packaged schema.
  const lock: Lockfile = { $schema: LOCKFILE_SCHEMA_REF, ...(previous ?? {}), lockfileVersion: LOCKFILE_VERSION, settings, agents } as Lockfile;
  return { lock, actions, previous: replaced, failures, warnings };
}

/** Whether two settings negotiate alike: the same profile and the same credentials held. */
function sameNegotiationInputs(a: AgentSettings, b: AgentSettings): boolean {
  return sameJson({ ...profileOf(a), credentials: a.credentials }, { ...profileOf(b), credentials: b.credentials });
}

const ENTRY_FIELDS = new Set(['card', 'resolved', 'a2aVersion', 'version', 'integrity', 'snapshot', 'signature', 'extended', 'plans']);

/** The fields of a lock entry this version does not know (written by a newer minor version): kept on rewrite. */
function unknownFields(entry: LockEntry): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([key]) => !ENTRY_FIELDS.has(key)));
}
