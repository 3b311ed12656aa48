/**
 * The one change model: what differs between two sides of one agent, each a lock entry or what was
 * served now. Card changes path by path (deep-diff, skills keyed by id), each structural (it can
 * decide a plan: interfaces, security, capabilities, modes, extensions, skills) or descriptive
 * (names, descriptions, provider, tags, examples, version); extended-card paths prefixed
 * `extended:`; a moved `resolved` URL; the signature records; the plan fields per skill. Used by
 * `verify`, `outdated`, `update`, `lock` and the runtime's refresh (through `lock/drift.ts`), and
 * by anything comparing two lockfiles. Pure.
 */
import deepDiff from 'deep-diff';
import { sameJson } from '../canonical.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { formatPath, own } from '../json-path.js';
import { diffPlans } from '../negotiate/negotiate.js';
import type { Plan } from '../negotiate/types.js';

/** One changed path. `old`/`new` are absent for additions/removals respectively. */
export interface CardChange {
  /** JSON path in the card; skills are keyed by id: `$.skills["market-size"].outputModes`; `extended:` prefixes the extended card's paths. */
  path: string;
  kind: 'added' | 'removed' | 'changed';
  old?: unknown;
  new?: unknown;
  structural: boolean;
}

/** Top-level card fields that can decide a plan (1.0 and 0.3 names). */
const STRUCTURAL_TOP = new Set([
  'supportedInterfaces', 'url', 'preferredTransport', 'additionalInterfaces', 'protocolVersion',
  'securitySchemes', 'securityRequirements', 'security', 'capabilities', 'defaultInputModes',
  'defaultOutputModes', 'supportsAuthenticatedExtendedCard',
]);
/** Skill fields that can decide a plan. */
const STRUCTURAL_SKILL = new Set(['id', 'inputModes', 'outputModes', 'securityRequirements', 'security']);

/** Skills as an object keyed by id, so a reorder or an insertion does not show as index churn. */
function keyedBySkill(card: Record<string, unknown>): Record<string, unknown> {
  const skills = card.skills;
  if (!Array.isArray(skills)) return card;
  const ids = skills.map((s) => (s && typeof s === 'object' ? (s as { id?: unknown }).id : undefined));
  if (!ids.every((id) => typeof id === 'string') || new Set(ids).size !== ids.length) return card;
  return { ...card, skills: Object.fromEntries(skills.map((s, i) => [ids[i] as string, s])) };
}

/** Whether a change at `path` (in a card) can decide a plan. */
function isStructural(path: ReadonlyArray<PropertyKey>): boolean {
  const [top, skill, field] = path;
  if (typeof top === 'string' && STRUCTURAL_TOP.has(top)) return true;
  if (top === 'skills') return skill === undefined || field === undefined || (typeof field === 'string' && STRUCTURAL_SKILL.has(field));
  return false;
}

/** Every difference between two cards (raw JSON), in deep-diff order. */
export function diffCards(locked: Record<string, unknown>, fresh: Record<string, unknown>): CardChange[] {
  const changes = deepDiff(keyedBySkill(locked), keyedBySkill(fresh)) ?? [];
  return changes.map((d) => {
    let path: PropertyKey[] = d.path ?? [];
    let item: deepDiff.Diff<unknown> = d as deepDiff.Diff<unknown>;
    if (d.kind === 'A') {
      path = [...path, d.index];
      item = d.item as deepDiff.Diff<unknown>;
    }
    const base = { path: formatPath(path), structural: isStructural(path) };
    switch (item.kind) {
      case 'N':
        return { ...base, kind: 'added', new: item.rhs };
      case 'D':
        return { ...base, kind: 'removed', old: item.lhs };
      default:
        return { ...base, kind: 'changed', old: (item as deepDiff.DiffEdit<unknown>).lhs, new: (item as deepDiff.DiffEdit<unknown>).rhs };
    }
  });
}

/** `structural` when any change can decide a plan, else `descriptive`; undefined for no change. */
export function changeKind(changes: readonly CardChange[]): 'structural' | 'descriptive' | undefined {
  if (changes.length === 0) return undefined;
  return changes.some((c) => c.structural) ? 'structural' : 'descriptive';
}

/** One side of an agent's cards: a lock entry's snapshots, or the cards served now. */
export interface CardSide {
  /** The URL (or file path) that answered with the public card. */
  resolved: string;
  /** The public card as fetched. */
  snapshot: Record<string, unknown>;
  /** The extended card, when there is one. */
  extended?: { snapshot: Record<string, unknown> } | undefined;
}

/**
 * The card changes from `old` to `now`: `resolved` first when it moved (relative interface URLs
 * resolve against it, so it is structural), then the public card path by path, then the extended
 * card's paths prefixed `extended:` (or `extended:$` added/removed as a whole).
 */
export function cardChanges(old: CardSide, now: CardSide): CardChange[] {
  // Compared as JSON, not by integrity strings (an edited snapshot keeps its old integrity).
  const changes: CardChange[] = sameJson(old.snapshot, now.snapshot) ? [] : diffCards(old.snapshot, now.snapshot);
  if (old.resolved !== now.resolved) changes.unshift({ path: 'resolved', kind: 'changed', old: old.resolved, new: now.resolved, structural: true });
  if (!sameJson(old.extended?.snapshot ?? null, now.extended?.snapshot ?? null)) {
    if (old.extended && now.extended) changes.push(...diffCards(old.extended.snapshot, now.extended.snapshot).map((c) => ({ ...c, path: `extended:${c.path}` })));
    else changes.push({ path: 'extended:$', kind: now.extended ? 'added' : 'removed', ...(now.extended ? { new: '(extended card)' } : { old: '(extended card)' }), structural: true });
  }
  return changes;
}

/** One plan field that changes; a skill added or removed has `field` `"plan"` and `old`/`new` absent. */
export interface PlanChange {
  field: string;
  old?: unknown;
  new?: unknown;
}

/** A signature record that changes. */
export interface SignatureChange {
  snapshot: 'card' | 'extended';
  old?: SignatureRecord;
  new?: SignatureRecord;
}

/** Everything that differs between two entries of one agent. */
export interface EntryChanges {
  /** The card's own `version`, when it changes. */
  version?: { old: string; new: string };
  cardChanges: CardChange[];
  signatureChanges: SignatureChange[];
  /** Skill id → the plan fields that change. Skills whose plan is equal are absent. */
  planChanges: Record<string, PlanChange[]>;
}

/** What a lock entry holds that {@link entryChanges} compares. */
export interface EntrySide extends CardSide {
  version: string;
  signature?: SignatureRecord | undefined;
  extended?: { snapshot: Record<string, unknown>; signature?: SignatureRecord | undefined } | undefined;
  plans: Record<string, Plan>;
}

/** The signature records that differ between two sides. */
export function signatureChanges(old: Pick<EntrySide, 'signature' | 'extended'>, now: Pick<EntrySide, 'signature' | 'extended'>): SignatureChange[] {
  const changes: SignatureChange[] = [];
  if (!sameJson(old.signature ?? null, now.signature ?? null)) {
    changes.push({ snapshot: 'card', ...(old.signature ? { old: old.signature } : {}), ...(now.signature ? { new: now.signature } : {}) });
  }
  if (!sameJson(old.extended?.signature ?? null, now.extended?.signature ?? null)) {
    changes.push({ snapshot: 'extended', ...(old.extended?.signature ? { old: old.extended.signature } : {}), ...(now.extended?.signature ? { new: now.extended.signature } : {}) });
  }
  return changes;
}

/** Skill id → the plan fields that differ; a skill on one side only is one `plan` change. */
export function planChanges(old: Record<string, Plan>, now: Record<string, Plan>): Record<string, PlanChange[]> {
  const changes: Record<string, PlanChange[]> = {};
  for (const skill of new Set([...Object.keys(old), ...Object.keys(now)])) {
    const before = own(old, skill);
    const after = own(now, skill);
    if (!before || !after) changes[skill] = [{ field: 'plan', ...(before ? { old: before } : {}), ...(after ? { new: after } : {}) }];
    else {
      const d = diffPlans(before, after);
      if (d.length) changes[skill] = d.map((x) => ({ field: x.field, old: x.locked, new: x.fresh }));
    }
  }
  return changes;
}

/** The changes from `old` to `now`: two entries of the same agent (two lockfiles, or before and after `update`). */
export function entryChanges(old: EntrySide, now: EntrySide): EntryChanges {
  return {
    ...(old.version !== now.version ? { version: { old: old.version, new: now.version } } : {}),
    cardChanges: cardChanges(old, now),
    signatureChanges: signatureChanges(old, now),
    planChanges: planChanges(old.plans, now.plans),
  };
}
