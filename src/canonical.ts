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

/**
 * A name-based UUID, version 5 (RFC 9562 §5.5): SHA-1 over the `namespace` UUID's 16 bytes and
 * `name` in UTF-8, its version and variant bits set; lower-case `8-4-4-4-12` hex. The same name
 * gives the same UUID (the BOM's serial number from the lockfile digest).
 */
export function nameBasedUuid(namespace: string, name: string): string {
  const hex = namespace.replace(/-/g, '');
  const ns = new Uint8Array(16);
  for (let i = 0; i < 16; i++) ns[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const out = Array.from(hash.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${out.slice(0, 8)}-${out.slice(8, 12)}-${out.slice(12, 16)}-${out.slice(16, 20)}-${out.slice(20)}`;
}
