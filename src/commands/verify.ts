/**
 * `a2a verify [agent...] [--offline] [--strict]` (the CI gate) and `a2a install` (like `npm ci`).
 * Both read only: the lockfile is never written.
 */
import { isAbsolute, relative, sep } from 'node:path';
import kleur from 'kleur';
import { ExitCode, OutOfDateError } from '../errors.js';
import { overallExitCode, type AgentReport } from '../lock/report.js';
import { manifestMismatches } from '../lock/satisfies.js';
import { checkProject, readProject, verifyLockfile } from '../resolve/verify.js';
import { own } from '../json-path.js';
import { renderReport } from '../cli/render.js';
import { resolveOptions, paths, type CommandResult, type GlobalOptions } from './context.js';

function finish(reports: Record<string, AgentReport>, lines: string[], extra: Record<string, unknown> = {}): CommandResult {
  const exitCode = overallExitCode(Object.values(reports).map((r) => r.exitCode));
  const warnings = Object.entries(reports).flatMap(([agent, r]) => r.warnings.map((w) => ({ ...w, agent })));
  const agents = Object.fromEntries(
    Object.entries(reports).map(([name, r]) => {
      const { warnings: _w, ...rest } = r;
      return [name, rest];
    }),
  );
  return { exitCode, json: { ok: exitCode === ExitCode.Ok, ...extra, agents }, lines, warnings };
}

/** `a2a verify`: check the lockfile against the manifest, its snapshots and (unless offline) the cards served now. */
export async function runVerify(options: GlobalOptions, args: { agents: string[]; offline: boolean; strict: boolean }): Promise<CommandResult> {
  const p = paths(options);
  const { baseDir: _b, ...network } = resolveOptions(options, p.baseDir);
  const verified = await verifyLockfile({ ...network, manifest: p.manifest, lockfile: p.lockfile, agents: args.agents, offline: args.offline, strict: args.strict });
  const lines = Object.entries(verified.agents).flatMap(([name, r]) => renderReport(name, r, { strict: args.strict }));
  const result = finish(verified.agents, lines);
  if (options.env.GITHUB_ACTIONS === 'true') {
    const { verifyAnnotations } = await import('../cli/github.js');
    // Annotation paths are relative to the repository root (the workspace), wherever verify ran.
    // (A lockfile outside the workspace keeps its path from where verify ran.)
    const inWorkspace = options.env.GITHUB_WORKSPACE ? relative(options.env.GITHUB_WORKSPACE, p.lockfile) : '';
    const file = inWorkspace && !inWorkspace.startsWith('..') && !isAbsolute(inWorkspace) ? inWorkspace : relative(options.cwd, p.lockfile);
    result.annotations = verifyAnnotations(file.split(sep).join('/'), verified.agents);
  }
  const count = Object.keys(verified.agents).length;
  lines.push(
    result.exitCode === ExitCode.Ok
      ? kleur.green(`verified ${count} agent${count === 1 ? '' : 's'}${args.offline ? ' (offline)' : ''}`)
      : kleur.red(`verify failed (exit ${result.exitCode})`),
  );
  return result;
}

/** `a2a install`: like `npm ci`: the lockfile must match the manifest; every card is re-checked against it. */
export async function runInstall(options: GlobalOptions): Promise<CommandResult> {
  const p = paths(options);
  const ctx = await readProject(p.manifest, p.lockfile);
  const mismatches = manifestMismatches(ctx.manifest, ctx.lock);
  if (mismatches.size > 0) {
    const detail = [...mismatches].map(([name, reasons]) => `${name}: ${reasons.join('; ')}`).join(' | ');
    throw new OutOfDateError(`${ctx.lockfile} does not match ${p.manifest} (${detail})`, { data: { agents: Object.fromEntries(mismatches) } });
  }
  const names = Object.keys(ctx.manifest.agents);
  const reports = await checkProject(ctx, names, false, resolveOptions(options, ctx.baseDir));
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
  const result = finish(reports, lines, { credentialsUnset: missing });
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
