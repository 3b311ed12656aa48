// The accept paths of the formats (`Format` in src/json-document.ts), generated from their zod
// schemas: for each root schema, a function that returns what the schema's parse returns (defaults
// filled in, an object's unknown keys dropped or kept as the schema says, in zod's key order) or
// `undefined` when the schema would not accept the value. The zod schemas stay the one definition;
// this file knows how zod (the installed version) parses each kind of schema we use, and nothing
// of our formats. A kind, check or refinement it does not know fails the generation: extend it
// here, and the equivalence test (test/schemas-accept.test.ts) holds it to zod.
//
// What the output cannot judge without restating zod (a URL format) throws UNSURE at run time: the
// root returns `undefined` and the schema decides.
import { execFileSync } from 'node:child_process';
import { dirname, join, relative } from 'node:path';

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property read of `key` on `v` in TypeScript. */
const read = (v, key) => (IDENT.test(key) ? `${v}.${key}` : `${v}[${JSON.stringify(key)}]`);

/** The wrapper kinds, which run their inner schema and carry no checks of their own. */
const WRAPPERS = new Set(['nullable', 'optional', 'default', 'union', 'never']);

/** The accept functions of a set of zod schemas, one per distinct body, and the constants they use. */
class Emitter {
  /** @param {Map<Function, string>} ruleName the refinements by function, named as exported by `rulesImport` */
  constructor(ruleName, rulesImport) {
    this.ruleName = ruleName;
    this.rulesImport = rulesImport;
    this.usedRules = new Set();
    this.ids = new Map();
    this.byBody = new Map();
    this.functions = [];
    this.constantNames = new Map();
    this.constants = [];
    this.helpers = new Set(['root', 'NO']);
  }

  /**
   * The name of the function that accepts `schema`: one function per distinct body (zod makes a
   * new object for each `z.string()`; the same checks make the same function). Not recursive:
   * our schemas have no cycles (a `z.lazy` fails as an unknown type).
   */
  fn(schema, where) {
    let id = this.ids.get(schema);
    if (id) return id;
    const body = this.body(schema, where);
    id = this.byBody.get(body);
    if (!id) {
      id = `n${this.byBody.size}`;
      this.byBody.set(body, id);
      this.functions.push(`function ${id}(v: unknown): unknown {\n${body}\n}`);
    }
    this.ids.set(schema, id);
    return id;
  }

  /** The name of a module constant whose initializer is `init` (one per distinct initializer). */
  constant(prefix, init) {
    let name = this.constantNames.get(init);
    if (!name) {
      name = `${prefix}${this.constantNames.size}`;
      this.constantNames.set(init, name);
      this.constants.push(`const ${name} = ${init};`);
    }
    return name;
  }

  /** Statements that return NO when one of the schema's checks fails on `out` (zod runs them after the parse). */
  checks(def, where, out) {
    const lines = [];
    for (const check of def.checks ?? []) {
      const c = check._zod.def;
      if (c.when && c.check !== 'min_length') throw new Error(`accept: ${where}: a conditional ${c.check} check`);
      if (c.check === 'meta') continue;
      if (c.check === 'min_length') lines.push(`if (${out}.length < ${Number(c.minimum)}) return NO;`);
      else if (c.check === 'string_format' && c.format === 'regex') {
        const re = this.constant('RE', c.pattern.toString());
        if (c.pattern.global || c.pattern.sticky) lines.push(`${re}.lastIndex = 0;`);
        lines.push(`if (!${re}.test(${out} as string)) return NO;`);
      } else if (c.check === 'custom') {
        const name = this.ruleName.get(c.fn);
        if (!name) throw new Error(`accept: ${where}: a refinement that is not a named export of ${this.rulesImport}`);
        this.usedRules.add(name);
        lines.push(`if (!${name}(${out} as never)) return NO;`);
      } else throw new Error(`accept: ${where}: unknown check ${c.check}${c.format ? `:${c.format}` : ''}`);
    }
    return lines;
  }

  /** The body of the function that accepts `schema` (`v` in, the parsed value or NO out). */
  body(schema, where) {
    const def = schema._zod.def;
    if (WRAPPERS.has(def.type) && (def.checks ?? []).some((c) => c._zod.def.check !== 'meta'))
      throw new Error(`accept: ${where}: checks on a ${def.type}`);
    const kind = KINDS[def.type];
    if (!kind) throw new Error(`accept: ${where}: unknown schema type ${def.type}`);
    return kind.call(this, schema, def, where).join('\n');
  }
}

/** The `v === …` tests of a literal's or an enum's values (zod: `values.has(v)`). */
function literals(schema, where) {
  return [...schema._zod.values].map((value) => {
    if (!['string', 'number', 'boolean'].includes(typeof value) && value !== null)
      throw new Error(`accept: ${where}: a literal of type ${typeof value}`);
    if (Number.isNaN(value)) throw new Error(`accept: ${where}: a NaN literal`);
    return `v === ${JSON.stringify(value)}`;
  });
}

/** Whether `value` is plain JSON data. */
function isJson(value) {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return true;
  if (Array.isArray(value)) return value.every(isJson);
  return (
    typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && Object.values(value).every(isJson)
  );
}

/**
 * The body lines per zod schema type, called on the Emitter: `(schema, def, where) => lines`. Each
 * mirrors the parse of zod's `$Zod<Type>` (node_modules/zod/v4/core/schemas.js).
 */
const KINDS = {
  string(_schema, def, where) {
    if (def.coerce) throw new Error(`accept: ${where}: a coercing string`);
    if (def.format && def.format !== 'url') throw new Error(`accept: ${where}: string format ${def.format}`);
    const head = "if (typeof v !== 'string') return NO;";
    if (def.format !== 'url') return [head, ...this.checks(def, where, 'v'), 'return v;'];
    this.helpers.add('UNSURE');
    return [head, 'throw UNSURE;'];
  },
  boolean(_schema, def, where) {
    if (def.coerce) throw new Error(`accept: ${where}: a coercing boolean`);
    return ["if (typeof v !== 'boolean') return NO;", ...this.checks(def, where, 'v'), 'return v;'];
  },
  unknown(_schema, def, where) {
    return [...this.checks(def, where, 'v'), 'return v;'];
  },
  never() {
    return ['return NO;'];
  },
  literal(schema, def, where) {
    return [`if (!(${literals(schema, where).join(' || ')})) return NO;`, ...this.checks(def, where, 'v'), 'return v;'];
  },
  enum(schema, def, where) {
    return KINDS.literal.call(this, schema, def, where);
  },
  nullable(_schema, def, where) {
    return [`return v === null ? null : ${this.fn(def.innerType, where)}(v);`];
  },
  optional(_schema, def, where) {
    if (def.innerType._zod.optin === 'defaulted') throw new Error(`accept: ${where}: optional of a default`);
    return [`return v === undefined ? undefined : ${this.fn(def.innerType, where)}(v);`];
  },
  default(_schema, def, where) {
    // zod's default: a shallow copy of the value for undefined, in and out (handleDefaultResult).
    const value = def.defaultValue;
    if (!isJson(value)) throw new Error(`accept: ${where}: a default that is not JSON`);
    const literal = JSON.stringify(value);
    return [
      `if (v === undefined) return ${literal};`,
      `const r = ${this.fn(def.innerType, where)}(v);`,
      `return r === undefined ? ${literal} : r;`,
    ];
  },
  array(_schema, def, where) {
    const element = this.fn(def.element, `${where}[]`);
    return [
      'if (!Array.isArray(v)) return NO;',
      'const out: unknown[] = new Array(v.length);',
      'for (let i = 0; i < v.length; i++) {',
      `const r = ${element}(v[i]);`,
      'if (r === NO) return NO;',
      'out[i] = r;',
      '}',
      ...this.checks(def, where, 'out'),
      'return out;',
    ];
  },
  union(_schema, def, where) {
    // The first option that accepts (an UNSURE option ends the search: the schema decides).
    const lines = [];
    def.options.forEach((option, i) => {
      lines.push(`const r${i} = ${this.fn(option, `${where}|${i}`)}(v);`, `if (r${i} !== NO) return r${i};`);
    });
    return [...lines, 'return NO;'];
  },
  record(_schema, def, where) {
    if (def.mode !== undefined && def.mode !== 'strict') throw new Error(`accept: ${where}: a ${def.mode} record`);
    if (def.keyType._zod.values) throw new Error(`accept: ${where}: a record with enumerated keys`);
    if (def.keyType._zod.def.type !== 'string') throw new Error(`accept: ${where}: a record key that is not a string`);
    const key = this.fn(def.keyType, `${where}{key}`);
    const value = this.fn(def.valueType, `${where}{}`);
    this.helpers.add('isPlainObject');
    return [
      'if (!isPlainObject(v)) return NO;',
      'const out: Record<string, unknown> = {};',
      'for (const k of Reflect.ownKeys(v)) {',
      "if (k === '__proto__' || !Object.prototype.propertyIsEnumerable.call(v, k)) continue;",
      `const key = ${key}(k);`,
      'if (key === NO) return NO;',
      "if (key === '__proto__') continue;",
      `const r = ${value}(v[k as string]);`,
      'if (r === NO) return NO;',
      'out[key as string] = r;',
      '}',
      ...this.checks(def, where, 'out'),
      'return out;',
    ];
  },
  object(_schema, def, where) {
    const shape = def.shape;
    if (Object.getOwnPropertySymbols(shape).length) throw new Error(`accept: ${where}: symbol keys`);
    const keys = Object.keys(shape);
    this.helpers.add('isObject').add('prop');
    const lines = ['if (!isObject(v)) return NO;', 'const out: Record<string, unknown> = {};'];
    for (const key of keys.filter((k) => k !== '__proto__')) {
      const { optin, optout } = shape[key]._zod;
      const flags = [optin, optout].map((f) => (f === undefined ? 'undefined' : JSON.stringify(f))).join(', ');
      const f = this.fn(shape[key], `${where}.${key}`);
      lines.push(`if (!prop(out, v, ${JSON.stringify(key)}, ${f}(${read('v', key)}), ${flags})) return NO;`);
    }
    const catchall = def.catchall?._zod.def;
    if (catchall) {
      const known = this.constant('KEYS', `new Set<string>(${JSON.stringify(keys)})`);
      if (catchall.type === 'never') lines.push(`for (const k in v) if (!${known}.has(k)) return NO;`);
      else if (catchall.type === 'unknown' && !(catchall.checks ?? []).length)
        lines.push(`for (const k in v) if (!${known}.has(k) && k !== '__proto__') out[k] = v[k];`);
      else throw new Error(`accept: ${where}: a catchall of ${catchall.type}`);
    }
    return [...lines, ...this.checks(def, where, 'out'), 'return out;'];
  },
};

/**
 * The TypeScript source of the accept functions for `roots` (name → zod schema, emitted as
 * `accept<name>`; or name → record of zod schemas, emitted as a record of functions), calling the
 * refinements of `rules` (a module namespace, imported in the output from `rulesImport`), as Biome
 * formats it.
 * @param {{ source: string, roots: Record<string, any>, rules?: Record<string, Function>, rulesImport?: string, root: string, file: string }} options
 */
export function generateAccept({ source, roots, rules = {}, rulesImport, root, file }) {
  const emitter = new Emitter(new Map(Object.entries(rules).map(([name, fn]) => [fn, name])), rulesImport);
  const exports = Object.entries(roots).map(([name, value]) => {
    if (value?._zod)
      return `/** The accept path of the schema it is named after: the parsed value, or undefined. */\nexport function accept${name}(v: unknown): unknown {\n  return root(${emitter.fn(value, name)}, v);\n}`;
    const entries = Object.entries(value).map(
      ([key, schema]) => `${key}: (v: unknown): unknown => root(${emitter.fn(schema, `${name}.${key}`)}, v),`,
    );
    return `/** The accept paths of the schemas of ${name}, by key. */\nexport const accept${name} = {\n${entries.join('\n')}\n};`;
  });
  const used = [...emitter.usedRules].sort();
  const helpers = [...emitter.helpers].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }));
  const header = [
    `// Generated by \`npm run schemas\` (scripts/accept.js) from the zod schemas of ${source}: do not edit.`,
    '// The accept path of each `Format` (src/json-document.ts): what the schema parse returns, or undefined.',
    `import { ${helpers.join(', ')} } from '${relative(dirname(file), 'src/accept.js')}';`,
    ...(used.length ? [`import { ${used.join(', ')} } from '${rulesImport}';`] : []),
  ];
  const text = [
    header.join('\n'),
    emitter.constants.join('\n'),
    exports.join('\n\n'),
    emitter.functions.join('\n\n'),
  ].join('\n\n');
  return execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', `--stdin-file-path=${file}`], {
    cwd: root,
    input: `${text}\n`,
    encoding: 'utf8',
  });
}
