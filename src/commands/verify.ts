/**
 * `a2a verify [agent...] [--offline] [--strict]` (the CI gate) and `a2a install` (like `npm ci`).
 * Both read only: the lockfile is never written.
 */
import kleur from 'kleur';
import { ExitCode, OutOfDateError, UsageError } from '../errors.js';
import { readManifest } from '../manifest/read.js';
import { checkOffline, checkOnline, DEFAULT_CONCURRENCY, manifestMismatches, overallExitCode, type AgentReport } from '../lock/engine.js';
import { readLockfile } from '../lock/io.js';
import type { Lockfile } from '../lock/schema.js';
import type { Manifest } from '../manifest/schema.js';
import { mapSettled } from '../pool.js';
import { formatPath, own } from '../json-path.js';
import { renderReport } from '../cli/render.js';
import { engineOptions, paths, type CommandResult, type GlobalOptions } from './context.js';

async function load(options: GlobalOptions): Promise<{ manifest: Manifest; lock: Lockfile; lockfile: string; baseDir: string }> {
  const p = paths(options);
  const manifest = await readManifest(p.manifest);
  const read = await readLockfile(p.lockfile);
  if (!read) throw new OutOfDateError(`${p.lockfile}: not found`);
  return { manifest, lock: read.lock, lockfile: p.lockfile, baseDir: p.baseDir };
}

async function check(
  options: GlobalOptions,
  ctx: { manifest: Manifest; lock: Lockfile; lockfile: string; baseDir: string },
  names: string[],
  offline: boolean,
  mismatches: Map<string, string[]>,
): Promise<Record<string, AgentReport>> {
  const reports: Record<string, AgentReport> = {};
  const locked: string[] = [];
  for (const name of names) {
    const reasons = mismatches.get(name);
    if (reasons) reports[name] = { status: 'out-of-date', exitCode: ExitCode.Drift, reasons, warnings: [] };
    else locked.push(name);
  }
  const engine = engineOptions(options, ctx.baseDir);
  // The offline check of an agent runs in its pool slot, so the first cards are in flight at once
  // and the CPU work of the others overlaps the network wait.
  const results = await mapSettled(locked, offline ? 1 : (engine.concurrency ?? DEFAULT_CONCURRENCY), async (name) => {
    const entry = ctx.lock.agents[name]!;
    const settings = ctx.lock.settings[name]!;
    const offlineReport = checkOffline(entry, settings, `${ctx.lockfile} ${formatPath(['agents', name])}`);
    if (offlineReport) return offlineReport;
    if (offline) return { status: 'ok', exitCode: ExitCode.Ok, warnings: [] } satisfies AgentReport;
    return checkOnline(entry, settings, engine, own(ctx.manifest.agents, name)?.credentials);
  });
  locked.forEach((name, i) => {
    const r = results[i]!;
    if (r.status === 'rejected') throw r.reason;
    reports[name] = r.value;
  });
  // Keep the manifest's order in output.
  return Object.fromEntries(names.map((n) => [n, reports[n]!]));
}

function finish(reports: Record<string, AgentReport>, strict: boolean, lines: string[], extra: Record<string, unknown> = {}): CommandResult {
  const strictFails = (r: AgentReport) => strict && r.exitCode === ExitCode.Ok && (r.status === 'changed' || r.unchecked !== undefined);
  const codes = Object.values(reports).map((r) => (strictFails(r) ? ExitCode.Drift : r.exitCode));
  const exitCode = overallExitCode(codes);
  const warnings = Object.entries(reports).flatMap(([agent, r]) => r.warnings.map((w) => ({ ...w, agent })));
  const agents = Object.fromEntries(
    Object.entries(reports).map(([name, r]) => {
      const { warnings: _w, ...rest } = r;
      return [name, { ...rest, exitCode: strictFails(r) ? ExitCode.Drift : r.exitCode }];
    }),
  );
  return { exitCode, json: { ok: exitCode === ExitCode.Ok, ...extra, agents }, lines, warnings };
}

/** `a2a verify`: check the lockfile against the manifest, its snapshots and (unless offline) the cards served now. */
export async function runVerify(options: GlobalOptions, args: { agents: string[]; offline: boolean; strict: boolean }): Promise<CommandResult> {
  const ctx = await load(options);
  const known = new Set([...Object.keys(ctx.manifest.agents), ...Object.keys(ctx.lock.agents)]);
  for (const name of args.agents) if (!known.has(name)) throw new UsageError(`unknown agent "${name}"`);
  const mismatches = manifestMismatches(ctx.manifest, ctx.lock);
  const names = args.agents.length ? args.agents : [...known];
  const reports = await check(options, ctx, names, args.offline, mismatches);
  const lines = Object.entries(reports).flatMap(([name, r]) => renderReport(name, r, { strict: args.strict }));
  const result = finish(reports, args.strict, lines);
  lines.push(
    result.exitCode === ExitCode.Ok
      ? kleur.green(`verified ${names.length} agent${names.length === 1 ? '' : 's'}${args.offline ? ' (offline)' : ''}`)
      : kleur.red(`verify failed (exit ${result.exitCode})`),
  );
  return result;
}

/** `a2a install`: like `npm ci`: the lockfile must match the manifest; every card is re-checked against it. */
export async function runInstall(options: GlobalOptions): Promise<CommandResult> {
  const ctx = await load(options);
  const mismatches = manifestMismatches(ctx.manifest, ctx.lock);
  if (mismatches.size > 0) {
    const detail = [...mismatches].map(([name, reasons]) => `${name}: ${reasons.join('; ')}`).join(' | ');
    throw new OutOfDateError(`${ctx.lockfile} does not match ${paths(options).manifest} (${detail})`, { data: { agents: Object.fromEntries(mismatches) } });
  }
  const names = Object.keys(ctx.manifest.agents);
  const reports = await check(options, ctx, names, false, mismatches);
  const lines = Object.entries(reports).flatMap(([name, r]) => renderReport(name, r));
  // Credentials for the locked schemes are read at run time; say now which are not set.
  const missing: Array<{ agent: string; scheme: string; env: string }> = [];
  for (const name of names) {
    const entry = ctx.manifest.agents[name]!;
    const schemes = new Set(Object.values(ctx.lock.agents[name]!.plans).flatMap((plan) => Object.keys(plan.security)));
    for (const scheme of schemes) {
      const env = own(entry.credentials, scheme)?.env;
      if (env && !options.env[env]) missing.push({ agent: name, scheme, env });
    }
  }
  const result = finish(reports, false, lines, { credentialsUnset: missing });
  for (const m of missing) {
    result.warnings.push({ code: 'credential-unset', agent: m.agent, message: `${m.env} is not set (credential for scheme "${m.scheme}", read at run time)` });
  }
  const skills = names.reduce((n, name) => n + Object.keys(ctx.lock.agents[name]!.plans).length, 0);
  lines.push(
    result.exitCode === ExitCode.Ok
      ? kleur.green(`installed ${names.length} agent${names.length === 1 ? '' : 's'} (${skills} skill${skills === 1 ? '' : 's'}) from ${ctx.lockfile}`)
      : kleur.red(`install failed (exit ${result.exitCode})`),
  );
  return result;
}
