/**
 * The top level of `a2a.lock.json`, read without its entries: what the runtime's lazy `loadLock`
 * checks before any agent is used (the JSON itself, the format version, the `settings` and `agents`
 * records and their agent names). Each agent's entry and settings are checked against the lockfile
 * schema (`schema.ts`) on its first use. Pure, and free of zod: reading a large lockfile at a cold
 * start loads no schema library.
 */
import { InvalidInputError } from '../errors.js';
import { hasConflictMarkers, parseJson } from '../json-document.js';
import { formatPath, isRecord, MAX_JSON_DEPTH, tooDeep } from '../json-path.js';

/** The lockfile format this version writes and reads. */
export const LOCKFILE_VERSION = 1;

/** Agent names, as the manifest's `AgentNameSchema` allows them. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A lockfile whose top level is checked ({@link checkLockfileTop}) and whose entries are not yet. */
export interface LockfileTop {
  $schema?: string;
  lockfileVersion: typeof LOCKFILE_VERSION;
  settings: Record<string, unknown>;
  agents: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * The JSON value of lockfile text, checked for all but its schema: merge-conflict markers, JSON
 * syntax, duplicate keys, a newer `lockfileVersion`, nesting depth, an agent named `__proto__`.
 * @throws InvalidInputError `lockfile-invalid`
 */
export function parseLockfileJson(text: string, source: string): unknown {
  if (hasConflictMarkers(text)) {
    throw new InvalidInputError('lockfile-invalid', source, 'merge conflict, run a2a lock');
  }
  return uniqueKeyValue(text, source);
}

/**
 * The parsed value of lockfile text (no conflict markers), refused when a key repeats in one
 * object, and checked ({@link checkLockfileValue}). Duplicates are found by counting (the parsed
 * value holds fewer keys than {@link keysInText} when one repeats), the depth in the same walk;
 * only a file whose counts differ is scanned again, exactly, for the error naming the key and its line.
 */
function uniqueKeyValue(text: string, source: string): unknown {
  let value = parseJson(text, source, 'lockfile-invalid');
  const walked = { keys: 0, tooDeep: false };
  walk(value, MAX_JSON_DEPTH + 4, walked);
  if (walked.keys !== keysInText(text)) value = parseJson(text, source, 'lockfile-invalid', { uniqueKeys: true });
  return checkLockfileValue(value, source, !walked.tooDeep);
}

/** {@link parseLockfileJson}'s checks after parsing: the version, the depth (unless `depthChecked`), `__proto__`. */
function checkLockfileValue(value: unknown, source: string, depthChecked = false): unknown {
  const version = (value as { lockfileVersion?: unknown } | null)?.lockfileVersion;
  if (typeof version === 'number' && version > LOCKFILE_VERSION) {
    throw new InvalidInputError('lockfile-invalid', source, `lockfileVersion ${version} needs a newer a2a-lock (this one reads version ${LOCKFILE_VERSION})`, {
      path: '$.lockfileVersion',
      // Deleting it would throw away the plans a teammate locked with the newer version.
      hint: 'upgrade a2a-lock (npm i a2a-lock@latest) to read it; keep the file',
    });
  }
  const deep = depthChecked ? undefined : tooDeep(value, MAX_JSON_DEPTH + 4);
  if (deep) throw new InvalidInputError('lockfile-invalid', source, `nested deeper than ${MAX_JSON_DEPTH + 4} levels`, { path: formatPath(deep) });
  if (value && typeof value === 'object') {
    for (const key of ['agents', 'settings'] as const) {
      const rec = (value as Record<string, unknown>)[key];
      if (rec && typeof rec === 'object' && Object.hasOwn(rec, '__proto__')) {
        throw new InvalidInputError('lockfile-invalid', source, 'agent name "__proto__" is not allowed', { path: formatPath([key, '__proto__']) });
      }
    }
  }
  return value;
}

function kind(v: unknown): string {
  return v === undefined ? 'nothing (missing)' : v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v;
}

/**
 * Check the top level of a parsed lockfile as the lockfile schema does, entries aside: an object
 * with `lockfileVersion` 1, an optional string `$schema`, and `settings` and `agents` objects
 * keyed by valid agent names. Unknown top-level keys are kept.
 * @throws InvalidInputError `lockfile-invalid` naming the JSON path
 */
export function checkLockfileTop(value: unknown, source: string): LockfileTop {
  const fail = (path: PropertyKey[], message: string): never => {
    throw new InvalidInputError('lockfile-invalid', source, message, { path: formatPath(path) });
  };
  if (!isRecord(value)) return fail([], `expected object, got ${kind(value)}`);
  if (value.$schema !== undefined && typeof value.$schema !== 'string') fail(['$schema'], `expected string, got ${kind(value.$schema)}`);
  if (value.lockfileVersion !== LOCKFILE_VERSION) fail(['lockfileVersion'], `expected ${LOCKFILE_VERSION}`);
  for (const key of ['settings', 'agents'] as const) {
    const rec = value[key];
    if (!isRecord(rec)) return fail([key], `expected record, got ${kind(rec)}`);
    for (const name of Object.keys(rec)) {
      if (!AGENT_NAME.test(name)) fail([key, name], 'invalid key: agent names use letters, digits, ".", "_" and "-"');
    }
  }
  return value as LockfileTop;
}

/**
 * Parse lockfile text, checking its top level only: {@link parseLockfileJson}'s checks (the same
 * errors), then {@link checkLockfileTop}. Faster on a large file than the shared path, for a cold
 * start: duplicate keys are found by counting (see {@link keysInText}) and the depth is checked in
 * the same walk; only a file that fails either is scanned again for the exact error.
 * @throws InvalidInputError `lockfile-invalid`
 */
export function parseLockfileTop(text: string, source: string): LockfileTop {
  return checkLockfileTop(parseLockfileJson(text, source), source);
}

/**
 * Count the object keys and check the depth of a parsed JSON value: `out.keys` += every key of
 * every object, `out.tooDeep` when a container sits at depth `limit` (the walk stops there).
 */
function walk(value: unknown, limit: number, out: { keys: number; tooDeep: boolean }, depth = 0): void {
  if (typeof value !== 'object' || value === null) return;
  if (depth >= limit) {
    out.tooDeep = true;
    return;
  }
  if (Array.isArray(value)) {
    for (const v of value) walk(v, limit, out, depth + 1);
    return;
  }
  for (const key in value) {
    out.keys++;
    walk((value as Record<string, unknown>)[key], limit, out, depth + 1);
  }
}

/**
 * An upper bound of the object keys valid JSON text holds: the colons whose previous
 * non-whitespace character is a quote. Every key is followed by one (so no key is missed); the
 * only others are colons inside a string right after its opening quote or an escaped quote
 * (`": …"`, `"a\\":"`), which can only raise the count. So a parsed value with as many keys as
 * this count has no repeated key (a repeat leaves the value with fewer), and one with fewer is
 * scanned again exactly. Jumps from colon to colon (`indexOf`): a lockfile has about one per key.
 */
export function keysInText(text: string): number {
  let count = 0;
  for (let i = text.indexOf(':'); i >= 0; i = text.indexOf(':', i + 1)) {
    let j = i - 1;
    let c = text.charCodeAt(j);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(--j);
    if (c === 0x22) count++;
  }
  return count;
}
