/**
 * The lock decisions as pure functions, values in and findings out, without network: plan drift
 * (negotiateSkills, narrowedDrift), where a credential goes (placedAlike, schemeDrift, the locked
 * extended-card route), signature drift, the verdict on a served card (structural vs descriptive,
 * changed vs drift), the one change model (cardChanges, entryChanges), the offline check, the
 * manifest check, the sync plan and the exit codes.
 */
import { describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import type { NormalizedCard } from '../../src/card/model.js';
import { normalizeCard } from '../../src/card/normalize.js';
import { A2aLockError, ExitCode } from '../../src/errors.js';
import { cardChanges, changeKind, entryChanges } from '../../src/lock/changes.js';
import {
  narrowedDrift,
  negotiateSkills,
  placedAlike,
  schemeDrift,
  servedVerdict,
  signatureDrift,
} from '../../src/lock/drift.js';
import { checkOffline } from '../../src/lock/offline.js';
import { errorReport, okReport, overallExitCode, strictExitCode } from '../../src/lock/report.js';
import { lockedExtendedRoute } from '../../src/lock/route.js';
import { manifestMismatches } from '../../src/lock/satisfies.js';
import type { LockEntry, Lockfile } from '../../src/lock/schema.js';
import { assembleLock, planSync, renamesOf } from '../../src/lock/sync-plan.js';
import { parseManifest } from '../../src/manifest/parse.js';
import { type AgentSettings, agentSettings, DEFAULT_PROFILE } from '../../src/manifest/schema.js';
import { keyedWorkedExample } from '../helpers/worked-example.js';

type Json = Record<string, any>;
const CARD_URL = 'https://research.example.com/.well-known/agent-card.json';

/** The worked example card with an apiKey scheme required (a credential to place). A fresh copy each call. */
const raw = keyedWorkedExample;

function card(json: Json): NormalizedCard {
  return normalizeCard(json, { source: CARD_URL, baseUrl: CARD_URL }).card;
}

/** The default profile, holding the `key` credential. */
const SETTINGS: AgentSettings = { ...DEFAULT_PROFILE, credentials: ['key'] };

/** A lock entry as `a2a lock` writes it for `json`: snapshot, integrity, the plans its card negotiates. */
function entryFor(json: Json, skills = ['market-size']): LockEntry {
  const { plans, refusals } = negotiateSkills(card(json), skills, SETTINGS);
  expect(refusals).toEqual([]);
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

describe('negotiateSkills and narrowedDrift: a locked plan never moves silently', () => {
  it('the locked card negotiates the locked plans: no drift; an unknown skill is a refusal, not drift', () => {
    const entry = entryFor(raw());
    expect(negotiateSkills(card(raw()), ['market-size'], SETTINGS, entry.plans).drift).toEqual([]);
    expect(narrowedDrift(card(raw()), SETTINGS, entry.plans)).toEqual([]);
    const unknown = negotiateSkills(card(raw()), ['nope'], SETTINGS);
    expect(unknown.refusals.map((r) => [r.skill, r.refusal.code])).toEqual([['nope', 'skill-not-found']]);
  });

  it('a skill that stopped offering application/json: the field, locked → fresh', () => {
    const entry = entryFor(raw());
    const fresh = card(raw((c) => (c.skills[0].outputModes = ['text/plain', 'application/pdf'])));
    const drift = negotiateSkills(fresh, ['market-size'], SETTINGS, entry.plans).drift;
    expect(drift).toEqual([
      { skill: 'market-size', field: 'acceptedOutputModes', locked: ['application/json'], fresh: ['text/plain'] },
    ]);
    // Narrowed to the locked choices (application/json only) the card refuses; then the field update would change.
    expect(narrowedDrift(fresh, SETTINGS, entry.plans).map((d) => d.field ?? d.refusal?.code)).toEqual([
      'no-common-output-mode',
      'acceptedOutputModes',
    ]);
  });

  it('the locked interface gone: a narrowed refusal, then the fields update would change', () => {
    const entry = entryFor(raw());
    const fresh = card(
      raw((c) => (c.supportedInterfaces = c.supportedInterfaces.filter((i: Json) => i.protocolVersion !== '1.0'))),
    );
    const drift = narrowedDrift(fresh, SETTINGS, entry.plans);
    expect(drift[0]).toMatchObject({ skill: 'market-size', refusal: { code: 'no-common-interface' } });
    expect(drift.slice(1).map((d) => d.field)).toContain('protocolVersion');
  });
});

describe('where a credential goes', () => {
  const header = { type: 'apiKey', location: 'header', name: 'X-Key' } as const;
  it.each([
    { what: 'the header name respelled in another case', a: header, b: { ...header, name: 'x-key' }, alike: true },
    { what: 'a description added', a: header, b: { ...header, description: 'key' }, alike: true },
    { what: 'a header become a query parameter', a: header, b: { ...header, location: 'query' }, alike: false },
    { what: 'a header become a bearer token', a: header, b: { type: 'http', scheme: 'Bearer' }, alike: false },
    { what: 'the scheme gone', a: header, b: undefined, alike: false },
    { what: 'absent on both sides', a: undefined, b: undefined, alike: true },
  ] as const)('placedAlike: $what → $alike', ({ a, b, alike }) => {
    expect(placedAlike(a as never, b as never)).toBe(alike);
  });

  it('schemeDrift names the scheme for each locked plan that uses it', () => {
    const entry = entryFor(raw());
    const moved = card(raw((c) => (c.securitySchemes.key.apiKeySecurityScheme.location = 'query')));
    expect(schemeDrift(entry.plans, card(raw()), moved)).toEqual([
      {
        skill: 'market-size',
        field: 'securitySchemes.key',
        locked: { type: 'apiKey', location: 'header', name: 'X-Key' },
        fresh: { type: 'apiKey', location: 'query', name: 'X-Key' },
      },
    ]);
    expect(
      schemeDrift(
        entry.plans,
        card(raw()),
        card(raw((c) => (c.securitySchemes.key.apiKeySecurityScheme.name = 'x-KEY'))),
      ),
    ).toEqual([]);
  });

  it('the extended card goes only along the locked route: offered and presented alike, else drift and no route', () => {
    const extended = (c: Json) => (c.capabilities.extendedAgentCard = true);
    const entry = entryFor(raw(extended));
    const held = lockedExtendedRoute(entry, card(raw(extended)), SETTINGS, []);
    expect(held.drift).toEqual([]);
    expect(held.route).toEqual({
      iface: { url: 'https://research.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      requirement: { key: [] },
    });
    const redefined = lockedExtendedRoute(
      entry,
      card(
        raw((c) => {
          extended(c);
          c.securitySchemes.key.apiKeySecurityScheme.location = 'cookie';
        }),
      ),
      SETTINGS,
      [],
    );
    expect(redefined.route).toBeUndefined();
    expect(redefined.drift.map((d) => d.field)).toEqual(['securitySchemes.key']);
    const moved = lockedExtendedRoute(
      entry,
      card(
        raw((c) => {
          extended(c);
          c.supportedInterfaces[0].url = 'https://elsewhere.example/a2a';
        }),
      ),
      SETTINGS,
      [],
    );
    expect(moved.route).toBeUndefined();
    expect(moved.drift.map((d) => d.field)).toEqual(['supportedInterfaces']);
  });
});

describe('signatureDrift: a locked verified signature must come back verified by the same key', () => {
  const k1 = { status: 'verified', kid: 'k1', alg: 'ES256', thumbprint: 'T1' } as const;
  it.each([
    { what: 'nothing locked', locked: undefined, fresh: { status: 'absent' }, count: 0 },
    {
      what: 'unverifiable locked, absent now',
      locked: { status: 'unverifiable' },
      fresh: { status: 'absent' },
      count: 0,
    },
    { what: 'the same key', locked: k1, fresh: { ...k1 }, count: 0 },
    { what: 'another key', locked: k1, fresh: { ...k1, kid: 'k2', thumbprint: 'T2' }, count: 1 },
    { what: 'now unverifiable', locked: k1, fresh: { status: 'unverifiable', kid: 'k1' }, count: 1 },
    { what: 'now unsigned', locked: k1, fresh: { status: 'absent' }, count: 1 },
  ] as const)('$what → $count finding(s)', ({ locked, fresh, count }) => {
    expect(signatureDrift('card', locked as never, fresh as never)).toHaveLength(count);
  });
});

describe('servedVerdict: structural vs descriptive, changed vs drift', () => {
  const verdict = (entry: LockEntry, served: Json, extra: { resolved?: string; unchecked?: string } = {}) =>
    servedVerdict(
      entry,
      SETTINGS,
      {
        resolved: extra.resolved ?? CARD_URL,
        raw: served,
        negotiationCard: card(served),
        lockedCard: card(entry.snapshot),
        unchecked: extra.unchecked,
      },
      [],
    );

  it('a new description: changed, descriptive, exit 0 (1 under --strict)', () => {
    const report = verdict(
      entryFor(raw()),
      raw((c) => (c.description = 'new words')),
    );
    expect(report).toMatchObject({
      status: 'changed',
      change: 'descriptive',
      exitCode: ExitCode.Ok,
      cardChanges: [{ path: '$.description', kind: 'changed', structural: false }],
    });
    expect(strictExitCode(report, true)).toBe(ExitCode.Drift);
  });

  it('an interface the profile does not use added: changed, structural, plans equal', () => {
    const report = verdict(
      entryFor(raw()),
      raw((c) =>
        c.supportedInterfaces.push({
          url: 'https://research.example.com/rest',
          protocolBinding: 'HTTP+JSON',
          protocolVersion: '0.3',
        }),
      ),
    );
    expect(report).toMatchObject({ status: 'changed', change: 'structural', exitCode: ExitCode.Ok });
    expect(report.drift).toBeUndefined();
  });

  it('an output mode dropped: drift, exit 1, naming skill and field', () => {
    const report = verdict(
      entryFor(raw()),
      raw((c) => (c.skills[0].outputModes = ['text/plain', 'application/pdf'])),
    );
    expect(report).toMatchObject({ status: 'drift', change: 'structural', exitCode: ExitCode.Drift });
    expect(report.drift?.map((d) => `${d.skill} ${d.field ?? d.refusal?.code}`)).toEqual([
      'market-size no-common-output-mode',
      'market-size acceptedOutputModes',
    ]);
  });

  it('the same card from another URL: a structural `resolved` change', () => {
    const report = verdict(entryFor(raw()), raw(), { resolved: 'https://research.example.com/card.json' });
    expect(report.cardChanges?.[0]).toEqual({
      path: 'resolved',
      kind: 'changed',
      old: CARD_URL,
      new: 'https://research.example.com/card.json',
      structural: true,
    });
  });

  it('an extended card that could not be checked: no extended change said, the reason kept', () => {
    const entry = {
      ...entryFor(raw()),
      extended: { resolved: 'https://research.example.com/a2a/v1', integrity: integrityOf({ x: 1 }), snapshot: raw() },
    };
    const report = verdict(
      entry,
      raw((c) => (c.description = 'new')),
      { unchecked: 'extended card not checked (KEY unset)' },
    );
    expect(report.unchecked).toBe('extended card not checked (KEY unset)');
    expect(report.cardChanges?.map((c) => c.path)).toEqual(['$.description']);
    const gone = verdict(
      entry,
      raw((c) => (c.description = 'new')),
    );
    expect(gone.cardChanges?.map((c) => c.path)).toEqual(['$.description', 'extended:$']);
  });
});

describe('the one change model', () => {
  it('skills compare by id: a reorder is no change, a new skill is one added path', () => {
    const two = (c: Json) => c.skills.push({ ...c.skills[0], id: 'second', name: 'Second' });
    const a = raw(two);
    const b = raw((c) => {
      two(c);
      c.skills.reverse();
    });
    expect(cardChanges({ resolved: CARD_URL, snapshot: a }, { resolved: CARD_URL, snapshot: b })).toEqual([]);
    const added = cardChanges({ resolved: CARD_URL, snapshot: raw() }, { resolved: CARD_URL, snapshot: a });
    expect(added.map((c) => [c.path, c.kind, c.structural])).toEqual([['$.skills.second', 'added', true]]);
    expect(changeKind(added)).toBe('structural');
    expect(changeKind([])).toBeUndefined();
  });

  it('an interface without protocolVersion (as a2a-sdk serves it) is keyed `<binding> <url>`, one space between the parts', () => {
    const a = raw();
    const b = raw((c) => {
      delete c.supportedInterfaces[0].protocolVersion;
    });
    const url = a.supportedInterfaces[0].url;
    const binding = a.supportedInterfaces[0].protocolBinding;
    const changes = cardChanges({ resolved: CARD_URL, snapshot: a }, { resolved: CARD_URL, snapshot: b });
    expect(changes.map((c) => [c.path, c.kind])).toEqual([
      [`$.supportedInterfaces["${binding} 1.0 ${url}"]`, 'removed'],
      [`$.supportedInterfaces["${binding} ${url}"]`, 'added'],
    ]);
  });

  it('entryChanges of two lock entries: version, card, extended card, plans', () => {
    const old = entryFor(raw());
    const now = {
      ...entryFor(
        raw((c) => {
          c.version = '2.5.0';
          c.skills[0].outputModes = ['text/plain', 'application/pdf'];
        }),
      ),
      extended: { resolved: 'x', integrity: integrityOf({}), snapshot: {} },
    };
    const changes = entryChanges(old, now);
    expect(changes.version).toEqual({ old: '2.4.0', new: '2.5.0' });
    // Modes are a set: the member removed and the one added, not index churn.
    expect(changes.cardChanges.map((c) => [c.path, c.kind, c.old ?? c.new])).toEqual([
      ['$.version', 'changed', '2.4.0'],
      ['$.skills["market-size"].outputModes', 'removed', 'application/json'],
      ['$.skills["market-size"].outputModes', 'added', 'text/plain'],
      ['extended:$', 'added', '(extended card)'],
    ]);
    expect(changes.planChanges).toEqual({
      'market-size': [{ field: 'acceptedOutputModes', old: ['application/json'], new: ['text/plain'] }],
    });
    expect(entryChanges(old, old)).toEqual({ cardChanges: [], signatureChanges: [], planChanges: {} });
  });
});

describe('checkOffline: the lock against its own snapshots', () => {
  it('an intact entry holds; a tampered snapshot is lockfile-invalid (exit 2); an edited plan is out of date (exit 1)', () => {
    const entry = entryFor(raw());
    expect(checkOffline(entry, SETTINGS, 'lock')).toBeUndefined();
    const tampered = checkOffline({ ...entry, snapshot: raw((c) => (c.description = 'edited')) }, SETTINGS, 'lock');
    expect(tampered).toMatchObject({
      status: 'error',
      exitCode: ExitCode.Invalid,
      error: { code: 'lockfile-invalid' },
    });
    const plan = entry.plans['market-size']!;
    const edited = checkOffline(
      { ...entry, plans: { 'market-size': { ...plan, url: 'https://evil.example/rpc' } } },
      SETTINGS,
      'lock',
    );
    expect(edited).toMatchObject({
      status: 'out-of-date',
      exitCode: ExitCode.Drift,
      reasons: ['skill "market-size": locked plan differs from the plan its snapshot negotiates (url)'],
    });
  });
});

describe('the manifest check and the sync plan', () => {
  const manifest = (
    patch: (m: Json) => void = () => {
      /* unchanged */
    },
  ) => {
    const m: Json = {
      profile: { ...SETTINGS, credentials: undefined },
      agents: { research: { card: CARD_URL, skills: ['market-size'], credentials: { key: { env: 'KEY' } } } },
    };
    delete m.profile.credentials;
    patch(m);
    return parseManifest(JSON.stringify(m), 'a2a.json');
  };
  const lockOf = (entry: LockEntry): Lockfile => ({
    lockfileVersion: 1,
    settings: { research: agentSettings(manifest(), 'research') },
    agents: { research: entry },
  });

  it('manifestMismatches names each reason per agent', () => {
    const lock = lockOf(entryFor(raw()));
    expect(manifestMismatches(manifest(), lock)).toEqual(new Map());
    const changed = manifestMismatches(
      manifest((m) => {
        m.agents.research.card = 'https://other.example';
        m.agents.research.skills.push('more');
        m.agents.fresh = { card: CARD_URL, skills: ['s'] };
      }),
      lock,
    );
    expect(changed.get('research')).toEqual([
      `card changed in the manifest (${CARD_URL} → https://other.example)`,
      'skills changed (market-size → market-size, more)',
    ]);
    expect(changed.get('fresh')).toEqual(['not in the lockfile']);
    expect(
      manifestMismatches(
        manifest((m) => (m.agents = {})),
        lock,
      ).get('research'),
    ).toEqual(['no longer in the manifest']);
  });

  it('planSync: an up-to-date agent stays; a skill added is resolved constrained to its lock; update lifts the constraint', () => {
    const lock = lockOf(entryFor(raw()));
    expect(planSync(manifest(), lock, { source: 'a2a.lock.json' }).resolve).toEqual([]);
    const added = planSync(
      manifest((m) => m.agents.research.skills.push('more')),
      lock,
      { source: 'a2a.lock.json' },
    ).resolve;
    expect(added).toEqual([
      { name: 'research', constrainTo: lock.agents.research, credentialRouteFrom: lock.agents.research },
    ]);
    const forced = planSync(manifest(), lock, {
      source: 'a2a.lock.json',
      force: 'all',
      acceptServedCredentialRoute: true,
    }).resolve;
    expect(forced).toEqual([{ name: 'research' }]);
    // A changed profile changes the negotiation inputs: resolved afresh, the credential still along the locked route.
    const profile = planSync(
      manifest((m) => (m.profile.accepts = ['text/plain'])),
      lock,
      { source: 'a2a.lock.json' },
    ).resolve;
    expect(profile).toEqual([{ name: 'research', credentialRouteFrom: lock.agents.research }]);
    // A new card location: neither constraint nor route.
    expect(
      planSync(
        manifest((m) => (m.agents.research.card = 'https://other.example')),
        lock,
        { source: 'a2a.lock.json' },
      ).resolve,
    ).toEqual([{ name: 'research', constrainTo: lock.agents.research }]);
  });

  it('renames: an added agent with the card of one removed in the same run is bound by the old lock (renamesOf, planSync, assembleLock)', () => {
    const lock = lockOf(entryFor(raw()));
    const rename = (m: Json) => {
      m.agents['research-v2'] = m.agents.research;
      delete m.agents.research;
    };
    expect(renamesOf(manifest(rename), lock)).toEqual(new Map([['research-v2', 'research']]));
    // Another card location is no rename (an add and a remove); a name still in the manifest is not taken.
    expect(
      renamesOf(
        manifest((m) => {
          rename(m);
          m.agents['research-v2'].card = 'https://other.example';
        }),
        lock,
      ),
    ).toEqual(new Map());
    expect(
      renamesOf(
        manifest((m) => (m.agents.copy = { ...m.agents.research })),
        lock,
      ),
    ).toEqual(new Map());
    // One old entry, two new names with its card: only the first is the rename.
    expect(
      renamesOf(
        manifest((m) => {
          rename(m);
          m.agents.second = { ...m.agents['research-v2'] };
        }),
        lock,
      ),
    ).toEqual(new Map([['research-v2', 'research']]));
    const planned = planSync(manifest(rename), lock, { source: 'a2a.lock.json' });
    expect(planned.resolve).toEqual([
      { name: 'research-v2', constrainTo: lock.agents.research, credentialRouteFrom: lock.agents.research },
    ]);
    expect(planned.renamed).toEqual(new Map([['research-v2', 'research']]));
    // update lifts the constraint, as for any agent.
    expect(
      planSync(manifest(rename), lock, { source: 'a2a.lock.json', force: 'all', acceptServedCredentialRoute: true })
        .resolve,
    ).toEqual([{ name: 'research-v2' }]);
    const resolution = {
      entry: lock.agents.research,
      refusals: [],
      drift: [],
      traces: {},
      warnings: [],
      card: card(raw()),
    };
    const synced = assembleLock(
      manifest(rename),
      lock,
      planned,
      new Map([['research-v2', { status: 'fulfilled', value: resolution }]]),
    );
    expect(synced.actions).toEqual({ 'research-v2': 'renamed' });
    expect(synced.renamed).toEqual({ 'research-v2': 'research' });
    expect(Object.keys(synced.lock.agents)).toEqual(['research-v2']);
    expect(Object.keys(synced.lock.settings)).toEqual(['research-v2']);
  });

  it('planSync re-plans an edited entry from its snapshot, offline; assembleLock keeps unknown fields and reports failures', () => {
    const entry = entryFor(raw());
    const plan = entry.plans['market-size']!;
    const lock = lockOf({
      ...entry,
      plans: { 'market-size': { ...plan, delivery: 'poll' } },
      future: 'kept',
    } as LockEntry);
    const planned = planSync(manifest(), lock, { source: 'a2a.lock.json' });
    expect(planned.resolve).toEqual([]);
    const synced = assembleLock(manifest(), lock, planned, new Map());
    expect(synced.actions).toEqual({ research: 'updated' });
    expect(synced.lock.agents.research).toMatchObject({ future: 'kept', plans: { 'market-size': plan } });
    const failed = assembleLock(
      manifest((m) => m.agents.research.skills.push('more')),
      lock,
      { resolve: [{ name: 'research' }], replanned: new Map() },
      new Map([['research', { status: 'rejected', reason: new A2aLockError('unreachable', 'down') }]]),
    );
    expect(failed.failures).toEqual({
      research: { exitCode: ExitCode.Unreachable, error: { code: 'unreachable', message: 'down' } },
    });
  });
});

describe('exit codes (lock/report.ts)', () => {
  it('overall: the lowest non-zero agent code; strict fails changed and unchecked agents; a non-A2aLockError is a bug, thrown again', () => {
    expect(overallExitCode([])).toBe(ExitCode.Ok);
    expect(overallExitCode([ExitCode.Ok, ExitCode.Timeout, ExitCode.Unreachable, ExitCode.Ok])).toBe(
      ExitCode.Unreachable,
    );
    expect(overallExitCode([ExitCode.Invalid, ExitCode.Drift])).toBe(ExitCode.Drift);
    expect(strictExitCode(okReport([], 'extended card not checked (KEY unset)'), true)).toBe(ExitCode.Drift);
    expect(strictExitCode(okReport([], 'extended card not checked (KEY unset)'), false)).toBe(ExitCode.Ok);
    expect(strictExitCode(okReport(), true)).toBe(ExitCode.Ok);
    expect(errorReport(new A2aLockError('auth-refused', 'no')).exitCode).toBe(ExitCode.Auth);
    expect(() => errorReport(new TypeError('bug'))).toThrow(TypeError);
  });
});
