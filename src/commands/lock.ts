/**
 * `a2a lock`, `a2a update [agent...]` and `a2a add <name> <card>`: compute the lockfile that
 * satisfies the manifest and write it, all or nothing.
 */

import { sameJson } from '../canonical.js';
import { ExitCode, UsageError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { withFileLock } from '../fs/file-lock.js';
import { readManifest, readManifestFile } from '../fs/manifest.js';
import { own } from '../json-path.js';
import { type EntryChanges, entryChanges } from '../lock/changes.js';
import { lockDigest } from '../lock/digest.js';
import { type AddRetry, hintFailure } from '../lock/hints.js';
import { diffLockfiles, type LockfileDiff } from '../lock/lockfile-diff.js';
import { overallExitCode, type SyncFailure, syncFailureJson } from '../lock/report.js';
import { assertManifestAgents } from '../manifest/agent-name.js';
import {
  type AgentFlags,
  applyAgentEdit,
  editsManifest,
  parseAgentFlags,
  type WrittenManifest,
} from '../manifest/flags.js';
import { parseManifest } from '../manifest/parse.js';
import type { Manifest } from '../manifest/schema.js';
import { type LockProjectResult, lockProject } from '../resolve/lock-project.js';
import type { SyncAction, SyncResult } from '../resolve/sync.js';
import { type CommandResult, type GlobalOptions, paths, unreviewedResolveOptions } from './context.js';

/** One agent in the `--json` document of `lock`, `update` and `add`: its action and, updated, what changed; or why it failed ({@link syncFailureJson}). */
type LockAgentDocument =
  | ({ status: SyncAction; from?: string } & Partial<EntryChanges>)
  | ReturnType<typeof syncFailureJson>;

/** One agent `lock`, `update` or `add` resolved, as the human output shows it. */
export interface LockedAgent {
  name: string;
  action: SyncAction;
  /** Re-resolved on request (`a2a update`, all agents or this one): shown even when unchanged. */
  forced: boolean;
  /** `renamed`: the agent's old name. */
  from?: string;
  /** The new entry's card location and card version (absent when removed). */
  entry?: { resolved: string; version: string };
  /** What replacing the entry changes (when updated). */
  changes?: EntryChanges;
}

/**
 * The answer of `a2a lock`, `a2a update` and `a2a add`. The `--json` document is
 * `{"ok", "written", "agents": {name: LockAgentDocument}}` (plus `warnings`); `human` (not in the
 * document) holds the lockfile's path, the failed agents (then nothing is written) or the resolved
 * ones in order, and for `add` the manifest's path and whether it was written.
 */
export interface LockData {
  ok: boolean;
  written: boolean;
  agents: Record<string, LockAgentDocument>;
  human: {
    lockfile: string;
    failures: Array<{ name: string; failure: SyncFailure }>;
    agents: LockedAgent[];
    /** What the write changed, before → after ({@link diffLockfiles}): the change view `lock` and `update` print. Absent when nothing was written. */
    review?: LockfileDiff;
    /** `update` only, when it succeeded: the lockfile's digest (`lock/digest.ts`), what its markdown view's marker carries. */
    digest?: string;
    /** `add` only: the manifest, and whether it was written, was already up to date, or was not written (the lock failed). */
    manifest?: { path: string; outcome: 'written' | 'up-to-date' | 'not-written' };
  };
}

/**
 * The flags `lock`, `add` and `update` share: `probe` (default true; `--no-probe`: false) sends each
 * resolved agent's locked interfaces one GetTask and records what answered; `strict` makes a
 * not-served interface fail the agent (nothing written) instead of a warning.
 */
export interface LockFlags {
  probe?: boolean;
  strict?: boolean;
}

/**
 * What a command adds to its failures' hints ({@link hintRefusals}, {@link hintDrift}): `add`, the
 * agent `a2a add` was adding and how to run it again; `drift`, the step that accepts an agent's
 * drift when it is not `a2a update <agent>`.
 */
interface FailureHints {
  add?: { name: string; retry: AddRetry };
  drift?: (name: string) => string | undefined;
}

/** Lock the project ({@link lockProject}) and shape its answer. `beforeWrite` runs once the new lockfile is known to be good, before it is written (add writes the manifest there). */
export async function run(
  options: GlobalOptions,
  manifest: Manifest,
  force: ReadonlySet<string> | 'all' | undefined,
  beforeWrite?: () => Promise<void>,
  hints?: FailureHints,
  flags: LockFlags = {},
): Promise<CommandResult<LockData>> {
  const p = paths(options);
  const probe = flags.probe === false ? undefined : flags.strict ? ('strict' as const) : ('warn' as const);
  const locked = await lockProject({
    lockfile: p.lockfile,
    manifest,
    force,
    resolve: async () => ({ ...(await unreviewedResolveOptions(options, p.baseDir)), ...(probe ? { probe } : {}) }),
    beforeWrite,
  });
  if (Object.keys(locked.sync.failures).length > 0) return failedResult(p.lockfile, manifest, locked.sync, hints);
  return lockedResult(p.lockfile, force, locked);
}

/** The answer when an agent failed (nothing was written): every agent with its outcome, in manifest order (then those removed), the failing ones with their hints. */
function failedResult(
  lockfile: string,
  manifest: Manifest,
  sync: SyncResult,
  hints: FailureHints | undefined,
): CommandResult<LockData> {
  const agents: Record<string, LockAgentDocument> = {};
  // The step that resolves each refusal (lock/hints.ts: the same words verify uses).
  const failed = Object.entries(sync.failures).map(
    ([name, f]) => [name, hintFailure(name, f, hints?.add?.name === name ? hints.add.retry : undefined)] as const,
  );
  for (const [name, f] of failed) {
    const next = f.drift || f.signatureDrift ? hints?.drift?.(name) : undefined;
    if (next) f.next = next;
  }
  const byName = new Map<string, SyncFailure>(failed);
  // What the others would have become (nothing was written).
  for (const name of Object.keys(manifest.agents)) {
    const f = byName.get(name);
    const action = own(sync.actions, name);
    const from = own(sync.renamed, name);
    if (f) agents[name] = { ...syncFailureJson(f), ...(from !== undefined ? { from } : {}) };
    else if (action) agents[name] = { status: action, ...(from !== undefined ? { from } : {}) };
  }
  for (const [name, action] of Object.entries(sync.actions))
    if (!Object.hasOwn(agents, name)) agents[name] = { status: action };
  return {
    exitCode: overallExitCode(failed.map(([, f]) => f.exitCode)),
    data: {
      ok: false,
      written: false,
      agents,
      human: { lockfile, failures: failed.map(([name, failure]) => ({ name, failure })), agents: [] },
    },
    warnings: sync.warnings,
  };
}

/** The answer when every agent resolved: each with its action and, updated, what changed; the review of what the write changed. */
function lockedResult(
  lockfile: string,
  force: ReadonlySet<string> | 'all' | undefined,
  { sync, previous, written }: LockProjectResult,
): CommandResult<LockData> {
  const agents: Record<string, LockAgentDocument> = {};
  const locked: LockedAgent[] = [];
  for (const [name, action] of Object.entries(sync.actions)) {
    const from = own(sync.renamed, name);
    const entry: LockAgentDocument = { status: action, ...(from !== undefined ? { from } : {}) };
    const old = own(sync.previous, name);
    const now = own(sync.lock.agents, name);
    const agent: LockedAgent = {
      name,
      action,
      forced: force === 'all' || Boolean(force?.has(name)),
      ...(from !== undefined ? { from } : {}),
      ...(now ? { entry: { resolved: now.resolved, version: now.version } } : {}),
    };
    if (old && now && (action === 'updated' || (action === 'renamed' && !sameJson(old, now)))) {
      const changes = entryChanges(old, now);
      Object.assign(entry, changes);
      agent.changes = changes;
    }
    agents[name] = entry;
    locked.push(agent);
  }
  const review = written ? diffLockfiles(previous, sync.lock) : undefined;
  return {
    exitCode: ExitCode.Ok,
    data: {
      ok: true,
      written,
      agents,
      human: {
        lockfile,
        failures: [],
        agents: locked,
        ...(review ? { review } : {}),
        // Update's markdown (a pull request body) carries it; lock and add (no markdown) skip the walk.
        ...(force !== undefined ? { digest: lockDigest(sync.lock) } : {}),
      },
    },
    warnings: sync.warnings,
  };
}

/** `a2a lock`: make the lockfile satisfy the manifest. One writer at a time per lockfile ({@link withFileLock}). */
export async function runLock(options: GlobalOptions, flags: LockFlags = {}): Promise<CommandResult<LockData>> {
  return withFileLock(paths(options).lockfile, async () => {
    const p = paths(options);
    const manifest = await readManifest(p.manifest, p.lookedUpTo);
    return run(options, manifest, undefined, undefined, undefined, flags);
  });
}

/**
 * `a2a update [agent...]`: re-resolve the named agents (all when none) without the lock's
 * constraint. With `card` (`--card <url>`) or settings (`--credential`, `--rebase-interfaces`, …;
 * {@link AgentFlags}), one agent: its manifest entry changes too, and the manifest and the lockfile
 * are written together (the manifest just before the lockfile, neither when the update fails).
 * @throws UsageError a setting for other than one agent, or a bad flag value (exit 2, nothing written)
 */
export async function runUpdate(
  options: GlobalOptions,
  agents: string[],
  card?: string,
  flags: AgentFlags = {},
  lockFlags: LockFlags = {},
): Promise<CommandResult<LockData>> {
  const edit = parseAgentFlags(flags);
  const changes = card !== undefined || editsManifest(edit);
  if (changes && agents.length !== 1)
    throw new UsageError(
      `${card !== undefined ? '--card' : 'a setting'} needs exactly one agent (a2a update <agent> ${card !== undefined ? '--card <url>' : '--credential <scheme>=<ENV>'}); got ${agents.length || 'none'}`,
    );
  return withFileLock(paths(options).lockfile, async () => {
    const p = paths(options);
    const { manifest, text: current, written } = await readManifestFile(p.manifest, p.lookedUpTo);
    assertManifestAgents(manifest, agents);
    if (!changes)
      return run(options, manifest, agents.length ? new Set(agents) : 'all', undefined, undefined, lockFlags);
    const raw = written as WrittenManifest;
    const name = agents[0]!;
    const entry = { ...raw.agents![name]!, ...(card !== undefined ? { card } : {}) };
    const text = `${JSON.stringify(applyAgentEdit(raw, name, entry, edit), null, 2)}\n`;
    const result = await run(
      options,
      parseManifest(text, p.manifest),
      new Set(agents),
      async () => {
        if (text !== current) await writeFileAtomic(p.manifest, text);
      },
      undefined,
      lockFlags,
    );
    result.data.human.manifest = {
      path: p.manifest,
      outcome: result.exitCode !== ExitCode.Ok ? 'not-written' : text === current ? 'up-to-date' : 'written',
    };
    return result;
  });
}
