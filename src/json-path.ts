/** JSON path rendering shared by every validator (`$.agents["my agent"].skills[0]`), and the JSON value tests they share. */

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Render a path of keys and indexes as a JSONPath-like string starting at `$`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '$';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && IDENT.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * `record[key]` when `key` is the record's own property, else undefined. Records keyed by user
 * input (agent names, skill ids, scheme names) must not see `constructor` or `toString` from
 * Object.prototype.
 */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * The path of the first value nested deeper than `limit` levels, or undefined. The walk stops at
 * `limit`, so it recurses at most `limit` calls deep whatever the document (a hostile one cannot
 * overflow the stack here; every recursive JSON walker after it would). The path is built only
 * for the value found (a path copied per value made this the costliest step of reading a large lockfile).
 */
export function tooDeep(value: unknown, limit: number): Array<string | number> | undefined {
  return deeper(value, limit, 0)?.reverse();
}

/** The reversed path below `value` (at `depth`) to a value at depth `limit`, or undefined. Children are visited last first. */
function deeper(value: unknown, limit: number, depth: number): Array<string | number> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= limit) return [];
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--) {
      const path = deeper(value[i], limit, depth + 1);
      if (path) {
        path.push(i);
        return path;
      }
    }
    return undefined;
  }
  const keys = Object.keys(value);
  for (let i = keys.length - 1; i >= 0; i--) {
    const path = deeper((value as Record<string, unknown>)[keys[i]!], limit, depth + 1);
    if (path) {
      path.push(keys[i]!);
      return path;
    }
  }
  return undefined;
}

/** How deep a card or lockfile may nest. Real cards stay under 15 levels. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` is a JSON object: an object that is neither null nor an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The path of the first own `__proto__` key in a JSON value (an object-literal copy, zod's records
 * and spreads, drops or re-parents it), or undefined. Recursive: check {@link tooDeep} first.
 */
export function protoKeyPath(value: unknown, path: Array<string | number> = []): Array<string | number> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = typeof value[i] === 'object' ? protoKeyPath(value[i], [...path, i]) : undefined;
      if (found) return found;
    }
    return undefined;
  }
  if (Object.hasOwn(value, '__proto__')) return [...path, '__proto__'];
  for (const [key, child] of Object.entries(value)) {
    const found = typeof child === 'object' ? protoKeyPath(child, [...path, key]) : undefined;
    if (found) return found;
  }
  return undefined;
}
