/** Where a lock entry sends credentials, and which routes of a head entry its base never had. */
import { describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import { normalizeCard } from '../../src/card/normalize.js';
import { credentialRoutes, originOf, uncoveredRoutes } from '../../src/lock/credential-routes.js';
import { negotiateSkills } from '../../src/lock/drift.js';
import type { LockEntry } from '../../src/lock/schema.js';
import { DEFAULT_PROFILE, type AgentSettings } from '../../src/manifest/schema.js';
import { keyedWorkedExample } from '../helpers/worked-example.js';

type Json = Record<string, any>;
const CARD_URL = 'https://research.example.com/.well-known/agent-card.json';
const SETTINGS: AgentSettings = { ...DEFAULT_PROFILE, credentials: ['key'] };

const raw = keyedWorkedExample;

function entryFor(json: Json): LockEntry {
  const card = normalizeCard(json, { source: CARD_URL, baseUrl: CARD_URL }).card;
  const { plans } = negotiateSkills(card, ['market-size'], SETTINGS);
  return { card: CARD_URL, resolved: CARD_URL, a2aVersion: '1.0', version: String(json.version), integrity: integrityOf(json), snapshot: json, plans };
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
    const moved = credentialRoutes(entryFor(raw((c) => { for (const i of c.supportedInterfaces) i.url = i.url.replace('research.example.com', 'evil.example.net'); })), SETTINGS);
    expect(uncoveredRoutes(base, moved).map((r) => r.origin)).toContain('https://evil.example.net');
    const query = credentialRoutes(entryFor(raw((c) => { c.securitySchemes.key = { apiKeySecurityScheme: { location: 'query', name: 'k' } }; })), SETTINGS);
    expect(uncoveredRoutes(base, query).length).toBeGreaterThan(0);
  });

  it('origins are lower-cased scheme://host[:port]; a scheme-less gRPC address reads as grpc://', () => {
    expect(originOf('HTTPS://Agent.Example.com:8443/a2a/v1?x=1')).toBe('https://agent.example.com:8443');
    expect(originOf('agent.example.com:443')).toBe('grpc://agent.example.com:443');
  });
});
