/**
 * The generated accept paths (`src/*\/*-accept.ts`, `npm run schemas`) against the zod schemas they
 * are generated from: on thousands of documents, valid and mutated, an accept path returns exactly
 * what the schema's parse returns (same values, same key order, same undefined members) when the
 * schema accepts, and undefined when it refuses. The one exception allowed: a manifest with a push
 * endpoint URL, which the accept path leaves to the schema (a URL format).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod/mini';
import { generateAccept } from '../scripts/accept.js';
import { fuzzCases, prng } from '../scripts/fuzz-cards.js';
import {
  acceptAgentCardV03,
  acceptAgentCardV1,
  acceptSchemeByType,
  acceptSchemeVariants,
} from '../src/card/wire-accept.js';
import { wireSchemas } from '../src/card/wire.js';
import { acceptLockEntry, acceptLockfile, acceptSettings } from '../src/lock/schema-accept.js';
import { lockSchemas } from '../src/lock/schema.js';
import { acceptManifest, acceptProfile } from '../src/manifest/schema-accept.js';
import { manifestSchemas } from '../src/manifest/schema.js';
import { CORPUS_DIR, CORPUS_FILES } from './helpers/corpus.js';

type Schema = { safeParse(value: unknown): { success: boolean; data?: unknown } };

/** A value written out with its key order and its undefined members (JSON.stringify drops them). */
function exact(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `[${value.map(exact).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) === Object.prototype ? '' : '(prototype)';
    return `${proto}{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}:${exact((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Tallies of one root's comparisons. */
interface Tally {
  accepted: number;
  refused: number;
  deferred: number;
}

/**
 * Compare `accept` with `schema` on `value`. `mayDefer`: the accept path may leave a value the
 * schema accepts to the schema (undefined).
 */
function compare(
  name: string,
  accept: (v: unknown) => unknown,
  schema: Schema,
  value: unknown,
  tally: Tally,
  mayDefer = false,
) {
  const fast = accept(value);
  const parsed = schema.safeParse(value);
  const shown = () => `${name}: ${JSON.stringify(value)?.slice(0, 400)}`;
  if (!parsed.success) {
    expect(fast, `accepted what the schema refuses, ${shown()}`).toBeUndefined();
    tally.refused++;
    return;
  }
  if (fast === undefined) {
    expect(mayDefer, `refused what the schema accepts, ${shown()}`).toBe(true);
    tally.deferred++;
    return;
  }
  expect(exact(fast), shown()).toBe(exact(parsed.data));
  tally.accepted++;
}

/** Every path to a value inside `doc` (objects and arrays), the root included. */
function paths(doc: unknown, at: PropertyKey[] = [], out: PropertyKey[][] = []): PropertyKey[][] {
  out.push(at);
  if (Array.isArray(doc)) doc.forEach((v, i) => paths(v, [...at, i], out));
  else if (doc && typeof doc === 'object') for (const [k, v] of Object.entries(doc)) paths(v, [...at, k], out);
  return out;
}

const PALETTE: unknown[] = [
  null,
  0,
  1,
  -1,
  1.5,
  '',
  'x',
  'JSONRPC',
  'jsonrpc',
  'HTTP+JSON',
  'GRPC',
  '1.0',
  '1',
  '0.3',
  'text/plain',
  'application/json',
  '*/*',
  'application/*',
  'text',
  'https://a.example',
  'https://a.example/',
  'HTTPS://A.example',
  'http://a.example',
  'http://127.0.0.1:8080',
  '^1.2.3',
  '>=1 <2',
  'not a range ><',
  '__proto__',
  '../x',
  'card.json',
  'A_B',
  'a b',
  'sha256-YvwBLD+wymu7LnEPwFKqnH8oNAlrUZJt7vr5PQYnM7k=',
  'poll',
  'stream',
  'push',
  'verified',
  true,
  false,
  [],
  {},
  ['a', 'a'],
  ['text/plain'],
  ['JSONRPC', 'JSONRPC'],
  [1],
  { env: 'X' },
  { env: '1X' },
  { oauth: { clientId: { env: 'A' }, clientSecret: { env: 'B' } } },
  { oauth: { clientId: { env: 'A' }, clientSecret: { env: 'B' }, clientAuth: 'jwt' } },
  { bearer: { env: 'X' } },
  { header: { name: 'X-Key', env: 'K', prefix: 'Key ' } },
  { awsSigV4: { region: 'us-east-1', service: 'bedrock-agentcore' } },
  { schemes: { bearer: { list: ['read'] } } },
  { bearer: ['read'] },
  { list: null },
];

/** Edits of a string: one character more or fewer at either end, a case change, a space. */
const TWEAKS: Array<(s: string) => string> = [
  (s) => `${s}x`,
  (s) => s.slice(1),
  (s) => s.slice(0, -1),
  (s) => `=${s}`,
  (s) => s.toUpperCase(),
  (s) => `${s} `,
];

/** `count` documents made from `bases` by one to three random edits each (seeded), the bases first. */
function mutants(bases: unknown[], count: number, seed: number): unknown[] {
  const random = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const out: unknown[] = [...bases];
  while (out.length < count) {
    const doc = structuredClone(pick(bases)) as Record<string, unknown>;
    let edited: unknown = doc;
    for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
      const path = pick(paths(edited));
      const edit = random();
      if (path.length === 0) {
        if (edit < 0.5) edited = pick(PALETTE);
        continue;
      }
      const parent = path.slice(0, -1).reduce<any>((o, k) => o[k], edited);
      const key = path.at(-1)!;
      if (edit < 0.2 && typeof parent[key] === 'string') parent[key] = pick(TWEAKS)(parent[key]);
      else if (edit < 0.55) parent[key] = structuredClone(pick(PALETTE));
      else if (edit < 0.75 && !Array.isArray(parent)) delete parent[key];
      else if (edit < 0.85 && Array.isArray(parent)) parent.push(structuredClone(parent[key as number]));
      else if (edit < 0.9 && Array.isArray(parent)) parent.splice(key as number, 1);
      else if (!Array.isArray(parent) && parent)
        parent[pick(['zzz', 'constructor', 'toString', 'list', 'env'])] = structuredClone(pick(PALETTE));
    }
    // An own `__proto__` key, as JSON.parse makes one, in a third of the documents that are objects.
    const text = JSON.stringify(edited);
    out.push(
      random() < 0.33 && text?.startsWith('{"')
        ? JSON.parse(`{"__proto__":${pick(['1', '{}', 'null'])},${text.slice(1)}`)
        : edited,
    );
  }
  return out;
}

const EXAMPLE_LOCK = JSON.parse(readFileSync('a2a.lock.json.example', 'utf8')) as {
  agents: Record<string, Record<string, unknown>>;
  settings: Record<string, Record<string, unknown>>;
};
/** The example lockfile with one more agent using every optional member. */
function richLockfile() {
  const lock = structuredClone(EXAMPLE_LOCK);
  const [name, entry] = Object.entries(lock.agents)[0]!;
  const plan = Object.values(entry.plans as Record<string, Record<string, unknown>>)[0]!;
  lock.agents.rich = {
    ...structuredClone(entry),
    versionHeader: '0.3',
    signature: { status: 'verified', kid: 'k1', alg: 'ES256', thumbprint: 't', canonicalForm: 'a2a-python-1.1' },
    extended: {
      resolved: 'https://a.example/a2a',
      integrity: entry.integrity,
      snapshot: { name: 'x' },
      signature: { status: 'absent' },
    },
    plans: {
      skill: {
        ...plan,
        tenant: 't1',
        fallbacks: {
          interfaces: [{ url: 'https://b.example', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 'x' }],
          delivery: ['poll'],
        },
      },
    },
    originAuth: {
      'https://a.example': { bearer: { env: 'TOKEN' } },
      'https://b.example': { awsSigV4: { region: 'eu-west-1', service: 'x' } },
      'https://c.example': { header: { name: 'X-Key', env: 'KEY', prefix: 'Key ' } },
    },
  };
  lock.settings.rich = {
    ...structuredClone(lock.settings[name]!),
    versionRange: '^1',
    trustJwks: 'keys.json',
    requireSignature: true,
    allowHttp: true,
    cardPath: '',
    rebaseInterfaces: true,
  };
  return lock;
}

const RICH_MANIFEST = {
  $schema: './node_modules/a2a-lock/schemas/a2a.schema.json',
  profile: {
    bindings: ['JSONRPC', 'HTTP+JSON', 'urn:x-binding'],
    versions: ['1.0', '0.3'],
    accepts: ['application/json', 'text/plain; charset=utf-8'],
    sends: ['text/plain'],
    streaming: true,
    pushEndpoint: null,
    extensions: ['https://ext.example/v1'],
  },
  agents: {
    research: {
      card: 'https://research.example',
      skills: ['market-size', 'trends'],
      credentials: {
        bearer: { env: 'RESEARCH_TOKEN' },
        oauth: { oauth: { clientId: { env: 'ID' }, clientSecret: { env: 'SECRET' }, clientAuth: 'form' } },
      },
      version: '^2.4.0',
      profile: { bindings: ['GRPC'], accepts: ['application/json'], streaming: false, pushEndpoint: null },
      trust: { jwks: 'keys/jwks.json' },
      requireSignature: true,
      allowHttp: false,
      cardPath: 'v1/card',
      rebaseInterfaces: true,
    },
    'local.agent-2': { card: 'cards/local.json' },
  },
  originAuth: {
    'https://research.example': { header: { name: 'X-Api-Key', env: 'KEY', prefix: 'Key ' } },
    'http://127.0.0.1:9000': { bearer: { env: 'LOCAL' } },
    'https://bedrock-agentcore.us-east-1.amazonaws.com': {
      awsSigV4: { region: 'us-east-1', service: 'bedrock-agentcore' },
    },
  },
};
const MINIMAL_MANIFEST = { profile: { bindings: ['JSONRPC'], versions: ['1.0'], accepts: ['application/json'] } };

const newTally = (): Tally => ({ accepted: 0, refused: 0, deferred: 0 });

/** Every key of every object schema below `schema` (through wrappers, arrays, records and unions). */
function schemaKeys(schema: unknown, out = new Set<string>(), seen = new Set<unknown>()): Set<string> {
  if (seen.has(schema)) return out;
  seen.add(schema);
  const def = (schema as { _zod: { def: Record<string, any> } })._zod.def;
  for (const [key, child] of Object.entries((def.shape ?? {}) as Record<string, unknown>)) {
    out.add(key);
    schemaKeys(child, out, seen);
  }
  for (const child of [def.innerType, def.element, def.keyType, def.valueType, ...(def.options ?? [])])
    if (child) schemaKeys(child, out, seen);
  return out;
}

/** Every key of every object in `doc`. */
function documentKeys(doc: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(doc)) for (const v of doc) documentKeys(v, out);
  else if (doc && typeof doc === 'object')
    for (const [k, v] of Object.entries(doc)) {
      out.add(k);
      documentKeys(v, out);
    }
  return out;
}

/** The schema's keys no sample document has: a field the mutants would never try. */
function untried(schema: unknown, samples: unknown[]): string[] {
  const present = documentKeys(samples);
  return [...schemaKeys(schema)].filter((k) => !present.has(k));
}

describe('generated accept paths against their zod schemas', () => {
  it('the manifest and --profile: the same parse on 8,000 documents (push endpoint URLs left to the schema)', () => {
    const { ManifestSchema, ProfileSchema } = manifestSchemas();
    // A new field goes into the samples (RICH_MANIFEST), or the mutants never try it.
    expect(untried(ManifestSchema, [RICH_MANIFEST])).toEqual([]);
    const manifests = newTally();
    const profiles = newTally();
    for (const doc of mutants([RICH_MANIFEST, MINIMAL_MANIFEST], 8000, 20261202)) {
      const url = /"pushEndpoint":"/.test(JSON.stringify(doc) ?? '');
      compare('manifest', acceptManifest, ManifestSchema, doc, manifests, url);
      const profile = (doc as { profile?: unknown } | null)?.profile;
      compare(
        'profile',
        acceptProfile,
        ProfileSchema,
        profile,
        profiles,
        /"pushEndpoint":"/.test(JSON.stringify(profile) ?? ''),
      );
    }
    expect(manifests.accepted).toBeGreaterThan(300);
    expect(profiles.accepted).toBeGreaterThan(1000);
    expect(Math.min(manifests.refused, profiles.refused)).toBeGreaterThan(1000);
    // A push endpoint is the one value deferred: with it, the schema parses (and trims) the URL.
    expect(acceptProfile({ ...MINIMAL_MANIFEST.profile, pushEndpoint: 'https://client.example/push' })).toBeUndefined();
  });

  it('the lockfile, an entry and its settings: the same parse on 3,000 documents', () => {
    const { LockfileSchema, LockEntrySchema, SettingsSchema } = lockSchemas();
    // A new field goes into the samples (richLockfile), or the mutants never try it.
    expect(untried(LockfileSchema, [richLockfile()])).toEqual([]);
    const files = newTally();
    const entries = newTally();
    const settings = newTally();
    for (const doc of mutants([EXAMPLE_LOCK, richLockfile()], 3000, 7)) {
      compare('lockfile', acceptLockfile, LockfileSchema, doc, files);
      const lock = doc as { agents?: unknown; settings?: unknown } | null;
      for (const entry of Object.values((lock?.agents ?? {}) as object))
        compare('entry', acceptLockEntry, LockEntrySchema, entry, entries);
      for (const s of Object.values((lock?.settings ?? {}) as object))
        compare('settings', acceptSettings, SettingsSchema, s, settings);
    }
    for (const tally of [files, entries, settings]) {
      expect(tally.accepted).toBeGreaterThan(200);
      expect(tally.refused).toBeGreaterThan(100);
      expect(tally.deferred).toBe(0);
    }
  });

  it('cards (1.0, 0.3) and their security schemes: the same parse on the corpus and 3,000 fuzzed cards', () => {
    const { AgentCardV1Schema, AgentCardV03Schema, SchemeVariants, SchemeByType } = wireSchemas();
    const corpus = CORPUS_FILES.map((f) => JSON.parse(readFileSync(`${CORPUS_DIR}${f}`, 'utf8')) as unknown);
    const fuzzed: unknown[] = [];
    for (const text of fuzzCases(corpus, 3000, 20261202)) {
      try {
        fuzzed.push(JSON.parse(text));
      } catch {
        // not JSON: the card reader refuses it before any schema
      }
    }
    const cards = newTally();
    const schemes = newTally();
    for (const card of [...corpus, ...fuzzed]) {
      compare('card 1.0', acceptAgentCardV1, AgentCardV1Schema, card, cards);
      compare('card 0.3', acceptAgentCardV03, AgentCardV03Schema, card, cards);
      const declared = (card as { securitySchemes?: unknown } | null)?.securitySchemes;
      for (const scheme of Object.values(declared && typeof declared === 'object' ? declared : {})) {
        for (const [key, schema] of Object.entries(SchemeVariants))
          if (scheme && typeof scheme === 'object' && key in scheme)
            compare(
              key,
              acceptSchemeVariants[key as keyof typeof acceptSchemeVariants],
              schema,
              (scheme as Record<string, unknown>)[key],
              schemes,
            );
        for (const [type, schema] of Object.entries(SchemeByType))
          compare(type, acceptSchemeByType[type as keyof typeof acceptSchemeByType], schema, scheme, schemes);
      }
    }
    expect(cards.accepted).toBeGreaterThan(300);
    expect(cards.refused).toBeGreaterThan(1000);
    expect(schemes.accepted).toBeGreaterThan(1000);
    expect(cards.deferred + schemes.deferred).toBe(0);
  });

  it('the generator stops on what the accept functions do not mirror, rather than accept more than zod', () => {
    const generate = (schema: unknown) =>
      generateAccept({ source: 'a test', roots: { X: schema }, root: process.cwd(), file: 'src/x-accept.ts' });
    expect(generate(z.strictObject({ a: z.optional(z.string()) }))).toContain('export const acceptX = root(');
    // z.xor refuses {} (both options accept it); a first-option-wins union would accept it.
    const both = [z.strictObject({ a: z.optional(z.string()) }), z.strictObject({ b: z.optional(z.string()) })];
    expect(() => generate(z.xor(both))).toThrow(/exclusive or discriminated union/);
    const kinds = [z.strictObject({ k: z.literal('a') }), z.strictObject({ k: z.literal('b') })] as const;
    expect(() => generate(z.discriminatedUnion('k', kinds))).toThrow(/exclusive or discriminated union/);
    // JSON.stringify writes Infinity as null, and an own __proto__ key as the prototype in a literal.
    expect(() => generate(z.literal(Number.POSITIVE_INFINITY))).toThrow(/a literal Infinity/);
    expect(() => generate(z._default(z.number(), Number.POSITIVE_INFINITY))).toThrow(/not JSON/);
    expect(() => generate(z._default(z.unknown(), JSON.parse('{"__proto__": 1}')))).toThrow(/not JSON/);
    expect(() => generate(z.string().check(z.refine((v) => v !== 'x')))).toThrow(/not a named export/);
    expect(() => generate(z.string().check(z.maxLength(3)))).toThrow(/max_length/);
    expect(() => generate(z.lazy(() => z.string()))).toThrow(/unknown schema type lazy/);
  });

  it('the generated files are the ones npm run schemas writes (the drift check covers them)', () => {
    // scripts/schemas.js --check (test/schemas.test.ts) compares these three files too.
    const check = readFileSync('scripts/schemas.js', 'utf8');
    for (const file of ['src/manifest/schema-accept.ts', 'src/lock/schema-accept.ts', 'src/card/wire-accept.ts'])
      expect(check).toContain(`'${file}'`);
  });
});
