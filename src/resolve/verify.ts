/**
 * Verification: the checks behind `a2a verify` and `a2a install`, returning data. For each agent:
 * the lock against the manifest, each snapshot's integrity, that its snapshot negotiates exactly
 * its locked plans and (unless offline) the cards served now ("beyond the lockfile"). Never writes.
 * With a review base (`--base`, or the pull request's base CI names), a credential goes only along
 * a route the base lockfile had for the agent (`lock/base-gate.ts`).
 */
import { dirname, resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { cardOrigin } from '../card/location.js';
import { unsetOriginAuth } from '../credentials.js';
import { A2aLockError, type ExitCode, OutOfDateError, UsageError, wholeNumberIn } from '../errors.js';
import { type CiSource, ciBase, gitRoot, mergeBase, readAtRevision, resolveRevision, underCi } from '../fs/git.js';
import { readLockfile } from '../fs/lockfile.js';
import { readManifest } from '../fs/manifest.js';
import { formatPath, own } from '../json-path.js';
import {
  baseUnreadable,
  type CredentialGate,
  credentialRouteNew,
  gateFromBase,
  unreadEntryChanged,
  withheldOriginAuth,
} from '../lock/base-gate.js';
import { policyReport } from '../lock/credential-policy.js';
import { parseLockfile } from '../lock/format.js';
import { hintDrift } from '../lock/hints.js';
import { checkOffline, tamperedReport } from '../lock/offline.js';
import {
  type AgentReport,
  okReport,
  outOfDateReport,
  overallExitCode,
  strictExitCode,
  withUnchecked,
} from '../lock/report.js';
import { manifestMismatches } from '../lock/satisfies.js';
import type { Lockfile } from '../lock/schema.js';
import { credentialWarnings } from '../lock/unused-credentials.js';
import { parseManifest } from '../manifest/parse.js';
import type { Manifest } from '../manifest/schema.js';
import { manifestSecretValues } from '../manifest/secret-values.js';
import { interleaveBy, mapSettled } from '../pool.js';
import { checkServed, loadServedCard, servedCardSettles } from './check-served.js';
import { withOriginAuthLoaded } from './load-card.js';
import { DEFAULT_CONCURRENCY, type ResolveOptions } from './options.js';
import { verifyProbes } from './verify-probe.js';

/** A manifest and its lockfile, read and validated. */
export interface Project {
  manifest: Manifest;
  lock: Lockfile;
  /** Absolute path of the lockfile. */
  lockfile: string;
  /** Directory of the manifest. */
  baseDir: string;
}

/**
 * Read the manifest and the lockfile (`lookedUpTo`: see `readManifest`).
 * @throws InvalidInputError (invalid manifest or lockfile); OutOfDateError when the lockfile does not exist
 */
export async function readProject(manifestPath: string, lockfilePath: string, lookedUpTo?: string): Promise<Project> {
  const manifest = await readManifest(manifestPath, lookedUpTo);
  const read = await readLockfile(lockfilePath);
  if (!read) throw new OutOfDateError(`${lockfilePath}: not found`);
  return { manifest, lock: read.lock, lockfile: lockfilePath, baseDir: dirname(manifestPath) };
}

/** Which agents {@link checkProject} checks, and how. */
export interface ProjectCheck {
  /** Agents of the manifest or the lock; the reports keep this order. */
  names: readonly string[];
  /** Snapshots and plans only, no network (`verify --offline`). */
  offline?: boolean;
  /** A review run's gate per agent (`verify --base`): where its credentials may go. Absent: no base. */
  gateOf?: (name: string) => CredentialGate | undefined;
  /** `verify --probe`: probe each locked interface of an agent whose card check found it sound (not with `offline`). */
  probe?: boolean;
  /** `--strict`, for the probe's verdict (an interface not served the lockfile did not record as served fails too). */
  strict?: boolean;
}

/**
 * The report of an agent whose lock entry is out of date with the manifest: `out-of-date`, unless a
 * snapshot fails its integrity (`lockfile-invalid`, which `--ignore` never passes over).
 */
function outOfDateOrTampered(project: Project, name: string, reasons: string[]): AgentReport {
  const entry = own(project.lock.agents, name);
  return (
    (entry && tamperedReport(entry, `${project.lockfile} ${formatPath(['agents', name])}`)) ?? outOfDateReport(reasons)
  );
}

/**
 * Check agents: out-of-date entries, then each entry offline, then (unless `offline`) the cards
 * served now, at most `options.concurrency` at once.
 */
export async function checkProject(
  project: Project,
  { names, offline = false, gateOf, probe = false, strict = false }: ProjectCheck,
  options: ResolveOptions,
): Promise<Record<string, AgentReport>> {
  const mismatches = manifestMismatches(project.manifest, project.lock);
  // No card may quote a credential value the manifest names (an agent sent its token can echo it).
  options = { ...options, knownSecrets: manifestSecretValues(project.manifest, options.env ?? {}) };
  const reports: Record<string, AgentReport> = {};
  const locked: string[] = [];
  for (const name of names) {
    const reasons = mismatches.get(name);
    if (reasons) reports[name] = outOfDateOrTampered(project, name, reasons);
    else locked.push(name);
  }
  // Pacing (docs/explanation/performance.md): a slot sends its agent's uncredentialed card request first; a card
  // that settles yields the slot (`release`) and its CPU work waits one turn, so the next requests
  // leave now instead of after a whole batch of checks. The offline check still comes before
  // anything that carries credentials.
  const scheduled = offline ? locked : interleaveBy(locked, (name) => cardOrigin(project.lock.agents[name]!.card));
  const results = await mapSettled(
    scheduled,
    offline ? 1 : (options.concurrency ?? DEFAULT_CONCURRENCY),
    async (name, _index, release): Promise<AgentReport> => {
      // Probing keeps the slot: its requests count against the concurrency too.
      const report = await checkAgent(project, name, { offline, gateOf }, probe ? keepSlot : release, options);
      if (!probe) return report;
      const locked = {
        entry: project.lock.agents[name]!,
        settings: project.lock.settings[name]!,
        agent: own(project.manifest.agents, name),
      };
      return verifyProbes(name, locked, report, gateOf?.(name), strict, options);
    },
    offline ? undefined : options.onProgress,
  );
  scheduled.forEach((name, i) => {
    const r = results[i]!;
    if (r.status === 'rejected') throw r.reason;
    // A locked skill refused now: the step that resolves it (the same hint update and lock give).
    reports[name] = r.value.drift ? { ...r.value, drift: hintDrift(name, r.value.drift) } : r.value;
    // A held credential nothing sends (issue 14, point 5): said on every check of a sound entry.
    if (r.value.status !== 'error' && r.value.status !== 'out-of-date') {
      const unused = credentialWarnings(project.lock.agents[name]!, project.lock.settings[name]!);
      if (unused.length) reports[name] = { ...reports[name]!, warnings: [...r.value.warnings, ...unused] };
    }
  });
  return Object.fromEntries(names.map((n) => [n, reports[n]!]));
}

/** A `release` that keeps the slot (a probe's requests come after the card's). */
function keepSlot(): void {
  // The slot is released when the call settles.
}

/**
 * Check one locked agent whose entry matches the manifest: offline (`offline`), or against the
 * cards served now (its uncredentialed card request first; `release` yields its slot once that
 * card settles everything).
 */
async function checkAgent(
  project: Project,
  name: string,
  { offline, gateOf }: Pick<ProjectCheck, 'offline' | 'gateOf'>,
  release: () => void,
  options: ResolveOptions,
): Promise<AgentReport> {
  const entry = project.lock.agents[name]!;
  const settings = project.lock.settings[name]!;
  const source = `${project.lockfile} ${formatPath(['agents', name])}`;
  // credentialDestinations: an entry that would send a credential elsewhere fails, nothing sent.
  const refused = policyReport(name, entry, settings, project.manifest.credentialDestinations);
  if (offline) return checkOffline(entry, settings, source) ?? refused ?? okReport();
  if (refused) return checkOffline(entry, settings, source) ?? refused;
  if (entry.originAuth && Object.keys(entry.originAuth).length > 0)
    return checkWithOriginAuth(project, name, source, gateOf?.(name), options);
  const served = loadServedCard(entry, settings, options);
  const loaded = await served.catch(() => undefined);
  if (loaded && servedCardSettles(entry, loaded)) {
    release();
    await nextTurn();
  }
  const offlineReport = checkOffline(entry, settings, source);
  if (offlineReport) return offlineReport;
  // Only the extended card's request carries a credential: the gate is read for those agents alone.
  const gate = entry.extended ? gateOf?.(name) : undefined;
  return checkServed(
    {
      entry,
      settings,
      credentials: own(project.manifest.agents, name)?.credentials ?? {},
      snapshotsIntact: true,
      served,
      ...(gate ? { gate } : {}),
    },
    options,
  );
}

/**
 * An agent behind platform authentication: its card request carries a credential, so the
 * offline check comes first, then the review gate (a placement the base lockfile did not record
 * alike withholds every one: nothing is sent, the agent is `unchecked`), then the cards served
 * now with the placements its entry records.
 */
async function checkWithOriginAuth(
  project: Project,
  name: string,
  source: string,
  gate: CredentialGate | undefined,
  options: ResolveOptions,
): Promise<AgentReport> {
  const entry = project.lock.agents[name]!;
  const settings = project.lock.settings[name]!;
  const offlineReport = checkOffline(entry, settings, source);
  if (offlineReport) return offlineReport;
  const withheld = gate ? withheldOriginAuth(gate, entry) : [];
  if (gate && withheld.length > 0)
    return withUnchecked(okReport(), gate.kind === 'unreadable' ? baseUnreadable() : credentialRouteNew(withheld));
  // No platform credential in this run (a fork's pull request has no secrets): nothing is asked
  // for; checked offline only, so `unchecked`, never `ok` (exit 1 under --strict). Under a gate,
  // an entry the pull request changed names the routes it adds (`credential-route-new`).
  const unset = unsetOriginAuth(entry.originAuth!, options);
  if (unset !== undefined)
    return withUnchecked(
      okReport(),
      (gate && unreadEntryChanged(gate, entry, settings, own(project.manifest.agents, name)?.credentials ?? {})) ?? {
        reason: 'credential-unset',
        message: `not checked against the card served now: ${unset}`,
      },
    );
  const agentOptions = await withOriginAuthLoaded(options, entry.originAuth);
  return checkServed(
    {
      entry,
      settings,
      credentials: own(project.manifest.agents, name)?.credentials ?? {},
      snapshotsIntact: true,
      ...(gate && entry.extended ? { gate } : {}),
    },
    agentOptions,
  );
}

/** Options of {@link verifyLockfile}: the network options (timeoutMs, concurrency, retries, allowHttp, dispatcher), `env`, `onProgress`, and what to check. */
export interface VerifyOptions extends Omit<ResolveOptions, 'baseDir' | 'probe'> {
  /** Path of `a2a.json`, relative to the working directory. Default `a2a.json`. */
  manifest?: string;
  /** Path of the lockfile. Default: `a2a.lock.json` beside the manifest. */
  lockfile?: string;
  /** Agents to verify (default: every agent of the manifest and the lock). */
  agents?: string[];
  /** Check snapshots and plans only; no network. */
  offline?: boolean;
  /** Also fail (exit 1) on card changes that leave every plan equal, and on parts that could not be checked. */
  strict?: boolean;
  /**
   * Also probe each locked interface (every plan's and every locked fallback's): one GetTask for a
   * task id that cannot exist, with the credential the plan sends (none the review gate withholds).
   * A locked `served` that answers `not-served` fails the agent (`interface-not-served`, exit 6).
   * Not with `offline`.
   */
  probe?: boolean;
  /**
   * The revision whose lockfile says where credentials may go (`verify --base <rev>`): a credential
   * is sent only along a route that lockfile already had for the same agent; other agents are
   * `unchecked` (`credential-route-new`). Default: the pull request's base when the CI environment
   * (`env`) names one ({@link ciBase}); a pull request whose base is not in the clone sends no
   * credential at all (`base-unreadable`). `false`: no base, credentials go along the locked route
   * (`--no-base`). Not read with `offline` (nothing is sent).
   */
  base?: string | false;
}

/** Where the base of a {@link verifyLockfile} run came from: `--base`, or the CI variable that named it (`ciBase` in `src/fs/git.ts`). */
type BaseSource = '--base' | CiSource;

/**
 * The base a run compared credential routes against: `read` (`rev`, the commit: always an
 * ancestor of HEAD, the merge-base of HEAD and `ref`, the fully qualified ref it was resolved
 * through such as `refs/remotes/origin/main`, or the revision or commit named; and whether its
 * lockfile was there: `absent` means every agent is new; `invalid`, it did not parse, and no
 * credential route is allowed), or `unreadable` (why, and how to make it readable; no credential
 * is sent).
 */
export type VerifyBase =
  | { status: 'read'; rev: string; ref: string; source: BaseSource; lockfile: 'present' | 'absent' | 'invalid' }
  | { status: 'unreadable'; source: BaseSource; ref?: string; reason: string; hint: string };

/** Result of {@link verifyLockfile}: the overall exit code (the lowest non-zero agent code) and a report per agent. */
export interface VerifyResult {
  ok: boolean;
  /** 0 ok · 1 drift or out of date · 1 invalid card · 2 invalid input · 3 unreachable · 4 auth refused · 5 timeout. */
  exitCode: ExitCode;
  /** Per agent; each report's `exitCode` already reflects `strict`. */
  agents: Record<string, AgentReport>;
  /** The base credentials were gated by, when there was one. */
  base?: VerifyBase;
}

/** A base as read: what the run reports, and each agent's gate. */
export interface ReviewBase {
  info: VerifyBase;
  gateOf(name: string): CredentialGate;
}

/**
 * Read the review base of a run: `--base <rev>`, else the CI's pull request base; undefined for
 * none (`false`, or not a pull request). The base lockfile is the one at the same path as
 * `project.lockfile` (the manifest likewise, for the secret variable of each scheme).
 * @throws UsageError `rev` is not a revision, or the project is not in a git repository
 */
export async function reviewBase(
  option: string | false | undefined,
  project: Project,
  manifestPath: string,
  env: NodeJS.ProcessEnv,
): Promise<ReviewBase | undefined> {
  if (option === false) return undefined;
  let rev: string;
  let ref: string;
  let source: BaseSource;
  const unreadable = (info: Extract<VerifyBase, { status: 'unreadable' }>): ReviewBase => ({
    info,
    gateOf: () => ({ kind: 'unreadable' }),
  });
  if (option !== undefined) {
    // As a pull request's: the merge-base of HEAD and the revision, so always an ancestor of HEAD.
    const root = await gitRoot(dirname(project.lockfile));
    if (root === undefined)
      throw new UsageError(`${project.lockfile} is not inside a git repository, so --base ${option} cannot be read`, {
        hint: 'run verify in the git checkout, or pass --no-base',
      });
    const named = await resolveRevision(root, option, underCi(env));
    ref = named.ref ?? option;
    source = '--base';
    const base = await mergeBase(root, named.commit);
    if (base === undefined)
      return unreadable({
        status: 'unreadable',
        source,
        ref,
        reason: `--base ${option} (${named.commit}) has no common ancestor with HEAD in this clone`,
        hint: 'fetch the history of both (git fetch --unshallow)',
      });
    rev = base;
  } else {
    const ci = await ciBase(dirname(project.lockfile), env);
    if (ci.kind === 'none') return undefined;
    if (ci.kind === 'unreadable')
      return unreadable({
        status: 'unreadable',
        source: ci.source,
        ...(ci.ref !== undefined ? { ref: ci.ref } : {}),
        reason: ci.reason,
        hint: ci.hint,
      });
    ({ rev, ref, source } = ci);
  }
  // The manifest's secret variables: unreadable, none is known and every credentialed route is withheld.
  const noManifest = (error: unknown) => (error instanceof A2aLockError ? undefined : Promise.reject(error));
  const [lockText, manifestText] = await Promise.all([
    readAtRevision(rev, project.lockfile),
    readAtRevision(rev, manifestPath).catch(noManifest),
  ]);
  let lock: Lockfile | undefined;
  let lockfile: 'present' | 'absent' | 'invalid' = lockText === undefined ? 'absent' : 'present';
  try {
    if (lockText !== undefined) lock = parseLockfile(lockText, `${rev}:${project.lockfile}`);
  } catch (error) {
    if (!(error instanceof A2aLockError)) throw error;
    // A base lockfile that does not parse allows no route: every credential is withheld.
    lockfile = 'invalid';
  }
  let manifest: Manifest | undefined;
  try {
    if (manifestText !== undefined) manifest = parseManifest(manifestText, `${rev}:${manifestPath}`);
  } catch (error) {
    if (!(error instanceof A2aLockError)) throw error;
  }
  return { info: { status: 'read', rev, ref, source, lockfile }, gateOf: (name) => gateFromBase(name, lock, manifest) };
}

/**
 * Verify a lockfile the way `a2a verify` does, returning the reports instead of printing them.
 * Cards are fetched through a shared keep-alive pool unless `dispatcher` is given (close it with
 * `closeFetcher()` when done).
 * @throws UsageError an unknown agent name or an option out of range (as the CLI's flags); OutOfDateError no
 *   lockfile; InvalidInputError an invalid manifest or lockfile
 */
export async function verifyLockfile(options: VerifyOptions | null = {}): Promise<VerifyResult> {
  options ??= {};
  const inRange = (name: string, value: unknown, min: number, max: number) =>
    value === undefined || wholeNumberIn(`verifyLockfile: ${name}`, value, min, max);
  inRange('timeoutMs', options.timeoutMs, 1, 2_147_483_647);
  inRange('concurrency', options.concurrency, 1, Number.MAX_SAFE_INTEGER);
  inRange('retries', options.retries, 0, 10);
  const manifestPath = resolve(options.manifest ?? 'a2a.json');
  const lockfile = options.lockfile ? resolve(options.lockfile) : resolve(dirname(manifestPath), 'a2a.lock.json');
  const project = await readProject(manifestPath, lockfile);
  const known = [...new Set([...Object.keys(project.manifest.agents), ...Object.keys(project.lock.agents)])];
  for (const name of options.agents ?? [])
    if (!known.includes(name)) throw new UsageError(`unknown agent "${name}" (agents: ${known.join(', ') || 'none'})`);
  const { manifest: _m, lockfile: _l, agents: only, offline, strict, probe, base: baseOption, ...network } = options;
  const base = offline ? undefined : await reviewBase(baseOption, project, manifestPath, options.env ?? {});
  const check: ProjectCheck = {
    names: only?.length ? only : known,
    offline: Boolean(offline),
    ...(base ? { gateOf: base.gateOf } : {}),
    ...(probe && !offline ? { probe: true, strict: Boolean(strict) } : {}),
  };
  const reports = await checkProject(project, check, { ...network, baseDir: project.baseDir });
  const agents = Object.fromEntries(
    Object.entries(reports).map(([name, r]) => [name, { ...r, exitCode: strictExitCode(r, Boolean(strict)) }]),
  );
  const exitCode = overallExitCode(Object.values(agents).map((r) => r.exitCode));
  return { ok: exitCode === 0, exitCode, agents, ...(base ? { base: base.info } : {}) };
}
