/**
 * Issue 14 (points 1, 3, 5, 6), the pure parts: a re-signed card is its snapshot (isResigned,
 * keepResignedSnapshots, servedVerdict), the agent-level plan "*" (negotiate, explain, the manifest's
 * plan keys, manifestMismatches), held credentials nothing sends (credentialWarnings), and modes
 * spelt "text" (kept, compared as text/plain; diffPlans).
 */
import { describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import { sameMediaType } from '../../src/card/media.js';
import { normalizeCard } from '../../src/card/normalize.js';
import type { SignatureRecord } from '../../src/card/signature/verify.js';
import { servedVerdict } from '../../src/lock/drift.js';
import { isResigned, keepResignedSnapshots } from '../../src/lock/resign.js';
import { manifestMismatches } from '../../src/lock/satisfies.js';
import type { LockEntry, Lockfile } from '../../src/lock/schema.js';
import { credentialWarnings } from '../../src/lock/unused-credentials.js';
import { parseManifest } from '../../src/manifest/parse.js';
import { type AgentSettings, agentSettings, DEFAULT_PROFILE, planKeys } from '../../src/manifest/schema.js';
import { explainNegotiation } from '../../src/negotiate/explain.js';
import { diffPlans, negotiate } from '../../src/negotiate/negotiate.js';
import type { Plan } from '../../src/negotiate/types.js';
import { workedExample } from '../helpers/worked-example.js';

type Json = Record<string, any>;
const CARD_URL = 'https://research.example.com/.well-known/agent-card.json';

const raw = workedExample;
const card = (json: Json) => normalizeCard(json, { source: CARD_URL, baseUrl: CARD_URL }).card;

/** base64url of a JSON object (a JWS protected header). */
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const header = { alg: 'ES256', kid: 'k1', jku: 'https://keys.example.com/jwks.json', typ: 'JOSE' };
const signed = (
  sig: string,
  h: Json = header,
  patch: (c: Json) => void = () => {
    /* unchanged */
  },
) =>
  raw((c) => {
    c.signatures = [{ protected: b64(h), signature: sig }];
    patch(c);
  });
const verified: SignatureRecord = { status: 'verified', kid: 'k1', alg: 'ES256', thumbprint: 'T1' };

describe('re-signed cards', () => {
  it('same payload, same key, new signature bytes: re-signed', () => {
    expect(isResigned({ raw: signed('AAAA'), signature: verified }, { raw: signed('BBBB'), signature: verified })).toBe(
      true,
    );
    // A per-signing header member (iat) may change with each signing; the key's members may not.
    expect(
      isResigned(
        { raw: signed('AAAA', { ...header, iat: 1 }), signature: verified },
        { raw: signed('BBBB', { ...header, iat: 2 }), signature: verified },
      ),
    ).toBe(true);
  });

  it('no key source (Mastra without trust): unverifiable both times alike, same payload and header, is re-signed; a new payload or kid is not', () => {
    const unverifiable: SignatureRecord = { status: 'unverifiable', kid: 'k1', alg: 'ES256' };
    expect(
      isResigned({ raw: signed('AAAA'), signature: unverifiable }, { raw: signed('BBBB'), signature: unverifiable }),
    ).toBe(true);
    expect(
      isResigned(
        { raw: signed('AAAA'), signature: unverifiable },
        { raw: signed('BBBB', header, (c) => (c.description = 'changed')), signature: unverifiable },
      ),
    ).toBe(false);
    expect(
      isResigned(
        { raw: signed('AAAA'), signature: unverifiable },
        { raw: signed('BBBB', { ...header, kid: 'k2' }), signature: { ...unverifiable, kid: 'k2' } },
      ),
    ).toBe(false);
    expect(
      isResigned({ raw: signed('AAAA'), signature: unverifiable }, { raw: signed('BBBB'), signature: verified }),
    ).toBe(false);
  });

  it('a new key, a new kid or jku, a new payload, an unverified fresh card or an extra signature: not re-signed', () => {
    const locked = { raw: signed('AAAA'), signature: verified };
    expect(isResigned(locked, { raw: signed('BBBB'), signature: { ...verified, thumbprint: 'T2' } })).toBe(false);
    expect(isResigned(locked, { raw: signed('BBBB', { ...header, kid: 'k2' }), signature: verified })).toBe(false);
    expect(
      isResigned(locked, {
        raw: signed('BBBB', { ...header, jku: 'https://elsewhere.example.com/jwks.json' }),
        signature: verified,
      }),
    ).toBe(false);
    expect(
      isResigned(locked, { raw: signed('BBBB', header, (c) => (c.description = 'changed')), signature: verified }),
    ).toBe(false);
    expect(
      isResigned(locked, { raw: signed('BBBB'), signature: { status: 'unverifiable', kid: 'k1', alg: 'ES256' } }),
    ).toBe(false);
    const two = signed('BBBB');
    two.signatures.push({ protected: b64(header), signature: 'CCCC' });
    expect(isResigned(locked, { raw: two, signature: verified })).toBe(false);
    expect(
      isResigned({ raw: raw(), signature: { status: 'absent' } }, { raw: raw(), signature: { status: 'absent' } }),
    ).toBe(false);
  });

  const entry = (snapshot: Json, signature: SignatureRecord): LockEntry =>
    ({
      card: 'https://research.example.com',
      resolved: CARD_URL,
      a2aVersion: '1.0',
      version: '1.0.0',
      integrity: integrityOf(snapshot),
      snapshot,
      signature,
      plans: {},
    }) as LockEntry;

  it('keepResignedSnapshots keeps the locked snapshot, integrity and record of a re-signed card; a changed card is taken', () => {
    const old = entry(signed('AAAA'), verified);
    const fresh = entry(signed('BBBB'), verified);
    expect(keepResignedSnapshots(old, fresh)).toEqual(old);
    const moved = { ...fresh, resolved: 'https://research.example.com/other.json' };
    expect(keepResignedSnapshots(old, moved)).toEqual(moved);
    const changed = entry(
      signed('BBBB', header, (c) => (c.name = 'New name')),
      verified,
    );
    expect(keepResignedSnapshots(old, changed)).toEqual(changed);
  });

  it('servedVerdict: a re-signed card is ok (exit 0 under --strict too); a changed payload is changed', () => {
    const settings: AgentSettings = { ...DEFAULT_PROFILE, credentials: [] };
    const locked = entry(signed('AAAA'), verified);
    const served = (json: Json) => ({
      resolved: CARD_URL,
      raw: json,
      signature: verified,
      negotiationCard: card(json),
      lockedCard: card(locked.snapshot),
    });
    expect(servedVerdict(locked, settings, served(signed('BBBB')), []).status).toBe('ok');
    const changed = servedVerdict(locked, settings, served(signed('BBBB', header, (c) => (c.description = 'new'))), []);
    expect(changed.status).toBe('changed');
    expect(changed.cardChanges?.map((c) => c.path)).toContain('$.description');
  });
});

describe('the agent-level plan "*"', () => {
  it('a card without skills reads as [] with skills-missing naming $.skills; skills: null is still invalid', () => {
    const result = normalizeCard(
      raw((c) => delete c.skills),
      { source: CARD_URL, baseUrl: CARD_URL },
    );
    expect(result.card.skills).toEqual([]);
    expect(result.warnings).toContainEqual(expect.objectContaining({ code: 'skills-missing', path: '$.skills' }));
    expect(() =>
      normalizeCard(
        raw((c) => (c.skills = null)),
        { source: CARD_URL },
      ),
    ).toThrow(/\$\.skills/);
  });

  it('negotiate(card, "*"): the card defaults and card-level security, never a skill\'s own', () => {
    const c = card(
      raw((c) => {
        c.defaultOutputModes = ['text/plain'];
        c.skills[0].outputModes = ['application/json'];
        c.skills[0].securityRequirements = [{ schemes: { other: { list: [] } } }];
        c.securitySchemes = { ...c.securitySchemes, other: { httpAuthSecurityScheme: { scheme: 'Basic' } } };
      }),
    );
    const held = Object.keys(c.securitySchemes);
    const result = negotiate(c, '*', DEFAULT_PROFILE, held);
    expect(result.plan?.acceptedOutputModes).toEqual(['text/plain']);
    expect(Object.keys(result.plan!.security)).not.toContain('other');
    expect(result.trace[0]).toMatchObject({ step: 'skill', ok: true, chosen: '*' });
    const explained = explainNegotiation(c, '*', DEFAULT_PROFILE, held);
    expect(explained.steps[0]!.why).toContain('agent-level plan "*"');
  });

  it('a manifest entry without skills (absent or []) locks the key "*"; manifestMismatches compares it', () => {
    const text = (skills?: string[]) =>
      JSON.stringify({
        profile: DEFAULT_PROFILE,
        agents: { a: { card: 'https://a.example.com', ...(skills ? { skills } : {}) } },
      });
    const absent = parseManifest(text(), 'a2a.json');
    expect(planKeys(absent.agents.a!)).toEqual(['*']);
    expect(planKeys(parseManifest(text([]), 'a2a.json').agents.a!)).toEqual(['*']);
    expect(planKeys(parseManifest(text(['x']), 'a2a.json').agents.a!)).toEqual(['x']);
    const plan = {
      url: 'https://a.example.com/rpc',
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      security: {},
      acceptedOutputModes: ['text/plain'],
      delivery: 'poll',
      extensions: [],
    } as Plan;
    const lock = {
      lockfileVersion: 1,
      settings: { a: agentSettings(absent, 'a') },
      agents: { a: { card: 'https://a.example.com', plans: { '*': plan } } },
    } as unknown as Lockfile;
    expect(manifestMismatches(absent, lock).size).toBe(0);
    expect(manifestMismatches(parseManifest(text(['x']), 'a2a.json'), lock).get('a')).toEqual([
      expect.stringContaining('skills changed (* → x)'),
    ]);
  });
});

describe('credentials nothing sends', () => {
  const plan = (security: Record<string, string[]>) =>
    ({
      url: 'https://a.example.com/rpc',
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      security,
      acceptedOutputModes: ['text/plain'],
      delivery: 'poll',
      extensions: [],
    }) as Plan;
  const entry = (snapshot: Json, plans: Record<string, Plan>) =>
    ({
      card: 'https://a.example.com',
      resolved: CARD_URL,
      integrity: integrityOf(snapshot),
      snapshot,
      plans,
    }) as unknown as LockEntry;
  const settings = (credentials: string[]): AgentSettings => ({ ...DEFAULT_PROFILE, credentials });

  it('a card without securitySchemes: credential-never-sent, saying why', () => {
    const snapshot = raw((c) => {
      c.securitySchemes = {};
      c.securityRequirements = [];
    });
    const warnings = credentialWarnings(entry(snapshot, { s: plan({}) }), settings(['bearer']));
    expect(warnings).toEqual([
      expect.objectContaining({
        code: 'credential-never-sent',
        message: expect.stringContaining('declares no securitySchemes'),
      }),
    ]);
  });

  it('a scheme no plan chose: credential-unused; a used one: nothing', () => {
    const snapshot = raw((c) => (c.securitySchemes = { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } }));
    expect(credentialWarnings(entry(snapshot, { s: plan({ bearer: [] }) }), settings(['apiKey', 'bearer']))).toEqual([
      expect.objectContaining({ code: 'credential-unused', message: expect.stringContaining('"apiKey"') }),
    ]);
    expect(credentialWarnings(entry(snapshot, { s: plan({ bearer: [] }) }), settings(['bearer']))).toEqual([]);
    expect(credentialWarnings(entry(snapshot, { s: plan({}) }), settings([]))).toEqual([]);
  });
});

describe('modes spelt "text"', () => {
  it('"text" is text/plain to compare, and the plan carries the agent\'s spelling', () => {
    expect(sameMediaType('text', 'text/plain')).toBe(true);
    expect(sameMediaType('Text', 'TEXT/PLAIN')).toBe(true);
    expect(sameMediaType('text', 'text/markdown')).toBe(false);
    const c = card(
      raw((c) => {
        c.defaultOutputModes = ['text'];
        delete c.skills[0].outputModes;
      }),
    );
    const plan = negotiate(c, c.skills[0]!.id, DEFAULT_PROFILE, Object.keys(c.securitySchemes)).plan!;
    expect(plan.acceptedOutputModes).toEqual(['text']);
    // A lock written before (text/plain) still matches what the card negotiates now: no drift.
    expect(diffPlans({ ...plan, acceptedOutputModes: ['text/plain'] }, plan)).toEqual([]);
    expect(diffPlans({ ...plan, acceptedOutputModes: ['application/json'] }, plan)).toHaveLength(1);
  });
});
