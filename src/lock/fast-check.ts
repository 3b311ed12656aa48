/**
 * A fast, zod-free acceptance test for lockfile values: true only for a value the lockfile schema
 * (`schema.ts`, the one source of truth for the format, its JSON Schema and its error messages)
 * accepts as it is. Reading a lockfile runs this first and the schema only when it says no, for the
 * error naming the JSON path; a 1000-agent lockfile is checked in a few milliseconds where the
 * schema's first run takes about 100 (`a2a diff` reads two). Conservative by construction: any
 * doubt (an object key `__proto__`, where the schema's output differs from its input) answers
 * false and leaves the value to the schema. `test/lock/fast-check.test.ts` holds it to the schema
 * over fixtures and thousands of mutations of them. Pure.
 */
import type { Lockfile, LockEntry } from './schema.js';
import { AGENT_NAME, LOCKFILE_VERSION } from './top.js';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isString(v: unknown): v is string {
  return typeof v === 'string';
}

function isFilled(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

function isStrings(v: unknown): v is string[] {
  if (!Array.isArray(v)) return false;
  for (const x of v) if (typeof x !== 'string') return false;
  return true;
}

/** At least one string (the schema's `z.array(z.string()).check(z.minLength(1))`). */
function isSomeStrings(v: unknown): v is string[] {
  return isStrings(v) && v.length > 0;
}

/** An optional key: absent (or undefined, as the schema's `.optional()` allows), or `test` holds. */
function optional(o: Obj, key: string, test: (v: unknown) => boolean): boolean {
  return o[key] === undefined || test(o[key]);
}

/** Every own key of `o` is one of `allowed` (a strict object); none is `__proto__`. */
function onlyKeys(o: Obj, allowed: ReadonlySet<string>): boolean {
  for (const key in o) if (!allowed.has(key)) return false;
  return !Object.hasOwn(o, '__proto__');
}

/** A record: an object whose every key passes `key` and every value `value`; no `__proto__` key. */
function isRecordOf(v: unknown, key: (k: string) => boolean, value: (v: unknown) => boolean): boolean {
  if (!isObject(v) || Object.hasOwn(v, '__proto__')) return false;
  for (const k in v) if (!key(k) || !value(v[k])) return false;
  return true;
}

const INTEGRITY = /^sha256-[A-Za-z0-9+/]{43}=$/;
const isIntegrity = (v: unknown): boolean => typeof v === 'string' && INTEGRITY.test(v);
const anyKey = (): boolean => true;
const filledKey = (k: string): boolean => k.length > 0;
const agentKey = (k: string): boolean => AGENT_NAME.test(k);
const anyValue = (): boolean => true;

const INTERFACE_KEYS = new Set(['url', 'protocolBinding', 'protocolVersion', 'tenant']);
/** The interface fields a plan and each fallback interface carry: url, binding, version, optional tenant. */
function hasInterfaceFields(v: Obj): boolean {
  return isFilled(v.url) && isFilled(v.protocolBinding) && isFilled(v.protocolVersion) && optional(v, 'tenant', isFilled);
}

function isInterface(v: unknown): boolean {
  return isObject(v) && onlyKeys(v, INTERFACE_KEYS) && hasInterfaceFields(v);
}

const FALLBACK_KEYS = new Set(['interfaces', 'delivery']);
function isFallbacks(v: unknown): boolean {
  if (!isObject(v) || !onlyKeys(v, FALLBACK_KEYS) || !Array.isArray(v.interfaces) || !Array.isArray(v.delivery)) return false;
  for (const i of v.interfaces) if (!isInterface(i)) return false;
  for (const d of v.delivery) if (d !== 'poll') return false;
  return true;
}

const PLAN_KEYS = new Set(['url', 'protocolBinding', 'protocolVersion', 'tenant', 'security', 'acceptedOutputModes', 'delivery', 'extensions', 'fallbacks']);
function isPlan(v: unknown): boolean {
  return (
    isObject(v) &&
    onlyKeys(v, PLAN_KEYS) &&
    hasInterfaceFields(v) &&
    isRecordOf(v.security, anyKey, isStrings) &&
    isSomeStrings(v.acceptedOutputModes) &&
    (v.delivery === 'stream' || v.delivery === 'push' || v.delivery === 'poll') &&
    isStrings(v.extensions) &&
    optional(v, 'fallbacks', isFallbacks)
  );
}

const SIGNATURE_KEYS = new Set(['status', 'kid', 'alg', 'thumbprint', 'canonicalForm']);
function isSignature(v: unknown): boolean {
  return (
    isObject(v) &&
    onlyKeys(v, SIGNATURE_KEYS) &&
    (v.status === 'verified' || v.status === 'unverifiable' || v.status === 'absent') &&
    optional(v, 'kid', isString) &&
    optional(v, 'alg', isString) &&
    optional(v, 'thumbprint', isString) &&
    optional(v, 'canonicalForm', (f) => f === 'a2a-python-1.1')
  );
}

const isSnapshot = (v: unknown): boolean => isRecordOf(v, anyKey, anyValue);

const EXTENDED_KEYS = new Set(['resolved', 'integrity', 'snapshot', 'signature']);
function isExtended(v: unknown): boolean {
  return isObject(v) && onlyKeys(v, EXTENDED_KEYS) && isFilled(v.resolved) && isIntegrity(v.integrity) && isSnapshot(v.snapshot) && optional(v, 'signature', isSignature);
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const AWS_NAME = /^[a-z0-9-]+$/;
const isEnvName = (v: unknown): boolean => typeof v === 'string' && ENV_NAME.test(v);
const isAwsName = (v: unknown): boolean => typeof v === 'string' && AWS_NAME.test(v);
/** A header value prefix: printable ASCII, space and tab (the schema's `prefix` pattern). */
const HEADER_PREFIX = /^[\t\x20-\x7e]*$/;
/** The inner keys of each `originAuth` placement, in the schema's shape order. */
const ORIGIN_AUTH_KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  bearer: new Set(['env']),
  header: new Set(['name', 'env', 'prefix']),
  awsSigV4: new Set(['region', 'service']),
};
/** One `originAuth` value (the manifest's `OriginAuthSchema`): exactly one of bearer, header, awsSigV4. */
function isOriginAuth(v: unknown): boolean {
  if (!isObject(v)) return false;
  const keys = Object.keys(v);
  if (keys.length !== 1 || !Object.hasOwn(ORIGIN_AUTH_KEYS, keys[0]!)) return false;
  const kind = keys[0]!;
  const inner = v[kind];
  if (!isObject(inner) || !onlyKeys(inner, ORIGIN_AUTH_KEYS[kind]!)) return false;
  if (kind === 'bearer') return isEnvName(inner.env);
  if (kind === 'header') return typeof inner.name === 'string' && HEADER_NAME.test(inner.name) && isEnvName(inner.env) && optional(inner, 'prefix', (p) => typeof p === 'string' && HEADER_PREFIX.test(p));
  return isAwsName(inner.region) && isAwsName(inner.service);
}

function originAuthOrdered(record: Obj): Obj {
  const out: Obj = {};
  for (const origin in record) {
    const value = record[origin] as Obj;
    const kind = Object.keys(value)[0]!;
    out[origin] = { [kind]: inShapeOrder(value[kind] as Obj, ORIGIN_AUTH_KEYS[kind]!, false) };
  }
  return out;
}

const ENTRY_KEYS = new Set(['card', 'resolved', 'versionHeader', 'a2aVersion', 'version', 'integrity', 'snapshot', 'signature', 'extended', 'plans', 'originAuth']);
/** True only when the lockfile schema's `LockEntrySchema` accepts `v` unchanged (see the module's docstring). */
export function isLockEntry(v: unknown): v is LockEntry {
  return (
    isObject(v) &&
    !Object.hasOwn(v, '__proto__') &&
    isFilled(v.card) &&
    isFilled(v.resolved) &&
    optional(v, 'versionHeader', isString) &&
    isString(v.a2aVersion) &&
    isString(v.version) &&
    isIntegrity(v.integrity) &&
    isSnapshot(v.snapshot) &&
    optional(v, 'signature', isSignature) &&
    optional(v, 'extended', isExtended) &&
    isRecordOf(v.plans, filledKey, isPlan) &&
    optional(v, 'originAuth', (o) => isRecordOf(o, filledKey, isOriginAuth))
  );
}

const SETTINGS_KEYS = new Set(['bindings', 'versions', 'accepts', 'sends', 'streaming', 'pushEndpoint', 'extensions', 'credentials', 'versionRange', 'trustJwks', 'requireSignature', 'allowHttp', 'cardPath', 'rebaseInterfaces']);
/** True only when the lockfile schema's `SettingsSchema` accepts `v` unchanged. */
export function isSettings(v: unknown): boolean {
  return (
    isObject(v) &&
    onlyKeys(v, SETTINGS_KEYS) &&
    isSomeStrings(v.bindings) &&
    isSomeStrings(v.versions) &&
    isSomeStrings(v.accepts) &&
    isStrings(v.sends) &&
    typeof v.streaming === 'boolean' &&
    (v.pushEndpoint === null || typeof v.pushEndpoint === 'string') &&
    isStrings(v.extensions) &&
    isStrings(v.credentials) &&
    optional(v, 'versionRange', isString) &&
    optional(v, 'trustJwks', isString) &&
    optional(v, 'requireSignature', (x) => x === true) &&
    optional(v, 'allowHttp', (x) => x === true) &&
    optional(v, 'cardPath', isString) &&
    optional(v, 'rebaseInterfaces', (x) => x === true)
  );
}

const TOP_KEYS = new Set(['$schema', 'lockfileVersion', 'settings', 'agents']);

/**
 * `o`'s members in the order the schema's output has them: `shape`'s keys first (the schema's
 * shape order, absent ones left out), then, for a loose object, the others in their own order.
 * A new object; the values are `o`'s.
 */
function inShapeOrder(o: Obj, shape: ReadonlySet<string>, loose: boolean): Obj {
  const out: Obj = {};
  for (const key of shape) if (o[key] !== undefined) out[key] = o[key];
  if (loose) for (const key in o) if (!shape.has(key)) out[key] = o[key];
  return out;
}

function planOrdered(p: Obj): Obj {
  const out = inShapeOrder(p, PLAN_KEYS, false);
  const f = out.fallbacks as Obj | undefined;
  if (f !== undefined) out.fallbacks = { interfaces: (f.interfaces as Obj[]).map((i) => inShapeOrder(i, INTERFACE_KEYS, false)), delivery: f.delivery };
  return out;
}

function entryOrdered(e: Obj): Obj {
  const out = inShapeOrder(e, ENTRY_KEYS, true);
  if (out.signature !== undefined) out.signature = inShapeOrder(out.signature as Obj, SIGNATURE_KEYS, false);
  if (out.extended !== undefined) {
    const x = inShapeOrder(out.extended as Obj, EXTENDED_KEYS, false);
    if (x.signature !== undefined) x.signature = inShapeOrder(x.signature as Obj, SIGNATURE_KEYS, false);
    out.extended = x;
  }
  const plans: Obj = {};
  for (const skill in out.plans as Obj) plans[skill] = planOrdered((out.plans as Obj)[skill] as Obj);
  out.plans = plans;
  if (out.originAuth !== undefined) out.originAuth = originAuthOrdered(out.originAuth as Obj);
  return out;
}

/**
 * A lockfile {@link isLockfile} accepted, as the lockfile schema's output has it: every schema
 * object's keys in the schema's shape order (a lockfile on disk has them sorted), the unknown keys
 * of the loose ones after. What reading a lockfile returned when the schema parsed it, so the
 * `--json` documents that show plans, settings or entries (`ls`, `why`, `diff`) keep their key
 * order. The objects the schema describes are copied; records' key order, snapshots, arrays and
 * unknown members are the input's. Pure.
 */
export function schemaOrdered(lock: Lockfile): Lockfile {
  const out = inShapeOrder(lock, TOP_KEYS, true);
  const settings: Obj = {};
  for (const name in lock.settings) settings[name] = inShapeOrder(lock.settings[name] as Obj, SETTINGS_KEYS, false);
  const agents: Obj = {};
  for (const name in lock.agents) agents[name] = entryOrdered(lock.agents[name] as Obj);
  out.settings = settings;
  out.agents = agents;
  return out as Lockfile;
}

/**
 * One agent of a top-level-checked lockfile as the lockfile schema's `LockEntrySchema` and
 * `SettingsSchema` return it (their key order), when {@link isLockEntry} and {@link isSettings}
 * accept both; undefined otherwise (the schemas then name the error). What the runtime's first
 * `lock.agent()` checks before anything is sent. Pure.
 */
export function lockedAgentFast(agents: Record<string, unknown>, settings: Record<string, unknown>, name: string): { entry: LockEntry; settings: Lockfile['settings'][string] } | undefined {
  const entry = Object.hasOwn(agents, name) ? agents[name] : undefined;
  const own = Object.hasOwn(settings, name) ? settings[name] : undefined;
  if (!isLockEntry(entry) || !isSettings(own)) return undefined;
  return { entry: entryOrdered(entry as unknown as Obj) as LockEntry, settings: inShapeOrder(own as Obj, SETTINGS_KEYS, false) as Lockfile['settings'][string] };
}

/** True only when the lockfile schema's `LockfileSchema` accepts `v` unchanged (see the module's docstring). */
export function isLockfile(v: unknown): v is Lockfile {
  return (
    isObject(v) &&
    !Object.hasOwn(v, '__proto__') &&
    optional(v, '$schema', isString) &&
    v.lockfileVersion === LOCKFILE_VERSION &&
    isRecordOf(v.settings, agentKey, isSettings) &&
    isRecordOf(v.agents, agentKey, isLockEntry)
  );
}
