/**
 * Make a lockfile satisfy a manifest (`a2a lock`, `a2a add`, `a2a update`): resolve what is missing,
 * changed, corrupt or forced; drop what the manifest no longer names; keep every other entry as it
 * is, without network. All or nothing: the caller writes only when `failures` is empty.
 */
import type { Warning } from '../card/model.js';
import { canonicalJson } from '../canonical.js';
import { A2aLockError, ExitCode, exitCodeFor, type ErrorCode } from '../errors.js';
import { agentSettings, type Manifest } from '../manifest/schema.js';
import { mapSettled } from '../pool.js';
import { checkOffline, DEFAULT_CONCURRENCY, manifestMismatches, resolveAgent, type EngineOptions, type SkillRefusal } from './engine.js';
import { LOCKFILE_VERSION, type LockEntry, type Lockfile } from './schema.js';

/** Why one agent could not be resolved. */
export interface SyncFailure {
  exitCode: ExitCode;
  /** A load/validation error. */
  error?: { code: ErrorCode; message: string };
  /** Skills negotiation refused. */
  refusals?: SkillRefusal[];
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
  warnings: Array<Warning & { agent: string }>;
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
    return checkOffline(entry, previous!.settings[name]!, `${options.source} $.agents.${name}`) !== undefined;
  });

  const outcomes = await mapSettled(toResolve, options.concurrency ?? DEFAULT_CONCURRENCY, (name) =>
    resolveAgent(manifest.agents[name]!, agentSettings(manifest, name), options),
  );

  const agents: Record<string, LockEntry> = {};
  const settings: Lockfile['settings'] = {};
  const actions: Record<string, SyncAction> = {};
  const replaced: Record<string, LockEntry> = {};
  const failures: Record<string, SyncFailure> = {};
  const warnings: Array<Warning & { agent: string }> = [];

  for (const name of names) {
    settings[name] = agentSettings(manifest, name);
    const index = toResolve.indexOf(name);
    const old = previous?.agents[name];
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
      failures[name] = { exitCode: ExitCode.Drift, refusals: resolution.refusals };
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
    if (!(name in manifest.agents)) {
      actions[name] = 'removed';
      replaced[name] = previous!.agents[name]!;
    }
  }

  // Keep unknown top-level fields of an existing lockfile (written by a newer minor version).
  const lock: Lockfile = { ...(previous ?? {}), lockfileVersion: LOCKFILE_VERSION, settings, agents } as Lockfile;
  return { lock, actions, previous: replaced, failures, warnings };
}
