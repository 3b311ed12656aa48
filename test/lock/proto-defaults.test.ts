/**
 * Card comparisons without proto3 defaults (issue 36, "A review shows only what changed"): a field
 * at its proto3 default (`""`, `[]`, `{}`, `false`, `0`) is absent to every comparison, so an SDK
 * that starts or stops writing ProtoJSON defaults changes nothing; every field a plan depends on
 * still changes structurally. Property tests over the card corpus (fast-check).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import { cardChanges, changeKind, diffCards } from '../../src/lock/changes.js';
import { withoutDefaults } from '../../src/lock/proto-defaults.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'cards');
/** Every card of the test corpus: the real cards and the worked example. */
const CORPUS: Array<[string, Record<string, unknown>]> = [
  ...readdirSync(join(DIR, 'real'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => [f, JSON.parse(readFileSync(join(DIR, 'real', f), 'utf8'))] as [string, Record<string, unknown>]),
  ['worked-example.json', JSON.parse(readFileSync(join(DIR, 'worked-example.json'), 'utf8'))],
];

type Json = Record<string, unknown>;
const clone = <T>(v: T): T => structuredClone(v);
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const objects = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObj) : []);

/**
 * Where a ProtoJSON writer may put a default: each message of the card and the fields at their
 * default it may write or leave out there (A2A 1.0 AgentCard, AgentInterface, AgentCapabilities,
 * AgentExtension, AgentSkill, AgentProvider).
 */
function defaultSites(card: Json): Array<[Json, Record<string, unknown>]> {
  const sites: Array<[Json, Record<string, unknown>]> = [
    [
      card,
      {
        securitySchemes: {},
        securityRequirements: [],
        signatures: [],
        documentationUrl: '',
        iconUrl: '',
        defaultInputModes: [],
        defaultOutputModes: [],
      },
    ],
  ];
  for (const i of [...objects(card.supportedInterfaces), ...objects(card.additionalInterfaces)])
    sites.push([i, { tenant: '' }]);
  if (isObj(card.capabilities)) {
    sites.push([card.capabilities, { streaming: false, pushNotifications: false, extensions: [] }]);
    for (const e of objects(card.capabilities.extensions)) sites.push([e, { required: false, description: '' }]);
  }
  for (const s of objects(card.skills))
    sites.push([s, { examples: [], inputModes: [], outputModes: [], securityRequirements: [], tags: [] }]);
  if (isObj(card.provider)) sites.push([card.provider, { url: '' }]);
  return sites;
}

/** `card` written again by another writer: per site and field (picked by `flips`), a default written when absent, left out when present. */
function reserialise(card: Json, flips: boolean[]): Json {
  const out = clone(card);
  let n = 0;
  for (const [target, defaults] of defaultSites(out)) {
    for (const [key, value] of Object.entries(defaults)) {
      if (!flips[n++ % flips.length]) continue;
      if (!Object.hasOwn(target, key)) target[key] = clone(value);
      else if (JSON.stringify(target[key]) === JSON.stringify(value)) delete target[key];
    }
  }
  return out;
}

/** One change to a field a plan depends on; undefined when the card has no such field to change. */
type Mutation = (card: Json) => Json | undefined;
const first = (card: Json, key: string): Json | undefined => objects(card[key])[0];
const interfacesOf = (card: Json) => [...objects(card.supportedInterfaces), ...objects(card.additionalInterfaces)];
/** The card's capabilities object, made when absent. */
function capabilitiesOf(card: Json): Json {
  if (!isObj(card.capabilities)) card.capabilities = {};
  return card.capabilities as Json;
}
const MUTATIONS: Record<string, Mutation> = {
  'interface url': (c) => {
    const i = interfacesOf(c)[0];
    if (i) i.url = `${String(i.url)}/moved`;
    else if (typeof c.url === 'string') c.url = `${c.url}/moved`;
    else return undefined;
    return c;
  },
  'interface binding': (c) => {
    const i = interfacesOf(c)[0];
    if (!i) return undefined;
    if ('transport' in i) i.transport = i.transport === 'GRPC' ? 'JSONRPC' : 'GRPC';
    else i.protocolBinding = i.protocolBinding === 'GRPC' ? 'JSONRPC' : 'GRPC';
    return c;
  },
  'interface tenant': (c) => {
    const i = interfacesOf(c)[0];
    if (!i) return undefined;
    i.tenant = `${String(i.tenant ?? '')}t2`;
    return c;
  },
  'interface removed': (c) => {
    const list = objects(c.supportedInterfaces);
    if (list.length < 2) return undefined;
    c.supportedInterfaces = list.slice(1);
    return c;
  },
  'interface added': (c) => {
    c.supportedInterfaces = [
      ...objects(c.supportedInterfaces),
      { url: 'https://other.example/a2a', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ];
    return c;
  },
  'interface version': (c) => {
    const i = objects(c.supportedInterfaces)[0];
    if (!i) return undefined;
    i.protocolVersion = i.protocolVersion === '0.3' ? '1.0' : '0.3';
    return c;
  },
  'card protocol version': (c) => {
    c.protocolVersion = c.protocolVersion === '0.2.9' ? '0.3.0' : '0.2.9';
    return c;
  },
  'security scheme added': (c) => {
    c.securitySchemes = {
      ...(isObj(c.securitySchemes) ? c.securitySchemes : {}),
      zz: { type: 'http', scheme: 'basic' },
    };
    return c;
  },
  'security scheme changed': (c) => {
    const schemes = isObj(c.securitySchemes) ? c.securitySchemes : undefined;
    const name = schemes && Object.keys(schemes)[0];
    if (!schemes || name === undefined) return undefined;
    schemes[name] = { ...(schemes[name] as Json), description: 'changed' };
    return c;
  },
  'security scheme removed': (c) => {
    const schemes = isObj(c.securitySchemes) ? c.securitySchemes : undefined;
    const name = schemes && Object.keys(schemes)[0];
    if (!schemes || name === undefined) return undefined;
    delete schemes[name];
    return c;
  },
  'security requirement added': (c) => {
    const key = Array.isArray(c.security) ? 'security' : 'securityRequirements';
    c[key] = [...(Array.isArray(c[key]) ? (c[key] as unknown[]) : []), { zz: ['admin'] }];
    return c;
  },
  'security requirement scopes': (c) => {
    const key = Array.isArray(c.security) && c.security.length ? 'security' : 'securityRequirements';
    const r = objects(c[key])[0];
    if (!r) return undefined;
    if (isObj(r.schemes)) r.schemes = { ...r.schemes, zz: { list: ['admin'] } };
    else r.zz = ['admin'];
    return c;
  },
  'skill input modes': (c) => {
    const s = first(c, 'skills');
    if (!s) return undefined;
    s.inputModes = [...(Array.isArray(s.inputModes) ? s.inputModes : []), 'application/x-new'];
    return c;
  },
  'skill output modes': (c) => {
    const s = first(c, 'skills');
    if (!s) return undefined;
    s.outputModes = [...(Array.isArray(s.outputModes) ? s.outputModes : []), 'application/x-new'];
    return c;
  },
  'skill security': (c) => {
    const s = first(c, 'skills');
    if (!s) return undefined;
    s.securityRequirements = [
      ...(Array.isArray(s.securityRequirements) ? s.securityRequirements : []),
      { schemes: { zz: { list: [] } } },
    ];
    return c;
  },
  'skill removed': (c) => {
    const list = objects(c.skills);
    if (!list.length) return undefined;
    c.skills = list.slice(1);
    return c;
  },
  'skill id': (c) => {
    const s = first(c, 'skills');
    if (!s) return undefined;
    s.id = `${String(s.id ?? '')}-2`;
    return c;
  },
  'default modes': (c) => {
    c.defaultOutputModes = [...(Array.isArray(c.defaultOutputModes) ? c.defaultOutputModes : []), 'application/x-new'];
    return c;
  },
  streaming: (c) => {
    const caps = capabilitiesOf(c);
    caps.streaming = !caps.streaming;
    return c;
  },
  'push notifications': (c) => {
    const caps = capabilitiesOf(c);
    caps.pushNotifications = !caps.pushNotifications;
    return c;
  },
  'extended card': (c) => {
    const caps = capabilitiesOf(c);
    caps.extendedAgentCard = !caps.extendedAgentCard;
    return c;
  },
  'extension added': (c) => {
    const caps = capabilitiesOf(c);
    caps.extensions = [...objects(caps.extensions), { uri: 'urn:test:new-extension' }];
    return c;
  },
  'extension required': (c) => {
    const e = isObj(c.capabilities) ? objects(c.capabilities.extensions)[0] : undefined;
    if (!e) return undefined;
    e.required = !e.required;
    return c;
  },
  'signature added': (c) => {
    c.signatures = [...objects(c.signatures), { protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln' }];
    return c;
  },
  'signature changed': (c) => {
    const s = first(c, 'signatures');
    if (!s) return undefined;
    s.signature = `${String(s.signature ?? '')}x`;
    return c;
  },
};

describe('card comparisons without proto3 defaults', () => {
  it('an SDK writing tenant "", extensions [], examples [], securitySchemes {} changes nothing; interfaces match without them', () => {
    const card = {
      name: 'A',
      description: 'd',
      version: '1',
      supportedInterfaces: [
        { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://a.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true },
      skills: [{ id: 's', name: 's', description: 'd', tags: ['t'] }],
    };
    const written = clone(card) as Json & typeof card;
    for (const i of written.supportedInterfaces) Object.assign(i, { tenant: '' });
    Object.assign(written.capabilities, { extensions: [], pushNotifications: false });
    Object.assign(written.skills[0]!, { examples: [], securityRequirements: [] });
    Object.assign(written, { securitySchemes: {}, securityRequirements: [], signatures: [] });
    expect(diffCards(card, written)).toEqual([]);
    expect(diffCards(written, card)).toEqual([]);
    expect(cardChanges({ resolved: 'u', snapshot: card }, { resolved: 'u', snapshot: written })).toEqual([]);
    // With a real change beside them, only that change: no interface removed and re-added.
    (written.supportedInterfaces[0] as Json).url = 'https://a.example/rpc2';
    expect(diffCards(card, written)).toEqual([
      {
        path: '$.supportedInterfaces["JSONRPC 1.0 https://a.example/rpc"]',
        kind: 'removed',
        old: card.supportedInterfaces[0],
        structural: true,
      },
      {
        path: '$.supportedInterfaces["JSONRPC 1.0 https://a.example/rpc2"]',
        kind: 'added',
        new: { url: 'https://a.example/rpc2', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        structural: true,
      },
    ]);
  });

  it('map entries and Struct values keep their defaults: a requirement naming a scheme with no scopes is not "no requirement"', () => {
    const base = { name: 'A', securitySchemes: { oauth: { description: '' } } };
    const required = { ...base, securityRequirements: [{ schemes: { oauth: {} } }] };
    expect(withoutDefaults(required)).toEqual({
      name: 'A',
      securitySchemes: { oauth: {} },
      securityRequirements: [{ schemes: { oauth: {} } }],
    });
    expect(diffCards(required, { ...base, securityRequirements: [{ schemes: { oauth: { list: [] } } }] })).toEqual([]);
    expect(changeKind(diffCards(required, { ...base, securityRequirements: [{ schemes: {} }] }))).toBe('structural');
    expect(changeKind(diffCards({ ...base, security: [{ oauth: [] }] }, { ...base, security: [{}] }))).toBe(
      'structural',
    );
    const params = { capabilities: { extensions: [{ uri: 'u', params: { strict: false, n: 0 } }] } };
    expect(withoutDefaults(params)).toEqual(params);
    expect(diffCards(params, { capabilities: { extensions: [{ uri: 'u', params: {} }] } })).not.toEqual([]);
  });

  it('the snapshot stays as fetched: the comparison view does not touch the card or its integrity', () => {
    const card = CORPUS.find(([f]) => f.includes('empty-defaults'))![1];
    const before = integrityOf(card);
    const view = withoutDefaults(card);
    expect(view).not.toEqual(card);
    expect(integrityOf(card)).toBe(before);
  });

  it('property: a defaults-only re-serialisation of every card in the corpus is no change', () => {
    expect(CORPUS.length).toBeGreaterThan(40);
    fc.assert(
      fc.property(
        fc.constantFrom(...CORPUS),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
        ([name, card], a, b) => {
          const one = reserialise(card, a);
          const two = reserialise(card, b);
          expect(diffCards(card, one), name).toEqual([]);
          expect(diffCards(one, two), name).toEqual([]);
        },
      ),
      { numRuns: 400 },
    );
    // Every card, every default flipped at once, both ways.
    for (const [name, card] of CORPUS) {
      const all = reserialise(card, [true]);
      expect(diffCards(card, all), name).toEqual([]);
      expect(diffCards(all, card), name).toEqual([]);
    }
  });

  it('property: comparing only the top-level fields that differ as written finds what comparing the whole views finds', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CORPUS),
        fc.constantFrom(...Object.keys(MUTATIONS)),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
        ([name, card], mutation, a, b) => {
          const one = reserialise(card, a);
          const two = MUTATIONS[mutation]!(reserialise(card, b)) ?? reserialise(card, b);
          two.description = `${String(two.description ?? '')} (revised)`;
          const whole = diffCards(withoutDefaults(one), withoutDefaults(two));
          expect(diffCards(one, two), `${name}: ${mutation}`).toEqual(whole);
          expect(whole.length, `${name}: ${mutation}`).toBeGreaterThan(0);
        },
      ),
      { numRuns: 400 },
    );
    // A top-level key named __proto__ is a field like any other.
    const withProto = JSON.parse('{"name": "A", "__proto__": {"x": 1}}');
    expect(diffCards(withProto, JSON.parse('{"name": "A", "__proto__": {"x": 2}}'))).toEqual([
      { path: '$.__proto__.x', kind: 'changed', old: 1, new: 2, structural: false },
    ]);
  });

  it('property: each change to a field a plan depends on is a structural change, with or without defaults written', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CORPUS),
        fc.constantFrom(...Object.keys(MUTATIONS)),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
        ([name, card], mutation, flips) => {
          const written = reserialise(card, flips);
          const mutated = MUTATIONS[mutation]!(clone(written));
          fc.pre(mutated !== undefined);
          expect(changeKind(diffCards(card, mutated!)), `${name}: ${mutation}`).toBe('structural');
          expect(changeKind(diffCards(written, mutated!)), `${name}: ${mutation}`).toBe('structural');
        },
      ),
      { numRuns: 600 },
    );
    // And each mutation on each card it applies to.
    for (const [name, card] of CORPUS)
      for (const [mutation, apply] of Object.entries(MUTATIONS)) {
        const mutated = apply(clone(card));
        if (mutated) expect(changeKind(diffCards(card, mutated)), `${name}: ${mutation}`).toBe('structural');
      }
  });
});
