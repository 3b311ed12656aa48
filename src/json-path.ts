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
  // Each node links to its parent; the path is built only for the node that crosses the limit, so
  // the walk stays linear in the document's size however deep it nests.
  interface Node {
    value: unknown;
    depth: number;
    key: string | number;
    parent: Node | undefined;
  }
  const stack: Node[] = [{ value, depth: 0, key: '', parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v !== 'object' || v === null) continue;
    if (node.depth >= limit) {
      const path: Array<string | number> = [];
      for (let n: Node | undefined = node; n?.parent; n = n.parent) path.unshift(n.key);
      return path;
    }
    const depth = node.depth + 1;
    if (Array.isArray(v)) v.forEach((item, i) => stack.push({ value: item, depth, key: i, parent: node }));
    else for (const [k, item] of Object.entries(v)) stack.push({ value: item, depth, key: k, parent: node });
  }
  return undefined;
}

/** How deep a card or lockfile may nest. Real cards stay under 15 levels. */
export const MAX_JSON_DEPTH = 64;
