/**
 * What changed between two card snapshots, path by path (deep-diff), and whether each change is
 * structural (it can decide a plan: interfaces, security, capabilities, modes, extensions, skills)
 * or descriptive (anything else: names, descriptions, provider, tags, examples, version).
 * Pure.
 */
import deepDiff from 'deep-diff';
import { formatPath } from '../json-path.js';

/** One changed path. `old`/`new` are absent for additions/removals respectively. */
export interface CardChange {
  /** JSON path in the card; skills are keyed by id: `$.skills["market-size"].outputModes`. */
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

function isStructural(path: ReadonlyArray<PropertyKey>): boolean {
  const [top, skill, field] = path;
  if (typeof top === 'string' && STRUCTURAL_TOP.has(top)) return true;
  if (top === 'skills') return skill === undefined || field === undefined || (typeof field === 'string' && STRUCTURAL_SKILL.has(field));
  return false;
}

/** Every difference between the locked and the fresh card, in deep-diff order. */
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
