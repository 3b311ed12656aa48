/**
 * Making a lockfile satisfy a manifest, the pure half (`resolve/sync.ts` runs the network in
 * between): {@link planSync} decides, per agent, whether its entry stays, is re-planned from its
 * own snapshots, or is resolved afresh, and under which constraint; {@link assembleLock} turns the
 * outcomes into the new lockfile, all or nothing.
 *
 * A plan never moves silently: when `lock` re-resolves an agent whose card and settings did not
 * change (a skill was added, or its entry failed the offline check), the skills it already locked
 * must negotiate on the fresh card to exactly their locked plans, and anything beyond them is a
 * failure that names `a2a update`. Only `update` (force) or a change of the agent's own negotiation
 * inputs in the manifest resolves them afresh.
 */

import { sameJson } from '../canonical.js';
import type { Warning } from '../card/model.js';
import { A2aLockError } from '../errors.js';
import { formatPath, own } from '../json-path.js';
import { type AgentSettings, agentSettings, type Manifest, planKeys } from '../manifest/schema.js';
import { unlockedWarnings } from './card-warnings.js';
import { destinationRefusal } from './credential-policy.js';
import { credentialRoutes } from './credential-routes.js';
import { checkOffline, replanFromSnapshot } from './offline.js';
import { keptProbe } from './probe.js';
import { keepSnapshotsOverDefaults } from './proto-defaults.js';
import { errorFailure, type Resolution, resolutionFailure, type SyncFailure } from './report.js';
import { keepResignedSnapshots } from './resign.js';
import { manifestMismatches, sameNegotiationInputs } from './satisfies.js';
import { LOCKFILE_SCHEMA_REF, LOCKFILE_VERSION, type LockEntry, type Lockfile, lockSchemas } from './schema.js';
import { credentialWarnings } from './unused-credentials.js';

/** What `lock`, `update` and `outdated` ask of a sync. */
export interface SyncRequest {
  /** Agent names to re-resolve even when their entry is up to date (`update`), or 'all'. */
  force?: ReadonlySet<string> | 'all';
  /** Agents to re-resolve with their locked plans as constraints (the two sides of a merge conflict differed). */
  recheck?: ReadonlySet<string>;
  /**
   * `a2a update`: forced agents may send the extended card's credential as the card served now
   * defines its scheme, to the interface it offers now. Otherwise (lock, outdated) an agent whose
   * card location is unchanged sends it only along its locked route.
   */
  acceptServedCredentialRoute?: boolean;
  /** The lockfile path, for messages. */
  source: string;
}

/** One agent to resolve from the network, and what binds it. */
interface AgentToResolve {
  name: string;
  /** Its locked entry when the fresh card must reproduce the locked plans exactly. */
  constrainTo?: LockEntry;
  /** Its locked entry when the extended card's credential may go only along the route locked there. */
  credentialRouteFrom?: LockEntry;
}

/** The decisions of {@link planSync}. */
export interface SyncPlan {
  /** Agents resolved from the network, in manifest order. */
  resolve: AgentToResolve[];
  /** Agents re-planned from their own snapshots (or whose snapshot failed its integrity: the error). */
  replanned: Map<string, Resolution | A2aLockError>;
  /** Renames ({@link renamesOf}): new name → old name; the new one is bound by the old one's lock. */
  renamed?: Map<string, string>;
}

/**
 * The renames in a manifest edit: an agent the lock lacks whose card location is that of a locked
 * agent gone from the manifest (new name → old name). Each old agent is renamed at most once, the
 * first new agent in manifest order taking it. A rename is not a way around the lock: `lock`
 * treats the new name as the old entry, with its constraint.
 * @internal
 */
export function renamesOf(manifest: Manifest, previous: Lockfile | undefined): Map<string, string> {
  const renamed = new Map<string, string>();
  if (!previous) return renamed;
  const gone = Object.keys(previous.agents).filter((name) => !Object.hasOwn(manifest.agents, name));
  for (const name of Object.keys(manifest.agents)) {
    if (Object.hasOwn(previous.agents, name)) continue;
    const from = gone.find(
      (old) => previous.agents[old]!.card === manifest.agents[name]!.card && ![...renamed.values()].includes(old),
    );
    if (from !== undefined) renamed.set(name, from);
  }
  return renamed;
}

/**
 * Decide what each manifest agent needs: agents missing from the lock, changed in the manifest,
 * forced or to be re-checked are resolved; an entry whose plans are not what its own snapshot
 * negotiates with the current settings (a hand edit, a clean git merge of two branches) is
 * re-planned from the snapshot, offline, accepting no fresh card; the rest stay as they are.
 */
export function planSync(manifest: Manifest, previous: Lockfile | undefined, request: SyncRequest): SyncPlan {
  const mismatches = manifestMismatches(manifest, previous);
  const renamed = renamesOf(manifest, previous);
  const isForced = (name: string) => request.force === 'all' || request.force?.has(name) === true;
  const replanned = new Map<string, Resolution | A2aLockError>();
  const resolve: AgentToResolve[] = [];
  for (const name of Object.keys(manifest.agents)) {
    const entry = manifest.agents[name]!;
    if (!(isForced(name) || mismatches.has(name) || request.recheck?.has(name))) {
      const locked = previous!.agents[name]!;
      const settings = previous!.settings[name]!;
      const report = checkOffline(locked, settings, `${request.source} ${formatPath(['agents', name])}`);
      if (report?.status === 'error') {
        replanned.set(
          name,
          new A2aLockError(report.error!.code, report.error!.message, {
            hint: `run a2a update ${name} to fetch the card again`,
          }),
        );
      } else if (report) {
        replanned.set(name, replanFromSnapshot(locked, settings, planKeys(entry), request.source));
      }
      continue;
    }
    // A renamed agent is its old entry under a new name.
    const lockedAs = renamed.get(name) ?? name;
    const old = own(previous?.agents, lockedAs);
    const oldSettings = own(previous?.settings, lockedAs);
    // Locked settings that do not reproduce the locked plans were edited in the lockfile, not in
    // the manifest: they do not lift the constraint.
    const inputsChanged =
      old !== undefined &&
      oldSettings !== undefined &&
      !sameNegotiationInputs(oldSettings, agentSettings(manifest, name)) &&
      checkOffline(old, oldSettings, request.source) === undefined;
    const constrained = !isForced(name) && old !== undefined && oldSettings !== undefined && !inputsChanged;
    const routeLocked =
      old !== undefined && old.card === entry.card && !(isForced(name) && request.acceptServedCredentialRoute);
    resolve.push({
      name,
      ...(constrained ? { constrainTo: old } : {}),
      ...(routeLocked ? { credentialRouteFrom: old } : {}),
    });
  }
  return { resolve, replanned, ...(renamed.size ? { renamed } : {}) };
}

/** What a sync did, per agent (`renamed`: the entry of an agent the manifest no longer names, under its new name; see {@link SyncResult.renamed}). */
export type SyncAction = 'added' | 'updated' | 'unchanged' | 'removed' | 'renamed';

/** Result of a sync. */
export interface SyncResult {
  /** The new lockfile (meaningful only when `failures` is empty). */
  lock: Lockfile;
  actions: Record<string, SyncAction>;
  /** The entries that were replaced, by agent name (for diffs). */
  previous: Record<string, LockEntry>;
  failures: Record<string, SyncFailure>;
  warnings: Array<Warning & { agent?: string }>;
  /** New name → old name, for each rename ({@link renamesOf}); the old name is not listed as removed. */
  renamed: Record<string, string>;
}

/**
 * The lockfile that satisfies `manifest`, from the plan and the outcome of each resolved agent
 * (`outcomes[i]` for `plan.resolve[i]`). Entries keep the fields this version does not know;
 * the lockfile keeps its unknown top-level fields and `$schema`.
 * @throws the rejection reason of an outcome that is not an A2aLockError (a bug)
 */
export function assembleLock(
  manifest: Manifest,
  previous: Lockfile | undefined,
  plan: SyncPlan,
  outcomes: ReadonlyMap<string, PromiseSettledResult<Resolution>>,
): SyncResult {
  const agents: Record<string, LockEntry> = {};
  const settings: Lockfile['settings'] = {};
  const actions: Record<string, SyncAction> = {};
  const replaced: Record<string, LockEntry> = {};
  const failures: Record<string, SyncFailure> = {};
  const warnings: Array<Warning & { agent: string }> = [];

  const renamed = plan.renamed ?? new Map<string, string>();
  for (const name of Object.keys(manifest.agents)) {
    settings[name] = agentSettings(manifest, name);
    const old = own(previous?.agents, renamed.get(name) ?? name);
    const replan = plan.replanned.get(name);
    const outcome: PromiseSettledResult<Resolution> | undefined =
      replan instanceof A2aLockError
        ? { status: 'rejected', reason: replan }
        : replan
          ? { status: 'fulfilled', value: replan }
          : outcomes.get(name);
    if (!outcome) {
      const refused = policyFailure(name, old!, settings[name], manifest.credentialDestinations);
      if (refused) failures[name] = refused;
      agents[name] = old!;
      actions[name] = 'unchanged';
      continue;
    }
    if (outcome.status === 'rejected') {
      failures[name] = errorFailure(outcome.reason);
      continue;
    }
    const resolution = outcome.value;
    // What the locked card's reading already said is not said again (lock/card-warnings.ts).
    const known = old?.card === manifest.agents[name]!.card ? old : undefined;
    warnings.push(...unlockedWarnings(resolution.warnings, known, settings[name]).map((w) => ({ ...w, agent: name })));
    if (!resolution.entry) {
      failures[name] = resolutionFailure(resolution);
      continue;
    }
    // A card only re-signed (same key, same payload), or differing in proto3 defaults alone, keeps
    // its locked snapshot: nothing to write.
    agents[name] = old
      ? withProbe(
          { ...unknownFields(old), ...keepSnapshotsOverDefaults(old, keepResignedSnapshots(old, resolution.entry)) },
          old,
        )
      : resolution.entry;
    const refused = policyFailure(name, agents[name], settings[name], manifest.credentialDestinations);
    if (refused) failures[name] = refused;
    warnings.push(...credentialWarnings(agents[name], settings[name]).map((w) => ({ ...w, agent: name })));
    if (!old) actions[name] = 'added';
    else {
      replaced[name] = old;
      actions[name] = renamed.has(name) ? 'renamed' : sameJson(old, agents[name]) ? 'unchanged' : 'updated';
    }
  }
  const renamedFrom = new Set(renamed.values());
  for (const name of Object.keys(previous?.agents ?? {})) {
    if (!Object.hasOwn(manifest.agents, name) && !renamedFrom.has(name)) {
      actions[name] = 'removed';
      replaced[name] = previous!.agents[name]!;
    }
  }
  const lock: Lockfile = {
    $schema: LOCKFILE_SCHEMA_REF,
    ...(previous ?? {}),
    lockfileVersion: LOCKFILE_VERSION,
    settings,
    agents,
  } as Lockfile;
  return { lock, actions, previous: replaced, failures, warnings, renamed: Object.fromEntries(renamed) };
}

/**
 * The fields of a lock entry this version does not know (written by a newer minor version): kept on
 * rewrite. The known ones are the entry schema's (`LockEntrySchema`, a loose object).
 */
/** `entry` with the probe record it keeps ({@link keptProbe}): its own, else `old`'s, for the interfaces it locks. */
function withProbe(entry: LockEntry, old: LockEntry): LockEntry {
  const { probe: fresh, ...rest } = entry;
  const probe = keptProbe(entry.plans, fresh, old.probe);
  return probe ? { ...rest, probe } : rest;
}

function unknownFields(entry: LockEntry): Record<string, unknown> {
  const known = lockSchemas().LockEntrySchema.shape;
  return Object.fromEntries(Object.entries(entry).filter(([key]) => !Object.hasOwn(known, key)));
}

/**
 * The failure of an entry that would send a credential where the manifest's `credentialDestinations`
 * does not allow (`credential-policy.ts`), kept or new alike; undefined when it may be written.
 */
function policyFailure(
  name: string,
  entry: LockEntry,
  settings: AgentSettings,
  list: readonly string[] | undefined,
): SyncFailure | undefined {
  if (list === undefined) return undefined;
  try {
    const refused = destinationRefusal(name, credentialRoutes(entry, settings), list);
    return refused ? errorFailure(refused) : undefined;
  } catch (error) {
    return errorFailure(error);
  }
}
