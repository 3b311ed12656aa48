/**
 * The bill of agents (lock/cyclonedx.ts): a lockfile of several agents (the worked example, real
 * cards from test/fixtures/cards/real) mapped to a CycloneDX 1.6 BOM that the CycloneDX library's
 * strict JSON validator accepts (and rejects once broken); deterministic bytes; the lockfile digest
 * and the serial number derived from it; trust boundary, authentication and data flows per agent;
 * hostile card strings bounded and inert.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { integrityOf, nameBasedUuid } from '../../src/canonical.js';
import { normalizeCard } from '../../src/card/normalize.js';
import { BOM_TEXT_MAX, type BomService, bomText, cycloneDxBom } from '../../src/lock/cyclonedx.js';
import { lockDigest } from '../../src/lock/digest.js';
import { negotiateSkills } from '../../src/lock/drift.js';
import { parseLockfile, serializeLockfile } from '../../src/lock/format.js';
import { LOCKFILE_VERSION, type LockEntry, type Lockfile } from '../../src/lock/schema.js';
import { type AgentSettings, DEFAULT_PROFILE } from '../../src/manifest/schema.js';
import {
  type Json,
  KEYED_SETTINGS,
  keyedWorkedExample,
  lockEntryFor,
  workedExample,
} from '../helpers/worked-example.js';

/** ajv-formats-draft2019's RFC 3987 formats (CommonJS, untyped), which the CycloneDX library does not apply to `iri-reference`. */
const addIriFormats = createRequire(import.meta.url)('ajv-formats-draft2019') as (
  ajv: Ajv,
  options: { formats: string[] },
) => Ajv;

const OPEN: AgentSettings = { ...DEFAULT_PROFILE, credentials: [] };

/** A lock entry for a real card of test/fixtures/cards/real fetched from `source`: the skills its card negotiates under `settings`. */
function realEntry(file: string, source: string, settings: AgentSettings = OPEN, patch?: (c: Json) => void): LockEntry {
  const json = JSON.parse(readFileSync(new URL(`../fixtures/cards/real/${file}`, import.meta.url), 'utf8')) as Json;
  patch?.(json);
  const { card } = normalizeCard(json, { source, baseUrl: source });
  const skills = card.skills.length ? card.skills.map((s) => s.id) : ['*'];
  const { plans } = negotiateSkills(card, skills, settings);
  return {
    card: source,
    resolved: source,
    a2aVersion: card.shape,
    version: String(json.version),
    integrity: integrityOf(json),
    snapshot: json,
    plans,
  };
}

/** A lockfile as `a2a lock` would write it (through its own serializer and parser). */
function lockOf(agents: Record<string, [LockEntry, AgentSettings]>): Lockfile {
  const lock = {
    lockfileVersion: LOCKFILE_VERSION,
    settings: Object.fromEntries(Object.entries(agents).map(([name, [, settings]]) => [name, settings])),
    agents: Object.fromEntries(Object.entries(agents).map(([name, [entry]]) => [name, entry])),
  } as Lockfile;
  return parseLockfile(serializeLockfile(lock), 'a2a.lock.json');
}

/** Five agents: the worked example with a key and a verified signature, four real cards (OAuth 2.0, providers, local and remote). */
function realistic(): Lockfile {
  const citing: AgentSettings = { ...KEYED_SETTINGS, extensions: ['https://example.com/ext/citations/v1'] };
  const research = lockEntryFor(keyedWorkedExample(), citing);
  research.signature = {
    status: 'verified',
    kid: 'k1',
    alg: 'ES256',
    thumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
  };
  const oauth: AgentSettings = { ...DEFAULT_PROFILE, credentials: ['oauth2'] };
  return lockOf({
    research: [research, citing],
    blog: [
      realEntry('09-real-laisky-blog-provider-name.json', 'https://blog.laisky.com/.well-known/agent-card.json'),
      OPEN,
    ],
    shopping: [
      realEntry('10-real-buywhere-text-modes-extra-fields.json', 'https://buywhere.ai/.well-known/agent-card.json'),
      OPEN,
    ],
    eightball: [
      realEntry(
        '21-samples-java-magic8ball-oauth2-client-credentials.json',
        'http://localhost:11000/.well-known/agent-card.json',
        oauth,
      ),
      oauth,
    ],
    monitor: [
      realEntry('26-real-worldmonitor-0.3.json', 'https://www.worldmonitor.app/.well-known/agent-card.json'),
      OPEN,
    ],
  });
}

const OPTIONS = { toolVersion: '9.9.9', source: 'a2a.lock.json' };

/** The CycloneDX library's strict JSON Schema validation of a BOM's text: null when valid, else its errors. */
async function validate(text: string): Promise<unknown> {
  return new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text);
}

function service(bom: { services: BomService[] }, name: string): BomService {
  return bom.services.find((s) => s.name === name)!;
}

describe('cycloneDxBom', () => {
  it('maps a lockfile of five agents to a BOM the CycloneDX 1.6 strict validator accepts, and not once broken', async () => {
    const bom = cycloneDxBom(realistic(), OPTIONS);
    const text = bomText(bom);
    expect(await validate(text)).toBeNull();
    expect(bom.services.map((s) => s.name)).toEqual(['blog', 'eightball', 'monitor', 'research', 'shopping']);
    expect(bom).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1 });
    expect(bom.metadata.tools.components).toEqual([{ type: 'application', name: 'a2a-lock', version: '9.9.9' }]);
    // The validator can fail: a data flow without its required classification, an unknown flow.
    const broken = JSON.parse(text);
    delete broken.services[0].data[0].classification;
    expect(await validate(JSON.stringify(broken))).not.toBeNull();
    const badFlow = JSON.parse(text);
    badFlow.services[0].data[0].flow = 'sideways';
    expect(await validate(JSON.stringify(badFlow))).not.toBeNull();
  });

  it('writes each agent as a service: card version, provider, endpoints, authentication, data flows, card facts', () => {
    const lock = realistic();
    const bom = cycloneDxBom(lock, OPTIONS);
    const research = service(bom, 'research');
    expect(research).toMatchObject({
      'bom-ref': 'a2a-agent:research',
      version: '2.4.0',
      description: 'Produces sourced market sizing reports.',
      // The plan's interface and its locked fallback (the 0.3 one).
      endpoints: ['https://research.example.com/a2a/legacy', 'https://research.example.com/a2a/v1'],
      authenticated: true,
      'x-trust-boundary': true,
      externalReferences: [
        {
          type: 'documentation',
          url: 'https://research.example.com/.well-known/agent-card.json',
          comment: 'A2A agent card',
        },
      ],
    });
    // Inbound: what the client sends the agent; outbound: what the agent returns that the client accepts.
    expect(research.data).toEqual([
      {
        flow: 'inbound',
        classification: 'text/plain',
        name: 'market-size',
        description: 'input mode the client sends',
      },
      {
        flow: 'outbound',
        classification: 'application/json',
        name: 'market-size',
        description: 'output mode the client accepts',
      },
    ]);
    const entry = lock.agents.research!;
    expect(research.properties).toEqual([
      { name: 'a2a-lock:a2a-version', value: '1.0' },
      { name: 'a2a-lock:card', value: 'https://research.example.com/.well-known/agent-card.json' },
      { name: 'a2a-lock:card-integrity', value: entry.integrity },
      { name: 'a2a-lock:card-name', value: 'Market Research Agent' },
      { name: 'a2a-lock:delivery', value: 'stream' },
      { name: 'a2a-lock:extension', value: 'https://example.com/ext/citations/v1' },
      { name: 'a2a-lock:protocol-binding', value: 'JSONRPC' },
      { name: 'a2a-lock:protocol-version', value: '1.0' },
      { name: 'a2a-lock:security-scheme', value: 'key' },
      { name: 'a2a-lock:signature-status', value: 'verified' },
      { name: 'a2a-lock:signer-kid', value: 'k1' },
      { name: 'a2a-lock:signer-thumbprint', value: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' },
      { name: 'a2a-lock:skill', value: 'market-size' },
    ]);
    // A real card's provider; an OAuth 2.0 plan is authenticated, a loopback agent inside the boundary.
    expect(service(bom, 'monitor').provider?.name).toBeTruthy();
    expect(service(bom, 'blog').provider).toEqual({ url: ['https://blog.laisky.com/'] });
    expect(service(bom, 'eightball')).toMatchObject({ authenticated: true, 'x-trust-boundary': false });
    expect(service(bom, 'blog')).toMatchObject({ authenticated: false, 'x-trust-boundary': true });
    const shopping = service(bom, 'shopping');
    expect(new Set(shopping.data.map((d) => d.name)).size).toBe(Object.keys(lock.agents.shopping!.plans).length);
  });

  it('counts where a credential goes for the trust boundary: a loopback agent whose OAuth token endpoint (the client secret) is elsewhere crosses it', () => {
    const oauth: AgentSettings = { ...DEFAULT_PROFILE, credentials: ['oauth2'] };
    const entry = (tokenUrl: string) =>
      realEntry(
        '21-samples-java-magic8ball-oauth2-client-credentials.json',
        'http://localhost:11000/.well-known/agent-card.json',
        oauth,
        (c) => {
          c.securitySchemes.oauth2.flows.clientCredentials.tokenUrl = tokenUrl;
        },
      );
    const bom = cycloneDxBom(
      lockOf({
        local: [entry('http://localhost:11001/token'), oauth],
        leaking: [entry('https://tokens.elsewhere.example/token'), oauth],
        firstParty: [entry('https://tokens.example.com/token'), oauth],
      }),
      { ...OPTIONS, firstParty: ['https://tokens.example.com'] },
    );
    // Every endpoint is loopback in all three: the token endpoint decides.
    for (const name of ['local', 'leaking', 'firstParty'])
      expect(service(bom, name).endpoints).toEqual(['http://localhost:11000/']);
    expect(service(bom, 'local')['x-trust-boundary']).toBe(false);
    expect(service(bom, 'firstParty')['x-trust-boundary']).toBe(false);
    expect(service(bom, 'leaking')['x-trust-boundary']).toBe(true);
  });

  it('is deterministic: the same bytes for the same lockfile, whatever its key order; no timestamp unless given', () => {
    const lock = realistic();
    const reversed = parseLockfile(
      JSON.stringify({
        agents: Object.fromEntries(Object.entries(lock.agents).reverse()),
        settings: Object.fromEntries(Object.entries(lock.settings).reverse()),
        lockfileVersion: lock.lockfileVersion,
      }),
      'a2a.lock.json',
    );
    const text = bomText(cycloneDxBom(lock, OPTIONS));
    expect(bomText(cycloneDxBom(realistic(), OPTIONS))).toBe(text);
    expect(bomText(cycloneDxBom(reversed, OPTIONS))).toBe(text);
    expect(text).not.toContain('timestamp');
    expect(text).not.toMatch(/BomRef\./);
    const stamped = cycloneDxBom(lock, { ...OPTIONS, timestamp: '2026-12-02T07:00:00Z' });
    expect(stamped.metadata.timestamp).toBe('2026-12-02T07:00:00Z');
    expect(stamped.serialNumber).toBe(cycloneDxBom(lock, OPTIONS).serialNumber);
  });

  it('carries the lockfile digest in metadata and derives the serial number from it (UUID v5)', async () => {
    const lock = realistic();
    const bom = cycloneDxBom(lock, OPTIONS);
    const digest = lockDigest(JSON.parse(serializeLockfile(lock)));
    expect(bom.metadata.properties).toContainEqual({ name: 'a2a-lock:lockfile-digest', value: digest });
    expect(bom.serialNumber).toBe(
      `urn:uuid:${nameBasedUuid('6ba7b811-9dad-11d1-80b4-00c04fd430c8', `a2a-lock:lockfile:${digest}`)}`,
    );
    expect(bom.serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Another lockfile, another serial number.
    const other = lockOf({ research: [lockEntryFor(workedExample(), OPEN), OPEN] });
    expect(cycloneDxBom(other, OPTIONS).serialNumber).not.toBe(bom.serialNumber);
  });

  it('nameBasedUuid is RFC 9562 version 5 (its DNS-namespace example)', () => {
    expect(nameBasedUuid('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });

  it('crosses the trust boundary unless every endpoint is first-party (--first-party) or loopback', () => {
    const lock = realistic();
    const plain = cycloneDxBom(lock, OPTIONS);
    expect(service(plain, 'research')['x-trust-boundary']).toBe(true);
    const owned = cycloneDxBom(lock, { ...OPTIONS, firstParty: ['https://research.example.com'] });
    expect(service(owned, 'research')['x-trust-boundary']).toBe(false);
    expect(service(owned, 'blog')['x-trust-boundary']).toBe(true);
    expect(owned.metadata.properties).toContainEqual({
      name: 'a2a-lock:first-party-origin',
      value: 'https://research.example.com',
    });
    // One endpoint elsewhere (a fallback interface on another host) is enough to cross it.
    const mixed = structuredClone(lock);
    mixed.agents.research!.plans['market-size']!.fallbacks = {
      interfaces: [{ url: 'https://elsewhere.example.org/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      delivery: ['poll'],
    };
    const crossing = cycloneDxBom(mixed, { ...OPTIONS, firstParty: ['https://research.example.com'] });
    expect(service(crossing, 'research').endpoints).toEqual([
      'https://elsewhere.example.org/a2a',
      'https://research.example.com/a2a/v1',
    ]);
    expect(service(crossing, 'research')['x-trust-boundary']).toBe(true);
  });

  it("lists a gRPC plan's target beside its fallbacks, as the HTTP/2 origin dialled (https over TLS, http in plaintext), and counts it for the trust boundary", async () => {
    const grpc: AgentSettings = { ...OPEN, bindings: ['GRPC', 'JSONRPC'] };
    const card = (grpcUrl: string) =>
      workedExample((c) => {
        c.supportedInterfaces = [
          { url: grpcUrl, protocolBinding: 'GRPC', protocolVersion: '1.0' },
          { url: 'http://127.0.0.1:9999/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ];
      });
    const remote = lockEntryFor(card('grpc.example:443'), grpc);
    expect(remote.plans['market-size']).toMatchObject({ protocolBinding: 'GRPC', url: 'grpc.example:443' });
    expect(remote.plans['market-size']!.fallbacks?.interfaces.map((i) => i.url)).toEqual(['http://127.0.0.1:9999/a2a']);
    const lock = lockOf({
      remote: [remote, grpc],
      local: [lockEntryFor(card('localhost:50051'), grpc), grpc],
      plain: [lockEntryFor(card('grpc://[::1]:50051'), grpc), grpc],
      tls: [lockEntryFor(card('grpcs://GRPC.Example:8443/ignored'), grpc), grpc],
    });
    const bom = cycloneDxBom(lock, OPTIONS);
    // Every message to grpc.example leaves the machine: listed, and over the boundary.
    expect(service(bom, 'remote').endpoints).toEqual(['http://127.0.0.1:9999/a2a', 'https://grpc.example/']);
    expect(service(bom, 'remote')['x-trust-boundary']).toBe(true);
    // A loopback target is dialled in plaintext, and stays inside.
    expect(service(bom, 'local').endpoints).toEqual(['http://127.0.0.1:9999/a2a', 'http://localhost:50051/']);
    expect(service(bom, 'local')['x-trust-boundary']).toBe(false);
    expect(service(bom, 'plain').endpoints).toEqual(['http://127.0.0.1:9999/a2a', 'http://[::1]:50051/']);
    expect(service(bom, 'plain')['x-trust-boundary']).toBe(false);
    expect(service(bom, 'tls').endpoints).toEqual(['http://127.0.0.1:9999/a2a', 'https://grpc.example:8443/']);
    expect(service(bom, 'tls')['x-trust-boundary']).toBe(true);
    // A first-party gRPC host is named by its origin, as any other.
    const owned = cycloneDxBom(lock, { ...OPTIONS, firstParty: ['https://grpc.example'] });
    expect(service(owned, 'remote')['x-trust-boundary']).toBe(false);
    expect(service(owned, 'tls')['x-trust-boundary']).toBe(true);
    // Its credential too: a key sent over that gRPC plan stays inside with it, and crosses without it.
    const keyed: AgentSettings = { ...KEYED_SETTINGS, bindings: ['GRPC', 'JSONRPC'] };
    const withKey = lockEntryFor(
      keyedWorkedExample((c) => {
        c.supportedInterfaces = [{ url: 'grpc.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0' }];
      }),
      keyed,
    );
    expect(withKey.plans['market-size']).toMatchObject({
      protocolBinding: 'GRPC',
      security: { key: expect.anything() },
    });
    const keyedLock = lockOf({ keyed: [withKey, keyed] });
    expect(service(cycloneDxBom(keyedLock, OPTIONS), 'keyed')['x-trust-boundary']).toBe(true);
    const keyedOwned = cycloneDxBom(keyedLock, { ...OPTIONS, firstParty: ['https://grpc.example'] });
    expect(service(keyedOwned, 'keyed')).toMatchObject({
      endpoints: ['https://grpc.example/'],
      'x-trust-boundary': false,
    });
    // The BOM validates; and since the CycloneDX library leaves `iri-reference` unchecked, each endpoint is held
    // to RFC 3987 here (a registered scheme: `grpcs://` would not pass).
    expect(await validate(bomText(bom))).toBeNull();
    const ajv = new Ajv();
    addIriFormats(ajv, { formats: ['iri-reference'] });
    const iri = ajv.compile({ type: 'string', format: 'iri-reference' });
    for (const s of bom.services) for (const e of s.endpoints) expect(iri(e), e).toBe(true);
    expect(iri('grpcs://grpc.example:443')).toBe(false);
  });

  it('counts platform authentication (originAuth at an endpoint origin) as authenticated', () => {
    const entry = lockEntryFor(workedExample(), OPEN);
    const open = cycloneDxBom(lockOf({ research: [entry, OPEN] }), OPTIONS);
    expect(service(open, 'research').authenticated).toBe(false);
    const fronted = { ...entry, originAuth: { 'https://research.example.com': { bearer: { env: 'TOKEN' } } } };
    expect(service(cycloneDxBom(lockOf({ research: [fronted, OPEN] }), OPTIONS), 'research').authenticated).toBe(true);
  });

  it('bounds hostile card strings and keeps them inert: same JSON value, no raw control or bidi character', async () => {
    const LONG_SKILL = '😀'.repeat(3000);
    const name = `Evil\u202e\u0085\u001b[31m agent\u2028`;
    const entry = lockEntryFor(
      workedExample((c) => {
        c.name = name;
        c.description = 'x'.repeat(100_000);
        c.version = `1.0.0${'9'.repeat(5000)}`;
        c.provider = { organization: 'Org\u200f', url: 'javascript:alert(1)' };
        c.skills[0].id = LONG_SKILL;
      }),
      OPEN,
      [LONG_SKILL],
    );
    const bom = cycloneDxBom(lockOf({ evil: [entry, OPEN] }), OPTIONS);
    const text = bomText(bom);
    expect(await validate(text)).toBeNull();
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/);
    const parsed = JSON.parse(text);
    expect(parsed.services[0].properties).toContainEqual({ name: 'a2a-lock:card-name', value: name });
    expect(parsed.services[0].description).toHaveLength(BOM_TEXT_MAX);
    expect(parsed.services[0].description.endsWith('…')).toBe(true);
    expect(parsed.services[0].version).toHaveLength(BOM_TEXT_MAX);
    expect(parsed.services[0].provider).toEqual({ name: 'Org\u200f' });
    // Cut by code point: 1023 emoji and the ellipsis, no half of a surrogate pair.
    const skill = parsed.services[0].data[0].name as string;
    expect([...skill]).toHaveLength(BOM_TEXT_MAX);
    expect(skill).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('refuses a snapshot that does not match its integrity (lockfile-invalid)', () => {
    const lock = realistic();
    (lock.agents.blog!.snapshot as Json).name = 'Tampered';
    expect(() => cycloneDxBom(lock, OPTIONS)).toThrow(
      expect.objectContaining({ code: 'lockfile-invalid', message: expect.stringContaining('agents.blog') }),
    );
  });
});
