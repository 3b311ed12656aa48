/**
 * One-line canonical JSON of a value (object keys sorted by code unit, as the lockfile stores a card),
 * the one way a review line writes a value, so two values that differ only in key order read the same
 * (a snapshot comes sorted, a served card in its own order). Shortened only at value boundaries: a value too long for its line keeps
 * whole members and elements and replaces each run of left-out ones by `… N more` where they stood
 * (`{"a":1,… 3 more}`, `["x",… 2 more,"z"]`). A string is never cut: one too long is left out with
 * its neighbours, or, standing alone or as the member that changed, replaced whole by
 * `… (string, N characters)`. Removing the `… N more` markers (and the comma beside each) and
 * reading a string marker as a string leaves JSON whose values are all whole values of the
 * original. Pure; the texts are bounded by about the budget given (markers included).
 */
import { canonicalJson } from '../../canonical.js';

/** One member (`"key":value`) or element of a container, and whether it differs from the other side. */
interface Item {
  /** The JSON before the value: `"key":` for a member, '' for an element. */
  lead: string;
  value: unknown;
  /** The value as it stands on the other side of a pair (a member of the same key), for its own pair. */
  other?: { value: unknown };
  differs: boolean;
}

/** How many items of one container, of those that differ and of the rest, are tried (the others are left out). */
const TRIED = 64;
/** Below this much room a container is left out rather than opened. */
const OPEN_AT_LEAST = 24;

/** A value's canonical JSON, whole; `null` for undefined. */
function whole(value: unknown): string {
  return value === undefined ? 'null' : canonicalJson(value);
}

/** The marker of `n` left-out items. */
function marker(n: number): string {
  return `… ${n} more`;
}

/** A string too long for its line, left out: `… (string, N characters)`. */
function stringMarker(text: string): string {
  return `… (string, ${[...text].length} characters)`;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/**
 * `value` as one-line canonical JSON of at most about `budget` characters, cut at value boundaries
 * (see the module comment).
 */
export function elideJson(value: unknown, budget: number): string {
  return elide(value, undefined, budget);
}

/**
 * `a` and `b` as {@link elideJson} does, each within `budget`, keeping first what differs between
 * them: members whose values differ (and elements the other side lacks) are shown before those the
 * two share, so a long value still shows its difference.
 */
export function elideJsonPair(a: unknown, b: unknown, budget: number): [string, string] {
  return [elide(a, { value: b }, budget), elide(b, { value: a }, budget)];
}

/** {@link elideJson} of `value`, told the other side of its pair when there is one. */
function elide(value: unknown, other: { value: unknown } | undefined, budget: number): string {
  const text = whole(value);
  if (text.length <= budget) return text;
  if (typeof value === 'string') return stringMarker(value);
  if (!isContainer(value)) return text; // a number, true/false, null: short
  const array = Array.isArray(value);
  const items = array ? elements(value, other) : members(value as Record<string, unknown>, other);
  const inner = fitItems(items, budget - 2, other !== undefined);
  return array ? `[${inner}]` : `{${inner}}`;
}

/**
 * The elements of an array; of a pair, an element the other side lacks differs, and the k-th of them
 * is paired with the k-th the other side has and this one lacks (so what changed inside it shows).
 */
function elements(value: unknown[], other: { value: unknown } | undefined): Item[] {
  if (!other || !Array.isArray(other.value)) return value.map((v) => ({ lead: '', value: v, differs: false }));
  const mine = value.map((v) => whole(v));
  const mineSet = new Set(mine);
  const theirsSet = new Set(other.value.map((v) => whole(v)));
  const theirsOnly = other.value.filter((v) => !mineSet.has(whole(v)));
  let k = 0;
  return value.map((v, i) => {
    if (theirsSet.has(mine[i]!)) return { lead: '', value: v, differs: false };
    const counterpart = k < theirsOnly.length ? { other: { value: theirsOnly[k] } } : {};
    k++;
    return { lead: '', value: v, ...counterpart, differs: true };
  });
}

function members(value: Record<string, unknown>, other: { value: unknown } | undefined): Item[] {
  const keys = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const theirs =
    other && isContainer(other.value) && !Array.isArray(other.value)
      ? (other.value as Record<string, unknown>)
      : undefined;
  return keys.map((k) => {
    const mine = value[k];
    const there = theirs && Object.hasOwn(theirs, k) ? { value: theirs[k] } : undefined;
    const differs = theirs !== undefined && (there === undefined || whole(there.value) !== whole(mine));
    return { lead: `${JSON.stringify(k)}:`, value: mine, ...(there ? { other: there } : {}), differs };
  });
}

/**
 * The items that fit in `budget`, whole, the differing ones chosen first, then the rest in order;
 * written in their own order with each run of left-out ones as one marker. A container too long
 * whole is opened when there is room (of a pair: only one that differs), and a differing string
 * too long is shown as its marker, so the member that changed is still named.
 */
function fitItems(items: Item[], budget: number, paired: boolean): string {
  const shown = new Map<number, string>();
  // Room for item `i` if it were shown now: the budget less what the items shown and the markers of
  // the runs left out would then take (`i` itself counted with its comma, not its text).
  const room = (i: number) => budget - writtenLength(items.length, shown, i);
  const take = (i: number) => {
    const item = items[i]!;
    const space = room(i);
    const text = whole(item.value);
    let written: string | undefined;
    if (item.lead.length + text.length <= space) written = item.lead + text;
    else if (isContainer(item.value) && (!paired || item.differs) && space - item.lead.length >= OPEN_AT_LEAST)
      written = item.lead + elide(item.value, item.other, space - item.lead.length);
    else if (typeof item.value === 'string' && item.differs) written = item.lead + stringMarker(item.value);
    if (written !== undefined && written.length <= space) shown.set(i, written);
  };
  // Bounded work on a huge list: the first TRIED of each kind are tried; the rest are counted.
  const differing = items.flatMap((x, i) => (x.differs ? [i] : [])).slice(0, TRIED);
  const rest = items.flatMap((x, i) => (x.differs ? [] : [i])).slice(0, TRIED);
  for (const i of [...differing, ...rest]) take(i);
  const parts: string[] = [];
  let left = 0;
  items.forEach((_, i) => {
    const text = shown.get(i);
    if (text === undefined) return void left++;
    if (left > 0) parts.push(marker(left));
    left = 0;
    parts.push(text);
  });
  if (left > 0) parts.push(marker(left));
  return parts.join(',');
}

/** The length of the items `shown` (of `count`) written with their markers and commas, `extra` counted as shown with no text. */
function writtenLength(count: number, shown: ReadonlyMap<number, string>, extra: number): number {
  let length = 0;
  let parts = 0;
  let left = 0;
  for (let i = 0; i < count; i++) {
    const text = i === extra ? '' : shown.get(i);
    if (text === undefined) {
      left++;
      continue;
    }
    if (left > 0) {
      length += marker(left).length;
      parts++;
    }
    left = 0;
    length += text.length;
    parts++;
  }
  if (left > 0) {
    length += marker(left).length;
    parts++;
  }
  return length + Math.max(0, parts - 1);
}
