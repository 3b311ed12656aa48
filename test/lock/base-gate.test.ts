/** Where a review run may send an agent's credential: only along routes its base lockfile had, with the base's secret variable. */
import { describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import { ExitCode } from '../../src/errors.js';
import { extendedChangedSince, gateFromBase, unreadEntryChanged, withheldRoutes } from '../../src/lock/base-gate.js';
import { credentialRoutes } from '../../src/lock/credential-routes.js';
import { changedReport, driftReport, okReport, strictExitCode, withUnchecked } from '../../src/lock/report.js';
import type { LockEntry, Lockfile } from '../../src/lock/schema.js';
import { type AgentSettings, DEFAULT_PROFILE, type Manifest } from '../../src/manifest/schema.js';
import { keyedWorkedExample, lockEntryFor } from '../helpers/worked-example.js';

type Json = Record<string, any>;
const CARD_URL = 'https://research.example.com/.well-known/agent-card.json';
const SETTINGS: AgentSettings = { ...DEFAULT_PROFILE, credentials: ['key'] };
const SOURCES = { key: { env: 'RESEARCH_KEY' } };

/** The keyed worked example with an extended card. */
function raw(
  patch: (c: Json) => void = () => {
    /* unchanged */
  },
): Json {
  return keyedWorkedExample((c) => {
    c.capabilities.extendedAgentCard = true;
    patch(c);
  });
}

/** A lock entry for `json` whose extended card is `json` with another description. */
function entryFor(json: Json, extendedDescription = 'extended'): LockEntry {
  const extended = { ...json, description: extendedDescription };
  return {
    ...lockEntryFor(json, SETTINGS),
    extended: {
      resolved: 'https://research.example.com/a2a/v1',
      integrity: integrityOf(extended),
      snapshot: extended,
      signature: { status: 'absent' },
    },
  } as LockEntry;
}

function lockOf(agents: Record<string, LockEntry>): Lockfile {
  return {
    lockfileVersion: 1,
    agents,
    settings: Object.fromEntries(Object.keys(agents).map((n) => [n, SETTINGS])),
  } as unknown as Lockfile;
}

function manifestOf(credentials: Record<string, { env: string }>): Manifest {
  return {
    profile: DEFAULT_PROFILE,
    agents: { research: { card: CARD_URL, skills: ['market-size'], credentials } },
  } as unknown as Manifest;
}

/** The extended card's routes of `entry` (what verify would send). */
const extendedOf = (entry: LockEntry) => credentialRoutes(entry, SETTINGS).filter((r) => r.purpose === 'extended');

describe('the base gate', () => {
  const base = entryFor(raw());
  const gate = gateFromBase('research', lockOf({ research: base }), manifestOf(SOURCES));

  it('allows the routes the base had, with the same secret variable', () => {
    expect(extendedOf(base)).toHaveLength(1);
    expect(withheldRoutes(gate, extendedOf(base), SOURCES)).toEqual([]);
  });

  it('withholds a new origin, the scheme placed otherwise, another secret variable, and everything for an agent the base did not lock', () => {
    const moved = entryFor(
      raw((c) => {
        for (const i of c.supportedInterfaces) i.url = i.url.replace('research.example.com', 'evil.example.net');
      }),
    );
    expect(withheldRoutes(gate, extendedOf(moved), SOURCES).map((r) => r.origin)).toEqual(['https://evil.example.net']);
    const query = entryFor(
      raw((c) => {
        c.securitySchemes.key = { apiKeySecurityScheme: { location: 'query', name: 'key' } };
      }),
    );
    expect(withheldRoutes(gate, extendedOf(query), SOURCES)).toHaveLength(1);
    expect(withheldRoutes(gate, extendedOf(base), { key: { env: 'OTHER_SECRET' } })).toHaveLength(1);
    const absent = gateFromBase('newcomer', lockOf({ research: base }), manifestOf(SOURCES));
    expect(withheldRoutes(absent, extendedOf(base), SOURCES)).toHaveLength(1);
    const noLockfile = gateFromBase('research', undefined, manifestOf(SOURCES));
    expect(withheldRoutes(noLockfile, extendedOf(base), SOURCES)).toHaveLength(1);
    const noManifest = gateFromBase('research', lockOf({ research: base }), undefined);
    expect(withheldRoutes(noManifest, extendedOf(base), SOURCES)).toHaveLength(1);
  });

  it('a base entry whose snapshot is not a card allows nothing; an unreadable base withholds every route', () => {
    const broken = { ...base, snapshot: { not: 'a card' } } as LockEntry;
    const brokenGate = gateFromBase('research', lockOf({ research: broken }), manifestOf(SOURCES));
    expect(brokenGate).toMatchObject({ kind: 'base', routes: [] });
    expect(withheldRoutes(brokenGate, extendedOf(base), SOURCES)).toHaveLength(1);
    expect(withheldRoutes({ kind: 'unreadable' }, extendedOf(base), SOURCES)).toHaveLength(1);
    expect(withheldRoutes({ kind: 'unreadable' }, [], SOURCES)).toEqual([]);
  });

  it('an entry not read: none when it is the base entry; credential-route-new naming each route a changed entry adds', () => {
    expect(unreadEntryChanged(gate, base, SETTINGS, SOURCES)).toBeUndefined();
    // Only the description changed: the entry differs, but adds no route.
    expect(
      unreadEntryChanged(gate, entryFor(raw((c) => (c.description = 'edited'))), SETTINGS, SOURCES),
    ).toBeUndefined();
    const moved = entryFor(
      raw((c) => {
        for (const i of c.supportedInterfaces) i.url = i.url.replace('research.example.com', 'evil.example.net');
      }),
    );
    expect(unreadEntryChanged(gate, moved, SETTINGS, SOURCES)).toMatchObject({
      reason: 'credential-route-new',
      routes: [{ origin: 'https://evil.example.net', scheme: 'key' }],
    });
    expect(unreadEntryChanged({ kind: 'unreadable' }, moved, SETTINGS, SOURCES)).toBeUndefined();
  });

  it('knows when the extended snapshot changed since the base', () => {
    expect(extendedChangedSince(gate, base)).toBe(false);
    expect(extendedChangedSince(gate, entryFor(raw(), 'edited in the pull request'))).toBe(true);
    expect(extendedChangedSince(gateFromBase('newcomer', lockOf({ research: base }), undefined), base)).toBe(true);
    expect(extendedChangedSince({ kind: 'unreadable' }, base)).toBe(false);
  });
});

describe('withUnchecked', () => {
  const routeNew = {
    reason: 'credential-route-new' as const,
    message: 'm',
    routes: [{ origin: 'https://evil.example.net', scheme: 'key' }],
  };

  it('turns ok and changed into unchecked (exit 0, 1 under --strict); keeps drift; credential-unset too: never ok', () => {
    const ok = withUnchecked(okReport(), routeNew);
    expect(ok).toMatchObject({
      status: 'unchecked',
      exitCode: ExitCode.Ok,
      unchecked: 'm',
      reason: 'credential-route-new',
      routes: routeNew.routes,
    });
    expect(strictExitCode(ok, false)).toBe(ExitCode.Ok);
    expect(strictExitCode(ok, true)).toBe(ExitCode.Drift);
    expect(
      withUnchecked(changedReport({ change: 'descriptive', cardChanges: [], warnings: [] }), {
        reason: 'base-unreadable',
        message: 'b',
      }),
    ).toMatchObject({ status: 'unchecked', change: 'descriptive' });
    expect(
      withUnchecked(
        driftReport({ drift: [{ skill: 's', field: 'url', locked: 'a', fresh: 'b' }], warnings: [] }),
        routeNew,
      ),
    ).toMatchObject({ status: 'drift', exitCode: ExitCode.Drift, reason: 'credential-route-new' });
    expect(withUnchecked(okReport(), { reason: 'credential-unset', message: 'u' })).toEqual({
      status: 'unchecked',
      exitCode: ExitCode.Ok,
      warnings: [],
      unchecked: 'u',
      reason: 'credential-unset',
    });
    expect(withUnchecked(okReport(), undefined)).toEqual(okReport());
  });
});
