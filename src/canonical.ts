/**
 * Canonical JSON and integrity hashes. Canonical JSON: object keys sorted by code unit, arrays in
 * order, no whitespace (json-stable-stringify's text, which is RFC 8785's for JSON values). The
 * integrity of a card snapshot is `sha256-<base64>` of that text (the Subresource Integrity format
 * npm uses). Files we write are the same text indented ({@link stableFileJson}).
 */
import { createHash } from 'node:crypto';

/** How {@link canonicalJson} writes. */
export interface CanonicalOptions {
  /** Spaces per nesting level, one member or item per line, `": "` after keys; empty containers stay `[]` and `{}`. Default 0: no whitespace. */
  indent?: number;
}

/**
 * Canonical JSON text of a value: sorted keys, arrays in order; no whitespace unless `indent`.
 * test/runtime/cold-checks.test.ts holds it to json-stable-stringify on arbitrary values.
 * @throws TypeError for a value with no JSON form (`undefined`, a function) and a cycle through an object
 */
export function canonicalJson(value: unknown, options: CanonicalOptions = {}): string {
  const text = canonicalText(value, [], options.indent ? ' '.repeat(options.indent) : '', '');
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/**
 * {@link canonicalJson} of one value: undefined when it has no JSON form; `open` holds the objects
 * being written (cycles); `space` is one level's indent ('' for none), `pad` the current line's.
 */
function canonicalText(value: unknown, open: object[], space: string, pad: string): string | undefined {
  if (value && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    value = (value as { toJSON(): unknown }).toJSON();
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const inner = space ? `${pad}${space}` : pad;
  const open1 = space ? `\n${inner}` : '';
  if (Array.isArray(value)) {
    const items: string[] = [];
    // An index loop, not map(): a hole is written as null.
    for (let i = 0; i < value.length; i++) items.push(open1 + (canonicalText(value[i], open, space, inner) ?? 'null'));
    return items.length === 0 ? '[]' : `[${items.join(',')}${space ? `\n${pad}` : ''}]`;
  }
  if (open.includes(value)) throw new TypeError('Converting circular structure to JSON');
  open.push(value);
  const colon = space ? ': ' : ':';
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const text = canonicalText((value as Record<string, unknown>)[key], open, space, inner);
    if (text !== undefined) members.push(`${open1}${JSON.stringify(key)}${colon}${text}`);
  }
  open.pop();
  return members.length === 0 ? '{}' : `{${members.join(',')}${space ? `\n${pad}` : ''}}`;
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

/** Pretty, deterministic JSON for files we write: {@link canonicalJson} indented by 2, LF, trailing newline. */
export function stableFileJson(value: unknown): string {
  return `${canonicalJson(value, { indent: 2 })}\n`;
}
