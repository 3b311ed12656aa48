/**
 * The bytes of `a2a.lock.json`: parse and validate them, serialise a lockfile deterministically,
 * and split and merge a lockfile with git merge-conflict markers. Pure; the file is read and
 * written in `fs/lockfile.ts`.
 */

import { stableFileJson } from '../canonical.js';
import { validate } from '../json-document.js';
import { lockDigest } from './digest.js';
import { type Lockfile, LockfileFormat } from './schema.js';
import { parseLockfileJson } from './top.js';

/**
 * Parse lockfile text. Pure.
 * @throws InvalidInputError `lockfile-invalid`: bad JSON, merge conflict markers, a newer
 *   `lockfileVersion`, or a schema error naming the JSON path
 */
export function parseLockfile(text: string, source: string): Lockfile {
  return validateLockfile(parseLockfileJson(text, source), source);
}

/**
 * Parse lockfile text as {@link parseLockfile} does, and take its digest ({@link lockDigest} of its
 * JSON value: what `a2a lock digest` prints and the review's marker carries). Pure.
 * @throws InvalidInputError `lockfile-invalid`, as {@link parseLockfile}
 */
export function parseLockfileWithDigest(text: string, source: string): { lock: Lockfile; digest: string } {
  const value = parseLockfileJson(text, source);
  return { lock: validateLockfile(value, source), digest: lockDigest(value) };
}

/**
 * A lockfile's JSON value (what `parseLockfileJson` read) against the lockfile schema. Pure.
 * @throws InvalidInputError `lockfile-invalid`: a schema error naming the JSON path
 */
export function validateLockfile(value: unknown, source: string): Lockfile {
  return validate(LockfileFormat, value, source, 'lockfile-invalid');
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
    if (
      Object.hasOwn(theirs.agents, name) &&
      serializeLockfile({ ...ours, agents: { [name]: ours.agents[name]! } }) !==
        serializeLockfile({ ...ours, agents: { [name]: theirs.agents[name]! } })
    ) {
      differing.add(name);
    }
  }
  return { lock: { ...theirs, ...ours, agents, settings }, differing };
}
