/**
 * `a2a why <agent> [skill]`: why the lockfile holds the plans it holds. Each locked skill is
 * negotiated again from the locked snapshot with the locked settings, offline, and the trace is
 * shown step by step: the candidates, which won and by which rule, the security requirement
 * satisfied, the media types intersected. Reads only; never touches the network.
 */
import { internationalHostWarnings } from '../card/host.js';
import { describeOriginAuths } from '../credentials.js';
import { A2aLockError, ExitCode, OutOfDateError, UsageError } from '../errors.js';
import { readLockfile } from '../fs/lockfile.js';
import { formatPath, own } from '../json-path.js';
import { explainSkill, fieldDrift } from '../lock/drift.js';
import { checkOffline, lockedNegotiationCard } from '../lock/offline.js';
import { interfaceKey, type ProbeKind, probedInterfaces } from '../lock/probe.js';
import type { PlanDrift } from '../lock/report.js';
import type { ExplainedStep } from '../negotiate/explain.js';
import type { Plan, Refusal } from '../negotiate/types.js';
import { type CommandResult, type GlobalOptions, paths } from './context.js';

/** One locked skill explained: the locked plan, whether its snapshot still negotiates it, and the steps. */
interface WhySkill {
  plan: Plan;
  /** The snapshot negotiates exactly the locked plan. */
  matchesLock: boolean;
  steps: ExplainedStep[];
  /** The snapshot no longer negotiates the skill. */
  refusal?: Refusal;
  /** Where the locked plan differs from what its snapshot negotiates. */
  differences?: PlanDrift[];
  /** The interface URL the card advertised, when the plan's was rebased to the card's origin (`rebaseInterfaces`). */
  rebasedFrom?: string;
}

/**
 * One locked interface the skills explained call (a plan's or a locked fallback's) and what the
 * wire probe found there when the lockfile was written (its `probe` field); `probe` absent: not
 * probed (`--no-probe`, or a lockfile older than the probe).
 */
interface WhyInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
  probe?: ProbeKind;
}

/**
 * The answer of `a2a why`, all of it the `--json` document: `{"ok", "agent", "card": {name,
 * version, resolved, integrity, extended?}, "skills": {id: WhySkill}, "interfaces": [WhyInterface]}`
 * (plus `warnings`), the skills in the order explained, the interfaces those skills' plans and
 * fallbacks name, once each. `card.extended` is where the extended card was read from, when there is one.
 */
export interface WhyData {
  ok: boolean;
  agent: string;
  card: {
    name: string;
    version: string;
    resolved: string;
    integrity: string;
    extended?: string;
    originAuth?: Record<string, string>;
  };
  skills: Record<string, WhySkill>;
  interfaces: WhyInterface[];
}

/** The distinct interfaces of `plans` with the outcome kind `recorded` (an entry's `probe`) holds for each. */
function probedOf(
  plans: Record<string, Plan>,
  recorded: Readonly<Record<string, ProbeKind>> | undefined,
): WhyInterface[] {
  return probedInterfaces(plans).map((iface) => {
    const key = interfaceKey(iface);
    return recorded && Object.hasOwn(recorded, key) ? { ...iface, probe: recorded[key]! } : { ...iface };
  });
}

/**
 * Explain the locked plans of one agent (all its skills, or one).
 * Exit 0, or 1 when a locked plan is not what its snapshot negotiates (run `a2a lock`).
 * @throws UsageError unknown agent or skill; OutOfDateError no lockfile; A2aLockError `lockfile-invalid` (integrity)
 */
export async function runWhy(
  options: GlobalOptions,
  args: { agent: string; skill?: string },
): Promise<CommandResult<WhyData>> {
  const { lockfile } = paths(options);
  const read = await readLockfile(lockfile);
  if (!read) throw new OutOfDateError(`${lockfile}: not found`);
  const { lock } = read;
  const name = args.agent;
  const entry = own(lock.agents, name);
  if (!entry)
    throw new UsageError(`unknown agent "${name}" (locked agents: ${Object.keys(lock.agents).join(', ') || 'none'})`);
  const settings = own(lock.settings, name);
  if (!settings) throw new OutOfDateError(`${lockfile} ${formatPath(['settings', name])}: missing`);
  const source = `${lockfile} ${formatPath(['agents', name])}`;
  const offline = checkOffline(entry, settings, source);
  if (offline?.status === 'error')
    throw new A2aLockError(offline.error!.code, offline.error!.message, {
      hint: `run a2a update ${name} to fetch the card again`,
    });
  const locked = Object.keys(entry.plans);
  if (args.skill !== undefined && !Object.hasOwn(entry.plans, args.skill)) {
    throw new UsageError(`agent "${name}" has no locked skill "${args.skill}" (locked skills: ${locked.join(', ')})`);
  }
  const card = lockedNegotiationCard(entry, source, settings);
  // The card as advertised, interface for interface, when its bind addresses were rebased.
  const advertised = settings.rebaseInterfaces ? lockedNegotiationCard(entry, source).supportedInterfaces : undefined;
  const rebasedFrom = (url: string): string | undefined => {
    const at = card.supportedInterfaces.findIndex((i) => i.url === url);
    const original = at >= 0 ? advertised?.[at]?.url : undefined;
    return original !== undefined && original !== url ? original : undefined;
  };
  const skills: Record<string, WhySkill> = {};
  let consistent = true;
  for (const skill of args.skill !== undefined ? [args.skill] : locked) {
    const plan = entry.plans[skill]!;
    const explained = explainSkill(card, skill, settings);
    const differences = explained.plan ? fieldDrift(skill, plan, explained.plan) : [];
    const matchesLock = explained.plan !== undefined && differences.length === 0;
    consistent &&= matchesLock;
    skills[skill] = {
      plan,
      matchesLock,
      steps: explained.steps,
      ...(explained.refusal ? { refusal: explained.refusal } : {}),
      ...(differences.length ? { differences } : {}),
      ...(rebasedFrom(plan.url) !== undefined ? { rebasedFrom: rebasedFrom(plan.url)! } : {}),
    };
  }
  return {
    exitCode: consistent ? ExitCode.Ok : ExitCode.Drift,
    data: {
      ok: consistent,
      agent: name,
      card: {
        name: card.name,
        version: card.version,
        resolved: entry.resolved,
        integrity: entry.integrity,
        ...(entry.extended ? { extended: entry.extended.resolved } : {}),
        ...(entry.originAuth ? { originAuth: describeOriginAuths(entry.originAuth) } : {}),
      },
      skills,
      interfaces: probedOf(
        Object.fromEntries(Object.entries(skills).map(([skill, { plan }]) => [skill, plan])),
        entry.probe,
      ),
    },
    // The host each locked plan contacts, when the card spells it otherwise (U+3002 dots, punycode).
    warnings: internationalHostWarnings(
      Object.entries(skills).flatMap(([skill, { plan }]) => [
        [`plan ${skill} url`, plan.url] as const,
        ...(plan.fallbacks?.interfaces ?? []).map((i) => [`plan ${skill} fallback`, i.url] as const),
      ]),
    ),
  };
}
