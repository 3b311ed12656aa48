/**
 * The top level of `a2a.lock.json`, read without its entries: what the runtime's lazy `loadLock`
 * checks before any agent is used (the JSON itself, the format version, the `settings` and `agents`
 * records and their agent names). Each agent's entry and settings are checked against the lockfile
 * schema (`schema.ts`) on its first use. Pure, and free of zod: reading a large lockfile at a cold
 * start loads no schema library.
 */
import { InvalidInputError } from '../errors.js';
import { hasConflictMarkers, parseJson } from '../json-document.js';
import { formatPath, isRecord, MAX_JSON_DEPTH, protoKeyPath, tooDeep } from '../json-path.js';
import { AGENT_NAME, AGENT_NAME_RULE } from '../manifest/agent-name.js';

/** The lockfile format this version writes and reads. */
export const LOCKFILE_VERSION = 1;

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
 * syntax, duplicate keys, a newer `lockfileVersion`, nesting depth, an agent named `__proto__` and a
 * `__proto__` key anywhere else (zod's records re-parent it: verify, diff and the BOM would read
 * another lockfile than the digest covers).
 * @throws InvalidInputError `lockfile-invalid`
 */
export function parseLockfileJson(text: string, source: string): unknown {
  if (hasConflictMarkers(text)) {
    throw new InvalidInputError('lockfile-invalid', source, 'merge conflict, run a2a lock');
  }
  const value = checkLockfileValue(parseJson(text, source, 'lockfile-invalid', { uniqueKeys: true }), source);
  // A key spelt `__proto__` in JSON text holds those letters or a `\u` escape: most lockfiles have neither.
  const proto = text.includes('__proto__') || text.includes('\\u') ? protoKeyPath(value) : undefined;
  if (proto)
    throw new InvalidInputError(
      'lockfile-invalid',
      source,
      'the key "__proto__" is not allowed in a lockfile (it would be read otherwise than its digest covers)',
      { path: formatPath(proto) },
    );
  return value;
}

/** {@link parseLockfileJson}'s checks after parsing: the version, the depth, `__proto__`. */
function checkLockfileValue(value: unknown, source: string): unknown {
  const version = (value as { lockfileVersion?: unknown } | null)?.lockfileVersion;
  if (typeof version === 'number' && version > LOCKFILE_VERSION) {
    throw new InvalidInputError(
      'lockfile-invalid',
      source,
      `lockfileVersion ${version} needs a newer a2a-lock (this one reads version ${LOCKFILE_VERSION})`,
      {
        path: '$.lockfileVersion',
        // Deleting it would throw away the plans a teammate locked with the newer version.
        hint: 'upgrade a2a-lock (npm i a2a-lock@latest) to read it; keep the file',
      },
    );
  }
  const deep = tooDeep(value, MAX_JSON_DEPTH + 4);
  if (deep)
    throw new InvalidInputError('lockfile-invalid', source, `nested deeper than ${MAX_JSON_DEPTH + 4} levels`, {
      path: formatPath(deep),
    });
  if (value && typeof value === 'object') {
    for (const key of ['agents', 'settings'] as const) {
      const rec = (value as Record<string, unknown>)[key];
      if (rec && typeof rec === 'object' && Object.hasOwn(rec, '__proto__')) {
        throw new InvalidInputError('lockfile-invalid', source, 'agent name "__proto__" is not allowed', {
          path: formatPath([key, '__proto__']),
        });
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
  if (value.$schema !== undefined && typeof value.$schema !== 'string')
    fail(['$schema'], `expected string, got ${kind(value.$schema)}`);
  if (value.lockfileVersion !== LOCKFILE_VERSION) fail(['lockfileVersion'], `expected ${LOCKFILE_VERSION}`);
  for (const key of ['settings', 'agents'] as const) {
    const rec = value[key];
    if (!isRecord(rec)) return fail([key], `expected record, got ${kind(rec)}`);
    for (const name of Object.keys(rec)) {
      if (!AGENT_NAME.test(name)) fail([key, name], `invalid key: ${AGENT_NAME_RULE}`);
    }
  }
  return value as LockfileTop;
}
