/**
 * What replacing a lock entry changes, as shown by `a2a update` (after writing) and `a2a outdated`
 * (instead of writing): the card version, the card changes path by path (deep-diff, extended-card
 * paths prefixed `extended:`), the signature records, and the plan fields per skill. Pure.
 */
import { sameJson } from '../canonical.js';
import type { SignatureRecord } from '../card/signature.js';
import { own } from '../json-path.js';
import { diffPlans } from '../negotiate/negotiate.js';
import { diffCards, type CardChange } from './card-diff.js';
import type { LockEntry } from './schema.js';

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

/** The changes from `old` to `now` (both entries of the same agent). */
export function entryChanges(old: LockEntry, now: LockEntry): EntryChanges {
  // Compared as JSON, not by the integrity strings (an edited snapshot keeps its old integrity).
  const cardChanges: CardChange[] = sameJson(old.snapshot, now.snapshot) ? [] : diffCards(old.snapshot, now.snapshot);
  if (old.resolved !== now.resolved) cardChanges.unshift({ path: 'resolved', kind: 'changed', old: old.resolved, new: now.resolved, structural: true });
  if (!sameJson(old.extended?.snapshot ?? null, now.extended?.snapshot ?? null)) {
    if (old.extended && now.extended) cardChanges.push(...diffCards(old.extended.snapshot, now.extended.snapshot).map((c) => ({ ...c, path: `extended:${c.path}` })));
    else cardChanges.push({ path: 'extended:$', kind: now.extended ? 'added' : 'removed', ...(now.extended ? { new: '(extended card)' } : { old: '(extended card)' }), structural: true });
  }
  const signatureChanges: SignatureChange[] = [];
  if (!sameJson(old.signature ?? null, now.signature ?? null)) {
    signatureChanges.push({ snapshot: 'card', ...(old.signature ? { old: old.signature } : {}), ...(now.signature ? { new: now.signature } : {}) });
  }
  if (!sameJson(old.extended?.signature ?? null, now.extended?.signature ?? null)) {
    signatureChanges.push({ snapshot: 'extended', ...(old.extended?.signature ? { old: old.extended.signature } : {}), ...(now.extended?.signature ? { new: now.extended.signature } : {}) });
  }
  const planChanges: Record<string, PlanChange[]> = {};
  for (const skill of new Set([...Object.keys(old.plans), ...Object.keys(now.plans)])) {
    const before = own(old.plans, skill);
    const after = own(now.plans, skill);
    if (!before || !after) planChanges[skill] = [{ field: 'plan', ...(before ? { old: before } : {}), ...(after ? { new: after } : {}) }];
    else {
      const d = diffPlans(before, after);
      if (d.length) planChanges[skill] = d.map((x) => ({ field: x.field, old: x.locked, new: x.fresh }));
    }
  }
  return { ...(old.version !== now.version ? { version: { old: old.version, new: now.version } } : {}), cardChanges, signatureChanges, planChanges };
}
