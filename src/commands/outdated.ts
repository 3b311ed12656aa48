/**
 * `a2a outdated [agent...]` (alias `a2a diff`): what `a2a update` would change, without writing.
 * The cards are fetched and every agent is resolved exactly as `update` resolves it (without the
 * lock's constraint); each entry that would change is shown as its card version, its card changes
 * path by path (structural or descriptive), its signature records and its plan fields per skill.
 * Exit 1 when anything would change (as `npm outdated` does).
 */
import kleur from 'kleur';
import { ExitCode, UsageError } from '../errors.js';
import { formatPath, own } from '../json-path.js';
import { entryChanges } from '../lock/changes.js';
import { checkOffline } from '../lock/offline.js';
import { outdatedExitCode, overallExitCode, syncFailureJson, type AgentReport } from '../lock/report.js';
import { syncLock } from '../resolve/sync.js';
import { readProject } from '../resolve/verify.js';
import { renderEntryChanges, renderSyncFailure } from '../cli/render.js';
import { resolveOptions, paths, type CommandResult, type GlobalOptions } from './context.js';

/**
 * JSON: `{"ok", "outdated": [names], "agents": {name: {"status": "current"|"outdated"|"added"|"removed", "version"?, "change"?, "cardChanges"?, "signatureChanges"?, "planChanges"?}}}`;
 * an agent that cannot be resolved has the failure shape of `a2a update` (`error`, `refused`, `drift`).
 * @throws UsageError unknown agent; OutOfDateError no lockfile; InvalidInputError invalid manifest or lockfile
 */
export async function runOutdated(options: GlobalOptions, args: { agents: string[] }): Promise<CommandResult> {
  const p = paths(options);
  const { manifest, lock } = await readProject(p.manifest, p.lockfile);
  for (const name of args.agents) {
    if (!Object.hasOwn(manifest.agents, name)) throw new UsageError(`unknown agent "${name}" (manifest agents: ${Object.keys(manifest.agents).join(', ') || 'none'})`);
  }
  // A snapshot that no longer matches its integrity is an error (exit 2), as for verify and lock,
  // not a card change that update would make.
  const invalid = new Map<string, AgentReport>();
  for (const name of args.agents.length ? args.agents : Object.keys(manifest.agents)) {
    const entry = own(lock.agents, name);
    const settings = own(lock.settings, name);
    const report = entry && settings ? checkOffline(entry, settings, `${p.lockfile} ${formatPath(['agents', name])}`) : undefined;
    if (report?.status === 'error') invalid.set(name, report);
  }
  const sync = await syncLock(manifest, lock, { force: args.agents.length ? new Set(args.agents) : 'all', source: p.lockfile }, resolveOptions(options, p.baseDir));
  // Every agent of the manifest (resolved or failed; failures are not in `actions`), then the removed ones.
  const names = args.agents.length ? args.agents : [...new Set([...Object.keys(manifest.agents), ...Object.keys(sync.actions)])];
  const lines: string[] = [];
  const agents: Record<string, unknown> = {};
  const codes: ExitCode[] = [];
  const outdated: string[] = [];
  for (const name of names) {
    const broken = invalid.get(name);
    if (broken) {
      lines.push(`${kleur.red('✗')} ${name}: ${broken.error!.code}: ${broken.error!.message}`);
      agents[name] = { status: 'error', error: broken.error };
      codes.push(broken.exitCode);
      continue;
    }
    const failure = own(sync.failures, name);
    if (failure) {
      lines.push(...renderSyncFailure(name, failure));
      agents[name] = syncFailureJson(failure);
      codes.push(failure.exitCode);
      continue;
    }
    const action = own(sync.actions, name);
    if (action === undefined) continue;
    const old = own(sync.previous, name);
    const now = own(sync.lock.agents, name);
    if (action === 'unchanged') {
      lines.push(`${kleur.green('✓')} ${name}: up to date (version ${now!.version})`);
      agents[name] = { status: 'current' };
      continue;
    }
    outdated.push(name);
    codes.push(outdatedExitCode(true));
    if (action === 'added') {
      lines.push(`${kleur.green('+')} ${name}: would be added (${now!.resolved}, version ${now!.version})`);
      agents[name] = { status: 'added', plans: now!.plans };
    } else if (action === 'removed') {
      lines.push(`${kleur.red('-')} ${name}: would be removed (no longer in the manifest)`);
      agents[name] = { status: 'removed' };
    } else {
      const changes = entryChanges(old!, now!);
      const change = changes.cardChanges.length ? (changes.cardChanges.some((c) => c.structural) ? 'structural' : 'descriptive') : undefined;
      lines.push(`${kleur.yellow('~')} ${name}: would be updated${change ? ` (${change} card change)` : ''}`, ...renderEntryChanges(changes));
      agents[name] = { status: 'outdated', ...(change ? { change } : {}), ...changes };
    }
  }
  const exitCode = overallExitCode(codes);
  if (outdated.length) {
    // Agents added to or removed from the manifest are a2a lock's job; a2a update re-reads locked ones.
    const updated = outdated.filter((name) => sync.actions[name] === 'updated');
    const fix = [...(updated.length < outdated.length ? ['a2a lock'] : []), ...(updated.length ? [`a2a update ${updated.join(' ')}`] : [])].join(', then ');
    lines.push(`${outdated.length} agent${outdated.length === 1 ? '' : 's'} would change: run ${fix}`);
  }
  else if (exitCode === ExitCode.Ok) lines.push(kleur.green(`${p.lockfile} is current: a2a update would change nothing`));
  return { exitCode, json: { ok: exitCode === ExitCode.Ok, outdated, agents }, lines, warnings: sync.warnings };
}
