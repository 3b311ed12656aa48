/**
 * Verification as a library: the checks behind `a2a verify` and `a2a install`, returning data.
 * For each agent: the lock against the manifest, each snapshot's integrity, that its snapshot
 * negotiates exactly its locked plans and (unless offline) the cards served now ("beyond the
 * lockfile"). Never writes.
 */
import { dirname, resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ExitCode, OutOfDateError, UsageError, wholeNumberIn } from '../errors.js';
import { formatPath, own } from '../json-path.js';
import { readManifest } from '../manifest/read.js';
import type { Manifest } from '../manifest/schema.js';
import { interleaveBy, mapSettled } from '../pool.js';
import { cardOrigin } from '../card/load.js';
import { checkOffline, checkServed, DEFAULT_CONCURRENCY, loadServedCard, servedCardSettles, manifestMismatches, overallExitCode, type AgentReport, type EngineOptions } from './engine.js';
import { readLockfile } from './io.js';
import type { Lockfile } from './schema.js';

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
 * Read the manifest and the lockfile.
 * @throws InvalidInputError (invalid manifest or lockfile); OutOfDateError when the lockfile does not exist
 */
export async function readProject(manifestPath: string, lockfilePath: string): Promise<Project> {
  const manifest = await readManifest(manifestPath);
  const read = await readLockfile(lockfilePath);
  if (!read) throw new OutOfDateError(`${lockfilePath}: not found`);
  return { manifest, lock: read.lock, lockfile: lockfilePath, baseDir: dirname(manifestPath) };
}

/**
 * Check `names` (agents of the manifest or the lock): out-of-date entries, then each entry offline,
 * then (unless `offline`) the cards served now, at most `engine.concurrency` at once. Reports keep
 * the order of `names`.
 */
export async function checkProject(project: Project, names: readonly string[], offline: boolean, engine: EngineOptions): Promise<Record<string, AgentReport>> {
  const mismatches = manifestMismatches(project.manifest, project.lock);
  const reports: Record<string, AgentReport> = {};
  const locked: string[] = [];
  for (const name of names) {
    const reasons = mismatches.get(name);
    if (reasons) reports[name] = { status: 'out-of-date', exitCode: ExitCode.Drift, reasons, warnings: [] };
    else locked.push(name);
  }
  // Online, a pool slot first sends its agent's public card request: no credentials, to the
  // manifest's URL. When the card comes back equal to its snapshot with nothing more to fetch, the
  // slot passes to the next agent before this one's CPU work (the offline check, the comparison),
  // and that work waits one event-loop turn: undici writes a request on a reused connection only
  // in the turn after it is made, and a turn spent checking a whole batch of cards would hold every
  // next request back until the batch is done (BENCHMARKS.md). The offline check still comes
  // before anything that carries credentials (the extended card, sent through the locked plan's
  // URL), so a plan its snapshot does not negotiate never picks where credentials go.
  // Hosts in turn (round-robin), so connections spread over them instead of `concurrency` to each.
  const scheduled = offline ? locked : interleaveBy(locked, (name) => cardOrigin(project.lock.agents[name]!.card));
  const results = await mapSettled(
    scheduled,
    offline ? 1 : (engine.concurrency ?? DEFAULT_CONCURRENCY),
    async (name, _index, release): Promise<AgentReport> => {
      const entry = project.lock.agents[name]!;
      const settings = project.lock.settings[name]!;
      const source = `${project.lockfile} ${formatPath(['agents', name])}`;
      if (offline) return checkOffline(entry, settings, source) ?? { status: 'ok', exitCode: ExitCode.Ok, warnings: [] };
      const served = loadServedCard(entry, engine, settings);
      const loaded = await served.catch(() => undefined);
      if (loaded && servedCardSettles(entry, loaded)) {
        release();
        await nextTurn();
      }
      const offlineReport = checkOffline(entry, settings, source);
      if (offlineReport) return offlineReport;
      return checkServed(entry, settings, engine, own(project.manifest.agents, name)?.credentials ?? {}, true, served);
    },
    offline ? undefined : engine.onProgress,
  );
  scheduled.forEach((name, i) => {
    const r = results[i]!;
    if (r.status === 'rejected') throw r.reason;
    reports[name] = r.value;
  });
  return Object.fromEntries(names.map((n) => [n, reports[n]!]));
}

/** A report's exit code under `strict`: a card change or an unchecked part that leaves plans equal fails (1). */
export function strictExitCode(report: AgentReport, strict: boolean): ExitCode {
  return strict && report.exitCode === ExitCode.Ok && (report.status === 'changed' || report.unchecked !== undefined) ? ExitCode.Drift : report.exitCode;
}

/** Options of {@link verifyLockfile}. Network options as for the engine (timeoutMs, concurrency, allowHttp, dispatcher, env). */
export interface VerifyOptions extends Omit<EngineOptions, 'baseDir'> {
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
}

/** Result of {@link verifyLockfile}: the overall exit code (the lowest non-zero agent code) and a report per agent. */
export interface VerifyResult {
  ok: boolean;
  /** 0 ok · 1 drift or out of date · 2 invalid · 3 unreachable · 4 auth refused · 5 timeout. */
  exitCode: ExitCode;
  /** Per agent; each report's `exitCode` already reflects `strict`. */
  agents: Record<string, AgentReport>;
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
  const whole = (name: string, value: unknown, min: number, max: number) => value === undefined || wholeNumberIn(`verifyLockfile: ${name}`, value, min, max);
  whole('timeoutMs', options.timeoutMs, 1, 2_147_483_647);
  whole('concurrency', options.concurrency, 1, Number.MAX_SAFE_INTEGER);
  whole('retries', options.retries, 0, 10);
  const manifestPath = resolve(options.manifest ?? 'a2a.json');
  const lockfile = options.lockfile ? resolve(options.lockfile) : resolve(dirname(manifestPath), 'a2a.lock.json');
  const project = await readProject(manifestPath, lockfile);
  const known = [...new Set([...Object.keys(project.manifest.agents), ...Object.keys(project.lock.agents)])];
  for (const name of options.agents ?? []) if (!known.includes(name)) throw new UsageError(`unknown agent "${name}" (agents: ${known.join(', ') || 'none'})`);
  const { manifest: _m, lockfile: _l, agents: only, offline, strict, ...engine } = options;
  const reports = await checkProject(project, only?.length ? only : known, Boolean(offline), { ...engine, baseDir: project.baseDir });
  const agents = Object.fromEntries(Object.entries(reports).map(([name, r]) => [name, { ...r, exitCode: strictExitCode(r, Boolean(strict)) }]));
  const exitCode = overallExitCode(Object.values(agents).map((r) => r.exitCode));
  return { ok: exitCode === ExitCode.Ok, exitCode, agents };
}
