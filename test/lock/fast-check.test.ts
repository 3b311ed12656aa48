/**
 * The zod-free lockfile check (lock/fast-check.ts) against the schema it stands in for: on valid
 * lockfiles, every optional field present or absent, and on thousands of seeded mutations of them
 * (a key deleted, a value of another type, an unknown key, an empty string, a `__proto__` key), it
 * must accept exactly what the schema accepts. A false "yes" would let an invalid lockfile through
 * unchecked; a false "no" only costs the schema's run, but is counted too.
 */
import { describe, expect, it } from 'vitest';
import { prng } from '../../scripts/fuzz-cards.js';
import { parseLockfile, serializeLockfile } from '../../src/lock/format.js';
import { isLockEntry, isLockfile, isSettings, lockedAgentFast } from '../../src/lock/fast-check.js';
import { ExtendedSnapshotSchema, LockEntrySchema, LockfileSchema, PlanSchema, SettingsSchema, SignatureRecordSchema } from '../../src/lock/schema.js';

type Json = any;
const INTEGRITY = `sha256-${'A'.repeat(42)}o=`;

/** A lockfile with every optional field the schema knows set, and one agent with none of them. */
function fullLockfile(): Json {
  const plan = {
    url: 'https://a.example/rpc',
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.0',
    tenant: 't1',
    security: { key: [], oauth: ['read', 'write'] },
    acceptedOutputModes: ['application/json', 'text/plain'],
    delivery: 'stream',
    extensions: ['https://ext.example/x'],
    fallbacks: { interfaces: [{ url: 'https://a.example/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: 't1' }], delivery: ['poll'] },
  };
  const signature = { status: 'verified', kid: 'k1', alg: 'ES256', thumbprint: 'abc', canonicalForm: 'a2a-python-1.1' };
  return {
    $schema: './node_modules/a2a-lock/schemas/a2a-lock.schema.json',
    lockfileVersion: 1,
    futureTopKey: { kept: true },
    settings: {
      full: {
        bindings: ['JSONRPC'],
        versions: ['1.0', '0.3'],
        accepts: ['application/json'],
        sends: ['text/plain'],
        streaming: true,
        pushEndpoint: 'https://me.example/push',
        extensions: [],
        credentials: ['key'],
        versionRange: '^2',
        trustJwks: 'keys.json',
        requireSignature: true,
        allowHttp: true,
        cardPath: '',
        rebaseInterfaces: true,
      },
      bare: { bindings: ['JSONRPC'], versions: ['1.0'], accepts: ['*/*'], sends: [], streaming: false, pushEndpoint: null, extensions: [], credentials: [] },
    },
    agents: {
      full: {
        card: 'https://a.example',
        resolved: 'https://a.example/.well-known/agent-card.json',
        versionHeader: '0.3',
        a2aVersion: '1.0',
        version: '2.4.0',
        integrity: INTEGRITY,
        snapshot: { name: 'A', skills: [{ id: 's' }], nested: { deep: [1, null, 'x'] } },
        signature,
        extended: { resolved: 'https://a.example/rpc', integrity: INTEGRITY, snapshot: { name: 'A+' }, signature: { status: 'absent' } },
        plans: { s: plan, '*': { ...plan, tenant: undefined, fallbacks: undefined, delivery: 'poll' } },
        originAuth: {
          'https://a.example': { bearer: { env: 'A_TOKEN' } },
          'https://b.example': { header: { name: 'X-Serverless-Authorization', env: 'B_TOKEN', prefix: 'Bearer ' } },
          'https://c.example': { awsSigV4: { region: 'us-west-2', service: 'bedrock-agentcore' } },
          'https://d.example': { header: { name: 'X-Key', env: 'D_KEY' } },
        },
        futureEntryKey: 1,
      },
      bare: { card: 'cards/b.json', resolved: 'cards/b.json', a2aVersion: '0.3', version: '', integrity: INTEGRITY, snapshot: {}, plans: {} },
    },
  };
}

const VALUES: unknown[] = [undefined, null, '', 'x', 'poll', 'verified', 0, 1, true, false, [], ['x'], [1], {}, { x: 1 }, INTEGRITY, `sha256-${'A'.repeat(43)}`];
const KEYS = ['url', 'env', 'bearer', 'prefix', 'tenant', 'delivery', 'status', 'card', 'snapshot', 'plans', 'unknownKey', '', '__proto__', 'constructor', 'interfaces', 'bad name', 'agent-2'];

/** Every container path in `v` (objects and arrays), the root included. */
function containers(v: Json, path: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  if (v === null || typeof v !== 'object') return out;
  out.push(path);
  for (const [k, child] of Object.entries(v)) containers(child, [...path, Array.isArray(v) ? Number(k) : k], out);
  return out;
}

/** Whether an own `__proto__` key sits anywhere in `v` (the fast check leaves those to the schema). */
function hasProtoKey(v: Json): boolean {
  if (v === null || typeof v !== 'object') return false;
  return Object.hasOwn(v, '__proto__') || Object.values(v).some(hasProtoKey);
}

function at(v: Json, path: Array<string | number>): Json {
  return path.reduce((o, k) => o[k], v);
}

/** One seeded mutation: in a random container, delete a key, replace a value, or add a key. */
function mutate(source: Json, random: () => number): Json {
  const v = JSON.parse(JSON.stringify(source));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const edits = 1 + Math.floor(random() * 2);
  for (let e = 0; e < edits; e++) {
    const target = at(v, pick(containers(v)));
    const keys = Object.keys(target);
    const r = random();
    if (r < 0.3 && keys.length > 0) {
      if (Array.isArray(target)) target.splice(Number(pick(keys)), 1);
      else delete target[pick(keys)];
    } else if (r < 0.75 && keys.length > 0) {
      const key = pick(keys);
      target[Array.isArray(target) ? Number(key) : key] = structuredClone(pick(VALUES));
    } else if (Array.isArray(target)) target.push(structuredClone(pick(VALUES)));
    else {
      const key = pick(KEYS);
      const value = structuredClone(pick(VALUES));
      // As JSON.parse makes it: an own `__proto__` key, never the prototype.
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  // A value that went through JSON text, as the CLI reads it (undefined members gone).
  return JSON.parse(JSON.stringify(v));
}

describe('fast lockfile check', () => {
  it('accepts the valid lockfiles, every optional field present or absent', () => {
    const lock = JSON.parse(JSON.stringify(fullLockfile()));
    expect(LockfileSchema.safeParse(lock).success).toBe(true);
    expect(isLockfile(lock)).toBe(true);
    expect(isLockEntry(lock.agents.full) && isLockEntry(lock.agents.bare)).toBe(true);
    expect(isSettings(lock.settings.full) && isSettings(lock.settings.bare)).toBe(true);
    expect(isLockfile({ lockfileVersion: 1, settings: {}, agents: {} })).toBe(true);
  });

  it('its full lockfile sets every field the schemas know (a field added to a schema must be added here, and to the fast check)', () => {
    const lock = fullLockfile();
    const keys = (o: object) => Object.keys(o).sort();
    const plan = lock.agents.full.plans.s;
    expect(keys(lock)).toEqual(expect.arrayContaining(keys(LockfileSchema.shape)));
    expect(keys(lock.agents.full)).toEqual(expect.arrayContaining(keys(LockEntrySchema.shape)));
    expect(keys(lock.settings.full)).toEqual(keys(SettingsSchema.shape));
    expect(keys(plan)).toEqual(keys(PlanSchema.shape));
    expect(keys(plan.fallbacks.interfaces[0])).toEqual(['protocolBinding', 'protocolVersion', 'tenant', 'url']);
    expect(keys(lock.agents.full.signature)).toEqual(keys(SignatureRecordSchema.shape));
    expect(keys(lock.agents.full.extended)).toEqual(keys(ExtendedSnapshotSchema.shape));
  });

  it('agrees with the lockfile schema on 4000 seeded mutations', () => {
    const random = prng(17);
    const base = JSON.parse(JSON.stringify(fullLockfile()));
    const disagreements: string[] = [];
    let rejected = 0;
    for (let i = 0; i < 4000; i++) {
      const m = mutate(base, random);
      const schema = LockfileSchema.safeParse(m).success;
      if (!schema) rejected++;
      const fast = isLockfile(m);
      if (fast && !schema) disagreements.push(`#${i} accepted, the schema refuses: ${JSON.stringify(m)}`);
      else if (fast !== schema && !hasProtoKey(m)) disagreements.push(`#${i} refused, the schema accepts: ${JSON.stringify(m)}`);
    }
    expect(disagreements.slice(0, 5)).toEqual([]);
    // The mutations reach both answers (a generator that only made valid files would prove nothing).
    expect(rejected).toBeGreaterThan(1000);
    expect(rejected).toBeLessThan(3900);
  });

  it('agrees with the entry and settings schemas one by one (what the runtime checks per agent)', () => {
    const random = prng(29);
    const base = JSON.parse(JSON.stringify(fullLockfile()));
    let disagreements = 0;
    for (let i = 0; i < 1500; i++) {
      const entry = mutate(base.agents.full, random);
      const settings = mutate(base.settings.full, random);
      const entryOk = LockEntrySchema.safeParse(entry).success;
      const settingsOk = SettingsSchema.safeParse(settings).success;
      if (isLockEntry(entry) ? !entryOk : entryOk && !hasProtoKey(entry)) disagreements++;
      if (isSettings(settings) ? !settingsOk : settingsOk && !hasProtoKey(settings)) disagreements++;
    }
    expect(disagreements).toBe(0);
  });

  it('leaves a `__proto__` key to the schema (whose output then differs from its input)', () => {
    const lock = JSON.parse(JSON.stringify(fullLockfile()).replace('"nested":', '"__proto__":'));
    expect(Object.hasOwn(lock.agents.full.snapshot, '__proto__')).toBe(true);
    expect(isLockfile(lock)).toBe(false);
  });

  it("parseLockfile returns the schema's output, key order included (the --json documents of ls, why and diff show it)", () => {
    // A lockfile on disk has its keys sorted; the schema's output has its shape's order (url first in a plan).
    const text = serializeLockfile(fullLockfile());
    const read = parseLockfile(text, 'a2a.lock.json');
    expect(JSON.stringify(read)).toBe(JSON.stringify(LockfileSchema.parse(JSON.parse(text))));
    expect(Object.keys(read.agents.full!.plans.s!)[0]).toBe('url');
    const random = prng(41);
    let compared = 0;
    for (let i = 0; i < 600; i++) {
      const m = mutate(JSON.parse(text), random);
      const schema = LockfileSchema.safeParse(m);
      if (!schema.success || !isLockfile(m)) continue;
      compared++;
      expect(JSON.stringify(parseLockfile(JSON.stringify(m), 'a2a.lock.json')), `mutation #${i}`).toBe(JSON.stringify(schema.data));
    }
    expect(compared).toBeGreaterThan(100);
  });

  it("one agent for the runtime: lockedAgentFast gives the schemas' output, key order included, or leaves the agent to them", () => {
    const text = serializeLockfile(fullLockfile());
    const random = prng(53);
    let accepted = 0;
    for (let i = 0; i < 400; i++) {
      const lock = i === 0 ? JSON.parse(text) : mutate(JSON.parse(text), random);
      for (const name of ['full', 'bare', 'missing']) {
        const agents = lock?.agents && typeof lock.agents === 'object' ? lock.agents : {};
        const settings = lock?.settings && typeof lock.settings === 'object' ? lock.settings : {};
        const fast = lockedAgentFast(agents, settings, name);
        const entry = LockEntrySchema.safeParse(agents[name]);
        const set = SettingsSchema.safeParse(settings[name]);
        if (fast === undefined) {
          expect(entry.success && set.success && !hasProtoKey(agents[name]) && !hasProtoKey(settings[name]), `#${i} ${name}`).toBe(false);
          continue;
        }
        accepted++;
        expect(JSON.stringify(fast), `#${i} ${name}`).toBe(JSON.stringify({ entry: entry.data, settings: set.data }));
      }
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it('parseLockfile still names the JSON path of an invalid file', () => {
    const lock = fullLockfile();
    lock.agents.full.plans.s.delivery = 'carrier-pigeon';
    expect(() => parseLockfile(JSON.stringify(lock), 'a2a.lock.json')).toThrow(/\$\.agents\.full\.plans\.s\.delivery/);
  });
});
