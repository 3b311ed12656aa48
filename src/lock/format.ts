/**
 * The bytes of `a2a.lock.json`: parse and validate them, serialise a lockfile deterministically,
 * and split and merge a lockfile with git merge-conflict markers. Pure; the file is read and
 * written in `fs/lockfile.ts`.
 */
import { InvalidInputError } from '../errors.js';
import { parseJson, validate, hasConflictMarkers } from '../json-document.js';
import { stableFileJson } from '../canonical.js';
import { formatPath, MAX_JSON_DEPTH, tooDeep } from '../json-path.js';
import { LOCKFILE_VERSION, LockfileSchema, LockfileTopSchema, type Lockfile, type LockfileTop } from './schema.js';

/**
 * Parse lockfile text. Pure.
 * @throws InvalidInputError `lockfile-invalid`: bad JSON, merge conflict markers, a newer
 *   `lockfileVersion`, or a schema error naming the JSON path
 */
export function parseLockfile(text: string, source: string): Lockfile {
  return validate(LockfileSchema, parseLockfileJson(text, source), source, 'lockfile-invalid');
}

/**
 * {@link parseLockfile} with the agents' entries and settings left unchecked (the top level only:
 * {@link LockfileTopSchema}); the runtime checks each agent on its first use. Pure.
 * @throws InvalidInputError `lockfile-invalid`, as {@link parseLockfile} for all but an entry's schema
 */
export function parseLockfileTop(text: string, source: string): LockfileTop {
  return validate(LockfileTopSchema, parseLockfileJson(text, source), source, 'lockfile-invalid');
}

/** The JSON of lockfile text, checked for all but its schema (markers, JSON, duplicate keys, version, depth, `__proto__`). */
function parseLockfileJson(text: string, source: string): unknown {
  if (hasConflictMarkers(text)) {
    throw new InvalidInputError('lockfile-invalid', source, 'merge conflict, run a2a lock');
  }
  const value = parseJson(text, source, 'lockfile-invalid', { uniqueKeys: true });
  const version = (value as { lockfileVersion?: unknown } | null)?.lockfileVersion;
  if (typeof version === 'number' && version > LOCKFILE_VERSION) {
    throw new InvalidInputError('lockfile-invalid', source, `lockfileVersion ${version} needs a newer a2a-lock (this one reads version ${LOCKFILE_VERSION})`, {
      path: '$.lockfileVersion',
      // Deleting it would throw away the plans a teammate locked with the newer version.
      hint: 'upgrade a2a-lock (npm i a2a-lock@latest) to read it; keep the file',
    });
  }
  const deep = tooDeep(value, MAX_JSON_DEPTH + 4);
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

/** The exact bytes of a lockfile: sorted keys, 2-space indent, LF, trailing newline. */
export function serializeLockfile(lock: Lockfile): string {
  return stableFileJson(lock);
}

/**
 * The two sides of a lockfile with git merge-conflict markers (`<<<<<<<`, `|||||||` base, `=======`,
 * `>>>>>>>`): lines outside conflict hunks go to both. Undefined when the text has no markers.
 */
export function splitConflict(text: string): { ours: string; theirs: string } | undefined {
  if (!/^<<<<<<< /m.test(text)) return undefined;
  const ours: string[] = [];
  const theirs: string[] = [];
  let state: 'both' | 'ours' | 'base' | 'theirs' = 'both';
  for (const line of text.split('\n')) {
    if (line.startsWith('<<<<<<< ') || line === '<<<<<<<') state = 'ours';
    else if (state === 'ours' && (line.startsWith('||||||| ') || line === '|||||||')) state = 'base';
    else if ((state === 'ours' || state === 'base') && line === '=======') state = 'theirs';
    else if (state === 'theirs' && (line.startsWith('>>>>>>> ') || line === '>>>>>>>')) state = 'both';
    else {
      if (state === 'both' || state === 'ours') ours.push(line);
      if (state === 'both' || state === 'theirs') theirs.push(line);
    }
  }
  return { ours: ours.join('\n'), theirs: theirs.join('\n') };
}

/**
 * Merge the two sides of a conflicted lockfile: the union of agents; an agent both sides lock
 * alike is kept; one they lock differently keeps our side and is returned in `differing`, to be
 * re-resolved with our plans as constraints (never silently moved to either side's plan).
 */
export function mergeLockfiles(ours: Lockfile, theirs: Lockfile): { lock: Lockfile; differing: Set<string> } {
  const differing = new Set<string>();
  const agents = { ...theirs.agents, ...ours.agents };
  const settings = { ...theirs.settings, ...ours.settings };
  for (const name of Object.keys(ours.agents)) {
    if (Object.hasOwn(theirs.agents, name) && serializeLockfile({ ...ours, agents: { [name]: ours.agents[name]! } }) !== serializeLockfile({ ...ours, agents: { [name]: theirs.agents[name]! } })) {
      differing.add(name);
    }
  }
  return { lock: { ...theirs, ...ours, agents, settings }, differing };
}
