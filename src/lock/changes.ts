/**
 * The one change model: what differs between two sides of one agent, each a lock entry or what was
 * served now. Card changes path by path, collections by identity ({@link diffCards}), each structural (it can
 * decide a plan: interfaces, security, capabilities, modes, extensions, skills) or descriptive
 * (names, descriptions, provider, tags, examples, version); extended-card paths prefixed
 * `extended:`; a moved `resolved` URL; the signature records; the plan fields per skill. Used by
 * `verify`, `outdated`, `update`, `lock` and the runtime's refresh (through `lock/drift.ts`), and
 * by `a2a diff` comparing two lockfiles (`lock/risk.ts`). Pure.
 */
import { canonicalJson, sameJson } from '../canonical.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { formatPath, isRecord, own } from '../json-path.js';
import { diffPlans } from '../negotiate/negotiate.js';
import type { Plan } from '../negotiate/types.js';
import { withoutDefaults } from './proto-defaults.js';

/** One changed path. `old`/`new` are absent for additions/removals respectively. */
export interface CardChange {
  /** JSON path in the card; skills are keyed by id: `$.skills["market-size"].outputModes`; `extended:` prefixes the extended card's paths. */
  path: string;
  /** `reordered`: the same items in another order where order is preference (`old`/`new`: their keys in order). */
  kind: 'added' | 'removed' | 'changed' | 'reordered';
  old?: unknown;
  new?: unknown;
  structural: boolean;
}

/** Top-level card fields that can decide a plan (1.0 and 0.3 names). */
const STRUCTURAL_TOP = new Set([
  'supportedInterfaces',
  'url',
  'preferredTransport',
  'additionalInterfaces',
  'protocolVersion',
  'securitySchemes',
  'securityRequirements',
  'security',
  'capabilities',
  'defaultInputModes',
  'defaultOutputModes',
  'supportsAuthenticatedExtendedCard',
  'signatures',
]);
/** Skill fields that can decide a plan. */
const STRUCTURAL_SKILL = new Set(['id', 'inputModes', 'outputModes', 'securityRequirements', 'security']);

/**
 * How an array at a card path compares: `set` (members by value, order without meaning: modes, tags,
 * requirements), `keyed` (items by an identity, order without meaning: skills by id, extensions by
 * uri), `ordered` (items by an identity, order is preference: interfaces), else by position.
 */
type Collection = { kind: 'set' } | { kind: 'keyed' | 'ordered'; key: (item: unknown) => string | undefined };

function field(item: unknown, name: string): unknown {
  return item && typeof item === 'object' && !Array.isArray(item) ? (item as Record<string, unknown>)[name] : undefined;
}

const bySkillId: Collection = {
  kind: 'keyed',
  key: (s) => (typeof field(s, 'id') === 'string' ? (field(s, 'id') as string) : undefined),
};
const byUri: Collection = {
  kind: 'keyed',
  key: (e) => (typeof field(e, 'uri') === 'string' ? (field(e, 'uri') as string) : undefined),
};
/**
 * An interface by (binding, version, url): 1.0 `protocolBinding`/`protocolVersion`, 0.3 `transport`;
 * its key `<binding> <version> <url>[ tenant=<t>]`, a part the card leaves out (or empty) left out
 * with its space (`HTTP+JSON https://…` for an interface without `protocolVersion`, as a2a-sdk serves).
 */
const byInterface: Collection = {
  kind: 'ordered',
  key: (i) => {
    const url = field(i, 'url');
    if (typeof url !== 'string') return undefined;
    const binding = field(i, 'protocolBinding') ?? field(i, 'transport') ?? '';
    const version = field(i, 'protocolVersion') ?? '';
    const tenant = field(i, 'tenant');
    const parts = [String(binding), String(version), url].filter((part) => part !== '');
    return `${parts.join(' ')}${typeof tenant === 'string' ? ` tenant=${tenant}` : ''}`;
  },
};
const SET: Collection = { kind: 'set' };
const SET_FIELDS = new Set(['defaultInputModes', 'defaultOutputModes', 'securityRequirements', 'security']);
const SKILL_SET_FIELDS = new Set(['inputModes', 'outputModes', 'tags', 'examples', 'securityRequirements', 'security']);

/** The collection rule for the array at `path` of a card (see {@link Collection}); undefined: by position. */
function collectionAt(path: ReadonlyArray<PropertyKey>): Collection | undefined {
  const [top, a, b] = path;
  if (path.length === 1) {
    if (top === 'skills') return bySkillId;
    if (top === 'supportedInterfaces' || top === 'additionalInterfaces') return byInterface;
    if (typeof top === 'string' && SET_FIELDS.has(top)) return SET;
  }
  if (path.length === 2 && top === 'capabilities' && a === 'extensions') return byUri;
  if (path.length === 3 && top === 'skills' && typeof b === 'string' && SKILL_SET_FIELDS.has(b)) return SET;
  return undefined;
}

/** A set member's identity: its canonical JSON, the scopes of a requirement sorted (`{oauth: [a, b]}` is `{oauth: [b, a]}`). */
function memberKey(value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const sorted = Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        Array.isArray(v) && v.every((x) => typeof x === 'string') ? [...v].sort() : v,
      ]),
    );
    return canonicalJson(sorted);
  }
  return canonicalJson(value ?? null);
}

/** Whether a change at `path` (in a card) can decide a plan. */
function isStructural(path: ReadonlyArray<PropertyKey>): boolean {
  const [top, skill, field] = path;
  if (typeof top === 'string' && STRUCTURAL_TOP.has(top)) return true;
  if (top === 'skills')
    return skill === undefined || field === undefined || (typeof field === 'string' && STRUCTURAL_SKILL.has(field));
  return false;
}

/** Depth past which two values differing are one change (a card is at most 64 levels deep). */
const MAX_DIFF_DEPTH = 80;

/** Where a change sits: its formatted path and whether it is structural (`path` is read now, never kept). */
function changeAt(path: readonly PropertyKey[]): { path: string; structural: boolean } {
  return { path: formatPath(path), structural: isStructural(path) };
}

/** `walk` one level down: `path` grows by `key` for the call and is restored after (no array per member). */
function walkInto(path: PropertyKey[], key: PropertyKey, a: unknown, b: unknown, out: CardChange[]): void {
  path.push(key);
  walk(path, a, b, out);
  path.pop();
}

function walk(path: PropertyKey[], a: unknown, b: unknown, out: CardChange[]): void {
  // Objects and arrays are compared member by member below (a whole-value compare at every level
  // would visit each leaf once per level above it).
  if (a === b) return;
  const records = isRecord(a) && isRecord(b);
  const arrays = !records && Array.isArray(a) && Array.isArray(b);
  if (!records && !arrays && sameJson(a, b)) return;
  if (a === undefined) return void out.push({ ...changeAt(path), kind: 'added', new: b });
  if (b === undefined) return void out.push({ ...changeAt(path), kind: 'removed', old: a });
  if (path.length < MAX_DIFF_DEPTH && records) {
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    for (const key of Object.keys(x)) walkInto(path, key, x[key], Object.hasOwn(y, key) ? y[key] : undefined, out);
    for (const key of Object.keys(y)) if (!Object.hasOwn(x, key)) walkInto(path, key, undefined, y[key], out);
    return;
  }
  if (path.length < MAX_DIFF_DEPTH && arrays) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (sameJson(x, y)) return;
    const rule = collectionAt(path);
    if (rule?.kind === 'set') return void setChanges(x, y, out, changeAt(path));
    if (rule && keyedChanges(path, x, y, rule, out)) return;
    const n = Math.max(x.length, y.length);
    for (let i = 0; i < n; i++)
      walkInto(path, i, i < x.length ? x[i] : undefined, i < y.length ? y[i] : undefined, out);
    return;
  }
  out.push({ ...changeAt(path), kind: 'changed', old: a, new: b });
}

/** Members of `a` not in `b` removed, of `b` not in `a` added; a pure reorder of a set is no change. */
function setChanges(a: unknown[], b: unknown[], out: CardChange[], at: { path: string; structural: boolean }): void {
  const keysA = new Set(a.map(memberKey));
  const keysB = new Set(b.map(memberKey));
  const seen = new Set<string>();
  for (const item of a) {
    const k = memberKey(item);
    if (keysB.has(k) || seen.has(k)) continue;
    seen.add(k);
    out.push({ ...at, kind: 'removed', old: item });
  }
  for (const item of b) {
    const k = memberKey(item);
    if (keysA.has(k) || seen.has(k)) continue;
    seen.add(k);
    out.push({ ...at, kind: 'added', new: item });
  }
}

/**
 * Items compared by identity: removed, added, and those on both sides compared field by field
 * under their key; for an `ordered` collection, the same items in another order is one
 * `reordered` change. False (compare by position) when an item has no key or two share one.
 */
function keyedChanges(
  path: PropertyKey[],
  a: unknown[],
  b: unknown[],
  rule: Extract<Collection, { key: unknown }>,
  out: CardChange[],
): boolean {
  const ka = a.map(rule.key);
  const kb = b.map(rule.key);
  const unique = (keys: Array<string | undefined>): keys is string[] =>
    keys.every((k) => k !== undefined) && new Set(keys).size === keys.length;
  if (!unique(ka) || !unique(kb)) return false;
  const inB = new Map(kb.map((k, i) => [k, i]));
  const inA = new Map(ka.map((k, i) => [k, i]));
  ka.forEach((k, i) => walkInto(path, k, a[i], inB.has(k) ? b[inB.get(k)!] : undefined, out));
  kb.forEach((k, i) => {
    if (!inA.has(k)) walkInto(path, k, undefined, b[i], out);
  });
  if (rule.kind === 'ordered') {
    const commonA = ka.filter((k) => inB.has(k));
    const commonB = kb.filter((k) => inA.has(k));
    if (commonA.some((k, i) => k !== commonB[i]))
      out.push({
        path: formatPath(path),
        kind: 'reordered',
        old: commonA,
        new: commonB,
        structural: isStructural(path),
      });
  }
  return true;
}

/**
 * Every difference between two cards (raw JSON), each read without its fields at their proto3
 * default ({@link withoutDefaults}: `tenant: ""` is no tenant, `extensions: []` no extensions, so
 * an SDK that starts or stops writing them changes nothing, and interfaces match on their keys
 * without them). Collections compare by identity, not position:
 * skills by id, interfaces by (binding, version, url), extensions by uri, security schemes by name
 * (an object already), requirements, modes, tags and examples as sets (each member added or
 * removed at the set's path); interfaces, whose order is preference, say `reordered` on a pure
 * reorder. Other arrays compare by position.
 */
export function diffCards(locked: Record<string, unknown>, fresh: Record<string, unknown>): CardChange[] {
  const out: CardChange[] = [];
  // Only the top-level fields that differ as written go through the view: a field equal as written
  // is equal without its defaults too, and most fields of a changed card did not change (the
  // `a2a diff` row; docs/explanation/performance.md).
  walk([], withoutDefaults(differingFields(locked, fresh)), withoutDefaults(differingFields(fresh, locked)), out);
  return out;
}

/** The top-level fields of `card` that `other` lacks or holds differently (own data properties, `__proto__` too). */
function differingFields(card: Record<string, unknown>, other: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(card).filter(([key, value]) => !(Object.hasOwn(other, key) && sameJson(value, other[key]))),
  );
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
  // Compared as JSON, not by integrity strings (an edited snapshot keeps its old integrity), and
  // without proto3 defaults (diffCards): a snapshot that differs in those alone has no change.
  const changes: CardChange[] = sameJson(old.snapshot, now.snapshot) ? [] : diffCards(old.snapshot, now.snapshot);
  if (old.resolved !== now.resolved)
    changes.unshift({ path: 'resolved', kind: 'changed', old: old.resolved, new: now.resolved, structural: true });
  if (!sameJson(old.extended?.snapshot ?? null, now.extended?.snapshot ?? null)) {
    // diffCards finds nothing when the two extended cards differ in proto3 defaults alone.
    if (old.extended && now.extended)
      changes.push(
        ...diffCards(old.extended.snapshot, now.extended.snapshot).map((c) => ({ ...c, path: `extended:${c.path}` })),
      );
    else
      changes.push({
        path: 'extended:$',
        kind: now.extended ? 'added' : 'removed',
        ...(now.extended ? { new: '(extended card)' } : { old: '(extended card)' }),
        structural: true,
      });
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
export function signatureChanges(
  old: Pick<EntrySide, 'signature' | 'extended'>,
  now: Pick<EntrySide, 'signature' | 'extended'>,
): SignatureChange[] {
  const changes: SignatureChange[] = [];
  if (!sameJson(old.signature ?? null, now.signature ?? null)) {
    changes.push({
      snapshot: 'card',
      ...(old.signature ? { old: old.signature } : {}),
      ...(now.signature ? { new: now.signature } : {}),
    });
  }
  if (!sameJson(old.extended?.signature ?? null, now.extended?.signature ?? null)) {
    changes.push({
      snapshot: 'extended',
      ...(old.extended?.signature ? { old: old.extended.signature } : {}),
      ...(now.extended?.signature ? { new: now.extended.signature } : {}),
    });
  }
  return changes;
}

/** Skill id → the plan fields that differ; a skill on one side only is one `plan` change. */
export function planChanges(old: Record<string, Plan>, now: Record<string, Plan>): Record<string, PlanChange[]> {
  const changes: Record<string, PlanChange[]> = {};
  for (const skill of new Set([...Object.keys(old), ...Object.keys(now)])) {
    const before = own(old, skill);
    const after = own(now, skill);
    if (!before || !after)
      changes[skill] = [{ field: 'plan', ...(before ? { old: before } : {}), ...(after ? { new: after } : {}) }];
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
