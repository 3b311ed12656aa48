/**
 * Canonical JSON and integrity hashes. Canonical JSON here is json-stable-stringify: object keys
 * sorted by code unit, no whitespace, arrays in order. The integrity of a card snapshot is
 * `sha256-<base64>` of that text (the Subresource Integrity format npm uses).
 */
import { createHash } from 'node:crypto';
import stableStringify from 'json-stable-stringify';

/**
 * Canonical JSON text of a value (sorted keys, no whitespace): json-stable-stringify's text, made
 * here without loading it (its ~20 CommonJS helpers cost a cold start's first integrity check
 * several ms; test/runtime/cold-checks.test.ts holds the two equal on arbitrary values).
 * @throws TypeError for a value with no JSON form (`undefined`, a function) and a cycle through an object
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalText(value, []);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/** {@link canonicalJson} of one value: undefined when it has no JSON form; `open` holds the objects being written (cycles). */
function canonicalText(value: unknown, open: object[]): string | undefined {
  if (value && typeof (value as { toJSON?: unknown }).toJSON === 'function') value = (value as { toJSON(): unknown }).toJSON();
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    const items: string[] = [];
    // An index loop, not map(): a hole is written as null.
    for (let i = 0; i < value.length; i++) items.push(canonicalText(value[i], open) ?? 'null');
    return `[${items.join(',')}]`;
  }
  if (open.includes(value)) throw new TypeError('Converting circular structure to JSON');
  open.push(value);
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const text = canonicalText((value as Record<string, unknown>)[key], open);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  open.pop();
  return `{${members.join(',')}}`;
}

/**
 * Whether two JSON values are equal as canonical JSON would say (object key order aside, arrays in
 * order, `undefined` members absent), without building the text: the plan comparisons of every
 * verify run use it.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const isArray = Array.isArray(a);
  if (isArray !== Array.isArray(b)) return false;
  if (isArray) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!sameJson(x[i], y[i])) return false;
    return true;
  }
  // Loops, not filter/every: this runs on every member of two 1000-agent lockfiles in `a2a diff`.
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let members = 0;
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (v === undefined) continue;
    members++;
    if (!Object.hasOwn(y, k) || !sameJson(v, y[k])) return false;
  }
  for (const k of Object.keys(y)) if (y[k] !== undefined) members--;
  return members === 0;
}

/** `sha256-<base64>` over the canonical JSON of `value`. */
export function integrityOf(value: unknown): string {
  return `sha256-${createHash('sha256').update(canonicalJson(value)).digest('base64')}`;
}

/** Pretty, deterministic JSON for files we write: sorted keys, 2-space indent, LF, trailing newline. */
export function stableFileJson(value: unknown): string {
  const text = stableStringify(value, { space: 2 });
  if (text === undefined) throw new TypeError('value has no JSON form');
  // json-stable-stringify spreads empty containers over two lines; a raw newline cannot occur
  // inside a JSON string, so these patterns only ever match structure.
  return `${text.replace(/\[\n\s*\]/g, '[]').replace(/\{\n\s*\}/g, '{}')}\n`;
}
