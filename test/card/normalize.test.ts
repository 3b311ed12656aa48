/**
 * normalizeCard(): every served shape (1.0 ProtoJSON, 0.3 JSON-schema form, 0.3 proto-wrapper form,
 * 0.2, hybrids) to one model, with warnings for what was repaired and one-line, path-naming
 * `card-invalid` errors for what cannot be. Contract: issue 2 "Card model and negotiation"; shapes
 * from ../shared/spec/A2A-NOTES.md §2, §3.
 */
import { describe, expect, it } from 'vitest';
import { type CardSource, normalizeCard } from '../../src/card/normalize.js';
import { majorMinor } from '../../src/card/version.js';
import { InvalidInputError } from '../../src/errors.js';

type Json = Record<string, any>;
const FILE: CardSource = { source: 'cards/agent.json' };
const FETCHED: CardSource = {
  source: 'https://agent.example.com/.well-known/agent-card.json',
  baseUrl: 'https://agent.example.com/.well-known/agent-card.json',
};

/** The minimal valid 1.0 card of the notes (§2.10). */
function v1(
  patch: (c: Json) => void = () => {
    /* unchanged */
  },
): Json {
  const c: Json = {
    name: 'Recipe Agent',
    description: 'Helps with recipes',
    version: '1.0.0',
    supportedInterfaces: [{ url: 'https://a.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true, extendedAgentCard: false },
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'recipes', name: 'Recipes', description: 'Find recipes', tags: ['cooking'] }],
  };
  patch(c);
  return c;
}

/** A 0.3 card in the JSON-schema (TS types) form. */
function v03(
  patch: (c: Json) => void = () => {
    /* unchanged */
  },
): Json {
  const c: Json = {
    protocolVersion: '0.3.0',
    name: 'GeoSpatial Route Planner Agent',
    description: 'Routes',
    url: 'https://georoute.example.com/a2a/v1',
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: 'https://georoute.example.com/a2a/v1', transport: 'JSONRPC' },
      { url: 'https://georoute.example.com/a2a/grpc', transport: 'GRPC' },
      { url: 'https://georoute.example.com/a2a/json', transport: 'HTTP+JSON' },
    ],
    version: '1.2.0',
    capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
    securitySchemes: {
      google: {
        type: 'openIdConnect',
        openIdConnectUrl: 'https://accounts.google.com/.well-known/openid-configuration',
      },
      key: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'an API key' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      oauth: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://t.example.com', scopes: { read: 'read' } } },
      },
      mtls: { type: 'mutualTLS' },
    },
    security: [{ google: ['openid', 'profile'] }, { key: [], bearer: [] }],
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json', 'image/png'],
    skills: [
      {
        id: 'route-optimizer-traffic',
        name: 'Traffic-Aware Route Optimizer',
        description: 'd',
        tags: ['maps'],
        security: [{ oauth: ['read'] }],
      },
    ],
    supportsAuthenticatedExtendedCard: true,
  };
  patch(c);
  return c;
}

/** Run normalizeCard and return the InvalidInputError it throws (fails the test if it does not). */
function cardError(raw: unknown, from: CardSource = FILE): InvalidInputError {
  try {
    normalizeCard(raw, from);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    const e = error as InvalidInputError;
    expect(e.code).toBe('card-invalid');
    expect(e.source).toBe(from.source);
    expect(e.message).not.toContain('\n');
    expect(e.message.startsWith(`${from.source} `)).toBe(true);
    if (e.path) expect(e.message).toContain(` ${e.path}: `);
    return e;
  }
  throw new Error('expected normalizeCard to throw');
}

const codes = (warnings: Array<{ code: string }>) => warnings.map((w) => w.code);

describe('A2A 1.0 cards', () => {
  it('normalises the minimal 1.0 card without warnings', () => {
    const { card, warnings } = normalizeCard(v1(), FILE);
    expect(warnings).toEqual([]);
    expect(card).toEqual({
      name: 'Recipe Agent',
      description: 'Helps with recipes',
      version: '1.0.0',
      shape: '1.0',
      supportedInterfaces: [{ url: 'https://a.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false, extensions: [] },
      securitySchemes: { bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' } },
      securityRequirements: [{ bearer: [] }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'recipes', name: 'Recipes', description: 'Find recipes', tags: ['cooking'] }],
    });
  });

  it('reads every 1.0 scheme variant and keeps interface order, tenant and extensions', () => {
    const { card } = normalizeCard(
      v1((c) => {
        c.supportedInterfaces = [
          {
            url: 'https://a.example.com/rest',
            protocolBinding: 'HTTP+JSON',
            protocolVersion: '1.0',
            tenant: 'billing',
          },
          { url: 'grpc.example.com:443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
          { url: 'https://a.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
        ];
        c.capabilities = {
          pushNotifications: true,
          extensions: [{ uri: 'https://x/e', required: true, params: { a: 1 } }, { uri: 'https://x/f' }],
        };
        c.securitySchemes = {
          key: { apiKeySecurityScheme: { location: 'query', name: 'k' } },
          oauth: {
            oauth2SecurityScheme: {
              flows: { deviceCode: { deviceAuthorizationUrl: 'https://d', tokenUrl: 'https://t', scopes: {} } },
              oauth2MetadataUrl: 'https://m',
            },
          },
          oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://o' } },
          mtls: { mtlsSecurityScheme: { description: 'client cert' } },
        };
        c.securityRequirements = [{ schemes: { oauth: { list: ['a', 'b'] }, mtls: {} } }, { schemes: {} }];
        c.skills[0].securityRequirements = [{ schemes: { key: { list: [] } } }];
      }),
      FILE,
    );
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://a.example.com/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'billing' },
      { url: 'grpc.example.com:443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
      { url: 'https://a.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities).toEqual({
      streaming: false,
      pushNotifications: true,
      extendedAgentCard: false,
      extensions: [
        { uri: 'https://x/e', required: true, params: { a: 1 } },
        { uri: 'https://x/f', required: false },
      ],
    });
    expect(card.securitySchemes).toEqual({
      key: { type: 'apiKey', location: 'query', name: 'k' },
      oauth: {
        type: 'oauth2',
        flows: { deviceCode: { deviceAuthorizationUrl: 'https://d', tokenUrl: 'https://t', scopes: {} } },
        oauth2MetadataUrl: 'https://m',
      },
      oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://o' },
      mtls: { type: 'mtls', description: 'client cert' },
    });
    expect(card.securityRequirements).toEqual([{ oauth: ['a', 'b'], mtls: [] }, {}]);
    expect(card.skills[0]!.securityRequirements).toEqual([{ key: [] }]);
  });

  it('cuts interface versions to Major.Minor', () => {
    const { card } = normalizeCard(
      v1((c) => (c.supportedInterfaces[0].protocolVersion = '1.0.0')),
      FILE,
    );
    expect(card.supportedInterfaces[0]!.protocolVersion).toBe('1.0');
  });

  it('keeps skill modes when given and leaves them unset when empty (defaults apply)', () => {
    const { card } = normalizeCard(
      v1((c) => {
        c.skills = [
          {
            id: 'a',
            name: 'A',
            description: 'a',
            tags: [],
            inputModes: ['application/json'],
            outputModes: ['image/png'],
            examples: ['x'],
          },
          { id: 'b', name: 'B', description: 'b', tags: [], inputModes: [], outputModes: [] },
        ];
      }),
      FILE,
    );
    expect(card.skills[0]).toEqual({
      id: 'a',
      name: 'A',
      description: 'a',
      tags: [],
      examples: ['x'],
      inputModes: ['application/json'],
      outputModes: ['image/png'],
    });
    expect(card.skills[1]).toEqual({ id: 'b', name: 'B', description: 'b', tags: [] });
  });

  it('ignores unknown fields at every level', () => {
    const plain = normalizeCard(v1(), FILE);
    const extra = normalizeCard(
      v1((c) => {
        c._note = 'x';
        c.protocols = { mcp: 'sse' };
        c.capabilities.stateTransitionHistory = true;
        c.capabilities.somethingNew = { a: 1 };
        c.supportedInterfaces[0].weight = 3;
        c.skills[0].inputSchema = { type: 'object' };
        c.securitySchemes.bearer.httpAuthSecurityScheme.extra = 'y';
      }),
      FILE,
    );
    expect(extra).toEqual(plain);
  });

  it('does not mutate its input', () => {
    const raw = v1((c) => {
      c.supportedInterfaces.push({ url: '/rel', protocolBinding: 'jsonrpc', protocolVersion: '0.3.0' });
      c.defaultInputModes = ['text', 'text/plain'];
    });
    const before = structuredClone(raw);
    const { card } = normalizeCard(raw, FETCHED);
    expect(raw).toEqual(before);
    card.skills[0]!.tags.push('mutated');
    card.supportedInterfaces[0]!.url = 'changed';
    expect(raw).toEqual(before);
  });

  it('accepts a deeply frozen input', () => {
    const freeze = (o: unknown): unknown => {
      if (o && typeof o === 'object') {
        for (const v of Object.values(o)) freeze(v);
        Object.freeze(o);
      }
      return o;
    };
    expect(() => normalizeCard(freeze(v03()), FILE)).not.toThrow();
    expect(() => normalizeCard(freeze(v1()), FILE)).not.toThrow();
  });
});

describe('A2A 0.3 cards', () => {
  it('JSON-schema form: url + preferredTransport + additionalInterfaces → supportedInterfaces at 0.3, primary deduplicated', () => {
    const { card, warnings } = normalizeCard(v03(), FILE);
    expect(warnings).toEqual([]);
    expect(card.shape).toBe('0.3');
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://georoute.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://georoute.example.com/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '0.3' },
      { url: 'https://georoute.example.com/a2a/json', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities).toEqual({
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: true,
      extensions: [],
    });
  });

  it('warns protocol-version-missing on a 0.3 card without protocolVersion (not on a 0.2 card at the legacy path)', () => {
    const { card, warnings } = normalizeCard(
      v03((c) => delete c.protocolVersion),
      FILE,
    );
    expect(card.shape).toBe('0.3');
    expect(codes(warnings)).toEqual(['protocol-version-missing']);
    expect(warnings[0]!.path).toBe('$.protocolVersion');
    expect(
      codes(
        normalizeCard(
          v03((c) => delete c.protocolVersion),
          { ...FETCHED, legacyWellKnown: true },
        ).warnings,
      ),
    ).toEqual([]);
  });

  it('url + preferredTransport contradicting additionalInterfaces: the explicit entries win, with a warning', () => {
    const raw = v03((c) => {
      c.url = 'https://georoute.example.com/rpc';
      c.preferredTransport = 'HTTP+JSON';
      c.additionalInterfaces = [
        { url: 'https://georoute.example.com/rpc', transport: 'JSONRPC' },
        { url: 'https://georoute.example.com/rest', transport: 'HTTP+JSON' },
      ];
    });
    const { card, warnings } = normalizeCard(raw, FILE);
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://georoute.example.com/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://georoute.example.com/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
    expect(codes(warnings)).toEqual(['preferred-transport-contradicted']);
    expect(warnings[0]!.message).toContain('HTTP+JSON');
    expect(warnings[0]!.message).toContain('JSONRPC');
    // Not listed at all, or the preferred binding listed nowhere else: no contradiction.
    expect(
      codes(
        normalizeCard(
          { ...raw, additionalInterfaces: [{ url: 'https://georoute.example.com/rpc', transport: 'JSONRPC' }] },
          FILE,
        ).warnings,
      ),
    ).toEqual([]);
    expect(
      codes(
        normalizeCard(
          v03((c) => (c.additionalInterfaces = [{ url: 'https://georoute.example.com/rest', transport: 'HTTP+JSON' }])),
          FILE,
        ).warnings,
      ),
    ).toEqual([]);
  });

  it('warns version-not-semver naming both spellings for a coercible card version only', () => {
    for (const [spelling, read] of [
      ['1.0', '1.0.0'],
      ['2', '2.0.0'],
      ['v1.2', '1.2.0'],
    ]) {
      const { warnings } = normalizeCard(
        v03((c) => (c.version = spelling)),
        FILE,
      );
      expect(codes(warnings)).toEqual(['version-not-semver']);
      expect(warnings[0]!.message).toContain(`"${spelling}"`);
      expect(warnings[0]!.message).toContain(read);
      expect(warnings[0]!.path).toBe('$.version');
    }
    for (const other of ['1.2.0', 'v1.2.3', '2026-07-03', 'beta'])
      expect(
        codes(
          normalizeCard(
            v03((c) => (c.version = other)),
            FILE,
          ).warnings,
        ),
        other,
      ).toEqual([]);
  });

  it('JSON-schema form: `type` discriminator, `in` for apiKey, `security: [{name: [scopes]}]`', () => {
    const { card } = normalizeCard(v03(), FILE);
    expect(card.securitySchemes).toEqual({
      google: {
        type: 'openIdConnect',
        openIdConnectUrl: 'https://accounts.google.com/.well-known/openid-configuration',
      },
      key: { type: 'apiKey', location: 'header', name: 'X-API-Key', description: 'an API key' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      oauth: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://t.example.com', scopes: { read: 'read' } } },
      },
      mtls: { type: 'mtls' },
    });
    expect(card.securityRequirements).toEqual([{ google: ['openid', 'profile'] }, { key: [], bearer: [] }]);
    expect(card.skills[0]!.securityRequirements).toEqual([{ oauth: ['read'] }]);
  });

  it('proto-wrapper form: `apiKeySecurityScheme` with `location`, `security: [{schemes: {name: {list}}}]`', () => {
    const raw = v03((c) => {
      c.securitySchemes = {
        key: { apiKeySecurityScheme: { location: 'cookie', name: 'sid' } },
        oauth: {
          oauth2SecurityScheme: {
            flows: { authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: {} } },
          },
        },
      };
      c.security = [{ schemes: { key: { list: [] } } }, { schemes: { oauth: { list: ['read', 'write'] } } }];
      c.skills[0].security = [{ schemes: { oauth: { list: ['read'] } } }];
    });
    const { card, warnings } = normalizeCard(raw, FILE);
    expect(warnings).toEqual([]);
    expect(card.securitySchemes.key).toEqual({ type: 'apiKey', location: 'cookie', name: 'sid' });
    expect(card.securitySchemes.oauth).toMatchObject({ type: 'oauth2' });
    expect(card.securityRequirements).toEqual([{ key: [] }, { oauth: ['read', 'write'] }]);
    expect(card.skills[0]!.securityRequirements).toEqual([{ oauth: ['read'] }]);
  });

  it('both forms give the same normalised requirements', () => {
    const plain = normalizeCard(
      v03((c) => (c.security = [{ google: ['openid'] }, { key: [], bearer: [] }])),
      FILE,
    ).card;
    const wrapped = normalizeCard(
      v03(
        (c) =>
          (c.security = [
            { schemes: { google: { list: ['openid'] } } },
            { schemes: { key: { list: [] }, bearer: { list: [] } } },
          ]),
      ),
      FILE,
    ).card;
    expect(wrapped.securityRequirements).toEqual(plain.securityRequirements);
  });

  it.each([
    ['0.3.0', '0.3', '0.3'],
    ['0.2.5', '0.2', '0.2'],
    ['0.2.9', '0.2', '0.2'],
    ['0.3', '0.3', '0.3'],
    [undefined, '0.3', '0.3'],
  ])('protocolVersion %s → interfaces at %s (shape %s)', (declared, version, shape) => {
    const raw = v03((c) => {
      if (declared === undefined) delete c.protocolVersion;
      else c.protocolVersion = declared;
    });
    const { card } = normalizeCard(raw, FILE);
    expect(card.supportedInterfaces.map((i) => i.protocolVersion)).toEqual([version, version, version]);
    expect(card.shape).toBe(shape);
  });

  it('default binding is JSONRPC; a url-only card has one interface', () => {
    const raw = v03((c) => {
      delete c.preferredTransport;
      delete c.additionalInterfaces;
    });
    expect(normalizeCard(raw, FILE).card.supportedInterfaces).toEqual([
      { url: 'https://georoute.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
  });

  it('the primary keeps preferredTransport; a repeat of it in additionalInterfaces is dropped, other order kept', () => {
    const raw = v03((c) => {
      c.url = 'grpc.example.com:443';
      c.preferredTransport = 'GRPC';
      c.additionalInterfaces = [
        { url: 'https://georoute.example.com/rest', transport: 'HTTP+JSON' },
        { url: 'grpc.example.com:443', transport: 'GRPC' },
        { url: 'https://georoute.example.com/rpc', transport: 'JSONRPC' },
      ];
    });
    expect(normalizeCard(raw, FILE).card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.url}`)).toEqual([
      'GRPC grpc.example.com:443',
      'HTTP+JSON https://georoute.example.com/rest',
      'JSONRPC https://georoute.example.com/rpc',
    ]);
  });

  it('the same URL with another transport is not a duplicate', () => {
    const raw = v03((c) => (c.additionalInterfaces = [{ url: c.url, transport: 'HTTP+JSON' }]));
    expect(normalizeCard(raw, FILE).card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual([
      'JSONRPC',
      'HTTP+JSON',
    ]);
  });

  it('a 0.3 card without supportsAuthenticatedExtendedCard has extendedAgentCard false', () => {
    expect(
      normalizeCard(
        v03((c) => delete c.supportsAuthenticatedExtendedCard),
        FILE,
      ).card.capabilities.extendedAgentCard,
    ).toBe(false);
  });
});

describe('hybrid cards', () => {
  it('supportedInterfaces wins over url/preferredTransport, with a hybrid-card warning', () => {
    const raw = v1((c) => {
      c.url = 'https://old.example.com/a2a';
      c.preferredTransport = 'HTTP+JSON';
      c.protocolVersion = '0.3.0';
      c.additionalInterfaces = [{ url: 'https://old.example.com/grpc', transport: 'GRPC' }];
    });
    const { card, warnings } = normalizeCard(raw, FILE);
    expect(card.shape).toBe('hybrid');
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://a.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ]);
    expect(codes(warnings)).toEqual(['hybrid-card']);
  });

  it('no hybrid-card warning when the 0.3 endpoint is one of supportedInterfaces (an SDK serving 0.3 clients)', () => {
    const raw = v1((c) => {
      c.url = 'https://a.example.com/a2a';
      c.preferredTransport = 'JSONRPC';
      c.protocolVersion = '0.3';
    });
    const { card, warnings } = normalizeCard(raw, FILE);
    expect(card.shape).toBe('hybrid');
    expect(codes(warnings)).toEqual([]);
  });

  it('securityRequirements wins over security when both are present', () => {
    const raw = v1((c) => {
      c.url = 'https://old.example.com/a2a';
      c.securitySchemes.key = { apiKeySecurityScheme: { location: 'header', name: 'k' } };
      c.security = [{ key: [] }];
    });
    expect(normalizeCard(raw, FILE).card.securityRequirements).toEqual([{ bearer: [] }]);
  });

  it('a scheme carrying both the 1.0 wrapper and 0.3 flat fields is read from the wrapper', () => {
    const raw = v1((c) => {
      c.securitySchemes = {
        key: {
          apiKeySecurityScheme: { location: 'header', name: 'X-New' },
          type: 'apiKey',
          in: 'query',
          name: 'x-old',
        },
      };
      c.securityRequirements = [];
    });
    expect(normalizeCard(raw, FILE).card.securitySchemes.key).toEqual({
      type: 'apiKey',
      location: 'header',
      name: 'X-New',
    });
  });
});

describe('repairs with warnings', () => {
  it.each([
    ['jsonrpc', 'JSONRPC'],
    ['JsonRpc', 'JSONRPC'],
    ['http+json', 'HTTP+JSON'],
    ['grpc', 'GRPC'],
  ])('binding "%s" → "%s" with a noncanonical-binding-name warning naming the path', (given, canonical) => {
    const { card, warnings } = normalizeCard(
      v1((c) => (c.supportedInterfaces[0].protocolBinding = given)),
      FILE,
    );
    expect(card.supportedInterfaces[0]!.protocolBinding).toBe(canonical);
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'noncanonical-binding-name', path: '$.supportedInterfaces[0].protocolBinding' }),
    ]);
  });

  it('0.3 preferredTransport and transport names are canonicalised too', () => {
    const raw = v03((c) => {
      c.preferredTransport = 'jsonrpc';
      c.additionalInterfaces = [{ url: 'https://georoute.example.com/rest', transport: 'Http+Json' }];
    });
    const { card, warnings } = normalizeCard(raw, FILE);
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON']);
    expect(warnings.map((w) => w.path)).toEqual(['$.preferredTransport', '$.additionalInterfaces[0].transport']);
  });

  it('a custom binding URI is kept as is, without warning', () => {
    const uri = 'https://example.com/bindings/websocket/v1';
    const { card, warnings } = normalizeCard(
      v1((c) => (c.supportedInterfaces[0].protocolBinding = uri)),
      FILE,
    );
    expect(card.supportedInterfaces[0]!.protocolBinding).toBe(uri);
    expect(warnings).toEqual([]);
  });

  it('a relative interface URL is resolved against baseUrl, with a warning', () => {
    const { card, warnings } = normalizeCard(
      v1((c) => (c.supportedInterfaces[0].url = '/api/a2a')),
      FETCHED,
    );
    expect(card.supportedInterfaces[0]!.url).toBe('https://agent.example.com/api/a2a');
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'relative-interface-url', path: '$.supportedInterfaces[0].url' }),
    ]);
  });

  it('a user name or password in an interface URL is an error naming the path, not echoing them', () => {
    const e = cardError(
      v1((c) => (c.supportedInterfaces[0].url = 'https://user:pw-secret@agent.example.com/a2a')),
      FETCHED,
    );
    expect(e.path).toBe('$.supportedInterfaces[0].url');
    expect(e.message).toContain('credentials in an interface URL are not allowed');
    expect(e.message).not.toContain('pw-secret');
  });

  it('so is one whose password holds "/" (it does not parse), in every form: http(s), gRPC host:port or URL, scheme-relative', () => {
    const cases: Array<[binding: string, url: string]> = [
      ['JSONRPC', 'https://user:tok+/=en@agent.example.com/a2a'],
      ['HTTP+JSON', 'http://user:tok+/=en@127.0.0.1:1'],
      ['GRPC', 'user:tok+/=en@agent.example.com:443'],
      ['GRPC', 'grpcs://user:tok+/=en@agent.example.com:443'],
      ['JSONRPC', '//user:tok+/=en@agent.example.com/a2a'],
    ];
    for (const [binding, url] of cases) {
      const e = cardError(
        v1((c) => {
          c.supportedInterfaces[0].protocolBinding = binding;
          c.supportedInterfaces[0].url = url;
        }),
        FETCHED,
      );
      expect(e.path, url).toBe('$.supportedInterfaces[0].url');
      expect(e.message, url).toContain('credentials in an interface URL are not allowed (the URL is not shown)');
      expect(e.message, url).not.toContain('tok+');
    }
  });

  it('a relative URL without baseUrl (a card file) is an error naming the path', () => {
    const e = cardError(
      v1((c) => (c.supportedInterfaces[0].url = '/api/a2a')),
      FILE,
    );
    expect(e.path).toBe('$.supportedInterfaces[0].url');
    expect(e.message).toContain('/api/a2a');
  });

  it('0.3 relative URLs name the field they came from (after deduplication)', () => {
    const raw = v03((c) => {
      c.url = '/a2a';
      c.additionalInterfaces = [
        { url: '/a2a', transport: 'JSONRPC' },
        { url: '/rest', transport: 'HTTP+JSON' },
      ];
    });
    const { card, warnings } = normalizeCard(raw, FETCHED);
    expect(card.supportedInterfaces.map((i) => i.url)).toEqual([
      'https://agent.example.com/a2a',
      'https://agent.example.com/rest',
    ]);
    expect(warnings.map((w) => w.path)).toEqual(['$.url', '$.additionalInterfaces[1].url']);
    expect(cardError(raw, FILE).path).toBe('$.url');
    expect(
      cardError(
        v03((c) => (c.additionalInterfaces = [{ url: 'rest', transport: 'HTTP+JSON' }])),
        FILE,
      ).path,
    ).toBe('$.additionalInterfaces[0].url');
  });

  it('a gRPC host:port is not treated as a relative URL', () => {
    const { card, warnings } = normalizeCard(
      v1(
        (c) => (c.supportedInterfaces = [{ url: 'localhost:11001', protocolBinding: 'GRPC', protocolVersion: '1.0' }]),
      ),
      FILE,
    );
    expect(card.supportedInterfaces[0]!.url).toBe('localhost:11001');
    expect(warnings).toEqual([]);
  });

  it('mode "text" is kept in the agent\'s spelling (compared as "text/plain") with a warning; duplicates collapse', () => {
    const { card, warnings } = normalizeCard(
      v1((c) => (c.defaultInputModes = ['text', 'text/plain', 'application/json'])),
      FILE,
    );
    expect(card.defaultInputModes).toEqual(['text', 'application/json']);
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'mode-not-media-type', path: '$.defaultInputModes[0]' }),
    ]);
  });

  it('non-media-type tokens are dropped with a warning each', () => {
    const { card, warnings } = normalizeCard(
      v1((c) => {
        c.defaultOutputModes = ['text', 'task-status', 'data', 'application/json'];
        c.skills[0].outputModes = ['image', 'image/png'];
      }),
      FILE,
    );
    expect(card.defaultOutputModes).toEqual(['text', 'application/json']);
    expect(card.skills[0]!.outputModes).toEqual(['image/png']);
    expect(warnings.map((w) => w.path)).toEqual([
      '$.defaultOutputModes[0]',
      '$.defaultOutputModes[1]',
      '$.defaultOutputModes[2]',
      '$.skills[0].outputModes[0]',
    ]);
    expect(codes(warnings)).toEqual([
      'mode-not-media-type',
      'mode-not-media-type',
      'mode-not-media-type',
      'mode-not-media-type',
    ]);
  });

  it('media types with parameters and wildcards are kept verbatim (opaque)', () => {
    const { card, warnings } = normalizeCard(
      v1((c) => (c.defaultOutputModes = ['application/json; charset=utf-8', '*/*', 'image/*'])),
      FILE,
    );
    expect(card.defaultOutputModes).toEqual(['application/json; charset=utf-8', '*/*', 'image/*']);
    expect(warnings).toEqual([]);
  });

  it('a mode list where every entry is dropped is an error', () => {
    expect(cardError(v1((c) => (c.skills[0].outputModes = ['task-status']))).path).toBe('$.skills[0].outputModes');
  });

  it('a 1.0 card using the 0.3 `security` field is read, with a legacy-security-field warning', () => {
    const raw = v1((c) => {
      delete c.securityRequirements;
      c.security = [{ bearer: [] }];
    });
    const { card, warnings } = normalizeCard(raw, FILE);
    expect(card.securityRequirements).toEqual([{ bearer: [] }]);
    expect(warnings).toEqual([expect.objectContaining({ code: 'legacy-security-field', path: '$.security' })]);
  });

  it('a protocol version that is not a version (an MCP date) is kept with a warning, not read as 2025.0', () => {
    const { card, warnings } = normalizeCard(
      v1((c) => (c.supportedInterfaces[0].protocolVersion = '2025-06-18')),
      FILE,
    );
    expect(card.supportedInterfaces[0]!.protocolVersion).toBe('2025-06-18');
    expect(warnings).toEqual([
      expect.objectContaining({
        code: 'protocol-version-unrecognized',
        path: '$.supportedInterfaces[0].protocolVersion',
      }),
    ]);
  });
});

describe('majorMinor', () => {
  it.each([
    ['0.3.0', '0.3'],
    ['0.2.5', '0.2'],
    ['1.0', '1.0'],
    ['1.0.0', '1.0'],
    ['1', '1.0'],
    ['v1.0', '1.0'],
    ['1.0.0-rc', '1.0'],
    ['10.12.3', '10.12'],
    [' 0.3 ', '0.3'],
  ])('%s → %s', (given, expected) => {
    const warnings: Array<{ code: string }> = [];
    expect(majorMinor(given, [], warnings as never)).toBe(expected);
    expect(warnings).toEqual([]);
  });

  it.each(['2025-06-18', 'latest', '', 'one.two'])('%j is kept as is, with a warning', (given) => {
    const warnings: Array<{ code: string }> = [];
    expect(majorMinor(given, ['x'], warnings as never)).toBe(given);
    expect(codes(warnings)).toEqual(['protocol-version-unrecognized']);
  });
});

describe('errors: card-invalid, one line naming source and JSON path', () => {
  it('a non-object card', () => {
    for (const raw of [null, [], 'card', 3]) expect(cardError(raw).path).toBe('$');
  });

  it('neither supportedInterfaces nor url', () => {
    const e = cardError({
      name: 'x',
      description: 'y',
      version: '1',
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    });
    expect(e.path).toBe('$.supportedInterfaces');
  });

  it('a security scheme whose type names an Object.prototype member (found by the fuzz) is an unknown type, not a crash', () => {
    for (const type of ['toString', 'constructor', 'hasOwnProperty', '__proto__']) {
      const e = cardError(v03((c) => (c.securitySchemes = { key: { type } })));
      expect(e.path).toBe('$.securitySchemes.key');
      expect(e.message).toContain(`unknown type "${type}"`);
    }
  });

  it('a security scheme named "__proto__" (defined, or only named by a requirement) is card-invalid, not dropped into a plan that needs no credential', () => {
    // As JSON.parse reads a served card: "__proto__" is an own key there.
    const parsed = (text: string) => JSON.parse(text) as Json;
    const cases: Array<[Json, string]> = [
      [
        v1((c) => {
          c.securitySchemes = parsed('{"__proto__": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}');
          c.securityRequirements = parsed('[{"schemes": {"__proto__": {"list": []}}}]');
        }),
        '$.securitySchemes.__proto__',
      ],
      [
        v1((c) => (c.securityRequirements = parsed('[{"schemes": {"__proto__": {"list": []}}}]'))),
        '$.securityRequirements[0].schemes.__proto__',
      ],
      [
        v1(
          (c) =>
            (c.skills[0].securityRequirements = parsed(
              '[{"schemes": {"bearer": {"list": []}}}, {"schemes": {"__proto__": {"list": []}}}]',
            )),
        ),
        '$.skills[0].securityRequirements[1].schemes.__proto__',
      ],
      [v03((c) => (c.security = parsed('[{"__proto__": []}]'))), '$.security[0].__proto__'],
      [v03((c) => (c.skills[0].security = parsed('[{"__proto__": ["read"]}]'))), '$.skills[0].security[0].__proto__'],
    ];
    for (const [card, path] of cases) {
      const e = cardError(card);
      expect(e.path).toBe(path);
      expect(e.message).toContain('security scheme name "__proto__" is not allowed');
    }
  });

  it('skills null', () => {
    const e = cardError(v1((c) => (c.skills = null)));
    expect(e.path).toBe('$.skills');
    expect(e.message).toContain('expected array, got null');
  });

  it('a skill without id', () => {
    const e = cardError(v1((c) => delete c.skills[0].id));
    expect(e.path).toBe('$.skills[0].id');
    expect(e.message).toBe('cards/agent.json $.skills[0].id: expected string, got nothing (missing)');
  });

  it('an empty skill id', () => {
    expect(cardError(v1((c) => (c.skills[0].id = ''))).path).toBe('$.skills[0].id');
  });

  it('a duplicate skill id names the second one', () => {
    const e = cardError(v1((c) => c.skills.push({ ...c.skills[0] })));
    expect(e.path).toBe('$.skills[1].id');
    expect(e.message).toContain('duplicate');
  });

  it('string booleans ("True") name the field and show the value', () => {
    const e = cardError(v03((c) => (c.capabilities.streaming = 'True')));
    expect(e.path).toBe('$.capabilities.streaming');
    expect(e.message).toContain('expected boolean, got string "True"');
    expect(cardError(v1((c) => (c.capabilities.extensions = [{ uri: 'u', required: 'false' }]))).path).toBe(
      '$.capabilities.extensions[0].required',
    );
  });

  it('snake_case keys are errors that name the key and the camelCase spelling', () => {
    const top = cardError(
      v03((c) => {
        c.protocol_version = c.protocolVersion;
        delete c.protocolVersion;
      }),
    );
    expect(top.path).toBe('$.protocol_version');
    expect(top.message).toContain('"protocolVersion"');
    expect(cardError(v1((c) => (c.capabilities.push_notifications = true))).path).toBe(
      '$.capabilities.push_notifications',
    );
    expect(cardError(v1((c) => (c.supportedInterfaces[0].protocol_binding = 'JSONRPC'))).path).toBe(
      '$.supportedInterfaces[0].protocol_binding',
    );
    expect(cardError(v1((c) => (c.skills[0].input_modes = ['text/plain']))).path).toBe('$.skills[0].input_modes');
  });

  it('a missing required 1.0 interface field (protocolVersion aside: read as 1.0)', () => {
    expect(cardError(v1((c) => delete c.supportedInterfaces[0].protocolBinding)).path).toBe(
      '$.supportedInterfaces[0].protocolBinding',
    );
  });

  it('missing name, description, version, modes', () => {
    for (const key of ['name', 'description', 'version', 'defaultInputModes', 'defaultOutputModes']) {
      expect(cardError(v1((c) => delete c[key])).path).toBe(`$.${key}`);
    }
  });

  it('an unknown security scheme in a card requirement names the path (1.0 form)', () => {
    const e = cardError(
      v1(
        (c) => (c.securityRequirements = [{ schemes: { bearer: { list: [] } } }, { schemes: { ghost: { list: [] } } }]),
      ),
    );
    expect(e.path).toBe('$.securityRequirements[1].schemes.ghost');
    expect(e.message).toContain('"ghost"');
  });

  it('an unknown security scheme in a 0.3 skill `security` names the field the card uses', () => {
    const e = cardError(v03((c) => (c.skills[0].security = [{ oauth: ['read'] }, { example: [] }])));
    expect(e.path).toBe('$.skills[0].security[1].example');
    expect(e.message).toContain('skill "route-optimizer-traffic"');
  });

  it('a requirement without any securitySchemes at all', () => {
    const e = cardError(v1((c) => delete c.securitySchemes));
    expect(e.path).toBe('$.securityRequirements[0].schemes.bearer');
  });

  it('an unknown scheme type, several variant keys, or a malformed variant', () => {
    expect(cardError(v03((c) => (c.securitySchemes.pay = { type: 'x402' }))).path).toBe('$.securitySchemes.pay');
    expect(
      cardError(
        v1((c) => (c.securitySchemes.two = { mtlsSecurityScheme: {}, httpAuthSecurityScheme: { scheme: 'Basic' } })),
      ).message,
    ).toContain('several variant keys');
    expect(cardError(v1((c) => (c.securitySchemes.bad = { apiKeySecurityScheme: { name: 'k' } }))).path).toBe(
      '$.securitySchemes.bad.apiKeySecurityScheme.location',
    );
    expect(
      cardError(v03((c) => (c.securitySchemes.bad = { type: 'apiKey', location: 'header', name: 'k' }))).path,
    ).toBe('$.securitySchemes.bad.in');
  });

  it('a requirement that matches neither form', () => {
    expect(cardError(v1((c) => (c.securityRequirements = [{ schemes: { bearer: ['x'] } }]))).path).toBe(
      '$.securityRequirements[0]',
    );
  });

  it('interface paths in 0.3 cards', () => {
    expect(cardError(v03((c) => (c.additionalInterfaces = [{ url: 'https://x' }]))).path).toBe(
      '$.additionalInterfaces[0].transport',
    );
  });
});

describe('legacy cards (0.1/0.2 traits)', () => {
  function v02(
    patch: (c: Json) => void = () => {
      /* unchanged */
    },
  ): Json {
    const c: Json = {
      name: 'Old Agent',
      description: 'url only',
      version: '1.0.0',
      url: 'https://old.example.com/a2a',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'd', tags: [] }],
    };
    patch(c);
    return c;
  }

  it('reads a card without protocolVersion found only at agent.json as 0.2, elsewhere as 0.3', () => {
    const legacy = normalizeCard(v02(), { ...FETCHED, legacyWellKnown: true });
    expect(legacy.card.supportedInterfaces[0]!.protocolVersion).toBe('0.2');
    expect(legacy.card.shape).toBe('0.2');
    expect(normalizeCard(v02(), FETCHED).card.supportedInterfaces[0]!.protocolVersion).toBe('0.3');
    // A declared version wins over the path.
    const declared = normalizeCard(
      v02((c) => (c.protocolVersion = '0.3.0')),
      { ...FETCHED, legacyWellKnown: true },
    );
    expect(declared.card.supportedInterfaces[0]!.protocolVersion).toBe('0.3');
  });

  it('warns when a 0.x-shaped card declares protocolVersion 1.0', () => {
    const { card, warnings } = normalizeCard(
      v02((c) => (c.protocolVersion = '1.0')),
      FETCHED,
    );
    expect(card.supportedInterfaces[0]!.protocolVersion).toBe('1.0');
    expect(warnings.map((w) => w.code)).toContain('legacy-shape-claims-version');
  });

  it('warns that an 0.1 authentication object is not understood', () => {
    const { card, warnings } = normalizeCard(
      v02((c) => (c.authentication = { schemes: ['OAuth2'] })),
      FETCHED,
    );
    expect(card.securityRequirements).toEqual([]);
    expect(warnings.find((w) => w.code === 'legacy-authentication-ignored')?.path).toBe('$.authentication');
  });

  it('says supportedInterfaces must be a non-empty array when it is present but unusable', () => {
    expect(() =>
      normalizeCard(
        v1((c) => (c.supportedInterfaces = {})),
        FILE,
      ),
    ).toThrow('$.supportedInterfaces: must be a non-empty array of interfaces');
  });
});
