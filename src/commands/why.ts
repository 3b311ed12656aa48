/**
 * `a2a why <agent> [skill]`: why the lockfile holds the plans it holds. Each locked skill is
 * negotiated again from the locked snapshot with the locked settings, offline, and the trace is
 * shown step by step: the candidates, which won and by which rule, the security requirement
 * satisfied, the media types intersected. Reads only; never touches the network.
 */
import kleur from 'kleur';
import { A2aLockError, ExitCode, OutOfDateError, UsageError } from '../errors.js';
import { formatPath, own } from '../json-path.js';
import { versionRangeOption } from '../lock/drift.js';
import { checkOffline, lockedNegotiationCard } from '../lock/offline.js';
import { readLockfile } from '../fs/lockfile.js';
import { profileOf } from '../manifest/schema.js';
import { explainNegotiation } from '../negotiate/explain.js';
import { diffPlans } from '../negotiate/negotiate.js';
import { renderDrift, renderExplanation } from '../cli/render.js';
import { paths, type CommandResult, type GlobalOptions } from './context.js';

/**
 * Explain the locked plans of one agent (all its skills, or one).
 * JSON: `{"ok", "agent", "card": {name, version, resolved, integrity, extended?}, "skills": {id: {"plan", "matchesLock", "steps", "refusal"?, "differences"?}}}`.
 * Exit 0, or 1 when a locked plan is not what its snapshot negotiates (run `a2a lock`).
 * @throws UsageError unknown agent or skill; OutOfDateError no lockfile; A2aLockError `lockfile-invalid` (integrity)
 */
export async function runWhy(options: GlobalOptions, args: { agent: string; skill?: string }): Promise<CommandResult> {
  const { lockfile } = paths(options);
  const read = await readLockfile(lockfile);
  if (!read) throw new OutOfDateError(`${lockfile}: not found`);
  const { lock } = read;
  const name = args.agent;
  const entry = own(lock.agents, name);
  if (!entry) throw new UsageError(`unknown agent "${name}" (locked agents: ${Object.keys(lock.agents).join(', ') || 'none'})`);
  const settings = own(lock.settings, name);
  if (!settings) throw new OutOfDateError(`${lockfile} ${formatPath(['settings', name])}: missing`);
  const source = `${lockfile} ${formatPath(['agents', name])}`;
  const offline = checkOffline(entry, settings, source);
  if (offline?.status === 'error') throw new A2aLockError(offline.error!.code, offline.error!.message, { hint: `run a2a update ${name} to fetch the card again` });
  const locked = Object.keys(entry.plans);
  if (args.skill !== undefined && !Object.hasOwn(entry.plans, args.skill)) {
    throw new UsageError(`agent "${name}" has no locked skill "${args.skill}" (locked skills: ${locked.join(', ')})`);
  }
  const card = lockedNegotiationCard(entry, source);
  const lines = [`${kleur.bold(name)}: ${card.name} ${card.version} (${entry.resolved}${entry.extended ? ', extended card' : ''}, ${entry.integrity})`];
  const skills: Record<string, unknown> = {};
  let consistent = true;
  for (const skill of args.skill !== undefined ? [args.skill] : locked) {
    const plan = entry.plans[skill]!;
    const explained = explainNegotiation(card, skill, profileOf(settings), settings.credentials, versionRangeOption(settings));
    const differences = explained.plan ? diffPlans(plan, explained.plan).map((d) => ({ skill, field: d.field, locked: d.locked, fresh: d.fresh })) : [];
    const matchesLock = explained.plan !== undefined && differences.length === 0;
    consistent &&= matchesLock;
    skills[skill] = {
      plan,
      matchesLock,
      steps: explained.steps,
      ...(explained.refusal ? { refusal: explained.refusal } : {}),
      ...(differences.length ? { differences } : {}),
    };
    lines.push(`${kleur.bold(name)} › ${kleur.bold(skill)}`, ...renderExplanation(explained.steps));
    if (explained.refusal) lines.push(`  ${kleur.red('✗')} the locked snapshot no longer negotiates this skill: ${explained.refusal.code}`);
    else if (differences.length) lines.push(`  ${kleur.red('✗')} the locked plan differs from what its snapshot negotiates:`, ...renderDrift(differences));
    else lines.push(`  ${kleur.green('✓')} the locked plan`);
  }
  if (!consistent) lines.push('run: a2a lock');
  return {
    exitCode: consistent ? ExitCode.Ok : ExitCode.Drift,
    json: {
      ok: consistent,
      agent: name,
      card: { name: card.name, version: card.version, resolved: entry.resolved, integrity: entry.integrity, ...(entry.extended ? { extended: entry.extended.resolved } : {}) },
      skills,
    },
    lines,
    warnings: [],
  };
}
