/**
 * `a2a outdated [agent...]`: what `a2a update` would change, without writing (`a2a diff` is the review of two lockfiles, `commands/diff.ts`).
 * The cards are fetched and every agent is resolved exactly as `update` resolves it (without the
 * lock's constraint); each entry that would change is shown as its card version, its card changes
 * path by path (structural or descriptive), its signature records and its plan fields per skill.
 * Exit 1 when anything would change (as `npm outdated` does).
 */

import { ExitCode } from '../errors.js';
import { formatPath, own } from '../json-path.js';
import { changeKind, type EntryChanges, entryChanges } from '../lock/changes.js';
import { hintFailure } from '../lock/hints.js';
import { checkOffline } from '../lock/offline.js';
import {
  type AgentReport,
  outdatedExitCode,
  overallExitCode,
  type ReportedError,
  type SyncFailure,
  syncFailureJson,
} from '../lock/report.js';
import { assertManifestAgents } from '../manifest/agent-name.js';
import type { Plan } from '../negotiate/types.js';
import { syncLock } from '../resolve/sync.js';
import { readProject } from '../resolve/verify.js';
import { type CommandResult, type GlobalOptions, paths, unreviewedResolveOptions } from './context.js';

/** One agent in the `--json` document of `outdated`: `status` and what would change; an agent that cannot be resolved has the failure shape of `a2a update` ({@link syncFailureJson}). */
type OutdatedAgentDocument =
  | { status: 'current' }
  | { status: 'added'; plans: Record<string, Plan> }
  | { status: 'removed' }
  | ({ status: 'outdated'; change?: 'structural' | 'descriptive' } & EntryChanges)
  | { status: 'error'; error: ReportedError }
  | ReturnType<typeof syncFailureJson>;

/** One agent as the human output of `outdated` shows it. */
export type OutdatedAgent = { name: string } & (
  | { status: 'error'; error: ReportedError }
  | { status: 'failed'; failure: SyncFailure }
  | { status: 'current'; version: string }
  | { status: 'added'; resolved: string; version: string }
  | { status: 'removed' }
  | { status: 'outdated'; change?: 'structural' | 'descriptive'; changes: EntryChanges }
);

/**
 * The answer of `a2a outdated`. The `--json` document is `{"ok", "outdated": [names], "agents":
 * {name: OutdatedAgentDocument}}` (plus `warnings`); `human` (not in the document) holds the
 * lockfile's path and every agent checked, in order, with what its line shows.
 */
export interface OutdatedData {
  ok: boolean;
  /** The agents `a2a update` (or `a2a lock`, for agents added or removed) would change. */
  outdated: string[];
  agents: Record<string, OutdatedAgentDocument>;
  human: { lockfile: string; agents: OutdatedAgent[] };
}

/**
 * The agents `a2a update` would change and how; exit 1 when any would.
 * @throws UsageError unknown agent; OutOfDateError no lockfile; InvalidInputError invalid manifest or lockfile
 */
export async function runOutdated(
  options: GlobalOptions,
  args: { agents: string[] },
): Promise<CommandResult<OutdatedData>> {
  const p = paths(options);
  const { manifest, lock } = await readProject(p.manifest, p.lockfile, p.lookedUpTo);
  assertManifestAgents(manifest, args.agents);
  // A snapshot that no longer matches its integrity is an error (exit 2), as for verify and lock,
  // not a card change that update would make.
  const invalid = new Map<string, AgentReport>();
  for (const name of args.agents.length ? args.agents : Object.keys(manifest.agents)) {
    const entry = own(lock.agents, name);
    const settings = own(lock.settings, name);
    const report =
      entry && settings ? checkOffline(entry, settings, `${p.lockfile} ${formatPath(['agents', name])}`) : undefined;
    if (report?.status === 'error') invalid.set(name, report);
  }
  const sync = await syncLock(
    manifest,
    lock,
    { force: args.agents.length ? new Set(args.agents) : 'all', source: p.lockfile },
    await unreviewedResolveOptions(options, p.baseDir),
  );
  // Every agent of the manifest (resolved or failed; failures are not in `actions`), then the removed ones.
  const names = args.agents.length
    ? args.agents
    : [...new Set([...Object.keys(manifest.agents), ...Object.keys(sync.actions)])];
  const shown: OutdatedAgent[] = [];
  const agents: Record<string, OutdatedAgentDocument> = {};
  const codes: ExitCode[] = [];
  const outdated: string[] = [];
  for (const name of names) {
    const broken = invalid.get(name);
    if (broken) {
      shown.push({ name, status: 'error', error: broken.error! });
      agents[name] = { status: 'error', error: broken.error! };
      codes.push(broken.exitCode);
      continue;
    }
    // A refusal with the step that resolves it, as update would print it (lock/hints.ts).
    const refused = own(sync.failures, name);
    const failure = refused ? hintFailure(name, refused) : undefined;
    if (failure) {
      shown.push({ name, status: 'failed', failure });
      agents[name] = syncFailureJson(failure);
      codes.push(failure.exitCode);
      continue;
    }
    const action = own(sync.actions, name);
    if (action === undefined) continue;
    const old = own(sync.previous, name);
    const now = own(sync.lock.agents, name);
    if (action === 'unchanged') {
      shown.push({ name, status: 'current', version: now!.version });
      agents[name] = { status: 'current' };
      continue;
    }
    outdated.push(name);
    codes.push(outdatedExitCode(true));
    if (action === 'added') {
      shown.push({ name, status: 'added', resolved: now!.resolved, version: now!.version });
      agents[name] = { status: 'added', plans: now!.plans };
    } else if (action === 'removed') {
      shown.push({ name, status: 'removed' });
      agents[name] = { status: 'removed' };
    } else {
      const changes = entryChanges(old!, now!);
      const change = changeKind(changes.cardChanges);
      shown.push({ name, status: 'outdated', ...(change ? { change } : {}), changes });
      agents[name] = { status: 'outdated', ...(change ? { change } : {}), ...changes };
    }
  }
  const exitCode = overallExitCode(codes);
  return {
    exitCode,
    data: { ok: exitCode === ExitCode.Ok, outdated, agents, human: { lockfile: p.lockfile, agents: shown } },
    warnings: sync.warnings,
  };
}
