/**
 * `a2a verify [agent...] [--offline] [--strict]` (the CI gate) and `a2a install` (like `npm ci`).
 * Both read only: the lockfile is never written.
 */

import { basename } from 'node:path';
import type { Warning } from '../card/model.js';
import { ExitCode, OutOfDateError } from '../errors.js';
import { expectLockfileDigest } from '../fs/lockfile.js';
import { readManifest } from '../fs/manifest.js';
import { own } from '../json-path.js';
import { type AgentReport, ignoreFailures, overallExitCode } from '../lock/report.js';
import { describeMismatches, manifestMismatches } from '../lock/satisfies.js';
import { sourceVariables } from '../manifest/schema.js';
import { checkProject, readProject, reviewBase, type VerifyBase, verifyLockfile } from '../resolve/verify.js';
import { type CommandResult, type GlobalOptions, paths, resolveOptions } from './context.js';
import { type AgentFiles, locateAgents, repositoryPath } from './locate.js';

/** The codes `verify --ignore` takes (defined in lock/report.ts). */
export { VERIFY_FAILURE_CODES } from '../lock/report.js';

/** One agent's report as the `--json` documents of `verify` and `install` hold it: without its warnings (those are the document's `warnings`, each with `agent`). */
export type ReportDocument = Omit<AgentReport, 'warnings'>;

/**
 * The answer of `a2a verify`. The `--json` document is `{"ok", "agents": {name: ReportDocument}}`
 * (plus `warnings`); `human` (not in the document) holds the exit code, the flags the summary line
 * names, the lockfile's absolute path (for GitHub annotations) and the manifest's path from the
 * repository root (its file name outside git; the job summary's heading names it).
 */
export interface VerifyData {
  ok: boolean;
  /** The review base credentials were gated by (`--base`, or the pull request's); absent without one. */
  base?: VerifyBase;
  agents: Record<string, ReportDocument>;
  human: {
    exitCode: ExitCode;
    offline: boolean;
    strict: boolean;
    lockfile: string;
    /** The manifest: its path from the repository root with {@link VerifyArgs.named} or `locate`, else its file name. */
    manifest: string;
    /** With `locate`: the lockfile and the manifest findings point at, with each agent's line. */
    files?: AgentFiles;
  };
}

/** What `verify` takes besides the global options. `base`: a revision, `false` for none (`--no-base`), absent for the pull request's base when CI names one. */
export interface VerifyArgs {
  agents: string[];
  offline: boolean;
  strict: boolean;
  /** `--probe`: also probe each locked interface (one GetTask for a task id that cannot exist). */
  probe?: boolean;
  base?: string | false;
  /** Failure codes `--ignore` named ({@link ignoreFailures}): those agents are shown, marked `ignored`, and not counted for the exit code. */
  ignore?: readonly string[];
  /** `--expect-digest`: the lockfile's digest must be this one (checked first; else `digest-mismatch`). */
  expectDigest?: string;
  /** Locate each agent in the lockfile and the manifest (`human.files`, for `--format sarif`). */
  locate?: boolean;
  /** Name the manifest by its path from the repository root (`human.manifest`, for the job summary): asks git, so only when asked. */
  named?: boolean;
}

/** A credential a locked plan uses whose environment variable is not set. */
interface UnsetCredential {
  agent: string;
  scheme: string;
  env: string;
}

/**
 * The answer of `a2a install`. The `--json` document is `{"ok", "credentialsUnset": [...],
 * "agents": {name: ReportDocument}}` (plus `warnings`); `human` (not in the document) holds the exit
 * code, the lockfile's path and the number of locked skills.
 */
export interface InstallData {
  ok: boolean;
  /** The pull request's base credentials were gated by, as for `verify`; absent without one. */
  base?: VerifyBase;
  credentialsUnset: UnsetCredential[];
  agents: Record<string, ReportDocument>;
  human: { exitCode: ExitCode; lockfile: string; skills: number };
}

/** The reports without their warnings, by agent. */
function reportDocuments(reports: Record<string, AgentReport>): Record<string, ReportDocument> {
  return Object.fromEntries(
    Object.entries(reports).map(([name, r]) => {
      const { warnings: _w, ...rest } = r;
      return [name, rest];
    }),
  );
}

/** The warnings of every report, each with its agent's name. */
function reportWarnings(reports: Record<string, AgentReport>): Array<Warning & { agent: string }> {
  return Object.entries(reports).flatMap(([agent, r]) => r.warnings.map((w) => ({ ...w, agent })));
}

/** `a2a verify`: check the lockfile against the manifest, its snapshots and (unless offline) the cards served now. */
export async function runVerify(options: GlobalOptions, args: VerifyArgs): Promise<CommandResult<VerifyData>> {
  const p = paths(options);
  // No manifest here or above: say so, naming where it was looked for.
  if (p.lookedUpTo !== undefined) await readManifest(p.manifest, p.lookedUpTo);
  // Not the lockfile that was reviewed: refused before anything else reads it.
  if (args.expectDigest !== undefined) await expectLockfileDigest(p.lockfile, args.expectDigest);
  const { baseDir: _b, probe: _p, ...network } = resolveOptions(options, p.baseDir);
  const verified = await verifyLockfile({
    ...network,
    manifest: p.manifest,
    lockfile: p.lockfile,
    agents: args.agents,
    offline: args.offline,
    strict: args.strict,
    ...(args.probe ? { probe: true } : {}),
    // No flag: verifyLockfile takes the pull request's base from the environment.
    ...(args.base !== undefined ? { base: args.base } : {}),
  });
  const { agents, exitCode } = ignoreFailures(reportDocuments(verified.agents), new Set(args.ignore), args.strict);
  const files = args.locate
    ? await locateAgents({ file: p.lockfile }, { file: p.manifest }, Object.keys(verified.agents))
    : undefined;
  return {
    exitCode,
    data: {
      ok: exitCode === ExitCode.Ok,
      ...(verified.base ? { base: verified.base } : {}),
      agents,
      human: {
        exitCode,
        offline: args.offline,
        strict: args.strict,
        lockfile: p.lockfile,
        // Located, the manifest's path from the repository root is already known (one git call, not two).
        manifest: files ? files.manifest.path : args.named ? await repositoryPath(p.manifest) : basename(p.manifest),
        ...(files ? { files } : {}),
      },
    },
    warnings: [...baseWarnings(verified.base, verified.agents), ...reportWarnings(verified.agents)],
  };
}

/**
 * What the run says about its base: one that could not be read while an agent needed a credential
 * (and how to fetch it), or a base lockfile that did not parse.
 */
function baseWarnings(base: VerifyBase | undefined, reports: Record<string, AgentReport>): Warning[] {
  const withheld = Object.values(reports).some((r) => r.reason === 'base-unreadable');
  if (base?.status === 'unreadable' && withheld)
    return [
      {
        code: 'base-unreadable',
        message: `${base.reason}; no credential was sent to any agent; to check with credentials, ${base.hint}`,
      },
    ];
  if (base?.status === 'read' && base.lockfile === 'invalid')
    return [
      {
        code: 'base-lockfile-invalid',
        message: `the lockfile at the base (${base.rev}) does not parse; no credential was sent to any agent`,
      },
    ];
  return [];
}

/**
 * `a2a install`: like `npm ci`: the lockfile must match the manifest; every card is re-checked
 * against it. Under CI on a pull request, credentials go only along routes its base lockfile had
 * (as `verify` does by default; no flag).
 */
export async function runInstall(options: GlobalOptions): Promise<CommandResult<InstallData>> {
  const p = paths(options);
  const ctx = await readProject(p.manifest, p.lockfile, p.lookedUpTo);
  const mismatches = manifestMismatches(ctx.manifest, ctx.lock);
  if (mismatches.size > 0) {
    throw new OutOfDateError(`${ctx.lockfile} does not match ${p.manifest} (${describeMismatches(mismatches)})`, {
      data: { agents: Object.fromEntries(mismatches) },
    });
  }
  const names = Object.keys(ctx.manifest.agents);
  // On a pull request, credentials go only where its base lockfile sent them (as for verify).
  const base = await reviewBase(undefined, ctx, p.manifest, options.env);
  const reports = await checkProject(
    ctx,
    { names, ...(base ? { gateOf: base.gateOf } : {}) },
    resolveOptions(options, ctx.baseDir),
  );
  // Credentials for the locked schemes are read at run time; say now which are not set.
  const missing: UnsetCredential[] = [];
  for (const name of names) {
    const entry = ctx.manifest.agents[name]!;
    const schemes = new Set(Object.values(ctx.lock.agents[name]!.plans).flatMap((plan) => Object.keys(plan.security)));
    for (const scheme of schemes) {
      const source = own(entry.credentials, scheme);
      for (const env of source ? sourceVariables(source) : [])
        if (!options.env[env]) missing.push({ agent: name, scheme, env });
    }
  }
  const exitCode = overallExitCode(Object.values(reports).map((r) => r.exitCode));
  const warnings: Array<Warning & { agent?: string }> = [
    ...baseWarnings(base?.info, reports),
    ...reportWarnings(reports),
  ];
  for (const m of missing) {
    warnings.push({
      code: 'credential-unset',
      agent: m.agent,
      message: `${m.env} is not set (credential for scheme "${m.scheme}", read at run time)`,
    });
  }
  const skills = names.reduce((n, name) => n + Object.keys(ctx.lock.agents[name]!.plans).length, 0);
  return {
    exitCode,
    data: {
      ok: exitCode === ExitCode.Ok,
      ...(base ? { base: base.info } : {}),
      credentialsUnset: missing,
      agents: reportDocuments(reports),
      human: { exitCode, lockfile: ctx.lockfile, skills },
    },
    warnings,
  };
}
