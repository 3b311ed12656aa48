/**
 * What the generated accept paths (`*-accept.ts`, written by `npm run schemas` from the zod
 * schemas; see `Format` in `json-document.ts`) share: their answers and the tests zod's parse makes
 * (node_modules/zod/v4/core). Pure.
 */

/** An answer of "not accepted" inside an accept path (a value may be undefined). */
export const NO: unique symbol = Symbol('not accepted');

/** Thrown where a value cannot be judged by an accept path (a URL format): the schema decides. */
export const UNSURE: unique symbol = Symbol('unsure');

/** zod's object test: an object that is not an array. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** zod's record test (`util.isPlainObject`): no constructor, or one whose prototype has its own `isPrototypeOf`. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!isObject(v)) return false;
  const ctor = v.constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const proto: unknown = ctor.prototype;
  return isObject(proto) && Object.hasOwn(proto, 'isPrototypeOf');
}

/**
 * One property of an object, placed as zod places it (`handlePropertyResult`): `r` is the
 * property's answer, `optin`/`optout` its schema's. False: the object is not accepted.
 */
export function prop(
  out: Record<string, unknown>,
  input: object,
  key: string,
  r: unknown,
  optin?: string,
  optout?: string,
): boolean {
  const present = key in input;
  const optionalOut = optout === 'optional';
  if (!present && optionalOut && optin === 'optional') return true;
  if (r === NO) return optin !== undefined && optionalOut && !present;
  if (!present && optin === undefined) return false;
  if (r !== undefined) out[key] = r;
  else if (present || (optin === 'defaulted' && !optionalOut)) out[key] = undefined;
  return true;
}

/** A root's answer: the value, or undefined (not accepted, or not judged here). */
export function root(accept: (v: unknown) => unknown, v: unknown): unknown {
  try {
    const r = accept(v);
    return r === NO ? undefined : r;
  } catch (error) {
    if (error === UNSURE) return undefined;
    throw error;
  }
}
