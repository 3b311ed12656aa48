/** Where a lock entry sends credentials, and which routes of a head entry its base never had. */
import { describe, expect, it } from 'vitest';
import { normalizeCard } from '../../src/card/normalize.js';
import { gateFromBase, withheldRoutes } from '../../src/lock/base-gate.js';
import { destinationRefusal } from '../../src/lock/credential-policy.js';
import { credentialRoutes, extendedRoutes, originOf, uncoveredRoutes } from '../../src/lock/credential-routes.js';
import { schemeDrift } from '../../src/lock/drift.js';
import { assessRisks } from '../../src/lock/risk.js';
import type { ExtendedRoute } from '../../src/lock/route.js';
import type { LockEntry, Lockfile } from '../../src/lock/schema.js';
import { type AgentSettings, DEFAULT_PROFILE, type Manifest } from '../../src/manifest/schema.js';
import { keyedWorkedExample, lockEntryFor } from '../helpers/worked-example.js';

type Json = Record<string, any>;
const CARD_URL = 'https://research.example.com/.well-known/agent-card.json';
const SETTINGS: AgentSettings = { ...DEFAULT_PROFILE, credentials: ['key'] };

const raw = keyedWorkedExample;

function entryFor(json: Json): LockEntry {
  return lockEntryFor(json, SETTINGS);
}

describe('credentialRoutes', () => {
  it('a credentialed plan sends its scheme to its interface origin', () => {
    const routes = credentialRoutes(entryFor(raw()), SETTINGS);
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.every((r) => r.scheme === 'key' && r.purpose === 'plan')).toBe(true);
    expect(uncoveredRoutes(routes, routes)).toEqual([]);
    expect(uncoveredRoutes([], routes).length).toBeGreaterThan(0);
  });

  it('another origin, or the same scheme placed differently, is a new destination', () => {
    const base = credentialRoutes(entryFor(raw()), SETTINGS);
    const moved = credentialRoutes(
      entryFor(
        raw((c) => {
          for (const i of c.supportedInterfaces) i.url = i.url.replace('research.example.com', 'evil.example.net');
        }),
      ),
      SETTINGS,
    );
    expect(uncoveredRoutes(base, moved).map((r) => r.origin)).toContain('https://evil.example.net');
    const query = credentialRoutes(
      entryFor(
        raw((c) => {
          c.securitySchemes.key = { apiKeySecurityScheme: { location: 'query', name: 'k' } };
        }),
      ),
      SETTINGS,
    );
    expect(uncoveredRoutes(base, query).length).toBeGreaterThan(0);
  });

  it('origins are lower-cased scheme://host[:port]; a scheme-less gRPC address reads as grpc://', () => {
    expect(originOf('HTTPS://Agent.Example.com:8443/a2a/v1?x=1')).toBe('https://agent.example.com:8443');
    expect(originOf('agent.example.com:443')).toBe('grpc://agent.example.com:443');
  });

  it('a gRPC route goes to the origin its channel is dialled at (conformance/vectors/credential-origin.json): host:port over TLS, grpc:// in plaintext', () => {
    // allowHttp: a plaintext interface off loopback is locked at all only with it.
    const keyed: AgentSettings = { ...SETTINGS, bindings: ['GRPC'], allowHttp: true };
    const grpc = (url: string) =>
      credentialRoutes(
        lockEntryFor(
          raw((c) => {
            c.supportedInterfaces = [{ url, protocolBinding: 'GRPC', protocolVersion: '1.0' }];
          }),
          keyed,
        ),
        keyed,
      );
    expect(grpc('grpc.example:443').map((r) => r.origin)).toEqual(['https://grpc.example']);
    const plaintext = destinationRefusal('research', grpc('grpc://grpc.example:50051'), ['https://grpc.example:50051']);
    expect(plaintext?.data).toMatchObject({ destination: 'http://grpc.example:50051' });
    expect(plaintext?.hint).toMatch(/no credentialDestinations entry allows it/);
    expect(destinationRefusal('research', grpc('grpc.example:50051'), ['https://grpc.example:50051'])).toBeUndefined();
  });
});

describe('an OAuth client credentials token URL is a credential destination', () => {
  const TOKEN_URL = 'https://auth.research.example.com/oauth/token';
  const oauth = (tokenUrl: string) => (c: Json) => {
    c.securitySchemes.key = {
      oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl, scopes: { read: 'read' } } } },
    };
  };
  const cardOf = (json: Json) => normalizeCard(json, { source: CARD_URL, baseUrl: CARD_URL }).card;

  it('a token route per plan scheme; a card that moves the token URL (even its path) is high new-credential-destination in a2a diff', () => {
    const base = entryFor(raw(oauth(TOKEN_URL)));
    const routes = credentialRoutes(base, SETTINGS);
    expect(routes.filter((r) => r.purpose === 'token')).toEqual([
      {
        purpose: 'token',
        skill: 'market-size',
        origin: 'https://auth.research.example.com',
        scheme: 'key',
        placement: { tokenUrl: TOKEN_URL },
      },
    ]);
    for (const moved of ['https://evil.example.net/oauth/token', 'https://auth.research.example.com/other/token']) {
      const head = entryFor(raw(oauth(moved)));
      expect(uncoveredRoutes(routes, credentialRoutes(head, SETTINGS))).toEqual([
        expect.objectContaining({ purpose: 'token', placement: { tokenUrl: moved } }),
      ]);
      const { risks } = assessRisks({ entry: base, settings: SETTINGS }, { entry: head, settings: SETTINGS });
      expect(risks).toContainEqual(
        expect.objectContaining({
          code: 'new-credential-destination',
          level: 'high',
          message: expect.stringContaining(`key client secret → ${moved} (OAuth token request, plan market-size)`),
        }),
      );
    }
  });

  it('verify: a served card whose token URL moved is drift of the locked plan', () => {
    const base = entryFor(raw(oauth(TOKEN_URL)));
    expect(schemeDrift(base.plans, cardOf(raw(oauth(TOKEN_URL))), cardOf(raw(oauth(TOKEN_URL))))).toEqual([]);
    expect(
      schemeDrift(base.plans, cardOf(raw(oauth(TOKEN_URL))), cardOf(raw(oauth('https://evil.example.net/token')))),
    ).toEqual([expect.objectContaining({ skill: 'market-size', field: 'securitySchemes.key' })]);
  });

  it('the pull-request gate withholds the client secret from a token URL the base lockfile did not have', () => {
    const base: Lockfile = {
      lockfileVersion: 1,
      settings: { research: SETTINGS },
      agents: { research: entryFor(raw(oauth(TOKEN_URL))) },
    } as Lockfile;
    const manifest = {
      profile: DEFAULT_PROFILE,
      agents: {
        research: {
          card: CARD_URL,
          skills: ['market-size'],
          credentials: { key: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'CSECRET' } } } },
        },
      },
    } as unknown as Manifest;
    const gate = gateFromBase('research', base, manifest);
    const sources = manifest.agents.research!.credentials;
    const same = credentialRoutes(entryFor(raw(oauth(TOKEN_URL))), SETTINGS);
    expect(withheldRoutes(gate, same, sources)).toEqual([]);
    const moved = credentialRoutes(entryFor(raw(oauth('https://evil.example.net/token'))), SETTINGS);
    expect(withheldRoutes(gate, moved, sources)).toEqual([
      expect.objectContaining({ purpose: 'token', origin: 'https://evil.example.net' }),
    ]);
    // The extended card's request (what a verify run sends credentials along): its token route is gated alike.
    const route = {
      iface: { url: 'https://research.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      requirement: { key: ['read'] },
    } as unknown as ExtendedRoute;
    const extended = (url: string) => extendedRoutes(route, cardOf(raw(oauth(url))).securitySchemes);
    expect(extended(TOKEN_URL).map((r) => r.purpose)).toEqual(['extended', 'token']);
    expect(withheldRoutes(gate, extended('https://evil.example.net/token'), sources)).toEqual([
      expect.objectContaining({ purpose: 'token', origin: 'https://evil.example.net' }),
    ]);
    // Another secret variable for the same token URL is withheld too.
    expect(
      withheldRoutes(gate, same, { key: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'OTHER' } } } })
        .length,
    ).toBeGreaterThan(0);
  });
});
