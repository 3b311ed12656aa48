/**
 * The comparison view of a card: every message field at its proto3 default (`""`, `[]`, `{}`,
 * `false`, `0`) left out, as ProtoJSON says such a field is absent (A2A 1.0 is proto3: an SDK may
 * write `tenant: ""` or `extensions: []` or not, with one meaning). Map entries keep their values
 * (`securitySchemes`, a requirement's schemes, OAuth `scopes`: the key is the data), and a
 * `google.protobuf.Struct` (`params`, `metadata`, a signature's `header`) is kept as written.
 * Only comparisons read this view (`lock/changes.ts`); a snapshot and its integrity stay the bytes
 * as fetched. Pure.
 */
import { sameJson } from '../canonical.js';
import { isRecord } from '../json-path.js';
import type { LockEntry } from './schema.js';

/** Fields whose value is a map keyed by data: entries kept, each value read as a message. */
const MAPS = new Set(['securitySchemes', 'schemes', 'scopes']);
/** Fields whose value is a list of maps (security requirements, 0.3 and 1.0). */
const MAP_LISTS = new Set(['securityRequirements', 'security']);
/** Fields holding a `Struct`: free JSON, kept as written. */
const STRUCTS = new Set(['params', 'metadata', 'header']);

/** Whether `value` is a proto3 default: empty string, list or map, `false`, `0`. */
function isProtoDefault(value: unknown): boolean {
  if (value === '' || value === false || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

/**
 * `card` as comparisons see it: fields at their proto3 default removed, at any depth, and a
 * message left empty by that removed too (see the module comment for what is kept). Returns the
 * same object when nothing is removed.
 */
export function withoutDefaults<T>(card: T): T {
  return message(card, 0) as T;
}

/** A JSON card is at most 64 levels deep; past this depth a value is kept as written. */
const MAX_DEPTH = 80;

function message(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return list(value, (v) => message(v, depth + 1));
  if (!isRecord(value)) return value;
  let out: Record<string, unknown> | undefined;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const was = value[key];
    const read = isProtoDefault(was)
      ? undefined
      : STRUCTS.has(key)
        ? was
        : MAPS.has(key)
          ? map(was, depth + 1)
          : MAP_LISTS.has(key) && Array.isArray(was)
            ? list(was, (v) => map(v, depth + 2))
            : message(was, depth + 1);
    // A message left empty (`capabilities: {streaming: false}`) is absent too.
    const now = isProtoDefault(read) ? undefined : read;
    if (now === was && out === undefined) continue;
    if (out === undefined) {
      out = {};
      for (let j = 0; j < i; j++) define(out, keys[j]!, value[keys[j]!]);
    }
    if (now !== undefined) define(out, key, now);
  }
  return out ?? value;
}

/** A map: every entry kept, its value read as a message, or as a map under a map's name (a 1.0 requirement's `schemes`); a 0.3 requirement's scopes list stays as written. */
function map(value: unknown, depth: number): unknown {
  if (!isRecord(value) || depth > MAX_DEPTH) return value;
  let out: Record<string, unknown> | undefined;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const was = value[key];
    const now = MAPS.has(key) ? map(was, depth + 1) : isRecord(was) ? message(was, depth + 1) : was;
    if (now === was && out === undefined) continue;
    if (out === undefined) {
      out = {};
      for (let j = 0; j < i; j++) define(out, keys[j]!, value[keys[j]!]);
    }
    define(out, key, now);
  }
  return out ?? value;
}

function list(items: unknown[], each: (item: unknown) => unknown): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const now = each(items[i]);
    if (now !== items[i] && out === undefined) out = items.slice(0, i);
    out?.push(now);
  }
  return out ?? items;
}

/** An own data property, even for a key named `__proto__`. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Whether two cards are one card once their proto3 defaults are left out ({@link withoutDefaults}). */
function sameWithoutDefaults(a: unknown, b: unknown): boolean {
  return sameJson(a, b) || sameJson(withoutDefaults(a), withoutDefaults(b));
}

/**
 * `fresh` (a lock entry just resolved) with the snapshots of `old` (the locked entry of the same
 * agent) kept where the fresh card, from the same URL with the same signature record, differs from
 * the locked one in proto3 defaults alone: the snapshot, its integrity and its signature record
 * stay byte for byte, so `lock`, `update` and `outdated` see no change and write nothing.
 */
export function keepSnapshotsOverDefaults(old: LockEntry, fresh: LockEntry): LockEntry {
  let out = fresh;
  if (
    old.resolved === fresh.resolved &&
    sameJson(old.signature ?? null, fresh.signature ?? null) &&
    sameWithoutDefaults(old.snapshot, fresh.snapshot)
  )
    out = { ...out, integrity: old.integrity, snapshot: old.snapshot };
  if (
    old.extended &&
    fresh.extended &&
    old.extended.resolved === fresh.extended.resolved &&
    sameJson(old.extended.signature ?? null, fresh.extended.signature ?? null) &&
    sameWithoutDefaults(old.extended.snapshot, fresh.extended.snapshot)
  )
    out = {
      ...out,
      extended: { ...fresh.extended, integrity: old.extended.integrity, snapshot: old.extended.snapshot },
    };
  return out;
}
