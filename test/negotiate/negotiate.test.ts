/**
 * negotiate(): the five steps of the design document (interface, security, media types, delivery,
 * extensions), the refusal codes, the `locked` narrowing ("beyond the lockfile") and diffPlans.
 * Contract: issue 2 ("Card model and negotiation"); where it differs from the design document it wins.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NormalizedCard } from '../../src/card/model.js';
import { normalizeCard } from '../../src/card/normalize.js';
import { diffPlans, type NegotiateOptions, negotiate } from '../../src/negotiate/negotiate.js';
import {
  type ClientProfile,
  type NegotiationResult,
  type Plan,
  type Refusal,
  RefusalCode,
} from '../../src/negotiate/types.js';
import { workedExample } from '../helpers/worked-example.js';

const CITATIONS = 'https://example.com/ext/citations/v1';
const JSONRPC_10 = 'https://research.example.com/a2a/v1';
const GRPC_10 = 'https://research.example.com/a2a/grpc';
const LEGACY_03 = 'https://research.example.com/a2a/legacy';

type Json = Record<string, any>;

/** The design document's worked example card, as served (raw JSON). A fresh copy each call. */
const workedExampleRaw = (): Json => workedExample();

/** Normalise a raw card (the way every card reaches negotiate()). */
function card(raw: Json): NormalizedCard {
  return normalizeCard(raw, { source: 'test-card.json' }).card;
}

/** The worked example's orchestrator profile. */
function orchestrator(overrides: Partial<ClientProfile> = {}): ClientProfile {
  const profile = JSON.parse(
    readFileSync(new URL('../fixtures/orchestrator-profile.json', import.meta.url), 'utf8'),
  ) as ClientProfile;
  return { ...profile, ...overrides };
}

/** A minimal valid 1.0 card; `patch` edits the raw JSON before normalising. */
function minimalRaw(
  patch: (c: Json) => void = () => {
    /* unchanged */
  },
): Json {
  const raw: Json = {
    name: 'Test Agent',
    description: 'test',
    version: '1.2.3',
    supportedInterfaces: [{ url: 'https://a.example.com/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [{ id: 's', name: 'S', description: 'skill', tags: [] }],
  };
  patch(raw);
  return raw;
}

const SIMPLE: ClientProfile = {
  bindings: ['JSONRPC'],
  versions: ['1.0'],
  accepts: ['application/json'],
  sends: ['text/plain'],
  streaming: false,
  pushEndpoint: null,
  extensions: [],
};

function planOf(result: NegotiationResult): Plan {
  if (!result.plan) throw new Error(`expected a plan, got refusal ${result.refusal.code}: ${result.refusal.message}`);
  return result.plan;
}

function refusalOf(result: NegotiationResult): Refusal {
  if (!result.refusal) throw new Error(`expected a refusal, got plan ${JSON.stringify(result.plan)}`);
  return result.refusal;
}

function run(
  raw: Json,
  profile: ClientProfile = SIMPLE,
  credentials: string[] = [],
  skill = 's',
  options: NegotiateOptions = {},
): NegotiationResult {
  return negotiate(card(raw), skill, profile, credentials, options);
}

/** Add a bearer scheme and a card-level requirement for it (the worked example declares none). */
function withBearer(raw: Json): Json {
  raw.securitySchemes = { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } };
  raw.securityRequirements = [{ schemes: { bearer: { list: [] } } }];
  return raw;
}

describe('design document worked example', () => {
  it('plans GRPC 1.0 at the grpc URL, accepts application/json, streams, activates citations', () => {
    const result = negotiate(card(workedExampleRaw()), 'market-size', orchestrator(), ['bearer']);
    expect(result.plan).toEqual({
      url: GRPC_10,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
      security: {},
      acceptedOutputModes: ['application/json'],
      delivery: 'stream',
      extensions: [CITATIONS],
      fallbacks: {
        interfaces: [
          { url: JSONRPC_10, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: LEGACY_03, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        ],
        delivery: ['poll'],
      },
    });
    expect(result.trace.map((t) => t.step)).toEqual([
      'skill',
      'interface',
      'security',
      'media',
      'delivery',
      'extensions',
    ]);
    expect(result.trace.every((t) => t.ok)).toBe(true);
  });

  it('step 2 picks bearer once the card declares a bearer scheme and requirement', () => {
    const result = negotiate(card(withBearer(workedExampleRaw())), 'market-size', orchestrator(), ['bearer']);
    expect(planOf(result).security).toEqual({ bearer: [] });
    expect(planOf(result).protocolBinding).toBe('GRPC');
  });

  it('the bearer variant without the bearer credential is refused missing-credential', () => {
    const refusal = refusalOf(negotiate(card(withBearer(workedExampleRaw())), 'market-size', orchestrator(), []));
    expect(refusal.code).toBe('missing-credential');
  });

  it('variant: gRPC disabled → JSONRPC 1.0 at /a2a/v1, nothing else changes', () => {
    const withGrpc = planOf(negotiate(card(workedExampleRaw()), 'market-size', orchestrator(), ['bearer']));
    const plan = planOf(
      negotiate(card(workedExampleRaw()), 'market-size', orchestrator({ bindings: ['JSONRPC'] }), ['bearer']),
    );
    const fallbacks = {
      interfaces: [{ url: LEGACY_03, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
      delivery: ['poll'],
    };
    expect(plan).toEqual({
      ...withGrpc,
      url: JSONRPC_10,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      fallbacks,
    });
    expect(diffPlans(withGrpc, plan).map((d) => d.field)).toEqual(['url', 'protocolBinding', 'fallbacks']);
  });

  it('variant: application/json removed from the skill → no-common-output-mode', () => {
    const raw = workedExampleRaw();
    raw.skills[0].outputModes = ['application/pdf'];
    const result = negotiate(card(raw), 'market-size', orchestrator(), ['bearer']);
    const refusal = refusalOf(result);
    expect(refusal.code).toBe('no-common-output-mode');
    expect(refusal.message).toContain('application/pdf');
    expect(refusal.message).toContain('application/json');
    expect(refusal.message).toContain('text/plain');
    expect(result.trace.at(-1)).toMatchObject({ step: 'media', ok: false });
  });
});

describe('refusal codes', () => {
  it('covers exactly the eight stable codes', () => {
    expect(Object.values(RefusalCode).sort()).toEqual([
      'input-mode-not-accepted',
      'missing-credential',
      'no-common-interface',
      'no-common-output-mode',
      'plain-http',
      'required-extension-unsupported',
      'skill-not-found',
      'version-out-of-range',
    ]);
  });

  it('skill-not-found names the skill asked for and the skills offered', () => {
    const refusal = refusalOf(run(minimalRaw(), SIMPLE, [], 'nope'));
    expect(refusal.code).toBe('skill-not-found');
    expect(refusal.message).toContain('"nope"');
    expect(refusal.message).toContain('"s"');
  });

  it('skill ids match exactly (case-sensitive)', () => {
    expect(refusalOf(run(minimalRaw(), SIMPLE, [], 'S')).code).toBe('skill-not-found');
  });

  it('no-common-interface names what the card offers and what the profile tried', () => {
    const raw = minimalRaw((c) => {
      c.supportedInterfaces = [{ url: 'grpc.example.com:443', protocolBinding: 'GRPC', protocolVersion: '0.3' }];
    });
    const refusal = refusalOf(run(raw, { ...SIMPLE, versions: ['1.0', '0.3'] }));
    expect(refusal.code).toBe('no-common-interface');
    expect(refusal.message).toContain('GRPC 0.3 at grpc.example.com:443');
    expect(refusal.message).toContain('JSONRPC 1.0');
    expect(refusal.message).toContain('JSONRPC 0.3');
  });

  it('missing-credential names the requirements and the credentials held', () => {
    const raw = minimalRaw((c) => {
      c.securitySchemes = {
        oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t', scopes: {} } } } },
        key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
      };
      c.securityRequirements = [{ schemes: { oauth: { list: ['read'] } } }, { schemes: { key: { list: [] } } }];
    });
    const refusal = refusalOf(run(raw, SIMPLE, ['bearer']));
    expect(refusal.code).toBe('missing-credential');
    expect(refusal.message).toContain('oauth (read)');
    expect(refusal.message).toContain('key');
    expect(refusal.message).toContain('"bearer"');
  });

  it('input-mode-not-accepted names the skill inputs and what the client sends', () => {
    const raw = minimalRaw((c) => {
      c.skills[0].inputModes = ['application/json'];
    });
    const refusal = refusalOf(run(raw, { ...SIMPLE, sends: ['text/plain', 'image/png'] }));
    expect(refusal.code).toBe('input-mode-not-accepted');
    expect(refusal.message).toContain('application/json');
    expect(refusal.message).toContain('text/plain');
    expect(refusal.message).toContain('image/png');
  });

  it('no-common-output-mode names the skill outputs and what the client accepts', () => {
    const refusal = refusalOf(run(minimalRaw(), { ...SIMPLE, accepts: ['text/csv'] }));
    expect(refusal.code).toBe('no-common-output-mode');
    expect(refusal.message).toContain('application/json');
    expect(refusal.message).toContain('text/csv');
  });

  it('required-extension-unsupported names the required extension and what the client implements', () => {
    const raw = minimalRaw((c) => {
      c.capabilities.extensions = [
        { uri: 'https://x.example/ext/a/v1', required: true },
        { uri: 'https://x.example/ext/b/v1', required: false },
      ];
    });
    const refusal = refusalOf(run(raw, { ...SIMPLE, extensions: ['https://x.example/ext/b/v1'] }));
    expect(refusal.code).toBe('required-extension-unsupported');
    expect(refusal.message).toContain('https://x.example/ext/a/v1');
    expect(refusal.message).toContain('client implements https://x.example/ext/b/v1');
  });

  it('version-out-of-range names the card version and the range', () => {
    const refusal = refusalOf(run(minimalRaw(), SIMPLE, [], 's', { versionRange: '^2.0.0' }));
    expect(refusal.code).toBe('version-out-of-range');
    expect(refusal.message).toContain('1.2.3');
    expect(refusal.message).toContain('^2.0.0');
  });

  it('version-out-of-range for a card version that is not semver', () => {
    const refusal = refusalOf(
      run(
        minimalRaw((c) => (c.version = '2026-07-03')),
        SIMPLE,
        [],
        's',
        { versionRange: '*' },
      ),
    );
    expect(refusal.code).toBe('version-out-of-range');
    expect(refusal.message).toContain('2026-07-03');
  });

  it('a card version that is not semver but plain Major[.Minor] is coerced for the range; junk is still refused', () => {
    for (const [spelling, range] of [
      ['1.0', '^1.0.0'],
      ['1.0', '>=1.0'],
      ['1.0', '1.x'],
      ['2', '^2'],
      ['v1.2', '~1.2.0'],
      [' 3.1 ', '3.1.0'],
    ] as const) {
      const result = run(
        minimalRaw((c) => (c.version = spelling)),
        SIMPLE,
        [],
        's',
        { versionRange: range },
      );
      expect(planOf(result).url, `${spelling} ${range}`).toBe('https://a.example.com/rpc');
      expect(result.trace.find((t) => t.step === 'version')?.detail).toContain('read as');
    }
    const out = refusalOf(
      run(
        minimalRaw((c) => (c.version = '1.0')),
        SIMPLE,
        [],
        's',
        { versionRange: '^2.0.0' },
      ),
    );
    expect(out.message).toBe('card version 1.0 (read as 1.0.0) does not satisfy ^2.0.0');
    for (const junk of ['1.0.0.0', 'one', '1.x', 'v', '1.2-beta']) {
      expect(
        refusalOf(
          run(
            minimalRaw((c) => (c.version = junk)),
            SIMPLE,
            [],
            's',
            { versionRange: '*' },
          ),
        ).message,
        junk,
      ).toContain('is not semver');
    }
  });

  it('a satisfied range lets negotiation go on', () => {
    expect(planOf(run(minimalRaw(), SIMPLE, [], 's', { versionRange: '^1.2.0' })).url).toBe(
      'https://a.example.com/rpc',
    );
    expect(
      planOf(
        run(
          minimalRaw((c) => (c.version = '2.4.0')),
          SIMPLE,
          [],
          's',
          { versionRange: '>=2.4.0 <3' },
        ),
      ).url,
    ).toBe('https://a.example.com/rpc');
  });
});

describe('step 1: interface, version-major order', () => {
  const iface = (
    protocolBinding: string,
    protocolVersion: string,
    url = `https://a.example.com/${protocolBinding}/${protocolVersion}`,
  ) => ({ url, protocolBinding, protocolVersion });

  it('for each version, for each binding: JSONRPC 1.0 beats GRPC 0.3 although GRPC is the first binding', () => {
    const raw = minimalRaw((c) => {
      c.supportedInterfaces = [iface('GRPC', '0.3'), iface('JSONRPC', '1.0')];
    });
    const plan = planOf(run(raw, { ...SIMPLE, bindings: ['GRPC', 'JSONRPC'], versions: ['1.0', '0.3'] }));
    expect(plan).toMatchObject({
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      url: 'https://a.example.com/JSONRPC/1.0',
    });
  });

  it('within one version the profile binding order decides', () => {
    const raw = minimalRaw((c) => {
      c.supportedInterfaces = [iface('JSONRPC', '0.3'), iface('HTTP+JSON', '0.3'), iface('GRPC', '0.3')];
    });
    const plan = planOf(run(raw, { ...SIMPLE, bindings: ['GRPC', 'HTTP+JSON', 'JSONRPC'], versions: ['1.0', '0.3'] }));
    expect(plan.protocolBinding).toBe('GRPC');
  });

  it('client preference beats card order', () => {
    const raw = minimalRaw((c) => {
      c.supportedInterfaces = [iface('JSONRPC', '1.0'), iface('HTTP+JSON', '1.0')];
    });
    expect(planOf(run(raw, { ...SIMPLE, bindings: ['HTTP+JSON', 'JSONRPC'] })).protocolBinding).toBe('HTTP+JSON');
    expect(planOf(run(raw, { ...SIMPLE, bindings: ['JSONRPC', 'HTTP+JSON'] })).protocolBinding).toBe('JSONRPC');
  });

  it('an older version is taken only when no profile binding offers the newer one', () => {
    const raw = minimalRaw((c) => {
      c.supportedInterfaces = [iface('JSONRPC', '0.3'), iface('HTTP+JSON', '1.0')];
    });
    expect(
      planOf(run(raw, { ...SIMPLE, bindings: ['JSONRPC', 'HTTP+JSON'], versions: ['1.0', '0.3'] })).protocolBinding,
    ).toBe('HTTP+JSON');
    expect(planOf(run(raw, { ...SIMPLE, bindings: ['JSONRPC'], versions: ['1.0', '0.3'] })).protocolVersion).toBe(
      '0.3',
    );
    // The profile's version order is a preference, not numeric: 0.3 first wins.
    expect(
      planOf(run(raw, { ...SIMPLE, bindings: ['HTTP+JSON', 'JSONRPC'], versions: ['0.3', '1.0'] })).protocolVersion,
    ).toBe('0.3');
  });

  it('card order breaks ties between interfaces with the same binding and version', () => {
    const raw = minimalRaw((c) => {
      c.supportedInterfaces = [
        iface('JSONRPC', '1.0', 'https://first.example.com/'),
        iface('JSONRPC', '1.0', 'https://second.example.com/'),
      ];
    });
    expect(planOf(run(raw)).url).toBe('https://first.example.com/');
  });

  it('versions compare as Major.Minor: a "1.0.0" interface matches profile "1.0"', () => {
    const raw = minimalRaw((c) => {
      c.supportedInterfaces = [iface('JSONRPC', '1.0.0', 'https://a.example.com/v1')];
    });
    const plan = planOf(run(raw));
    expect(plan.protocolVersion).toBe('1.0');
    expect(plan.url).toBe('https://a.example.com/v1');
  });

  it('a profile version with a patch also compares as Major.Minor', () => {
    expect(planOf(run(minimalRaw(), { ...SIMPLE, versions: ['1.0.2'] })).protocolVersion).toBe('1.0');
  });

  it('binding strings compare exactly (case-sensitive) in the profile', () => {
    expect(refusalOf(run(minimalRaw(), { ...SIMPLE, bindings: ['jsonrpc'] })).code).toBe('no-common-interface');
  });

  it('the tenant of the chosen interface is carried into the plan; absent otherwise', () => {
    const raw = minimalRaw((c) => {
      c.supportedInterfaces = [{ ...iface('JSONRPC', '1.0'), tenant: 'billing' }];
    });
    expect(planOf(run(raw)).tenant).toBe('billing');
    expect('tenant' in planOf(run(minimalRaw()))).toBe(false);
  });

  it('a 0.3 card (url + preferredTransport + additionalInterfaces) negotiates at 0.3', () => {
    const raw: Json = {
      name: 'Legacy',
      description: 'legacy',
      version: '1.0.0',
      protocolVersion: '0.3.0',
      url: 'https://legacy.example.com/rpc',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: 'https://legacy.example.com/rest', transport: 'HTTP+JSON' }],
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['application/json'],
      skills: [{ id: 's', name: 'S', description: 'skill', tags: [] }],
    };
    const plan = planOf(run(raw, { ...SIMPLE, bindings: ['HTTP+JSON', 'JSONRPC'], versions: ['1.0', '0.3'] }));
    expect(plan).toMatchObject({
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '0.3',
      url: 'https://legacy.example.com/rest',
    });
  });
});

describe('step 2: security', () => {
  const schemes = {
    bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
    key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
    oauth: {
      oauth2SecurityScheme: {
        flows: { clientCredentials: { tokenUrl: 'https://t.example.com', scopes: { read: 'r', write: 'w' } } },
      },
    },
    mtls: { mtlsSecurityScheme: {} },
  };
  const req = (m: Record<string, string[]>) => ({
    schemes: Object.fromEntries(Object.entries(m).map(([k, v]) => [k, { list: v }])),
  });

  it('no requirement anywhere → security {} even when credentials are held', () => {
    expect(
      planOf(
        run(
          minimalRaw((c) => (c.securitySchemes = schemes)),
          SIMPLE,
          ['bearer'],
        ),
      ).security,
    ).toEqual({});
  });

  it('the first requirement in card order whose schemes are all held wins', () => {
    const raw = minimalRaw((c) => {
      c.securitySchemes = schemes;
      c.securityRequirements = [req({ oauth: ['read'] }), req({ key: [] }), req({ bearer: [] })];
    });
    // Held order does not matter; card order does.
    expect(planOf(run(raw, SIMPLE, ['bearer', 'key'])).security).toEqual({ key: [] });
    expect(planOf(run(raw, SIMPLE, ['bearer'])).security).toEqual({ bearer: [] });
    expect(planOf(run(raw, SIMPLE, ['bearer', 'key', 'oauth'])).security).toEqual({ oauth: ['read'] });
  });

  it('AND within a requirement: every scheme must be held', () => {
    const raw = minimalRaw((c) => {
      c.securitySchemes = schemes;
      c.securityRequirements = [req({ mtls: [], oauth: ['write'] }), req({ key: [] })];
    });
    expect(planOf(run(raw, SIMPLE, ['oauth', 'key'])).security).toEqual({ key: [] });
    expect(planOf(run(raw, SIMPLE, ['oauth', 'mtls'])).security).toEqual({ mtls: [], oauth: ['write'] });
    expect(refusalOf(run(raw, SIMPLE, ['oauth'])).code).toBe('missing-credential');
  });

  it('an empty requirement {} means no authentication', () => {
    const raw = minimalRaw((c) => {
      c.securitySchemes = schemes;
      c.securityRequirements = [req({ bearer: [] }), { schemes: {} }];
    });
    expect(planOf(run(raw, SIMPLE, [])).security).toEqual({});
    expect(planOf(run(raw, SIMPLE, ['bearer'])).security).toEqual({ bearer: [] });
  });

  it('scopes are carried into the plan, in the card order', () => {
    const raw = minimalRaw((c) => {
      c.securitySchemes = schemes;
      c.securityRequirements = [req({ oauth: ['write', 'read'] })];
    });
    expect(planOf(run(raw, SIMPLE, ['oauth'])).security).toEqual({ oauth: ['write', 'read'] });
  });

  it("the skill's requirements override the card's", () => {
    const raw = minimalRaw((c) => {
      c.securitySchemes = schemes;
      c.securityRequirements = [req({ bearer: [] })];
      c.skills[0].securityRequirements = [req({ key: [] })];
    });
    expect(planOf(run(raw, SIMPLE, ['key'])).security).toEqual({ key: [] });
    const refusal = refusalOf(run(raw, SIMPLE, ['bearer']));
    expect(refusal.code).toBe('missing-credential');
    expect(refusal.message).toContain('skill "s"');
  });

  it("a skill with no requirements (or an empty list) uses the card's", () => {
    const raw = minimalRaw((c) => {
      c.securitySchemes = schemes;
      c.securityRequirements = [req({ bearer: [] })];
      c.skills[0].securityRequirements = [];
    });
    expect(planOf(run(raw, SIMPLE, ['bearer'])).security).toEqual({ bearer: [] });
    expect(refusalOf(run(raw, SIMPLE, ['key'])).message).toContain('the card');
  });

  it('a skill-level requirement applies per skill: a public skill next to a privileged one', () => {
    const raw = minimalRaw((c) => {
      c.securitySchemes = schemes;
      c.securityRequirements = [{ schemes: {} }];
      c.skills.push({
        id: 'admin',
        name: 'Admin',
        description: 'privileged',
        tags: [],
        securityRequirements: [req({ oauth: ['admin'] })],
      });
    });
    expect(planOf(run(raw, SIMPLE, [], 's')).security).toEqual({});
    expect(refusalOf(run(raw, SIMPLE, [], 'admin')).code).toBe('missing-credential');
    expect(planOf(run(raw, SIMPLE, ['oauth'], 'admin')).security).toEqual({ oauth: ['admin'] });
  });

  it('credentials may be any iterable (a Set)', () => {
    const raw = minimalRaw((c) => {
      c.securitySchemes = schemes;
      c.securityRequirements = [req({ bearer: [] })];
    });
    expect(negotiate(card(raw), 's', SIMPLE, new Set(['bearer'])).plan?.security).toEqual({ bearer: [] });
  });

  it('0.3 `security` requirements (plain maps) negotiate the same way', () => {
    const raw = minimalRaw((c) => {
      c.securitySchemes = {
        bearer: { type: 'http', scheme: 'bearer' },
        key: { type: 'apiKey', in: 'header', name: 'X-Key' },
      };
      c.security = [{ bearer: [], key: [] }, { key: ['s1'] }];
    });
    expect(planOf(run(raw, SIMPLE, ['key'])).security).toEqual({ key: ['s1'] });
  });
});

describe('step 3: media types', () => {
  it('type/subtype compare case-insensitively; the plan carries the agent spelling', () => {
    const raw = minimalRaw((c) => {
      c.defaultOutputModes = ['Application/JSON'];
      c.defaultInputModes = ['TEXT/Plain'];
    });
    expect(planOf(run(raw)).acceptedOutputModes).toEqual(['Application/JSON']);
  });

  it('parameters compare exactly', () => {
    const raw = minimalRaw((c) => (c.defaultOutputModes = ['application/json; charset=utf-8']));
    expect(refusalOf(run(raw)).code).toBe('no-common-output-mode');
    expect(planOf(run(raw, { ...SIMPLE, accepts: ['application/json; charset=utf-8'] })).acceptedOutputModes).toEqual([
      'application/json; charset=utf-8',
    ]);
    expect(refusalOf(run(raw, { ...SIMPLE, accepts: ['application/json; charset=UTF-16'] })).code).toBe(
      'no-common-output-mode',
    );
    // Exact means exact: parameter case counts, unlike type/subtype case.
    expect(refusalOf(run(raw, { ...SIMPLE, accepts: ['application/json; charset=UTF-8'] })).code).toBe(
      'no-common-output-mode',
    );
    expect(planOf(run(raw, { ...SIMPLE, accepts: ['APPLICATION/JSON; charset=utf-8'] })).acceptedOutputModes).toEqual([
      'application/json; charset=utf-8',
    ]);
    // Input side too.
    const input = minimalRaw((c) => (c.defaultInputModes = ['text/plain; charset=utf-8']));
    expect(refusalOf(run(input)).code).toBe('input-mode-not-accepted');
  });

  it('no wildcards: a card mode "*/*" or "text/*" matches nothing concrete', () => {
    expect(refusalOf(run(minimalRaw((c) => (c.defaultOutputModes = ['*/*'])))).code).toBe('no-common-output-mode');
    expect(refusalOf(run(minimalRaw((c) => (c.defaultInputModes = ['text/*'])))).code).toBe('input-mode-not-accepted');
    expect(refusalOf(run(minimalRaw((c) => (c.defaultInputModes = ['*/*'])))).code).toBe('input-mode-not-accepted');
  });

  it('acceptedOutputModes follow the profile order, not the card order, and keep only common types', () => {
    const raw = minimalRaw((c) => (c.defaultOutputModes = ['text/plain', 'image/png', 'application/json']));
    const plan = planOf(run(raw, { ...SIMPLE, accepts: ['application/json', 'text/csv', 'text/plain'] }));
    expect(plan.acceptedOutputModes).toEqual(['application/json', 'text/plain']);
  });

  it('skill modes override the card defaults (both directions)', () => {
    const raw = minimalRaw((c) => {
      c.defaultInputModes = ['application/json'];
      c.defaultOutputModes = ['application/json', 'text/plain'];
      c.skills[0].inputModes = ['text/plain'];
      c.skills[0].outputModes = ['text/plain'];
    });
    const plan = planOf(run(raw, { ...SIMPLE, accepts: ['application/json', 'text/plain'] }));
    expect(plan.acceptedOutputModes).toEqual(['text/plain']);
  });

  it('empty skill modes fall back to the card defaults', () => {
    const raw = minimalRaw((c) => {
      c.defaultOutputModes = ['application/json'];
      c.skills[0].inputModes = [];
      c.skills[0].outputModes = [];
    });
    expect(planOf(run(raw)).acceptedOutputModes).toEqual(['application/json']);
  });

  it('empty skill mode lists in the model itself also fall back to the card defaults', () => {
    const c = card(minimalRaw((r) => (r.defaultInputModes = ['text/plain'])));
    c.skills[0]!.inputModes = [];
    c.skills[0]!.outputModes = [];
    expect(planOf(negotiate(c, 's', SIMPLE, [])).acceptedOutputModes).toEqual(['application/json']);
  });

  it('every type the client sends must be accepted', () => {
    const raw = minimalRaw((c) => (c.defaultInputModes = ['text/plain', 'application/json']));
    expect(planOf(run(raw, { ...SIMPLE, sends: ['application/json', 'text/plain'] })).url).toBeDefined();
    const refusal = refusalOf(run(raw, { ...SIMPLE, sends: ['text/plain', 'image/png'] }));
    expect(refusal.message).toContain('client sends image/png');
    expect(refusal.message).not.toContain('client sends text/plain');
  });

  it('a client that sends nothing is accepted by any skill', () => {
    expect(
      planOf(
        run(
          minimalRaw((c) => (c.defaultInputModes = ['image/png'])),
          { ...SIMPLE, sends: [] },
        ),
      ).url,
    ).toBe('https://a.example.com/rpc');
  });

  it('a profile type listed twice in different case is accepted once', () => {
    const plan = planOf(run(minimalRaw(), { ...SIMPLE, accepts: ['application/json', 'APPLICATION/JSON'] }));
    expect(plan.acceptedOutputModes).toEqual(['application/json']);
  });
});

describe('step 4: delivery', () => {
  const caps = (capabilities: Json) => minimalRaw((c) => (c.capabilities = capabilities));

  it('stream when card and profile both stream', () => {
    expect(
      planOf(
        run(caps({ streaming: true, pushNotifications: true }), {
          ...SIMPLE,
          streaming: true,
          pushEndpoint: 'https://me/hook',
        }),
      ).delivery,
    ).toBe('stream');
  });

  it('push needs card pushNotifications AND a profile pushEndpoint', () => {
    expect(
      planOf(
        run(caps({ streaming: true, pushNotifications: true }), {
          ...SIMPLE,
          streaming: false,
          pushEndpoint: 'https://me/hook',
        }),
      ).delivery,
    ).toBe('push');
    expect(
      planOf(
        run(caps({ streaming: false, pushNotifications: true }), {
          ...SIMPLE,
          streaming: true,
          pushEndpoint: 'https://me/hook',
        }),
      ).delivery,
    ).toBe('push');
    expect(planOf(run(caps({ pushNotifications: true }), { ...SIMPLE, pushEndpoint: null })).delivery).toBe('poll');
    expect(
      planOf(run(caps({ pushNotifications: false }), { ...SIMPLE, pushEndpoint: 'https://me/hook' })).delivery,
    ).toBe('poll');
  });

  it('poll otherwise (absent capabilities read as false)', () => {
    expect(planOf(run(caps({}), { ...SIMPLE, streaming: true })).delivery).toBe('poll');
    expect(planOf(run(caps({ streaming: true }), { ...SIMPLE, streaming: false })).delivery).toBe('poll');
  });
});

describe('step 5: extensions', () => {
  const A = 'https://x.example/ext/a/v1';
  const B = 'https://x.example/ext/b/v1';
  const C = 'https://x.example/ext/c/v1';

  it('active = card extensions the profile implements, in card order', () => {
    const raw = minimalRaw((c) => {
      c.capabilities.extensions = [{ uri: B }, { uri: C, required: false }, { uri: A, required: true }];
    });
    expect(planOf(run(raw, { ...SIMPLE, extensions: [A, B, 'https://x.example/ext/unused'] })).extensions).toEqual([
      B,
      A,
    ]);
  });

  it('a profile extension the card does not list is not activated', () => {
    expect(planOf(run(minimalRaw(), { ...SIMPLE, extensions: [A] })).extensions).toEqual([]);
  });

  it('a required extension the profile does not implement refuses; optional ones do not', () => {
    const raw = minimalRaw((c) => {
      c.capabilities.extensions = [
        { uri: A, required: false },
        { uri: B, required: true },
      ];
    });
    expect(refusalOf(run(raw, { ...SIMPLE, extensions: [A] })).code).toBe('required-extension-unsupported');
    expect(planOf(run(raw, { ...SIMPLE, extensions: [B] })).extensions).toEqual([B]);
  });
});

describe('locked: the profile narrowed to a locked plan ("beyond the lockfile")', () => {
  const profile = orchestrator({ bindings: ['GRPC', 'JSONRPC'] });

  /** Lock the worked example with gRPC disabled: JSONRPC 1.0, so a "better" interface can appear later. */
  function lockedPlan(
    raw: Json = workedExampleRaw(),
    p: ClientProfile = orchestrator({ bindings: ['JSONRPC'] }),
  ): Plan {
    return planOf(negotiate(card(raw), 'market-size', p, ['bearer']));
  }

  it('the same card gives the same plan', () => {
    const locked = lockedPlan();
    const fresh = negotiate(card(workedExampleRaw()), 'market-size', profile, ['bearer'], { locked });
    expect(planOf(fresh)).toEqual(locked);
    expect(diffPlans(locked, planOf(fresh))).toEqual([]);
  });

  it('the same card with the full worked-example plan locked gives it back', () => {
    const locked = planOf(negotiate(card(workedExampleRaw()), 'market-size', profile, ['bearer']));
    expect(planOf(negotiate(card(workedExampleRaw()), 'market-size', profile, ['bearer'], { locked }))).toEqual(locked);
  });

  it('a card that moves the locked interface URL is refused no-common-interface, naming the locked URL', () => {
    const locked = lockedPlan();
    const moved = workedExampleRaw();
    moved.supportedInterfaces[0].url = 'https://research.example.com/a2a/v2';
    const refusal = refusalOf(negotiate(card(moved), 'market-size', profile, ['bearer'], { locked }));
    expect(refusal.code).toBe('no-common-interface');
    expect(refusal.message).toContain(JSONRPC_10);
    expect(refusal.message).toContain('https://research.example.com/a2a/v2');
    // Unconstrained, the moved card still negotiates: the lock is what refuses.
    expect(planOf(negotiate(card(moved), 'market-size', orchestrator({ bindings: ['JSONRPC'] }), ['bearer'])).url).toBe(
      'https://research.example.com/a2a/v2',
    );
  });

  it('a card that adds an interface the unconstrained profile prefers still yields the locked plan (no drift)', () => {
    const raw = workedExampleRaw();
    raw.supportedInterfaces = raw.supportedInterfaces.filter((i: Json) => i.protocolBinding !== 'GRPC');
    const locked = lockedPlan(raw, profile);
    expect(locked.protocolBinding).toBe('JSONRPC');
    const better = workedExampleRaw(); // now offers GRPC 1.0 again, first in the profile's order
    expect(planOf(negotiate(card(better), 'market-size', profile, ['bearer'])).protocolBinding).toBe('GRPC');
    expect(planOf(negotiate(card(better), 'market-size', profile, ['bearer'], { locked }))).toEqual(locked);
  });

  it('a skill losing a locked output mode gives a plan that differs in acceptedOutputModes', () => {
    const raw = workedExampleRaw();
    raw.skills[0].outputModes = ['application/json', 'text/plain'];
    const locked = lockedPlan(raw);
    expect(locked.acceptedOutputModes).toEqual(['application/json', 'text/plain']);
    const fresh = planOf(negotiate(card(workedExampleRaw()), 'market-size', profile, ['bearer'], { locked }));
    expect(diffPlans(locked, fresh)).toEqual([
      { field: 'acceptedOutputModes', locked: ['application/json', 'text/plain'], fresh: ['application/json'] },
    ]);
  });

  it('a skill losing every locked output mode is refused', () => {
    const locked = lockedPlan();
    const raw = workedExampleRaw();
    raw.skills[0].outputModes = ['text/plain'];
    expect(refusalOf(negotiate(card(raw), 'market-size', profile, ['bearer'], { locked })).code).toBe(
      'no-common-output-mode',
    );
  });

  it('a new required extension the profile implements but the lock lacks is refused', () => {
    const raw = workedExampleRaw();
    raw.capabilities.extensions = [];
    const locked = lockedPlan(raw);
    expect(locked.extensions).toEqual([]);
    const fresh = workedExampleRaw();
    fresh.capabilities.extensions = [{ uri: CITATIONS, required: true }];
    // Unconstrained it would negotiate (the profile implements citations) ...
    expect(planOf(negotiate(card(fresh), 'market-size', profile, ['bearer'])).extensions).toEqual([CITATIONS]);
    // ... but it is beyond the lockfile.
    const refusal = refusalOf(negotiate(card(fresh), 'market-size', profile, ['bearer'], { locked }));
    expect(refusal.code).toBe('required-extension-unsupported');
  });

  it('a new optional extension is not activated beyond the lock', () => {
    const raw = workedExampleRaw();
    raw.capabilities.extensions = [];
    const locked = lockedPlan(raw);
    expect(planOf(negotiate(card(workedExampleRaw()), 'market-size', profile, ['bearer'], { locked }))).toEqual(locked);
  });

  it('a new security requirement the lock did not choose is refused, even when the credential is held', () => {
    const locked = lockedPlan();
    expect(locked.security).toEqual({});
    const refusal = refusalOf(
      negotiate(card(withBearer(workedExampleRaw())), 'market-size', profile, ['bearer'], { locked }),
    );
    expect(refusal.code).toBe('missing-credential');
  });

  it('the locked security requirement is kept when the card still offers it', () => {
    const locked = lockedPlan(withBearer(workedExampleRaw()));
    expect(locked.security).toEqual({ bearer: [] });
    expect(
      planOf(negotiate(card(withBearer(workedExampleRaw())), 'market-size', profile, ['bearer'], { locked })),
    ).toEqual(locked);
  });

  it('a card that stops streaming gives a plan that differs in delivery', () => {
    const locked = lockedPlan();
    const raw = workedExampleRaw();
    raw.capabilities.streaming = false;
    const fresh = planOf(negotiate(card(raw), 'market-size', profile, ['bearer'], { locked }));
    expect(diffPlans(locked, fresh)).toEqual([
      { field: 'delivery', locked: 'stream', fresh: 'poll' },
      {
        field: 'fallbacks',
        locked: locked.fallbacks,
        fresh: { interfaces: locked.fallbacks!.interfaces, delivery: [] },
      },
    ]);
  });

  it('a locked poll plan does not move to stream when the card starts streaming', () => {
    const raw = workedExampleRaw();
    raw.capabilities.streaming = false;
    const locked = lockedPlan(raw);
    expect(locked.delivery).toBe('poll');
    expect(planOf(negotiate(card(workedExampleRaw()), 'market-size', profile, ['bearer'], { locked })).delivery).toBe(
      'poll',
    );
  });

  it('the locked tenant must still be on the interface', () => {
    const raw = minimalRaw((c) => (c.supportedInterfaces[0].tenant = 'billing'));
    const locked = planOf(run(raw));
    expect(locked.tenant).toBe('billing');
    const refusal = refusalOf(
      run(
        minimalRaw((c) => (c.supportedInterfaces[0].tenant = 'sales')),
        SIMPLE,
        [],
        's',
        { locked },
      ),
    );
    expect(refusal.code).toBe('no-common-interface');
  });
});

describe('determinism and robustness', () => {
  it('the same inputs twice give deep-equal results (plan and trace)', () => {
    const a = negotiate(card(withBearer(workedExampleRaw())), 'market-size', orchestrator(), ['bearer']);
    const b = negotiate(card(withBearer(workedExampleRaw())), 'market-size', orchestrator(), ['bearer']);
    expect(b).toEqual(a);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it('does not mutate the card or the profile', () => {
    const c = card(withBearer(workedExampleRaw()));
    const p = orchestrator();
    const before = JSON.stringify([c, p]);
    const locked = planOf(negotiate(c, 'market-size', p, ['bearer']));
    negotiate(c, 'market-size', p, ['bearer'], { locked });
    expect(JSON.stringify([c, p])).toBe(before);
  });

  it('the plan does not share arrays with the card (security scopes, modes)', () => {
    const c = card(
      minimalRaw((r) => {
        r.securitySchemes = { o: { oauth2SecurityScheme: { flows: {} } } };
        r.securityRequirements = [{ schemes: { o: { list: ['read'] } } }];
      }),
    );
    const plan = planOf(negotiate(c, 's', SIMPLE, ['o']));
    plan.security.o!.push('write');
    expect(c.securityRequirements[0]!.o).toEqual(['read']);
  });

  it('never throws for weird but normalised cards', () => {
    const weird: NormalizedCard[] = [
      {
        name: '',
        description: '',
        version: '',
        shape: '1.0',
        supportedInterfaces: [],
        capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false, extensions: [] },
        securitySchemes: {},
        securityRequirements: [],
        defaultInputModes: [],
        defaultOutputModes: [],
        skills: [],
      },
      {
        name: 'w',
        description: 'w',
        version: 'not-semver',
        shape: 'hybrid',
        supportedInterfaces: [
          { url: 'x', protocolBinding: 'https://example.com/bindings/ws/v1', protocolVersion: '2025-06-18' },
          { url: 'y', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
        ],
        capabilities: {
          streaming: true,
          pushNotifications: true,
          extendedAgentCard: true,
          extensions: [
            { uri: '', required: true },
            { uri: 'a', required: false },
            { uri: 'a', required: false },
          ],
        },
        securitySchemes: {},
        securityRequirements: [{}, { ghost: ['x'] }],
        defaultInputModes: ['*/*', ';', ''],
        defaultOutputModes: ['', 'application/json;', 'APPLICATION/JSON'],
        skills: [
          { id: '', name: '', description: '', tags: [] },
          { id: 's', name: 's', description: '', tags: [], inputModes: [], outputModes: [], securityRequirements: [] },
        ],
      },
    ];
    const profiles: ClientProfile[] = [
      SIMPLE,
      {
        bindings: [],
        versions: [],
        accepts: [],
        sends: [],
        streaming: true,
        pushEndpoint: 'https://h',
        extensions: [],
      },
      {
        bindings: ['JSONRPC', 'https://example.com/bindings/ws/v1'],
        versions: ['x', '1', '2025-06-18'],
        accepts: ['application/json', ''],
        sends: [''],
        streaming: true,
        pushEndpoint: 'https://h',
        extensions: ['', 'a'],
      },
    ];
    for (const c of weird) {
      for (const p of profiles) {
        for (const skill of ['', 's', 'missing']) {
          for (const options of [{}, { versionRange: '^1' }, { versionRange: 'not a range' }]) {
            let result: NegotiationResult | undefined;
            expect(() => (result = negotiate(c, skill, p, ['ghost'], options))).not.toThrow();
            expect(result!.plan === undefined).toBe(result!.refusal !== undefined);
            expect(result!.trace.length).toBeGreaterThan(0);
          }
        }
      }
    }
    // And with a locked plan that matches nothing.
    const locked: Plan = {
      url: 'nowhere',
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      security: { ghost: [] },
      acceptedOutputModes: ['text/plain'],
      delivery: 'push',
      extensions: ['a'],
    };
    for (const c of weird) expect(() => negotiate(c, 's', SIMPLE, [], { locked })).not.toThrow();
  });

  it('a weird card still negotiates deterministically where it can', () => {
    const c: NormalizedCard = {
      name: 'w',
      description: 'w',
      version: '1.0.0',
      shape: '1.0',
      supportedInterfaces: [
        { url: 'ws://h', protocolBinding: 'https://example.com/bindings/ws/v1', protocolVersion: '1.0' },
      ],
      capabilities: {
        streaming: false,
        pushNotifications: false,
        extendedAgentCard: false,
        extensions: [
          { uri: 'a', required: false },
          { uri: 'a', required: true },
        ],
      },
      securitySchemes: {},
      securityRequirements: [{}],
      defaultInputModes: [],
      defaultOutputModes: ['application/json'],
      skills: [{ id: 's', name: 's', description: '', tags: [] }],
    };
    const plan = planOf(
      negotiate(
        c,
        's',
        { ...SIMPLE, bindings: ['https://example.com/bindings/ws/v1'], sends: [], extensions: ['a'] },
        [],
      ),
    );
    expect(plan).toEqual({
      url: 'ws://h',
      protocolBinding: 'https://example.com/bindings/ws/v1',
      protocolVersion: '1.0',
      security: {},
      acceptedOutputModes: ['application/json'],
      delivery: 'poll',
      extensions: ['a'],
    });
  });
});

describe('diffPlans', () => {
  const base: Plan = {
    url: 'https://a.example.com/rpc',
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.0',
    security: { oauth: ['read'], key: [] },
    acceptedOutputModes: ['application/json', 'text/plain'],
    delivery: 'stream',
    extensions: ['https://x/a'],
  };

  it('equal plans → no difference, whatever the key order of the security map', () => {
    expect(diffPlans(base, structuredClone(base))).toEqual([]);
    expect(diffPlans(base, { ...base, security: { key: [], oauth: ['read'] } })).toEqual([]);
  });

  it('reports exactly each differing field with locked and fresh values', () => {
    expect(diffPlans(base, { ...base, url: 'https://b.example.com/rpc' })).toEqual([
      { field: 'url', locked: 'https://a.example.com/rpc', fresh: 'https://b.example.com/rpc' },
    ]);
    expect(diffPlans(base, { ...base, protocolVersion: '0.3' }).map((d) => d.field)).toEqual(['protocolVersion']);
    expect(diffPlans(base, { ...base, delivery: 'poll' }).map((d) => d.field)).toEqual(['delivery']);
    expect(diffPlans(base, { ...base, extensions: [] }).map((d) => d.field)).toEqual(['extensions']);
  });

  it('array order is preference: a reorder is a difference; scope order too', () => {
    expect(
      diffPlans(base, { ...base, acceptedOutputModes: ['text/plain', 'application/json'] }).map((d) => d.field),
    ).toEqual(['acceptedOutputModes']);
    expect(diffPlans(base, { ...base, security: { oauth: ['read', 'write'], key: [] } }).map((d) => d.field)).toEqual([
      'security',
    ]);
  });

  it('a tenant added or removed is a difference; absent equals absent', () => {
    expect(diffPlans(base, { ...base, tenant: 't' })).toEqual([{ field: 'tenant', locked: undefined, fresh: 't' }]);
    expect(diffPlans({ ...base, tenant: 't' }, base).map((d) => d.field)).toEqual(['tenant']);
  });

  it('several differing fields are reported in plan field order', () => {
    const fresh: Plan = {
      ...base,
      protocolBinding: 'GRPC',
      url: 'grpc.example.com:443',
      security: {},
      delivery: 'push',
    };
    expect(diffPlans(base, fresh).map((d) => d.field)).toEqual(['url', 'protocolBinding', 'security', 'delivery']);
  });
});

describe('fallbacks: the ordered locked alternatives', () => {
  const profile = orchestrator();

  it('lists the other accepted interfaces in version-major profile order, and poll for a stream plan', () => {
    const plan = planOf(negotiate(card(workedExampleRaw()), 'market-size', profile, []));
    expect(plan.fallbacks?.interfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual([
      'JSONRPC 1.0',
      'JSONRPC 0.3',
    ]);
    expect(plan.fallbacks?.delivery).toEqual(['poll']);
  });

  it('never lists an interface the profile does not accept; a poll plan with no alternative has none', () => {
    const plan = planOf(
      negotiate(
        card(workedExampleRaw()),
        'market-size',
        orchestrator({ bindings: ['JSONRPC'], versions: ['1.0'], streaming: false }),
        [],
      ),
    );
    expect(plan.delivery).toBe('poll');
    expect(plan.fallbacks).toBeUndefined();
  });

  it('a vanished locked fallback is a difference in fallbacks (drift): the runtime would retry where the card no longer answers', () => {
    const locked = planOf(negotiate(card(workedExampleRaw()), 'market-size', profile, []));
    const raw = workedExampleRaw();
    raw.supportedInterfaces = raw.supportedInterfaces.filter((i: Json) => i.protocolVersion !== '0.3');
    const fresh = planOf(negotiate(card(raw), 'market-size', profile, [], { locked }));
    expect(diffPlans(locked, fresh)).toEqual([
      {
        field: 'fallbacks',
        locked: locked.fallbacks,
        fresh: { interfaces: [locked.fallbacks!.interfaces[0]], delivery: ['poll'] },
      },
    ]);
  });

  it('a new interface is not added to a locked plan by verify (the runtime never uses it), but the snapshot negotiates it, so lock refuses to keep the plan', () => {
    const raw = workedExampleRaw();
    raw.supportedInterfaces = raw.supportedInterfaces.filter((i: Json) => i.protocolVersion !== '0.3');
    const locked = planOf(negotiate(card(raw), 'market-size', profile, []));
    expect(locked.fallbacks?.interfaces).toHaveLength(1);
    const newer = card(workedExampleRaw());
    expect(planOf(negotiate(newer, 'market-size', profile, [], { locked }))).toEqual(locked);
    expect(diffPlans(locked, planOf(negotiate(newer, 'market-size', profile, []))).map((d) => d.field)).toEqual([
      'fallbacks',
    ]);
  });

  it('compares fallbacks regardless of key order (a lockfile read back has sorted keys)', () => {
    const plan = planOf(negotiate(card(workedExampleRaw()), 'market-size', profile, []));
    const sorted = JSON.parse(
      JSON.stringify(plan, (_k, v) =>
        v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v,
      ),
    ) as Plan;
    expect(diffPlans(sorted, plan)).toEqual([]);
  });
});
