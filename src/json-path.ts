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
