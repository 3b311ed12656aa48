/** JSON path rendering shared by every validator: `$.agents["my agent"].skills[0]`. */

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
 * The path of the first value nested deeper than `limit` levels, or undefined. Iterative, so a
 * hostile document cannot overflow the stack here (every recursive JSON walker after it would).
 */
export function tooDeep(value: unknown, limit: number): Array<string | number> | undefined {
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (path.length >= limit) return path;
    if (Array.isArray(v)) v.forEach((item, i) => stack.push({ value: item, path: [...path, i] }));
    else for (const [k, item] of Object.entries(v)) stack.push({ value: item, path: [...path, k] });
  }
  return undefined;
}

/** How deep a card or lockfile may nest. Real cards stay under 15 levels. */
export const MAX_JSON_DEPTH = 64;
