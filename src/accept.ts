/**
 * The accept paths of the formats (see `Format` in `json-document.ts`): small functions that each
 * accept one kind of zod schema as zod's parse does (node_modules/zod/v4/core/schemas.js, the
 * `$Zod<Type>` of the same name), composed by the files `npm run schemas` generates from the zod
 * schemas (`*-accept.ts`). An accept function returns the parsed value (defaults filled in, an
 * object's unknown keys dropped or kept as the schema says, in zod's key order), or {@link NO}
 * where zod's parse reports an issue. It never words a refusal: the zod schema does, when a root
 * answers undefined. `test/schemas-accept.test.ts` holds every generated path to its schema. Pure.
 */
import { isRecord } from './json-path.js';

/** One accept function: the parsed value, or {@link NO}. */
export type Accept = (v: unknown) => unknown;

/** A check zod runs on a parsed value (`.check(…)`): a length, a pattern, or a refinement of `manifest/rules.ts`. */
export type Check = (v: never) => boolean;

/** "Not accepted": zod's parse reports an issue (a value may itself be undefined). */
export const NO: unique symbol = Symbol('not accepted');

/** Thrown where a value cannot be judged here (a URL format): the root answers undefined and the schema decides. */
const UNSURE: unique symbol = Symbol('unsure');

/** A root's answer: the parsed value, or undefined (not accepted, or not judged here). */
export function root(accept: Accept): (v: unknown) => unknown {
  return (v) => {
    try {
      const r = accept(v);
      return r === NO ? undefined : r;
    } catch (error) {
      if (error === UNSURE) return undefined;
      throw error;
    }
  };
}

/** `v` when every check passes (zod runs a schema's checks after its parse), else {@link NO}. */
function checked(v: unknown, checks: readonly Check[]): unknown {
  for (const check of checks) if (!check(v as never)) return NO;
  return v;
}

/** The `minLength` check (a string's or an array's `length`). */
export function minLength(n: number): Check {
  return (v: { length: number }) => v.length >= n;
}

/** The `regex` check. */
export function pattern(re: RegExp): Check {
  return (v: string) => {
    re.lastIndex = 0;
    return re.test(v);
  };
}

/** `z.string()`. */
export function string(checks: readonly Check[] = []): Accept {
  return (v) => (typeof v === 'string' ? checked(v, checks) : NO);
}

/** `z.url()`: not judged here (zod trims and re-reads the URL). */
export const url: Accept = (v) => {
  if (typeof v !== 'string') return NO;
  throw UNSURE;
};

/** `z.boolean()`. */
export function boolean(checks: readonly Check[] = []): Accept {
  return (v) => (typeof v === 'boolean' ? checked(v, checks) : NO);
}

/** `z.unknown()`. */
export const unknown: Accept = (v) => v;

/** `z.never()`. */
export const never: Accept = () => NO;

/** `z.literal(…)` and `z.enum(…)`: one of `values` (primitives). */
export function literal(values: readonly unknown[], checks: readonly Check[] = []): Accept {
  const set = new Set(values);
  return (v) => (set.has(v) ? checked(v, checks) : NO);
}

/** `z.nullable(inner)`. */
export function nullable(inner: Accept): Accept {
  return (v) => (v === null ? null : inner(v));
}

/** `z.optional(inner)` (of an inner schema that has no default). */
export function optional(inner: Accept): Accept {
  return (v) => (v === undefined ? undefined : inner(v));
}

/** `z._default(inner, value)`: `value()` (a fresh copy) for undefined, in and out. */
export function withDefault(inner: Accept, value: () => unknown): Accept {
  return (v) => {
    if (v === undefined) return value();
    const r = inner(v);
    return r === undefined ? value() : r;
  };
}

/** `z.array(element)`. */
export function array(element: Accept, checks: readonly Check[] = []): Accept {
  return (v) => {
    if (!Array.isArray(v)) return NO;
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const r = element(v[i]);
      if (r === NO) return NO;
      out[i] = r;
    }
    return checked(out, checks);
  };
}

/** `z.union(options)`: the first option that accepts. */
export function union(options: readonly Accept[]): Accept {
  return (v) => {
    for (const option of options) {
      const r = option(v);
      if (r !== NO) return r;
    }
    return NO;
  };
}

/** zod's record test (`util.isPlainObject`; its object test is `isRecord`): no constructor, or one whose prototype has its own `isPrototypeOf`. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!isRecord(v)) return false;
  const ctor = v.constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const proto: unknown = ctor.prototype;
  return isRecord(proto) && Object.hasOwn(proto, 'isPrototypeOf');
}

/** `z.record(key, value)` with a string key schema (not enumerated). */
export function record(key: Accept, value: Accept, checks: readonly Check[] = []): Accept {
  return (v) => {
    if (!isPlainObject(v)) return NO;
    const out: Record<string, unknown> = {};
    for (const k of Reflect.ownKeys(v)) {
      if (k === '__proto__' || !Object.prototype.propertyIsEnumerable.call(v, k)) continue;
      const name = key(k);
      if (name === NO) return NO;
      if (name === '__proto__') continue;
      const r = value(v[k as string]);
      if (r === NO) return NO;
      out[name as string] = r;
    }
    return checked(out, checks);
  };
}

/** One field of an object: its key, its accept function, and its schema's `optin` and `optout`. */
export type Field = readonly [key: string, accept: Accept, optin?: string, optout?: string];

/**
 * One property of an object, placed as zod places it (`handlePropertyResult`): `r` is the
 * property's answer. False: the object is not accepted.
 */
function place(out: Record<string, unknown>, input: object, [key, , optin, optout]: Field, r: unknown): boolean {
  const present = key in input;
  const optionalOut = optout === 'optional';
  if (!present && optionalOut && optin === 'optional') return true;
  if (r === NO) return optin !== undefined && optionalOut && !present;
  if (!present && optin === undefined) return false;
  if (r !== undefined) out[key] = r;
  else if (present || (optin === 'defaulted' && !optionalOut)) out[key] = undefined;
  return true;
}

/**
 * `z.object` (`unknown`: `"strip"`, dropped), `z.strictObject` (`"strict"`, refused) and
 * `z.looseObject` (`"loose"`, kept after the fields).
 */
export function object(
  fields: readonly Field[],
  unknownKeys: 'strip' | 'strict' | 'loose',
  checks: readonly Check[] = [],
): Accept {
  const known = new Set(fields.map(([key]) => key));
  const shaped = fields.filter(([key]) => key !== '__proto__');
  return (v) => {
    if (!isRecord(v)) return NO;
    const out: Record<string, unknown> = {};
    for (const field of shaped) if (!place(out, v, field, field[1](v[field[0]]))) return NO;
    if (unknownKeys === 'strict') {
      for (const k in v) if (!known.has(k)) return NO;
    } else if (unknownKeys === 'loose') {
      for (const k in v) if (!known.has(k) && k !== '__proto__') out[k] = v[k];
    }
    return checked(out, checks);
  };
}
