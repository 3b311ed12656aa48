/**
 * The review of two lockfiles (lock/risk.ts, lock/lockfile-diff.ts): one scenario per risk code, the improvements, and the
 * lockfile-level diff (added, removed, changed, renamed by card, a side without a lockfile).
 */
import { describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import { normalizeCard } from '../../src/card/normalize.js';
import { entryChanges } from '../../src/lock/changes.js';
import { negotiateSkills } from '../../src/lock/drift.js';
import { diffLockfiles, failsOn, ignoreRisks } from '../../src/lock/lockfile-diff.js';
import { type AgentSide, assessRisks, isCleartext, sameRequests, sameRouting } from '../../src/lock/risk.js';
import { atOrAbove, RISK_CODES, type RiskCode } from '../../src/lock/risk-codes.js';
import type { LockEntry, Lockfile } from '../../src/lock/schema.js';
import { parseManifest } from '../../src/manifest/parse.js';
import { type AgentSettings, DEFAULT_PROFILE, type Manifest } from '../../src/manifest/schema.js';
import { keyedWorkedExample, lockEntryFor, workedExample } from '../helpers/worked-example.js';

type Json = Record<string, any>;
const CARD_URL = 'https://research.example.com/.well-known/agent-card.json';
const WITH_KEY: AgentSettings = { ...DEFAULT_PROFILE, credentials: ['key'] };
const NO_CREDENTIALS: AgentSettings = { ...DEFAULT_PROFILE, credentials: [] };

/** The worked example card, with an API key scheme required (unless `open`). */
function raw(
  patch: (c: Json) => void = () => {
    /* unchanged */
  },
  open = false,
): Json {
  return open ? workedExample(patch) : keyedWorkedExample(patch);
}

function entryFor(json: Json, settings: AgentSettings = WITH_KEY, skills = ['market-size']): LockEntry {
  return lockEntryFor(json, settings, skills);
}

function side(entry: LockEntry, settings: AgentSettings = WITH_KEY): AgentSide {
  return { entry, settings };
}

/** A copy of `entry` with its market-size plan edited (a pull request that edits the lockfile by hand). */
function withPlan(entry: LockEntry, edit: (plan: Json) => void): LockEntry {
  const copy = structuredClone(entry);
  edit(copy.plans['market-size'] as Json);
  return copy;
}

function codes(old: AgentSide | undefined, now: AgentSide | undefined): RiskCode[] {
  return assessRisks(old, now).risks.map((r) => r.code);
}

const moveTo = (origin: string) => (c: Json) => {
  for (const i of c.supportedInterfaces) i.url = i.url.replace('https://research.example.com', origin);
};

describe('one scenario per risk code', () => {
  const base = side(entryFor(raw()));

  it('new-credential-destination (high): the credentialed plan moved to another origin; a new agent holding credentials', () => {
    const moved = side(entryFor(raw(moveTo('https://evil.example.net'))));
    const { risks, better } = assessRisks(base, moved);
    const r = risks.find((x) => x.code === 'new-credential-destination');
    expect(r).toMatchObject({ level: 'high', skill: 'market-size' });
    expect(r?.message).toContain('key → https://evil.example.net');
    // Not also "origin-changed": the credential is the point.
    expect(risks.map((x) => x.code)).not.toContain('origin-changed');
    expect(better.map((b) => b.code)).toContain('credential-destination-removed');
    expect(codes(undefined, base)).toEqual(expect.arrayContaining(['agent-added', 'new-credential-destination']));
    expect(codes(base, base)).not.toContain('new-credential-destination');
  });

  it('new-credential-destination (high): the extended card route moved, the plans did not', () => {
    const withExtended = (publicOrigin: string): LockEntry => {
      const publicCard = raw((c) => {
        moveTo(publicOrigin)(c);
        c.capabilities.extendedAgentCard = true;
      });
      const extended = raw(); // the extended card, and so the plans, stay at research.example.com
      const e = entryFor(extended);
      return {
        ...e,
        snapshot: publicCard,
        integrity: integrityOf(publicCard),
        extended: {
          resolved: 'https://research.example.com/a2a/v1',
          integrity: integrityOf(extended),
          snapshot: extended,
        },
      };
    };
    const before = side(withExtended('https://research.example.com'));
    const after = side(withExtended('https://evil.example.net'));
    const found = assessRisks(before, after).risks.filter((r) => r.code === 'new-credential-destination');
    expect(found.map((r) => r.message)).toEqual(['now sends key → https://evil.example.net (extended card request)']);
  });

  it('scheme-redefined (high): the scheme keeps its name, the key moves from a header to the query', () => {
    const query = side(
      entryFor(raw((c) => (c.securitySchemes.key = { apiKeySecurityScheme: { location: 'query', name: 'k' } }))),
    );
    const risks = assessRisks(base, query).risks;
    expect(risks.find((r) => r.code === 'scheme-redefined')).toMatchObject({
      level: 'high',
      message: 'security scheme key redefined: apiKey in header → apiKey in query',
    });
    // The same credential placed differently is a new destination too.
    expect(risks.map((r) => r.code)).toContain('new-credential-destination');
  });

  it('cleartext-transport (high): a plan URL or the push endpoint is plain http to a non-loopback host; cleartext gone is better', () => {
    // A lockfile can hold one only with the agent's allowHttp (recorded in its settings).
    const HTTP_OK: AgentSettings = { ...WITH_KEY, allowHttp: true };
    const http = side(entryFor(raw(moveTo('http://research.example.com')), HTTP_OK), HTTP_OK);
    expect(assessRisks(base, http).risks.find((r) => r.code === 'cleartext-transport')).toMatchObject({
      level: 'high',
      message: expect.stringContaining('http://research.example.com/a2a/v1'),
    });
    const push = side(base.entry, { ...WITH_KEY, pushEndpoint: 'http://hooks.example.com/a2a' });
    expect(assessRisks(base, push).risks.find((r) => r.code === 'cleartext-transport')?.message).toBe(
      'push endpoint is plain http to a non-loopback host: http://hooks.example.com/a2a',
    );
    expect(assessRisks(http, base).better.map((b) => b.code)).toContain('cleartext-gone');
    expect([
      isCleartext('http://127.0.0.1:8080/a'),
      isCleartext('http://localhost/a'),
      isCleartext('http://[::1]/a'),
      isCleartext('https://x.example'),
    ]).toEqual([false, false, false, false]);
  });

  it('signature-weakened / signer-changed (high); signature now verified is better', () => {
    const signed = (thumbprint: string) =>
      side({ ...base.entry, signature: { status: 'verified', kid: 'k', alg: 'ES256', thumbprint } });
    const absent = side({ ...base.entry, signature: { status: 'absent' } });
    expect(assessRisks(signed('t1'), absent).risks.find((r) => r.code === 'signature-weakened')).toMatchObject({
      level: 'high',
      message: 'card signature: verified → absent',
    });
    expect(assessRisks(signed('t1'), signed('t2')).risks.find((r) => r.code === 'signer-changed')).toMatchObject({
      level: 'high',
      message: 'card signature verified by another key: t1 → t2',
    });
    expect(assessRisks(absent, signed('t1')).better).toEqual([
      { code: 'signature-verified', message: 'card signature: absent → verified' },
    ]);
    expect(codes(signed('t1'), signed('t1'))).toEqual([]);
  });

  it('origin-changed (medium): a plan without credentials goes to another origin', () => {
    const open = side(entryFor(raw(undefined, true), NO_CREDENTIALS), NO_CREDENTIALS);
    const moved = side(entryFor(raw(moveTo('https://elsewhere.example.org'), true), NO_CREDENTIALS), NO_CREDENTIALS);
    const risks = assessRisks(open, moved).risks;
    expect(risks.find((r) => r.code === 'origin-changed')).toMatchObject({
      level: 'medium',
      message: 'plan market-size goes to another origin: https://research.example.com → https://elsewhere.example.org',
    });
    expect(risks.map((r) => r.code)).not.toContain('new-credential-destination');
  });

  it("interface-other-origin (info): a plan that now calls another origin than the card's is said; one that already did is not said again", () => {
    const open = side(entryFor(raw(undefined, true), NO_CREDENTIALS), NO_CREDENTIALS);
    const moved = side(entryFor(raw(moveTo('https://elsewhere.example.org'), true), NO_CREDENTIALS), NO_CREDENTIALS);
    expect(assessRisks(open, moved).risks.find((r) => r.code === 'interface-other-origin')).toMatchObject({
      level: 'info',
      message:
        "plan market-size goes to https://elsewhere.example.org, another origin than the card's (https://research.example.com)",
    });
    expect(assessRisks(moved, moved).risks.map((r) => r.code)).not.toContain('interface-other-origin');
    expect(assessRisks(undefined, moved).risks.map((r) => r.code)).toContain('interface-other-origin');
    expect(assessRisks(undefined, open).risks.map((r) => r.code)).not.toContain('interface-other-origin');
  });

  it('scopes-widened (medium): the locked requirement asks for more scopes', () => {
    const scoped = side(withPlan(base.entry, (p) => (p.security = { key: ['read'] })));
    const wider = side(withPlan(base.entry, (p) => (p.security = { key: ['read', 'write'] })));
    expect(assessRisks(scoped, wider).risks.find((r) => r.code === 'scopes-widened')).toMatchObject({
      level: 'medium',
      message: 'plan market-size asks key for more scopes: + write',
    });
    expect(codes(wider, scoped)).not.toContain('scopes-widened');
  });

  it('protocol-downgrade (medium): the plan protocol version went down', () => {
    const old = side(withPlan(base.entry, (p) => (p.protocolVersion = '0.3')));
    expect(assessRisks(base, old).risks.find((r) => r.code === 'protocol-downgrade')).toMatchObject({
      level: 'medium',
      message: 'plan market-size protocol version 1.0 → 0.3',
    });
    expect(codes(old, base)).not.toContain('protocol-downgrade');
  });

  it('extension-activated (medium): the client will now send an extension', () => {
    const ext = side(withPlan(base.entry, (p) => (p.extensions = ['https://example.com/ext/citations/v1'])));
    expect(assessRisks(base, ext).risks.find((r) => r.code === 'extension-activated')).toMatchObject({
      level: 'medium',
      message: 'plan market-size now sends extension https://example.com/ext/citations/v1',
    });
  });

  it('required-extension-added (medium): the card now requires an extension', () => {
    const required = side(entryFor(raw((c) => (c.capabilities.extensions[0].required = true))));
    expect(assessRisks(base, required).risks.find((r) => r.code === 'required-extension-added')).toMatchObject({
      level: 'medium',
      message: 'the card now requires extension https://example.com/ext/citations/v1',
    });
  });

  it('delivery-changed (medium)', () => {
    const poll = side(withPlan(base.entry, (p) => (p.delivery = 'poll')));
    expect(assessRisks(base, poll).risks.find((r) => r.code === 'delivery-changed')).toMatchObject({
      level: 'medium',
      message: 'plan market-size delivery: stream → poll',
    });
  });

  it('output-modes-changed (medium): the skill stopped offering application/json', () => {
    const now = side(entryFor(raw((c) => (c.skills[0].outputModes = ['application/pdf', 'text/plain']))));
    expect(assessRisks(base, now).risks.find((r) => r.code === 'output-modes-changed')).toMatchObject({
      level: 'medium',
      message: 'plan market-size accepted output modes: - application/json, + text/plain',
    });
    const reordered = side(withPlan(base.entry, (p) => (p.acceptedOutputModes = ['text/plain', 'application/json'])));
    const both = side(withPlan(base.entry, (p) => (p.acceptedOutputModes = ['application/json', 'text/plain'])));
    expect(assessRisks(both, reordered).risks.find((r) => r.code === 'output-modes-changed')?.message).toBe(
      'plan market-size accepted output modes: reordered',
    );
  });

  it('card-version-rollback (medium): the card version is lower than at base', () => {
    const older = side(entryFor(raw((c) => (c.version = '2.3.9'))));
    expect(assessRisks(base, older).risks.find((r) => r.code === 'card-version-rollback')).toMatchObject({
      level: 'medium',
      message: 'card version went down: 2.4.0 → 2.3.9',
    });
    expect(codes(older, base)).not.toContain('card-version-rollback');
  });

  it('skill-added / skill-removed (low)', () => {
    const two = side(
      withPlan(base.entry, () => {
        /* no edit: a copy */
      }),
    );
    two.entry.plans.summary = structuredClone(two.entry.plans['market-size']!);
    expect(assessRisks(base, two).risks.find((r) => r.code === 'skill-added')).toMatchObject({
      level: 'low',
      skill: 'summary',
    });
    expect(assessRisks(two, base).risks.find((r) => r.code === 'skill-removed')).toMatchObject({
      level: 'low',
      skill: 'summary',
    });
  });

  it('fallbacks-changed (low)', () => {
    const none = side(withPlan(base.entry, (p) => delete p.fallbacks));
    const some = side(
      withPlan(
        base.entry,
        (p) =>
          (p.fallbacks = {
            interfaces: [
              { url: 'https://research.example.com/a2a/legacy', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
            ],
            delivery: [],
          }),
      ),
    );
    expect(assessRisks(none, some).risks.find((r) => r.code === 'fallbacks-changed')).toMatchObject({ level: 'low' });
  });

  it('card-structural (low) and descriptive (info)', () => {
    const structural = side(entryFor(raw((c) => (c.defaultInputModes = ['text/plain']))));
    expect(codes(base, structural)).toEqual(['card-structural']);
    const descriptive = side(entryFor(raw((c) => (c.description = 'Now with charts.'))));
    expect(assessRisks(base, descriptive).risks).toEqual([
      { code: 'descriptive', level: 'info', message: '1 descriptive card change' },
    ]);
  });

  it('agent-removed (info), and its credential destinations removed are better', () => {
    const { risks, better } = assessRisks(base, undefined);
    expect(risks).toEqual([{ code: 'agent-removed', level: 'info', message: 'agent removed from the lockfile' }]);
    expect(better.map((b) => b.code)).toContain('credential-destination-removed');
  });

  it('every code has one of the four levels', () => {
    expect(new Set(Object.values(RISK_CODES))).toEqual(new Set(['high', 'medium', 'low', 'info']));
    expect([
      atOrAbove('high', 'medium'),
      atOrAbove('low', 'medium'),
      atOrAbove('info', 'low'),
      atOrAbove('info', 'any'),
    ]).toEqual([true, false, false, true]);
  });
});

function lockfile(agents: Record<string, LockEntry>, settings: AgentSettings = WITH_KEY): Lockfile {
  return { lockfileVersion: 1, settings: Object.fromEntries(Object.keys(agents).map((n) => [n, settings])), agents };
}

describe('diffLockfiles', () => {
  const research = entryFor(raw());

  it('added, removed, changed, unchanged; counts; --fail-on', () => {
    const other = { ...entryFor(raw()), card: 'https://other.example.com' };
    const base = lockfile({ research, old: other, same: { ...research, card: 'https://same.example.com' } });
    const head = lockfile({
      research: entryFor(raw(moveTo('https://evil.example.net'))),
      fresh: { ...research, card: 'https://fresh.example.com' },
      same: { ...research, card: 'https://same.example.com' },
    });
    const diff = diffLockfiles(base, head);
    expect(diff.agents.map((a) => [a.name, a.verdict, a.level])).toEqual([
      ['fresh', 'added', 'high'],
      ['old', 'removed', 'info'],
      ['research', 'changed', 'high'],
      ['same', 'unchanged', undefined],
    ]);
    expect(diff.counts).toMatchObject({ changed: 1, added: 1, removed: 1, unchanged: 1, renamed: 0 });
    expect(diff.counts.high).toBeGreaterThanOrEqual(2);
    expect([failsOn(diff, 'high'), failsOn(diff, 'any')]).toEqual([true, true]);
    const quiet = diffLockfiles(base, base);
    expect([failsOn(quiet, 'low'), failsOn(quiet, 'any')]).toEqual([false, false]);
  });

  it('ignoreRisks (--ignore): the risk kept and marked, the level, counts and --fail-on from the others; an agent whose every risk is ignored fails no --fail-on any', () => {
    const other = { ...entryFor(raw()), card: 'https://other.example.com' };
    const base = lockfile({ research, old: other });
    const head = lockfile({ research: entryFor(raw(moveTo('https://evil.example.net'))) });
    const diff = diffLockfiles(base, head);
    const highs = [...new Set(diff.agents[1]!.risks.filter((r) => r.level === 'high').map((r) => r.code))];
    expect(highs.length).toBeGreaterThan(0);
    expect(ignoreRisks(diff, new Set())).toBe(diff);
    const ignored = ignoreRisks(diff, new Set([...highs, 'agent-removed']));
    const [old, moved] = ignored.agents;
    expect(moved!.risks.length).toBe(diff.agents[1]!.risks.length);
    expect(moved!.risks.filter((r) => r.ignored).map((r) => r.code)).toEqual(
      diff.agents[1]!.risks.filter((r) => highs.includes(r.code)).map((r) => r.code),
    );
    expect(moved!.level).not.toBe('high');
    expect(old!.level).toBeUndefined();
    expect(ignored.counts.high).toBe(0);
    expect(ignored.counts.ignored).toBe(diff.counts.high + 1);
    expect([failsOn(diff, 'high'), failsOn(ignored, 'high')]).toEqual([true, false]);
    // `old` (removed, its one risk ignored) no longer counts for `any`; `research` still does.
    expect(failsOn(ignoreRisks(diffLockfiles(base, lockfile({ research })), new Set(['agent-removed'])), 'any')).toBe(
      false,
    );
    expect(failsOn(ignored, 'any')).toBe(true);
    expect(diff.counts).not.toHaveProperty('ignored');
  });

  it('renamed when the card URL is the same', () => {
    const diff = diffLockfiles(lockfile({ research }), lockfile({ 'research-v2': research }));
    expect(diff.agents).toMatchObject([{ name: 'research-v2', verdict: 'renamed', from: 'research', risks: [] }]);
    expect(diff.counts).toMatchObject({ changed: 1, renamed: 1, added: 0, removed: 0 });
  });

  it('a side without a lockfile: every agent added (or removed)', () => {
    const head = lockfile({ research });
    expect(diffLockfiles(undefined, head).agents.map((a) => a.verdict)).toEqual(['added']);
    expect(diffLockfiles(head, undefined).agents.map((a) => a.verdict)).toEqual(['removed']);
    const added = diffLockfiles(undefined, head).agents[0]!;
    expect(Object.keys(added.changes.planChanges)).toEqual(['market-size']);
    expect(added.version).toEqual({ new: '2.4.0' });
  });

  it('a settings change is a change (a push endpoint at plain http is cleartext)', () => {
    const diff = diffLockfiles(
      lockfile({ research }),
      lockfile({ research }, { ...WITH_KEY, pushEndpoint: 'http://hooks.example.com/a2a' }),
    );
    expect(diff.agents[0]).toMatchObject({
      verdict: 'changed',
      settingsChanges: [{ field: 'pushEndpoint', old: null, new: 'http://hooks.example.com/a2a' }],
      level: 'high',
    });
  });
});

describe('rebaseInterfaces and originAuth in a review', () => {
  /** The worked example advertising its bind address (http://0.0.0.0:8080), no credential, locked from CARD_URL. */
  const bound = (c: Json) => {
    for (const i of c.supportedInterfaces) i.url = i.url.replace('https://research.example.com', 'http://0.0.0.0:8080');
  };
  const rebased: AgentSettings = { ...NO_CREDENTIALS, rebaseInterfaces: true, allowHttp: true };
  const unrebased: AgentSettings = { ...NO_CREDENTIALS, allowHttp: true };
  function boundEntry(settings: AgentSettings): LockEntry {
    const json = raw(bound, true);
    const card = normalizeCard(json, {
      source: CARD_URL,
      baseUrl: CARD_URL,
      ...(settings.rebaseInterfaces ? { rebaseInterfaces: true } : {}),
    }).card;
    const { plans } = negotiateSkills(card, ['market-size'], settings);
    return {
      card: CARD_URL,
      resolved: CARD_URL,
      a2aVersion: '1.0',
      version: String(json.version),
      integrity: integrityOf(json),
      snapshot: json,
      plans,
    };
  }

  it("turning rebaseInterfaces on moves an uncredentialed plan to the card's origin: origin-changed", () => {
    const before = boundEntry(unrebased);
    const after = boundEntry(rebased);
    expect(before.plans['market-size']!.url).toMatch(/^http:\/\/0\.0\.0\.0:8080\//);
    expect(after.plans['market-size']!.url).toMatch(/^https:\/\/research\.example\.com\//);
    expect(codes(side(before, unrebased), side(after, rebased))).toContain('origin-changed');
  });

  it('the same move with an originAuth placement at the new origin: new-credential-destination (high), naming the placement', () => {
    const before = boundEntry(unrebased);
    const after: LockEntry = {
      ...boundEntry(rebased),
      originAuth: { 'https://research.example.com': { bearer: { env: 'CLOUD_RUN_ID_TOKEN' } } },
    };
    const { risks } = assessRisks(side(before, unrebased), side(after, rebased));
    const r = risks.find((x) => x.code === 'new-credential-destination');
    expect(r).toMatchObject({ level: 'high' });
    expect(r!.message).toContain('originAuth Authorization: Bearer $CLOUD_RUN_ID_TOKEN → https://research.example.com');
  });

  it('a changed originAuth placement alone (plans alike) is a new credential destination; its removal an improvement', () => {
    const entry = boundEntry(rebased);
    const was: LockEntry = { ...entry, originAuth: { 'https://research.example.com': { bearer: { env: 'A' } } } };
    const now: LockEntry = {
      ...entry,
      originAuth: {
        'https://research.example.com': { header: { name: 'X-Serverless-Authorization', env: 'A', prefix: 'Bearer ' } },
      },
    };
    expect(codes(side(was, rebased), side(now, rebased))).toEqual(['new-credential-destination']);
    expect(assessRisks(side(was, rebased), side(entry, rebased)).better.map((b) => b.code)).toContain(
      'credential-destination-removed',
    );
  });
});

describe('the short-cuts of a review (named predicates)', () => {
  const base = entryFor(raw());
  const check = (was: LockEntry, now: LockEntry, settings: AgentSettings = WITH_KEY) => ({
    routing: sameRouting(side(was), side(now, settings), entryChanges(was, now)),
    requests: sameRequests(side(was), side(now, settings)),
  });

  it('a descriptive card change keeps both: the routes and the request URLs are alike, and no credential or transport risk is listed', () => {
    const now = entryFor(raw((c) => (c.description = 'Another description')));
    expect(check(base, now)).toEqual({ routing: true, requests: true });
    expect(codes(side(base), side(now))).toEqual(['descriptive']);
  });

  it('a structural card change, another originAuth or other settings break sameRouting; another resolved URL or other settings break sameRequests', () => {
    const structural = entryFor(raw((c) => (c.securitySchemes.key.apiKeySecurityScheme.name = 'X-Other-Key')));
    expect(check(base, structural).routing).toBe(false);
    const originAuth: LockEntry = { ...base, originAuth: { 'https://research.example.com': { bearer: { env: 'T' } } } };
    expect(check(base, originAuth)).toEqual({ routing: false, requests: true });
    expect(check(base, { ...base, resolved: 'https://mirror.example.com/card.json' }).requests).toBe(false);
    expect(check(base, base, { ...WITH_KEY, pushEndpoint: 'https://push.example.com/hook' })).toEqual({
      routing: false,
      requests: false,
    });
  });
});

/** A manifest holding `research` (and `other`, with no credential) with these credential sources. */
function manifestWith(credentials: Record<string, { env: string }>): Manifest {
  return parseManifest(
    JSON.stringify({
      profile: DEFAULT_PROFILE,
      agents: {
        research: { card: 'https://research.example.com', skills: ['market-size'], credentials },
        other: { card: 'https://other.example.com' },
      },
    }),
    'a2a.json',
  );
}

describe('credential-source-changed: the manifests of both sides compared', () => {
  const research = entryFor(raw());
  const lock = lockfile({ research });

  it('only credentials.<scheme>.env changed in a2a.json, the lockfile alike: changed, high, --fail-on counts it', () => {
    const base = manifestWith({ key: { env: 'RESEARCH_KEY' } });
    const head = manifestWith({ key: { env: 'PROD_DB_PASSWORD' } });
    const diff = diffLockfiles(lock, lock, { base, head });
    const agent = diff.agents[0]!;
    expect(agent).toMatchObject({
      name: 'research',
      verdict: 'changed',
      level: 'high',
      credentialSources: [{ scheme: 'key', old: 'RESEARCH_KEY', new: 'PROD_DB_PASSWORD' }],
    });
    expect(agent.risks).toEqual([
      {
        code: 'credential-source-changed',
        level: 'high',
        message:
          'credential key now read from env PROD_DB_PASSWORD (was env RESEARCH_KEY), for a route the base already sent it along',
      },
    ]);
    expect(diff.counts).toMatchObject({ changed: 1, unchanged: 0, high: 1 });
    expect([failsOn(diff, 'any'), failsOn(diff, 'high')]).toEqual([true, true]);
    // The same manifests: nothing; a side without its manifest: not compared (no risk, nothing thrown).
    expect(diffLockfiles(lock, lock, { base, head: base }).agents[0]!.verdict).toBe('unchanged');
    expect(diffLockfiles(lock, lock, { head }).agents[0]).toMatchObject({ verdict: 'unchanged', risks: [] });
    expect(diffLockfiles(lock, lock, { base }).agents[0]).toMatchObject({ verdict: 'unchanged', risks: [] });
  });

  it('a source for a scheme without a route at base is medium; a removed one is low', () => {
    const noKeyLock = lockfile({ research: entryFor(raw(), NO_CREDENTIALS) }, NO_CREDENTIALS);
    const added = diffLockfiles(noKeyLock, noKeyLock, {
      base: manifestWith({}),
      head: manifestWith({ key: { env: 'RESEARCH_KEY' } }),
    }).agents[0]!;
    expect(added.risks).toEqual([
      {
        code: 'credential-source-changed',
        level: 'medium',
        message: 'credential key now read from env RESEARCH_KEY (none at base)',
      },
    ]);
    const removed = diffLockfiles(lock, lock, {
      base: manifestWith({ key: { env: 'RESEARCH_KEY' } }),
      head: manifestWith({}),
    }).agents[0]!;
    expect(removed.risks).toEqual([
      {
        code: 'credential-source-changed',
        level: 'low',
        message: 'credential key no longer read from env RESEARCH_KEY (a2a.json)',
      },
    ]);
  });
});

describe('push-endpoint-changed', () => {
  const research = entryFor(raw());
  const at = (pushEndpoint: string | null) => side(research, { ...WITH_KEY, pushEndpoint });

  it('medium when the push endpoint goes to another origin (or is set); high when it becomes plain http; none on the same origin', () => {
    const moved = assessRisks(at('https://hooks.example.com/a2a'), at('https://collector.evil.example/a2a')).risks;
    expect(moved).toContainEqual({
      code: 'push-endpoint-changed',
      level: 'medium',
      message: 'push endpoint goes to another origin: https://hooks.example.com → https://collector.evil.example',
    });
    expect(
      assessRisks(at(null), at('https://hooks.example.com/a2a')).risks.map((r) => [r.code, r.level]),
    ).toContainEqual(['push-endpoint-changed', 'medium']);
    const cleartext = assessRisks(at('https://hooks.example.com/a2a'), at('http://hooks.evil.example/a2a')).risks;
    expect(
      cleartext
        .filter((r) => r.code === 'push-endpoint-changed' || r.code === 'cleartext-transport')
        .map((r) => [r.code, r.level]),
    ).toEqual([
      ['cleartext-transport', 'high'],
      ['push-endpoint-changed', 'high'],
    ]);
    expect(codes(at('https://hooks.example.com/a2a'), at('https://hooks.example.com/other'))).not.toContain(
      'push-endpoint-changed',
    );
    expect(codes(at('https://hooks.example.com/a2a'), at(null))).not.toContain('push-endpoint-changed');
    const diff = diffLockfiles(
      lockfile({ research }, { ...WITH_KEY, pushEndpoint: 'https://hooks.example.com/a2a' }),
      lockfile({ research }, { ...WITH_KEY, pushEndpoint: 'https://collector.evil.example/a2a' }),
    );
    expect([diff.agents[0]!.level, failsOn(diff, 'medium'), failsOn(diff, 'high')]).toEqual(['medium', true, false]);
  });
});
