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
import { canonicalJson } from '../canonical.js';
import { formatPath, own } from '../json-path.js';
import { A2aLockError, ExitCode, exitCodeFor, type ErrorCode } from '../errors.js';
import { agentSettings, type Manifest } from '../manifest/schema.js';
import { mapSettled } from '../pool.js';
import { checkOffline, DEFAULT_CONCURRENCY, manifestMismatches, resolveAgent, sameSettings, type EngineOptions, type PlanDrift, type SkillRefusal } from './engine.js';
import { LOCKFILE_VERSION, type LockEntry, type Lockfile } from './schema.js';

/** Why one agent could not be resolved. */
export interface SyncFailure {
  exitCode: ExitCode;
  /** A load/validation error. */
  error?: { code: ErrorCode; message: string };
  /** Skills negotiation refused. */
  refusals?: SkillRefusal[];
  /** Locked skills whose fresh plan goes beyond the lockfile (run `a2a update`). */
  drift?: PlanDrift[];
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
  options: EngineOptions & { force?: ReadonlySet<string> | 'all'; source: string },
): Promise<SyncResult> {
  const mismatches = manifestMismatches(manifest, previous);
  const names = Object.keys(manifest.agents);
  const toResolve = names.filter((name) => {
    if (options.force === 'all' || options.force?.has(name) || mismatches.has(name)) return true;
    const entry = previous!.agents[name]!;
    return checkOffline(entry, previous!.settings[name]!, `${options.source} ${formatPath(['agents', name])}`) !== undefined;
  });

  const outcomes = await mapSettled(toResolve, options.concurrency ?? DEFAULT_CONCURRENCY, (name) => {
    const entry = manifest.agents[name]!;
    const settings = agentSettings(manifest, name);
    const old = own(previous?.agents, name);
    const forced = options.force === 'all' || options.force?.has(name);
    const constrained = !forced && old !== undefined && old.card === entry.card && sameSettings(own(previous?.settings, name), settings);
    return resolveAgent(entry, settings, options, constrained ? old.plans : undefined);
  });

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
    if (index === -1) {
      agents[name] = old!;
      actions[name] = 'unchanged';
      continue;
    }
    const outcome = outcomes[index]!;
    if (outcome.status === 'rejected') {
      const error = outcome.reason;
      if (!(error instanceof A2aLockError)) throw error;
      failures[name] = { exitCode: exitCodeFor(error), error: { code: error.code, message: error.message } };
      continue;
    }
    const resolution = outcome.value;
    warnings.push(...resolution.warnings.map((w) => ({ ...w, agent: name })));
    if (!resolution.entry) {
      failures[name] = {
        exitCode: ExitCode.Drift,
        ...(resolution.refusals.length ? { refusals: resolution.refusals } : {}),
        ...(resolution.drift.length ? { drift: resolution.drift } : {}),
      };
      continue;
    }
    agents[name] = old ? { ...old, ...resolution.entry } : resolution.entry;
    if (!old) actions[name] = 'added';
    else {
      replaced[name] = old;
      actions[name] = canonicalJson(old) === canonicalJson(agents[name]) ? 'unchanged' : 'updated';
    }
  }
  for (const name of Object.keys(previous?.agents ?? {})) {
    if (!Object.hasOwn(manifest.agents, name)) {
      actions[name] = 'removed';
      replaced[name] = previous!.agents[name]!;
    }
  }

  // Keep unknown top-level fields of an existing lockfile (written by a newer minor version).
  const lock: Lockfile = { ...(previous ?? {}), lockfileVersion: LOCKFILE_VERSION, settings, agents } as Lockfile;
  return { lock, actions, previous: replaced, failures, warnings };
}
