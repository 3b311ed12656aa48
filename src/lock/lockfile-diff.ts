/**
 * Review of two lockfiles: which agents were added, removed, changed or renamed (renamed: another
 * name, the same manifest `card`), what changed in each ({@link entryChanges}), and what each
 * agent's change risks ({@link assessRisks}). What `a2a diff` prints and what `a2a update` and
 * `a2a lock` show of what they wrote. Pure.
 */
import { sameJson } from '../canonical.js';
import { own } from '../json-path.js';
import { type AgentSettings, type Manifest, sourceVariables } from '../manifest/schema.js';
import type { Plan } from '../negotiate/types.js';
import { type EntryChanges, entryChanges, planChanges } from './changes.js';
import { type CredentialSourceChange, credentialSourceRisks } from './credential-source-risks.js';
import { keepSnapshotsOverDefaults } from './proto-defaults.js';
import { type AgentSide, assessRisks, signatureStatus } from './risk.js';
import {
  atOrAbove,
  highestLevel,
  type Improvement,
  RISK_LEVELS,
  type Risk,
  type RiskLevel,
  risk,
} from './risk-codes.js';
import type { Lockfile } from './schema.js';

/** A field of an agent's locked settings that changes. */
interface SettingsChange {
  field: string;
  old?: unknown;
  new?: unknown;
}

/** The manifests of the two sides of a diff (absent: that side has none, or it could not be read). */
export interface DiffManifests {
  base?: Manifest | undefined;
  head?: Manifest | undefined;
}

/** An agent's credential sources in `manifest` (scheme → variable name; an OAuth client's two, space-separated); undefined without a manifest. */
function sourcesOf(manifest: Manifest | undefined, name: string): Map<string, string> | undefined {
  if (!manifest) return undefined;
  return new Map(
    Object.entries(own(manifest.agents, name)?.credentials ?? {}).map(([scheme, source]) => [
      scheme,
      sourceVariables(source).join(' '),
    ]),
  );
}

/**
 * The credential sources of one agent that differ between the base and head manifests, sorted by
 * scheme; none unless both manifests were read.
 */
function credentialSourceChanges(
  was: ReadonlyMap<string, string> | undefined,
  now: ReadonlyMap<string, string> | undefined,
): CredentialSourceChange[] {
  if (!was || !now) return [];
  const out: CredentialSourceChange[] = [];
  for (const scheme of [...new Set([...was.keys(), ...now.keys()])].sort()) {
    const old = was.get(scheme);
    const fresh = now.get(scheme);
    if (old !== fresh)
      out.push({ scheme, ...(old !== undefined ? { old } : {}), ...(fresh !== undefined ? { new: fresh } : {}) });
  }
  return out;
}

/** How an agent differs between the two lockfiles. */
type Verdict = 'added' | 'removed' | 'changed' | 'renamed' | 'unchanged';

/** One agent of a {@link LockfileDiff}. */
export interface AgentDiff {
  /** The agent's name at head (at base when removed). */
  name: string;
  verdict: Verdict;
  /** `renamed`: the name at base. */
  from?: string;
  /** The manifest's card location (head's; base's when removed). */
  card: string;
  /** The card's own version at each side (absent on a side without the agent). */
  version: { old?: string; new?: string };
  /** The signature status of the public card at each side. */
  signature: { old?: string; new?: string };
  /** What differs ({@link entryChanges}); for added/removed: the skills' plans and signatures only. Empty for unchanged. */
  changes: EntryChanges;
  /** Locked settings fields (profile, credentials held, version range, trust) that differ. */
  settingsChanges: SettingsChange[];
  /** The manifests' credential sources that differ (when both sides' manifests were read and any differs). */
  credentialSources?: CredentialSourceChange[];
  risks: Risk[];
  better: Improvement[];
  /** The highest risk level, undefined when no risk. */
  level?: RiskLevel;
}

/** Counts of a {@link LockfileDiff}: agents by verdict (renamed ones count as changed too), risks by level, improvements. */
export interface DiffCounts {
  changed: number;
  added: number;
  removed: number;
  renamed: number;
  unchanged: number;
  high: number;
  medium: number;
  low: number;
  info: number;
  better: number;
  /** Risks whose code `--ignore` named (present only when codes were ignored); the levels above count the others. */
  ignored?: number;
}

/** {@link DiffCounts} of a review with no agent in it: every count 0. */
export function noCounts(): DiffCounts {
  return { changed: 0, added: 0, removed: 0, renamed: 0, unchanged: 0, high: 0, medium: 0, low: 0, info: 0, better: 0 };
}

/** A change of the manifest's `credentialDestinations` between the two sides (absent: no list on that side). */
export interface PolicyChange {
  old?: string[];
  new?: string[];
  /** `credential-policy-changed`, high. */
  risk: Risk;
}

/** Everything that differs between two lockfiles, agent by agent (sorted by name); `policy`: the manifests' credentialDestinations, when it changed. */
export interface LockfileDiff {
  agents: AgentDiff[];
  counts: DiffCounts;
  policy?: PolicyChange;
}

/**
 * The change of `credentialDestinations` between the base and head manifests (both read), stated
 * once for the review; undefined when equal or when a side's manifest was not read.
 */
function policyChange(manifests: DiffManifests): PolicyChange | undefined {
  if (!manifests.base || !manifests.head) return undefined;
  const old = manifests.base.credentialDestinations;
  const now = manifests.head.credentialDestinations;
  if (sameJson(old ?? null, now ?? null)) return undefined;
  const shown = (list: readonly string[] | undefined) => (list ? `[${list.join(', ')}]` : '(none: no limit)');
  return {
    ...(old ? { old: [...old] } : {}),
    ...(now ? { new: [...now] } : {}),
    risk: risk('credential-policy-changed', `a2a.json credentialDestinations: ${shown(old)} → ${shown(now)}`),
  };
}

function settingsChanges(old: AgentSettings | undefined, now: AgentSettings | undefined): SettingsChange[] {
  if (!old || !now) return [];
  const out: SettingsChange[] = [];
  const a = old as unknown as Record<string, unknown>;
  const b = now as unknown as Record<string, unknown>;
  for (const field of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (!sameJson(a[field] ?? null, b[field] ?? null))
      out.push({
        field,
        ...(a[field] !== undefined ? { old: a[field] } : {}),
        ...(b[field] !== undefined ? { new: b[field] } : {}),
      });
  }
  return out;
}

function sideOf(lock: Lockfile | undefined, name: string): AgentSide | undefined {
  const entry = own(lock?.agents, name);
  return entry ? { entry, settings: own(lock?.settings, name) } : undefined;
}

function agentDiff(
  name: string,
  old: AgentSide | undefined,
  now: AgentSide | undefined,
  from?: string,
  sources: readonly CredentialSourceChange[] = [],
): AgentDiff {
  const empty = { plans: {} as Record<string, Plan> };
  let changes: EntryChanges;
  let verdict: Verdict;
  if (old && now) {
    changes = entryChanges(old.entry, now.entry);
    // Any change found already says "changed": the whole-entry compare is for the rest (integrity, unknown keys).
    const found =
      changes.version !== undefined ||
      changes.cardChanges.length > 0 ||
      changes.signatureChanges.length > 0 ||
      Object.keys(changes.planChanges).length > 0;
    // Snapshots that differ in proto3 defaults alone are one card (lock/proto-defaults.ts).
    const same =
      !found &&
      sameJson(old.entry, keepSnapshotsOverDefaults(old.entry, now.entry)) &&
      sameJson(old.settings ?? null, now.settings ?? null);
    verdict = from !== undefined ? 'renamed' : same && sources.length === 0 ? 'unchanged' : 'changed';
  } else {
    const side = (old ?? now)!.entry;
    changes = {
      cardChanges: [],
      // The signature status is the agent's `signature` field; "not recorded → absent" says nothing.
      signatureChanges: [],
      planChanges: old ? planChanges(side.plans, empty.plans) : planChanges(empty.plans, side.plans),
    };
    verdict = old ? 'removed' : 'added';
  }
  const settings = settingsChanges(old?.settings, now?.settings);
  const assessed =
    verdict === 'unchanged' ? { risks: [], better: [] } : assessRisks(old, now, old && now ? changes : undefined);
  if (now) assessed.risks.push(...credentialSourceRisks(sources, old, now));
  // High first, then medium, low, info (a stable sort: each level keeps its groups' order).
  assessed.risks.sort((a, b) => RISK_LEVELS.indexOf(a.level) - RISK_LEVELS.indexOf(b.level));
  const level = highestLevel(assessed.risks);
  return {
    name,
    verdict,
    ...(from !== undefined ? { from } : {}),
    card: (now ?? old)!.entry.card,
    version: { ...(old ? { old: old.entry.version } : {}), ...(now ? { new: now.entry.version } : {}) },
    signature: {
      ...(old ? { old: signatureStatus(old.entry.signature) } : {}),
      ...(now ? { new: signatureStatus(now.entry.signature) } : {}),
    },
    changes,
    settingsChanges: settings,
    ...(sources.length ? { credentialSources: [...sources] } : {}),
    risks: assessed.risks,
    better: assessed.better,
    ...(level ? { level } : {}),
  };
}

/**
 * The review of `head` against `base` (either absent: no lockfile on that side, every agent added or
 * removed). An agent only at base and one only at head with the same manifest `card` are one
 * agent `renamed`. Agents sorted by name. `manifests`: the `a2a.json` of each side; when both are
 * given, each agent's credential sources are compared too ({@link credentialSourceChanges}): a
 * change makes the agent `changed` even with its lock entry alike.
 */
export function diffLockfiles(
  base: Lockfile | undefined,
  head: Lockfile | undefined,
  manifests: DiffManifests = {},
): LockfileDiff {
  const baseNames = Object.keys(base?.agents ?? {});
  const headNames = Object.keys(head?.agents ?? {});
  const onlyBase = baseNames.filter((n) => !Object.hasOwn(head?.agents ?? {}, n));
  const onlyHead = headNames.filter((n) => !Object.hasOwn(base?.agents ?? {}, n));
  const renamedFrom = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of onlyHead) {
    const card = head!.agents[name]!.card;
    const from = onlyBase.find((b) => !taken.has(b) && base!.agents[b]!.card === card);
    if (from === undefined) continue;
    taken.add(from);
    renamedFrom.set(name, from);
  }
  const agents: AgentDiff[] = [];
  for (const name of headNames) {
    const from = renamedFrom.get(name);
    const sources = credentialSourceChanges(sourcesOf(manifests.base, from ?? name), sourcesOf(manifests.head, name));
    agents.push(agentDiff(name, sideOf(base, from ?? name), sideOf(head, name), from, sources));
  }
  for (const name of onlyBase) if (!taken.has(name)) agents.push(agentDiff(name, sideOf(base, name), undefined));
  agents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const policy = policyChange(manifests);
  return { agents, counts: countsOf(agents, false, policy), ...(policy ? { policy } : {}) };
}

/** The {@link DiffCounts} of `agents`: ignored risks counted as `ignored` (when `withIgnored`), not by level. */
function countsOf(agents: readonly AgentDiff[], withIgnored = false, policy?: PolicyChange): DiffCounts {
  const counts: DiffCounts = withIgnored ? { ...noCounts(), ignored: 0 } : noCounts();
  if (policy?.risk.ignored) counts.ignored = (counts.ignored ?? 0) + 1;
  else if (policy) counts[policy.risk.level]++;
  for (const a of agents) {
    if (a.verdict === 'renamed') {
      counts.renamed++;
      counts.changed++;
    } else counts[a.verdict]++;
    for (const r of a.risks) {
      if (r.ignored) counts.ignored = (counts.ignored ?? 0) + 1;
      else counts[r.level]++;
    }
    counts.better += a.better.length;
  }
  return counts;
}

/**
 * `diff` with every risk whose code is in `codes` marked `ignored` (`a2a diff --ignore`): still
 * listed, but no longer weighed: each agent's `level` is the highest of its other risks, the counts
 * by level leave it out (`counts.ignored` counts it), and {@link failsOn} passes over it. No codes:
 * `diff` as it is.
 */
export function ignoreRisks(diff: LockfileDiff, codes: ReadonlySet<string>): LockfileDiff {
  if (codes.size === 0) return diff;
  const policy =
    diff.policy && codes.has(diff.policy.risk.code)
      ? { ...diff.policy, risk: { ...diff.policy.risk, ignored: true as const } }
      : diff.policy;
  const agents = diff.agents.map((a) => {
    const risks = a.risks.map((r) => (codes.has(r.code) ? { ...r, ignored: true as const } : r));
    const { level: _level, ...rest } = a;
    const level = highestLevel(risks.filter((r) => !r.ignored));
    return { ...rest, risks, ...(level ? { level } : {}) };
  });
  return { agents, counts: countsOf(agents, true, policy), ...(policy ? { policy } : {}) };
}

/**
 * Whether any risk of `diff` not ignored is at or above `threshold` (`--fail-on`); `any`: any agent
 * changed at all, except one whose every risk is ignored.
 */
export function failsOn(diff: LockfileDiff, threshold: RiskLevel | 'any'): boolean {
  if (diff.policy && !diff.policy.risk.ignored && atOrAbove(diff.policy.risk.level, threshold)) return true;
  if (threshold === 'any')
    return diff.agents.some(
      (a) => a.verdict !== 'unchanged' && !(a.risks.length > 0 && a.risks.every((r) => r.ignored)),
    );
  return diff.agents.some((a) => a.risks.some((r) => !r.ignored && atOrAbove(r.level, threshold)));
}
