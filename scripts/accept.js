// The accept paths of the formats (`Format` in src/json-document.ts), generated from their zod
// schemas: for each root schema, the composition of src/accept.ts's functions (one per kind of zod
// schema, each parsing as zod's does) that accepts what the schema accepts and returns what its
// parse returns, or undefined where the schema would refuse. The zod schemas stay the one
// definition; this file reads their structure (`_zod.def`) and nothing of our formats. A kind,
// check or refinement it does not know fails the generation: extend src/accept.ts and this file,
// and the equivalence test (test/schemas-accept.test.ts) holds them to zod.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { dirname, join, relative } from 'node:path';

/** The wrapper kinds, which run their inner schema and carry no checks of their own. */
const WRAPPERS = new Set(['nullable', 'optional', 'default', 'union', 'never']);

/** The accept functions of a set of zod schemas, one constant per distinct expression. */
class Emitter {
  /** @param {Map<Function, string>} ruleName the refinements by function, named as exported by `rulesImport` */
  constructor(ruleName, rulesImport) {
    this.ruleName = ruleName;
    this.rulesImport = rulesImport;
    this.usedRules = new Set();
    this.combinators = new Set(['root']);
    this.ids = new Map();
    this.byExpression = new Map();
    this.constants = [];
  }

  /** A combinator of src/accept.ts, by name (imported by the output). */
  use(name) {
    this.combinators.add(name);
    return name;
  }

  /**
   * The name of the constant that accepts `schema`: one per distinct expression (zod makes a new
   * object for each `z.string()`; the same checks make the same constant), children first, named
   * by a hash of its expression. Not
   * recursive: our schemas have no cycles (a `z.lazy` fails as an unknown type).
   */
  fn(schema, where) {
    let id = this.ids.get(schema);
    if (id) return id;
    const expression = this.expression(schema, where);
    id = this.byExpression.get(expression);
    if (!id) {
      // Named by its expression: a schema change renames only the constants above it.
      id = `a_${createHash('sha256').update(expression).digest('hex').slice(0, 6)}`;
      if ([...this.byExpression.values()].includes(id))
        throw new Error(`accept: ${where}: two expressions named ${id}`);
      this.byExpression.set(expression, id);
      this.constants.push(`const ${id} = ${expression};`);
    }
    this.ids.set(schema, id);
    return id;
  }

  /** The checks of a schema, as an argument: `, [minLength(1), isMediaType]`, or nothing. */
  checks(def, where) {
    const out = [];
    for (const check of def.checks ?? []) {
      const c = check._zod.def;
      if (c.when && c.check !== 'min_length') throw new Error(`accept: ${where}: a conditional ${c.check} check`);
      if (c.check === 'meta') continue;
      if (c.check === 'min_length') out.push(`${this.use('minLength')}(${Number(c.minimum)})`);
      else if (c.check === 'string_format' && c.format === 'regex') out.push(`${this.use('pattern')}(${c.pattern})`);
      else if (c.check === 'custom') {
        const name = this.ruleName.get(c.fn);
        if (!name) throw new Error(`accept: ${where}: a refinement that is not a named export of ${this.rulesImport}`);
        this.usedRules.add(name);
        out.push(name);
      } else throw new Error(`accept: ${where}: unknown check ${c.check}${c.format ? `:${c.format}` : ''}`);
    }
    return out.length ? `[${out.join(', ')}]` : '';
  }

  /** The expression that accepts `schema`. */
  expression(schema, where) {
    const def = schema._zod.def;
    if (WRAPPERS.has(def.type) && (def.checks ?? []).some((c) => c._zod.def.check !== 'meta'))
      throw new Error(`accept: ${where}: checks on a ${def.type}`);
    const kind = KINDS[def.type];
    if (!kind) throw new Error(`accept: ${where}: unknown schema type ${def.type}`);
    return kind.call(this, schema, def, where);
  }
}

/** A call of combinator `name` with `args` (empty ones left out). */
function call(emitter, name, ...args) {
  return `${emitter.use(name)}(${args.filter((a) => a !== '').join(', ')})`;
}

/** The values of a literal or an enum (zod: `values.has(v)`), as an array literal. */
function literals(schema, where) {
  const values = [...schema._zod.values];
  for (const value of values) {
    if (!['string', 'number', 'boolean'].includes(typeof value) && value !== null)
      throw new Error(`accept: ${where}: a literal of type ${typeof value}`);
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`accept: ${where}: a literal ${value}`);
  }
  return JSON.stringify(values);
}

/**
 * Whether `value` is plain JSON data that JSON.stringify writes back as the same value in an
 * expression: finite numbers, and no own `__proto__` key (an object literal would set the prototype).
 */
function isJson(value) {
  if (value === null || ['string', 'boolean'].includes(typeof value)) return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  return (
    typeof value === 'object' &&
    Object.getPrototypeOf(value) === Object.prototype &&
    !Object.hasOwn(value, '__proto__') &&
    Object.values(value).every(isJson)
  );
}

/** The expression per zod schema type, called on the Emitter: `(schema, def, where) => expression`. */
const KINDS = {
  string(_schema, def, where) {
    if (def.coerce) throw new Error(`accept: ${where}: a coercing string`);
    if (def.format === 'url') return this.use('url');
    if (def.format) throw new Error(`accept: ${where}: string format ${def.format}`);
    return call(this, 'string', this.checks(def, where));
  },
  boolean(_schema, def, where) {
    if (def.coerce) throw new Error(`accept: ${where}: a coercing boolean`);
    return call(this, 'boolean', this.checks(def, where));
  },
  unknown(_schema, def, where) {
    if ((def.checks ?? []).some((c) => c._zod.def.check !== 'meta'))
      throw new Error(`accept: ${where}: checks on unknown`);
    return this.use('unknown');
  },
  never() {
    return this.use('never');
  },
  // z.enum(…) too (below): both keep their values in `_zod.values`.
  literal(schema, def, where) {
    return call(this, 'literal', literals(schema, where), this.checks(def, where));
  },
  nullable(_schema, def, where) {
    return call(this, 'nullable', this.fn(def.innerType, where));
  },
  optional(_schema, def, where) {
    if (def.innerType._zod.optin === 'defaulted') throw new Error(`accept: ${where}: optional of a default`);
    return call(this, 'optional', this.fn(def.innerType, where));
  },
  default(_schema, def, where) {
    const value = def.defaultValue;
    if (!isJson(value)) throw new Error(`accept: ${where}: a default that is not JSON`);
    return call(this, 'withDefault', this.fn(def.innerType, where), `() => (${JSON.stringify(value)})`);
  },
  array(_schema, def, where) {
    return call(this, 'array', this.fn(def.element, `${where}[]`), this.checks(def, where));
  },
  union(_schema, def, where) {
    // z.xor and z.discriminatedUnion are unions too, that refuse a value more than one option accepts.
    if (def.inclusive === false || def.discriminator !== undefined)
      throw new Error(`accept: ${where}: an exclusive or discriminated union`);
    return call(this, 'union', `[${def.options.map((o, i) => this.fn(o, `${where}|${i}`)).join(', ')}]`);
  },
  record(_schema, def, where) {
    if (def.mode !== undefined && def.mode !== 'strict') throw new Error(`accept: ${where}: a ${def.mode} record`);
    if (def.keyType._zod.values) throw new Error(`accept: ${where}: a record with enumerated keys`);
    if (def.keyType._zod.def.type !== 'string') throw new Error(`accept: ${where}: a record key that is not a string`);
    const key = this.fn(def.keyType, `${where}{key}`);
    return call(this, 'record', key, this.fn(def.valueType, `${where}{}`), this.checks(def, where));
  },
  object(_schema, def, where) {
    const shape = def.shape;
    if (Object.getOwnPropertySymbols(shape).length) throw new Error(`accept: ${where}: symbol keys`);
    const fields = Object.keys(shape).map((key) => {
      const { optin, optout } = shape[key]._zod;
      const flags = optout !== undefined ? [optin, optout] : optin !== undefined ? [optin] : [];
      const parts = [JSON.stringify(key), this.fn(shape[key], `${where}.${key}`)];
      for (const flag of flags) parts.push(flag === undefined ? 'undefined' : JSON.stringify(flag));
      return `[${parts.join(', ')}]`;
    });
    const catchall = def.catchall?._zod.def;
    let unknownKeys = 'strip';
    if (catchall?.type === 'never') unknownKeys = 'strict';
    else if (catchall?.type === 'unknown' && !(catchall.checks ?? []).length) unknownKeys = 'loose';
    else if (catchall) throw new Error(`accept: ${where}: a catchall of ${catchall.type}`);
    return call(this, 'object', `[${fields.join(', ')}]`, JSON.stringify(unknownKeys), this.checks(def, where));
  },
};
KINDS.enum = KINDS.literal;

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
      return `/** The accept path of the schema it is named after: the parsed value, or undefined. */\nexport const accept${name} = root(${emitter.fn(value, name)});`;
    const entries = Object.entries(value).map(
      ([key, schema]) => `${key}: root(${emitter.fn(schema, `${name}.${key}`)}),`,
    );
    return `/** The accept paths of the schemas of ${name}, by key. */\nexport const accept${name} = {\n${entries.join('\n')}\n};`;
  });
  const used = [...emitter.usedRules].sort();
  const combinators = [...emitter.combinators].sort();
  const header = [
    `// Generated by \`npm run schemas\` (scripts/accept.js) from the zod schemas of ${source}: do not edit.`,
    '// The accept path of each `Format` (src/json-document.ts): what the schema parse returns, or undefined.',
    `import { ${combinators.join(', ')} } from '${relative(dirname(file), 'src/accept.js')}';`,
    ...(used.length ? [`import { ${used.join(', ')} } from '${rulesImport}';`] : []),
  ];
  const text = [header.join('\n'), emitter.constants.join('\n'), exports.join('\n\n')].join('\n\n');
  return execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', `--stdin-file-path=${file}`], {
    cwd: root,
    input: `${text}\n`,
    encoding: 'utf8',
  });
}
