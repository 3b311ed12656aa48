/**
 * Property tests of negotiate() (fast-check): small random cards and profiles drawn from tiny
 * alphabets (so choices collide), checked against the design's invariants and against a
 * brute-force oracle: every (interface, security requirement) pair the card offers is a candidate,
 * a candidate is viable when it passes all five steps, and the preferred viable one is picked by
 * sorting, not by the step-by-step search negotiate() runs. The oracle shares no code with it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentInterface, NormalizedCard, SecurityRequirement } from '../../src/card/model.js';
import { negotiate } from '../../src/negotiate/negotiate.js';
import type { ClientProfile, Plan, RefusalCode } from '../../src/negotiate/types.js';

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
const VERSIONS = ['1.0', '0.3'];
const URLS = ['https://a.example/rpc', 'https://a.example/rest', 'https://b.example/'];
const MEDIA = [
  'text/plain',
  'application/json',
  'Text/Plain',
  'image/png',
  'text/plain; charset=utf-8',
  'TEXT/PLAIN; charset=utf-8',
];
const SCHEMES = ['bearer', 'apiKey', 'oauth'];
const SCOPES = ['read', 'write'];
const EXTENSIONS = ['urn:ext:a', 'urn:ext:b', 'urn:ext:c'];
const SKILLS = ['s1', 's2'];

/** An ordered list of distinct picks from `pool`. */
const ordered = (pool: string[], minLength = 0) =>
  fc.uniqueArray(fc.constantFrom(...pool), { minLength, maxLength: pool.length });
const modes = fc.array(fc.constantFrom(...MEDIA), { maxLength: 3 });
const requirement: fc.Arbitrary<SecurityRequirement> = fc.dictionary(
  fc.constantFrom(...SCHEMES),
  fc.uniqueArray(fc.constantFrom(...SCOPES), { maxLength: 2 }),
  { maxKeys: 2 },
);
const requirements = fc.array(requirement, { maxLength: 3 });

const iface: fc.Arbitrary<AgentInterface> = fc.record(
  {
    url: fc.constantFrom(...URLS),
    protocolBinding: fc.constantFrom(...BINDINGS),
    protocolVersion: fc.constantFrom(...VERSIONS),
    tenant: fc.constantFrom('t1', 't2'),
  },
  { requiredKeys: ['url', 'protocolBinding', 'protocolVersion'] },
);

const card: fc.Arbitrary<NormalizedCard> = fc.record({
  name: fc.constant('agent'),
  description: fc.constant('d'),
  version: fc.constant('1.0.0'),
  shape: fc.constant('1.0' as const),
  supportedInterfaces: fc.array(iface, { maxLength: 4 }),
  capabilities: fc.record({
    streaming: fc.boolean(),
    pushNotifications: fc.boolean(),
    extendedAgentCard: fc.constant(false),
    extensions: fc.array(fc.record({ uri: fc.constantFrom(...EXTENSIONS), required: fc.boolean() }), { maxLength: 3 }),
  }),
  securitySchemes: fc.constant({}),
  securityRequirements: requirements,
  defaultInputModes: modes,
  defaultOutputModes: modes,
  skills: fc.array(
    fc.record(
      {
        id: fc.constantFrom(...SKILLS),
        name: fc.constant('n'),
        description: fc.constant('d'),
        tags: fc.constant([]),
        inputModes: modes,
        outputModes: modes,
        securityRequirements: requirements,
      },
      { requiredKeys: ['id', 'name', 'description', 'tags'] },
    ),
    { maxLength: 2 },
  ),
});

const profile: fc.Arbitrary<ClientProfile> = fc.record({
  bindings: ordered(BINDINGS, 1),
  versions: ordered(VERSIONS, 1),
  accepts: ordered(MEDIA, 1),
  sends: ordered(MEDIA),
  streaming: fc.boolean(),
  pushEndpoint: fc.constantFrom(null, 'https://client.example/hook'),
  extensions: ordered(EXTENSIONS),
});

const input = fc.record({ card, skillId: fc.constantFrom(...SKILLS), profile, credentials: ordered(SCHEMES) });

// ------------------------------------------------------------------------------------------------
// The oracle: the five steps as predicates over every candidate, then a sort for preference.

/** RFC 9110 media type equality as a2a-lock defines it: essence case-insensitive, parameters exact. */
function sameType(a: string, b: string): boolean {
  const parse = (t: string) => {
    const i = t.indexOf(';');
    return i < 0 ? [t.trim().toLowerCase(), ''] : [t.slice(0, i).trim().toLowerCase(), t.slice(i + 1).trim()];
  };
  const [ea, pa] = parse(a);
  const [eb, pb] = parse(b);
  return ea === eb && pa === pb;
}

type OracleResult = { plan: Plan } | { refusal: RefusalCode };

function oracle(c: NormalizedCard, skillId: string, p: ClientProfile, credentials: string[]): OracleResult {
  const skill = c.skills.find((s) => s.id === skillId);
  if (!skill) return { refusal: 'skill-not-found' };
  const nonEmpty = <T>(own: T[] | undefined, fallback: T[]) => (own && own.length > 0 ? own : fallback);
  const requirementsOffered = nonEmpty(skill.securityRequirements, c.securityRequirements);
  const inputs = nonEmpty(skill.inputModes, c.defaultInputModes);
  const outputs = nonEmpty(skill.outputModes, c.defaultOutputModes);

  // All candidates: interface × requirement (a card without requirements offers "none needed").
  const offered = requirementsOffered.length > 0 ? requirementsOffered : [{}];
  const candidates = c.supportedInterfaces.flatMap((i, ii) => offered.map((r, ri) => ({ i, ii, r, ri })));
  const step1 = (x: (typeof candidates)[number]) =>
    p.bindings.includes(x.i.protocolBinding) && p.versions.includes(x.i.protocolVersion);
  const step2 = (x: (typeof candidates)[number]) => Object.keys(x.r).every((s) => credentials.includes(s));
  const step3 =
    p.sends.every((t) => inputs.some((m) => sameType(m, t))) &&
    p.accepts.some((a) => outputs.some((o) => sameType(o, a)));
  const step5 = c.capabilities.extensions.every((e) => !e.required || p.extensions.includes(e.uri));
  const viable = candidates.filter((x) => step1(x) && step2(x) && step3 && step5);
  if (viable.length === 0) {
    // The refusal names the first step no candidate gets past.
    if (!candidates.some(step1)) return { refusal: 'no-common-interface' };
    if (!candidates.some((x) => step1(x) && step2(x))) return { refusal: 'missing-credential' };
    if (!p.sends.every((t) => inputs.some((m) => sameType(m, t)))) return { refusal: 'input-mode-not-accepted' };
    if (!step3) return { refusal: 'no-common-output-mode' };
    return { refusal: 'required-extension-unsupported' };
  }
  // Preference: version (profile order), then binding (profile order), then card order; then the
  // first requirement in card order.
  const rank = (x: (typeof viable)[number]) => [
    p.versions.indexOf(x.i.protocolVersion),
    p.bindings.indexOf(x.i.protocolBinding),
    x.ii,
    x.ri,
  ];
  const best = [...viable].sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    for (let k = 0; k < ra.length; k++) if (ra[k] !== rb[k]) return ra[k]! - rb[k]!;
    return 0;
  })[0]!;
  const accepted: string[] = [];
  for (const a of p.accepts) {
    const o = outputs.find((m) => sameType(m, a));
    if (o !== undefined && !accepted.includes(o)) accepted.push(o);
  }
  // Fallbacks: the other interfaces step 1 accepts, in the same preference order, each once;
  // poll when delivery is stream or push.
  const key = (i: AgentInterface) => JSON.stringify([i.url, i.protocolBinding, i.protocolVersion, i.tenant ?? '']);
  const alternatives = c.supportedInterfaces
    .map((i, ii) => ({ i, ii }))
    .filter(
      ({ i }) =>
        p.bindings.includes(i.protocolBinding) && p.versions.includes(i.protocolVersion) && key(i) !== key(best.i),
    )
    .sort(
      (a, b) =>
        p.versions.indexOf(a.i.protocolVersion) - p.versions.indexOf(b.i.protocolVersion) ||
        p.bindings.indexOf(a.i.protocolBinding) - p.bindings.indexOf(b.i.protocolBinding) ||
        a.ii - b.ii,
    )
    .filter(({ i }, n, all) => all.findIndex((x) => key(x.i) === key(i)) === n)
    .map(({ i }) => ({
      url: i.url,
      protocolBinding: i.protocolBinding,
      protocolVersion: i.protocolVersion,
      ...(i.tenant ? { tenant: i.tenant } : {}),
    }));
  const delivery =
    c.capabilities.streaming && p.streaming
      ? 'stream'
      : c.capabilities.pushNotifications && p.pushEndpoint
        ? 'push'
        : 'poll';
  const active: string[] = [];
  for (const e of c.capabilities.extensions)
    if (p.extensions.includes(e.uri) && !active.includes(e.uri)) active.push(e.uri);
  return {
    plan: {
      url: best.i.url,
      protocolBinding: best.i.protocolBinding,
      protocolVersion: best.i.protocolVersion,
      ...(best.i.tenant ? { tenant: best.i.tenant } : {}),
      security: best.r,
      acceptedOutputModes: accepted,
      delivery,
      extensions: active,
      ...(alternatives.length > 0 || delivery !== 'poll'
        ? { fallbacks: { interfaces: alternatives, delivery: delivery === 'poll' ? [] : ['poll' as const] } }
        : {}),
    },
  };
}

// ------------------------------------------------------------------------------------------------

const RUNS = { numRuns: 2000 };

describe('negotiate() properties', () => {
  it('is deterministic and does not mutate its inputs', () => {
    fc.assert(
      fc.property(input, ({ card: c, skillId, profile: p, credentials }) => {
        const before = JSON.stringify([c, p, credentials]);
        const first = negotiate(c, skillId, p, credentials);
        const again = negotiate(structuredClone(c), skillId, structuredClone(p), [...credentials]);
        expect(again).toEqual(first);
        expect(JSON.stringify([c, p, credentials])).toBe(before);
      }),
      RUNS,
    );
  });

  it('a plan takes binding, version, URL and tenant from one card interface the profile implements', () => {
    fc.assert(
      fc.property(input, ({ card: c, skillId, profile: p, credentials }) => {
        const { plan } = negotiate(c, skillId, p, credentials);
        if (!plan) return;
        const source = c.supportedInterfaces.filter(
          (i) =>
            i.url === plan.url &&
            i.protocolBinding === plan.protocolBinding &&
            i.protocolVersion === plan.protocolVersion &&
            i.tenant === plan.tenant,
        );
        expect(source.length).toBeGreaterThan(0);
        expect(p.bindings).toContain(plan.protocolBinding);
        expect(p.versions).toContain(plan.protocolVersion);
      }),
      RUNS,
    );
  });

  it('acceptedOutputModes ⊆ profile accepts ∩ skill outputs, in profile order; every required extension is active', () => {
    fc.assert(
      fc.property(input, ({ card: c, skillId, profile: p, credentials }) => {
        const { plan } = negotiate(c, skillId, p, credentials);
        if (!plan) return;
        const skill = c.skills.find((s) => s.id === skillId)!;
        const outputs = skill.outputModes?.length ? skill.outputModes : c.defaultOutputModes;
        expect(plan.acceptedOutputModes.length).toBeGreaterThan(0);
        const positions = plan.acceptedOutputModes.map((m) => {
          expect(outputs).toContain(m);
          const at = p.accepts.findIndex((a) => sameType(a, m));
          expect(at).toBeGreaterThanOrEqual(0);
          return at;
        });
        expect(positions).toEqual([...positions].sort((a, b) => a - b));
        for (const e of c.capabilities.extensions) if (e.required) expect(plan.extensions).toContain(e.uri);
        for (const scheme of Object.keys(plan.security)) expect(credentials).toContain(scheme);
      }),
      RUNS,
    );
  });

  it('refuses iff no candidate passes all five steps, with the code of the first step none passes; else plans what the oracle prefers', () => {
    fc.assert(
      fc.property(input, ({ card: c, skillId, profile: p, credentials }) => {
        const result = negotiate(c, skillId, p, credentials);
        const expected = oracle(c, skillId, p, credentials);
        if ('refusal' in expected) expect(result.refusal?.code).toBe(expected.refusal);
        else expect(result.plan).toEqual(expected.plan);
      }),
      RUNS,
    );
  });

  it('the generators reach both outcomes and every refusal code', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(input, ({ card: c, skillId, profile: p, credentials }) => {
        const r = negotiate(c, skillId, p, credentials);
        seen.add(r.plan ? 'plan' : r.refusal.code);
      }),
      RUNS,
    );
    expect([...seen].sort()).toEqual(
      [
        'plan',
        'skill-not-found',
        'no-common-interface',
        'missing-credential',
        'input-mode-not-accepted',
        'no-common-output-mode',
        'required-extension-unsupported',
      ].sort(),
    );
  });
});
