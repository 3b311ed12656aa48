/**
 * `a2a lock`, `a2a update [agent...]` and `a2a add <name> <card>`: compute the lockfile that
 * satisfies the manifest and write it, all or nothing.
 */
import kleur from 'kleur';
import { writeFileAtomic } from '../json-file.js';
import { A2aLockError, ExitCode, UsageError } from '../errors.js';
import { readManifest, parseManifest } from '../manifest/read.js';
import type { Manifest } from '../manifest/schema.js';
import { diffCards, type CardChange } from '../lock/card-diff.js';
import { overallExitCode } from '../lock/engine.js';
import { readLockfile, writeLockfile } from '../lock/io.js';
import { syncLock, type SyncResult } from '../lock/sync.js';
import { diffPlans } from '../negotiate/negotiate.js';
import { renderCardChanges } from '../cli/render.js';
import { engineOptions, paths, type CommandResult, type GlobalOptions } from './context.js';

/** Plan field changes of one skill: `[{field, old, new}]`; a skill added or removed has `old`/`new` absent. */
type PlanChanges = Record<string, Array<{ field: string; old?: unknown; new?: unknown }>>;

async function run(options: GlobalOptions, manifest: Manifest, force: ReadonlySet<string> | 'all' | undefined, showDiffs: boolean): Promise<CommandResult & { written: boolean; sync: SyncResult }> {
  const p = paths(options);
  let replaced: string | undefined;
  const previous = await readLockfile(p.lockfile).catch((error: unknown) => {
    // A lockfile with merge conflicts or corrupt JSON is re-resolved from the manifest (npm does
    // the same); a lockfile from a newer a2a-lock is never overwritten.
    if (error instanceof A2aLockError && error.code === 'lockfile-invalid' && !/lockfileVersion/.test(error.message)) {
      replaced = error.message;
      return undefined;
    }
    throw error;
  });
  const sync = await syncLock(manifest, previous?.lock, { ...engineOptions(options, p.baseDir), force, source: p.lockfile });
  if (replaced) sync.warnings.unshift({ agent: '', code: 'lockfile-replaced', message: `${replaced}; every agent is re-resolved` });
  const lines: string[] = [];
  const json: Record<string, unknown> = {};
  const failed = Object.entries(sync.failures);
  if (failed.length > 0) {
    for (const [name, f] of failed) {
      if (f.error) lines.push(`${kleur.red('✗')} ${name}: ${f.error.code}: ${f.error.message}`);
      for (const r of f.refusals ?? []) lines.push(`${kleur.red('✗')} ${name} › ${r.skill}: refused: ${r.refusal.code}: ${r.refusal.message}`);
      json[name] = { status: f.error ? 'error' : 'refused', exitCode: f.exitCode, ...(f.error ? { error: f.error } : {}), ...(f.refusals ? { refusals: Object.fromEntries(f.refusals.map((r) => [r.skill, r.refusal])) } : {}) };
    }
    lines.push(`${p.lockfile} not written`);
    return { exitCode: overallExitCode(failed.map(([, f]) => f.exitCode)), json: { ok: false, written: false, agents: json }, lines, warnings: sync.warnings, written: false, sync };
  }
  const written = await writeLockfile(p.lockfile, sync.lock, previous?.text);
  for (const [name, action] of Object.entries(sync.actions)) {
    const entry: Record<string, unknown> = { status: action };
    const old = sync.previous[name];
    const now = sync.lock.agents[name];
    if (action !== 'unchanged' || force === 'all' || force?.has(name)) {
      const mark = action === 'added' ? kleur.green('+') : action === 'removed' ? kleur.red('-') : action === 'updated' ? kleur.yellow('~') : ' ';
      lines.push(`${mark} ${name} ${action}${now ? ` (${now.resolved}, version ${now.version})` : ''}`);
    }
    if (showDiffs && old && now) {
      const cardChanges: CardChange[] = old.integrity === now.integrity ? [] : diffCards(old.snapshot, now.snapshot);
      const planChanges: PlanChanges = {};
      for (const skill of new Set([...Object.keys(old.plans), ...Object.keys(now.plans)])) {
        const before = old.plans[skill];
        const after = now.plans[skill];
        if (!before || !after) planChanges[skill] = [{ field: 'plan', ...(before ? { old: before } : {}), ...(after ? { new: after } : {}) }];
        else {
          const d = diffPlans(before, after);
          if (d.length) planChanges[skill] = d.map((x) => ({ field: x.field, old: x.locked, new: x.fresh }));
        }
      }
      entry.cardChanges = cardChanges;
      entry.planChanges = planChanges;
      if (cardChanges.length) lines.push('    card:', ...renderCardChanges(cardChanges, '      '));
      for (const [skill, changes] of Object.entries(planChanges)) {
        for (const c of changes) lines.push(`    plan ${kleur.bold(skill)} › ${c.field}: ${kleur.red(JSON.stringify(c.old) ?? '(absent)')} → ${kleur.green(JSON.stringify(c.new) ?? '(absent)')}`);
      }
    }
    json[name] = entry;
  }
  lines.push(written ? `wrote ${p.lockfile}` : `${p.lockfile} is up to date`);
  return { exitCode: ExitCode.Ok, json: { ok: true, written, agents: json }, lines, warnings: sync.warnings, written, sync };
}

/** `a2a lock`: make the lockfile satisfy the manifest. */
export async function runLock(options: GlobalOptions): Promise<CommandResult> {
  const manifest = await readManifest(paths(options).manifest);
  return run(options, manifest, undefined, false);
}

/** `a2a update [agent...]`: re-resolve the named agents (all when none) without the lock's constraint. */
export async function runUpdate(options: GlobalOptions, agents: string[]): Promise<CommandResult> {
  const manifest = await readManifest(paths(options).manifest);
  for (const name of agents) {
    if (!(name in manifest.agents)) throw new UsageError(`unknown agent "${name}" (manifest agents: ${Object.keys(manifest.agents).join(', ') || 'none'})`);
  }
  return run(options, manifest, agents.length ? new Set(agents) : 'all', true);
}

/** `a2a add <name> <card> --skill <id>...`: add (or replace) an agent in the manifest and lock it. */
export async function runAdd(
  options: GlobalOptions,
  args: { name: string; card: string; skills: string[]; credentials: string[]; version?: string },
): Promise<CommandResult> {
  const p = paths(options);
  const manifest = await readManifest(p.manifest);
  const credentials: Record<string, { env: string }> = {};
  for (const spec of args.credentials) {
    const m = /^([^=]+)=([A-Za-z_][A-Za-z0-9_]*)$/.exec(spec);
    if (!m) throw new UsageError(`--credential "${spec}": use <scheme>=<ENV_VAR>, e.g. bearer=RESEARCH_TOKEN`);
    credentials[m[1]!] = { env: m[2]! };
  }
  const raw = {
    ...manifest,
    agents: {
      ...manifest.agents,
      [args.name]: { card: args.card, skills: args.skills, ...(Object.keys(credentials).length ? { credentials } : {}), ...(args.version ? { version: args.version } : {}) },
    },
  };
  const text = `${JSON.stringify(raw, null, 2)}\n`;
  const updated = parseManifest(text, p.manifest);
  const result = await run(options, updated, new Set([args.name]), false);
  if (result.exitCode === ExitCode.Ok) {
    await writeFileAtomic(p.manifest, text);
    result.lines.push(`wrote ${p.manifest}`);
  } else {
    result.lines.push(`${p.manifest} not written`);
  }
  return result;
}
