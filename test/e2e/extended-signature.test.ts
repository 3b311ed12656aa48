/**
 * Issue 3, "Extended card" and "Signatures", end to end: the built CLI against real
 * `@a2a-js/sdk` 1.3.0 servers on 127.0.0.1.
 *
 * Extended card: the SDK serves it itself (`extendedAgentCardProvider`) to requests carrying the
 * harness's bearer token; the public card hides the `deep-research` skill. Signatures: cards are
 * signed with the SDK's own `generateAgentCardSignature` (ES256 keys from `jose`), the JWKS is
 * served at the JWS `jku` on the agent's own origin, or pinned in the manifest (`trust.jwks`).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as jose from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import type { StartedAgent } from '../helpers/agents.js';
import { jwksOn, type Key, newKey, sign, signedAgent } from '../helpers/signed-agent.js';
import { type Card, DEEP, extendedCard, publicCard } from './cards.js';
import {
  allOutput,
  type CliResult,
  cardRequests,
  expectSecretContained,
  jsonOf,
  lockPath,
  type ManifestAgent,
  manifest,
  PROFILE,
  readLock,
  readLockBytes,
  research,
  resources,
  runCli,
  sampleCard,
  show,
  writeLockBytes,
  writeManifest,
} from './helpers.js';

type Res = ReturnType<typeof resources>;

const TOKEN = 'rsrch-e2e-T0ken-8c1f4d2b';
const WITH_TOKEN = { RESEARCH_TOKEN: TOKEN };
/** `lock` without the wire probe, where a test asserts every request the agent saw (the probe's own: lock-probe.test.ts). */
const NO_PROBE = ['lock', '--no-probe'];
// ------------------------------------------------------------------------------------------------
// Extended-card agents

/** A real SDK agent with bearer auth and an extended card (`extended: false`: none configured). */
function extendedAgent(res: Res, extended = true): Promise<StartedAgent> {
  return res.agent({
    card: publicCard,
    bearerToken: TOKEN,
    ...(extended ? { extendedCard: (o: string) => extendedCard(o) } : {}),
  });
}

function deepResearch(origin: string, extra: Partial<ManifestAgent> = {}): ManifestAgent {
  return { card: origin, skills: ['deep-research'], credentials: { bearer: { env: 'RESEARCH_TOKEN' } }, ...extra };
}

/** Requests to the A2A endpoints (not the public card). */
const a2aRequests = (agent: StartedAgent) => agent.requests.filter((r) => r.path.startsWith('/a2a'));

/** TOKEN appears nowhere in `results` nor in the lockfile of `dir` (when there is one). */
async function expectTokenNowhere(dir: string, results: CliResult[]): Promise<void> {
  const lockfile = (await readLockBytes(dir)) === undefined ? [] : [lockPath(dir)];
  await expectSecretContained(TOKEN, { results, files: lockfile });
}

/**
 * The secret never leaves the process environment but for the extended card: TOKEN appears
 * nowhere in `results`, the lockfile or a card request; no card request carries Authorization; the
 * requests to the A2A endpoints are exactly `extended` ("METHOD path"), each with `Bearer TOKEN`
 * and `A2A-Version: 1.0`.
 */
async function expectTokenOnlyOnExtendedCard(
  a: StartedAgent,
  dir: string,
  results: CliResult[],
  extended: string[],
): Promise<void> {
  await expectTokenNowhere(dir, results);
  const cards = cardRequests(a.requests);
  expect(cards.length).toBeGreaterThan(0);
  await expectSecretContained(TOKEN, { requests: cards });
  for (const q of cards) expect(q.headers.authorization, q.path).toBeUndefined();
  const rpc = a2aRequests(a);
  expect(rpc.map((q) => `${q.method} ${q.path}`)).toEqual(extended);
  for (const q of rpc) {
    expect(q.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(q.headers['a2a-version']).toBe('1.0');
  }
}

// ------------------------------------------------------------------------------------------------
// Signatures

let k1: Key;
let k2: Key;
beforeAll(async () => {
  [k1, k2] = await Promise.all([newKey('k1'), newKey('k2')]);
});

const verified = (key: Key) => ({ status: 'verified', kid: key.kid, alg: 'ES256', thumbprint: key.thumbprint });

// ------------------------------------------------------------------------------------------------

// Several CLI runs per test on a shared (often busy) machine: a roomier per-test timeout than the default.
describe.concurrent('extended card (SDK extendedAgentCardProvider, bearer auth)', { timeout: 40_000 }, () => {
  it('lock over JSON-RPC: GetExtendedAgentCard with the token; extended snapshot locked; deep-research planned; token nowhere', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await extendedAgent(res);
    const { dir, lock: r } = await res.locked(manifest({ research: deepResearch(a.origin) }), WITH_TOKEN, NO_PROBE);

    const bytes = (await readLockBytes(dir))!.toString('utf8');
    const entry = JSON.parse(bytes).agents.research;

    expect(Object.keys(entry.extended).sort()).toEqual(['integrity', 'resolved', 'signature', 'snapshot']);
    expect(entry.extended.resolved).toBe(a.jsonRpcUrl);
    expect(entry.extended.integrity).toMatch(/^sha256-[A-Za-z0-9+/]{43}=$/);
    expect(entry.extended.integrity).not.toBe(entry.integrity);
    expect(entry.extended.signature).toEqual({ status: 'absent' });
    expect(entry.extended.snapshot.skills.map((s: { id: string }) => s.id)).toEqual(['market-size', 'deep-research']);
    expect(entry.snapshot.skills.map((s: { id: string }) => s.id)).toEqual(['market-size']);
    expect(entry.plans).toEqual({
      'deep-research': {
        url: a.jsonRpcUrl,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
        security: { bearer: [] },
        acceptedOutputModes: ['application/json'],
        delivery: 'stream',
        extensions: ['https://example.com/ext/citations/v1'],
        fallbacks: {
          interfaces: [{ url: a.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
          delivery: ['poll'],
        },
      },
    });

    // The extended request: POST to the JSON-RPC interface, Bearer token, A2A-Version; the public
    // card request: no Authorization; the token nowhere else.
    await expectTokenOnlyOnExtendedCard(a, dir, [r], ['POST /a2a/jsonrpc']);
  });

  it('lock over HTTP+JSON when the profile prefers it: GET /extendedAgentCard with the token', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await extendedAgent(res);
    const { dir, lock: r } = await res.locked(
      manifest({ research: deepResearch(a.origin) }, { ...PROFILE, bindings: ['HTTP+JSON', 'JSONRPC'] }),
      WITH_TOKEN,
      NO_PROBE,
    );

    const bytes = (await readLockBytes(dir))!.toString('utf8');
    const entry = JSON.parse(bytes).agents.research;
    expect(entry.extended.resolved).toBe(`${a.restUrl}/extendedAgentCard`);
    expect(entry.extended.snapshot.skills.map((s: { id: string }) => s.id)).toContain('deep-research');
    expect(entry.plans['deep-research']).toMatchObject({
      url: a.restUrl,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
      acceptedOutputModes: ['application/json'],
    });
    await expectTokenOnlyOnExtendedCard(a, dir, [r], ['GET /a2a/rest/extendedAgentCard']);

    // verify through the same binding, with the token.
    const v = await runCli(['verify'], { cwd: dir, env: WITH_TOKEN });
    expect(v.code, show(v)).toBe(0);
    expect(a2aRequests(a).map((q) => q.path)).toEqual(['/a2a/rest/extendedAgentCard', '/a2a/rest/extendedAgentCard']);
  });

  it('lock without RESEARCH_TOKEN fails with one line naming it (exit 2); no lockfile, and an existing one untouched', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await extendedAgent(res);
    const dir = await res.dir(manifest({ research: deepResearch(a.origin) }));

    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(2);
    const line = allOutput(r)
      .split('\n')
      .find((l) => l.includes('RESEARCH_TOKEN'));
    expect(line, show(r)).toMatch(/research: credential-unset: .*RESEARCH_TOKEN.*not set/);
    expect(await readLockBytes(dir)).toBeUndefined();
    expect(a2aRequests(a)).toEqual([]); // nothing sent without the credential

    // An existing lockfile that needs re-resolution (a skill added) keeps its bytes.
    const ok = await runCli(['lock'], { cwd: dir, env: WITH_TOKEN });
    expect(ok.code, show(ok)).toBe(0);
    const before = await readLockBytes(dir);
    await writeManifest(
      dir,
      manifest({ research: deepResearch(a.origin, { skills: ['deep-research', 'market-size'] }) }),
    );
    const again = await runCli(['lock'], { cwd: dir });
    expect(again.code, show(again)).toBe(2);
    expect(allOutput(again)).toContain('RESEARCH_TOKEN');
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('lock with a wrong RESEARCH_TOKEN: auth refused (exit 4) naming the URL, the value never shown, nothing written', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await extendedAgent(res);
    const dir = await res.dir(manifest({ research: deepResearch(a.origin) }));
    const wrong = 'wrong-T0ken-never-printed-77';

    const r = await runCli(['lock', '--verbose'], { cwd: dir, env: { RESEARCH_TOKEN: wrong } });
    expect(r.code, show(r)).toBe(4);
    expect(r.stdout).toContain(`research: auth-refused: ${a.jsonRpcUrl}: authentication refused (401)`);
    await expectSecretContained(wrong, { results: [r] });
    expect(await readLockBytes(dir)).toBeUndefined();
    expect(a2aRequests(a)[0]!.headers.authorization).toBe(`Bearer ${wrong}`);
  });

  it('verify: with the token exit 0; without it "extended card not checked (RESEARCH_TOKEN unset)" exit 0; --strict exit 1', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await extendedAgent(res);
    const { dir } = await res.locked(manifest({ research: deepResearch(a.origin) }), WITH_TOKEN, NO_PROBE);
    const before = await readLockBytes(dir);

    const [withToken, without, strict, strictJson] = await Promise.all([
      runCli(['verify'], { cwd: dir, env: WITH_TOKEN }),
      runCli(['verify'], { cwd: dir }),
      runCli(['verify', '--strict'], { cwd: dir }),
      runCli(['verify', '--strict', '--json'], { cwd: dir }),
    ]);
    expect(withToken.code, show(withToken)).toBe(0);
    expect(allOutput(withToken)).not.toContain('not checked');
    expect(without.code, show(without)).toBe(0);
    expect(allOutput(without)).toContain('extended card not checked (RESEARCH_TOKEN unset)');
    expect(strict.code, show(strict)).toBe(1);
    expect(allOutput(strict)).toContain('extended card not checked (RESEARCH_TOKEN unset)');
    expect(strictJson.code, show(strictJson)).toBe(1);
    expect(jsonOf(strictJson).agents.research).toMatchObject({
      status: 'unchecked',
      unchecked: 'extended card not checked (RESEARCH_TOKEN unset)',
      exitCode: 1,
    });
    await expectTokenNowhere(dir, [withToken, without, strict, strictJson]);
    // Only the run with the token sent a credential; verify never writes.
    const authed = a2aRequests(a).filter((q) => q.headers.authorization === `Bearer ${TOKEN}`);
    expect(authed).toHaveLength(2); // lock + verify with the token
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('extended card drift: deep-research loses application/json → verify 1 naming it; update shows extended: diff and writes; verify 0', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await extendedAgent(res);
    const { dir } = await res.locked(manifest({ research: deepResearch(a.origin) }), WITH_TOKEN);
    const before = await readLockBytes(dir);

    a.setExtendedCard(extendedCard(a.origin, ['text/plain']));
    const v = await runCli(['verify'], { cwd: dir, env: WITH_TOKEN });
    expect(v.code, show(v)).toBe(1);
    expect(v.stdout).toMatch(/research: beyond the lockfile/);
    expect(v.stdout).toMatch(/deep-research: refused with the locked choices: no-common-output-mode/);
    expect(v.stdout).toContain('deep-research › acceptedOutputModes:\n      - application/json\n      + text/plain');
    expect(v.stdout).toMatch(/extended:\$\.skills\["deep-research"\]\.outputModes/);
    expect(v.stdout).toContain('run: a2a update research');
    expect(await readLockBytes(dir)).toEqual(before);

    const u = await runCli(['update', 'research'], { cwd: dir, env: WITH_TOKEN });
    expect(u.code, show(u)).toBe(0);
    expect(u.stdout).toMatch(/~ research updated/);
    // Card lines (the plan's list members, `+ text/plain`, aside).
    const cardLines = u.stdout.split('\n').filter((l) => /^\s+[~+-] /.test(l) && !/^\s+[+-] [a-z]+\/[\w.+-]+$/.test(l));
    expect(cardLines.length, show(u)).toBeGreaterThan(0);
    for (const l of cardLines) expect(l).toMatch(/^\s+[~+-] extended:\$/); // only the extended card changed
    expect(u.stdout).toMatch(/extended:\$\.skills\["deep-research"\]\.outputModes/);
    expect(u.stdout).toContain(
      'plan deep-research › acceptedOutputModes:\n      - application/json\n      + text/plain',
    );
    expect(u.stdout).toMatch(/wrote .*a2a\.lock\.json/);
    await expectTokenNowhere(dir, [u]);
    const after = await readLock(dir);
    expect(after.agents.research.plans['deep-research'].acceptedOutputModes).toEqual(['text/plain']);
    expect(after.agents.research.extended.snapshot.skills[1].outputModes).toEqual(['text/plain']);

    const v2 = await runCli(['verify'], { cwd: dir, env: WITH_TOKEN });
    expect(v2.code, show(v2)).toBe(0);
  });

  it('an agent advertising an extended card with none configured: lock 0 with no-extended-card, plans from the public card', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await extendedAgent(res, false);
    const { dir, lock: r } = await res.locked(manifest({ research: research(a.origin) }), WITH_TOKEN, NO_PROBE);

    // The SDK answers GetExtendedAgentCard with -32007 ExtendedAgentCardNotConfigured: a warning.
    expect(r.stderr).toMatch(
      /warning no-extended-card: research: .*GetExtendedAgentCard answered -32007 ExtendedAgentCardNotConfigured/,
    );
    const entry = (await readLock(dir)).agents.research;
    expect(entry.extended).toBeUndefined();
    expect(entry.plans['market-size']).toMatchObject({
      url: a.jsonRpcUrl,
      protocolBinding: 'JSONRPC',
      acceptedOutputModes: ['application/json'],
    });
    // The extended card was asked for once, with the token; the token went nowhere else.
    await expectTokenOnlyOnExtendedCard(a, dir, [r], ['POST /a2a/jsonrpc']);

    const v = await runCli(['verify'], { cwd: dir, env: WITH_TOKEN });
    expect(v.code, show(v)).toBe(0);
  });

  it('a 0.3 client of an SDK compat agent: the extended card flag of the 0.3 card is honoured (agent/getAuthenticatedExtendedCard)', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const legacyPublic = (o: string) => ({
      ...sampleCard(o, {}, { legacy: true }),
      capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: true },
    });
    const agent = await res.agent({
      card: legacyPublic,
      legacyCompat: true,
      bearerToken: TOKEN,
      extendedCard: (o: string) => {
        const c = legacyPublic(o);
        return { ...c, skills: [...c.skills, DEEP] };
      },
    });
    const { dir } = await res.locked(
      manifest({ research: deepResearch(agent.origin, { profile: { versions: ['0.3'] } }) }),
      WITH_TOKEN,
    );
    const entry = (await readLock(dir)).agents.research;
    expect(entry.plans['deep-research']).toMatchObject({ protocolBinding: 'JSONRPC', protocolVersion: '0.3' });
    expect(entry.extended).toBeDefined();
    expect(
      a2aRequests(agent).some(
        (q) => q.headers['a2a-version'] === '0.3' && q.headers.authorization === `Bearer ${TOKEN}`,
      ),
    ).toBe(true);
  });

  it('verify --offline passes with an extended snapshot (agent gone) and fails naming integrity when it is tampered', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await extendedAgent(res);
    const { dir } = await res.locked(manifest({ research: deepResearch(a.origin) }), WITH_TOKEN);
    await a.close(); // offline means offline

    const ok = await runCli(['verify', '--offline'], { cwd: dir });
    expect(ok.code, show(ok)).toBe(0);
    expect(ok.stdout).toMatch(/verified 1 agent \(offline\)/);

    const locked = await readLock(dir);
    locked.agents.research.extended.snapshot.description = 'Extended: tampered.';
    await writeLockBytes(dir, `${JSON.stringify(locked, null, 2)}\n`);
    const bad = await runCli(['verify', '--offline'], { cwd: dir });
    expect(bad.code, show(bad)).not.toBe(0);
    expect(bad.code).toBe(2);
    expect(allOutput(bad)).toMatch(/extended snapshot does not match its integrity sha256-/);
  });
});

/** An extended-card agent locked in a new directory, and a second agent that only records what it receives. */
async function lockedWithCollector(res: Res): Promise<{ a: StartedAgent; collector: StartedAgent; dir: string }> {
  const a = await extendedAgent(res);
  const collector = await res.agent({ card: sampleCard });
  const dir = await res.dir(manifest({ research: deepResearch(a.origin) }));
  const lock = await runCli(['lock'], { cwd: dir, env: WITH_TOKEN });
  expect(lock.code, show(lock)).toBe(0);
  return { a, collector, dir };
}

describe.concurrent('extended card and an edited lockfile', { timeout: 40_000 }, () => {
  it('online verify checks an entry offline before any credentialed request: a plan URL edited to another server gets no request and no token', async ({
    onTestFinished,
  }) => {
    const { a, collector, dir } = await lockedWithCollector(resources(onTestFinished));

    // The public card still matches its snapshot (the fast path); only the plan's URL is edited.
    const locked = await readLock(dir);
    const plan = locked.agents.research.plans['deep-research'];
    plan.url = plan.url.replace(a.origin, collector.origin);
    await writeLockBytes(dir, `${JSON.stringify(locked, null, 2)}\n`);
    const seenBefore = collector.requests.length;

    const r = await runCli(['verify', '--json'], { cwd: dir, env: WITH_TOKEN });
    expect(r.code, show(r)).toBe(1);
    const report = jsonOf(r).agents.research;
    expect(report.status).toBe('out-of-date');
    expect(report.reasons.join('\n')).toMatch(/locked plan differs from the plan its snapshot negotiates \(.*url/);
    expect(collector.requests.slice(seenBefore)).toEqual([]);
    await expectTokenNowhere(dir, [r]);
  });

  it('an extended snapshot and plan re-pointed to another server, integrity recomputed: the token goes only to an interface the served card offers', async ({
    onTestFinished,
  }) => {
    const { a, collector, dir } = await lockedWithCollector(resources(onTestFinished));

    // A consistent edit (the offline check passes): every URL of the extended snapshot and of the
    // plans now names the collector, and the extended integrity is recomputed.
    const locked = await readLock(dir);
    const entry = locked.agents.research;
    const moved = <T>(value: T): T => JSON.parse(JSON.stringify(value).split(a.origin).join(collector.origin));
    entry.extended.snapshot = moved(entry.extended.snapshot);
    entry.extended.integrity = integrityOf(entry.extended.snapshot);
    entry.plans = moved(entry.plans);
    await writeLockBytes(dir, `${JSON.stringify(locked, null, 2)}\n`);
    expect((await runCli(['verify', '--offline'], { cwd: dir })).code).toBe(0);
    const seenBefore = collector.requests.length;

    const r = await runCli(['verify', '--json'], { cwd: dir, env: WITH_TOKEN });
    expect(r.code, show(r)).toBe(1);
    expect(jsonOf(r).agents.research.status).toBe('drift');
    expect(collector.requests.slice(seenBefore)).toEqual([]);
    // The extended card was read from the agent itself, through the interface its card offers.
    expect(a2aRequests(a).at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('a card with relative interface URLs: an edited `resolved` (and plans to match) passes offline but not online verify', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const relative = (origin: string) => {
      const card = sampleCard(origin);
      return {
        ...card,
        supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: new URL(i.url).pathname })),
      } as Card;
    };
    const a = await res.agent({ card: relative });
    const collector = await res.agent({ card: sampleCard });
    const dir = await res.dir(manifest({ research: research(a.origin) }));
    expect((await runCli(['lock'], { cwd: dir, env: WITH_TOKEN })).code).toBe(0);

    // Relative URLs resolve against `resolved`: point it and the plans at the collector.
    const locked = await readLock(dir);
    const entry = locked.agents.research;
    entry.resolved = entry.resolved.replace(a.origin, collector.origin);
    entry.plans = JSON.parse(JSON.stringify(entry.plans).split(a.origin).join(collector.origin));
    await writeLockBytes(dir, `${JSON.stringify(locked, null, 2)}\n`);
    expect((await runCli(['verify', '--offline'], { cwd: dir })).code).toBe(0); // the snapshot alone cannot tell

    const r = await runCli(['verify', '--json'], { cwd: dir, env: WITH_TOKEN });
    expect(r.code, show(r)).toBe(1);
    const report = jsonOf(r).agents.research;
    expect(report.status).toBe('drift');
    expect(report.cardChanges[0]).toMatchObject({ path: 'resolved', kind: 'changed' });
    expect(report.drift.map((d: { field: string }) => d.field)).toContain('url');
  });

  it('lock (a skill added) and outdated never send the credential the new way the served card defines; update does, when asked', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await extendedAgent(res);
    const dir = await res.dir(manifest({ research: deepResearch(a.origin) }));
    expect((await runCli(['lock'], { cwd: dir, env: WITH_TOKEN })).code).toBe(0);
    const before = await readLockBytes(dir);

    a.setCard({
      ...publicCard(a.origin),
      securitySchemes: { bearer: { apiKeySecurityScheme: { location: 'query', name: 'leak' } } },
    } as Card);
    await writeManifest(
      dir,
      manifest({ research: deepResearch(a.origin, { skills: ['deep-research', 'market-size'] }) }),
    );
    const seen = a.requests.length;
    for (const args of [['lock'], ['outdated', '--json']]) {
      const r = await runCli(args, { cwd: dir, env: WITH_TOKEN });
      expect(r.code, `${args[0]}: ${show(r)}`).toBe(1);
      expect(allOutput(r), args[0]).toMatch(/securitySchemes\.bearer/);
    }
    expect(a.requests.slice(seen).map((q) => q.path)).toEqual([
      '/.well-known/agent-card.json',
      '/.well-known/agent-card.json',
    ]);
    expect(await readLockBytes(dir)).toEqual(before);

    // update accepts the card as served: the credential now goes as a query parameter, as the agent says.
    const u = await runCli(['update', 'research'], { cwd: dir, env: WITH_TOKEN });
    expect(
      a.requests
        .slice(seen)
        .map((q) => q.path)
        .at(-1),
    ).toBe('/a2a/jsonrpc');
    expect(allOutput(u)).toMatch(/\?leak=\*\*\*/); // the SDK agent still wants a bearer header: 401, with the value hidden
    await expectTokenNowhere(dir, [u]);
  });

  it('a scheme the extended card presents differently is drift (the runtime would keep sending it the locked way)', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await extendedAgent(res);
    const dir = await res.dir(manifest({ research: deepResearch(a.origin) }));
    expect((await runCli(['lock'], { cwd: dir, env: WITH_TOKEN })).code).toBe(0);
    // Only the extended card changes: deep-research now says its bearer token goes in a cookie.
    a.setExtendedCard({
      ...extendedCard(a.origin),
      securitySchemes: { bearer: { apiKeySecurityScheme: { location: 'cookie', name: 'session' } } },
    } as Card);
    const r = await runCli(['verify', '--json'], { cwd: dir, env: WITH_TOKEN });
    expect(r.code, show(r)).toBe(1);
    const report = jsonOf(r).agents.research;
    expect(report.status).toBe('drift');
    expect(report.drift.map((d: { field: string }) => d.field)).toContain('securitySchemes.bearer');
    // lock, after a skill is added to the manifest, refuses it too rather than relocking silently.
    await writeManifest(
      dir,
      manifest({ research: deepResearch(a.origin, { skills: ['deep-research', 'market-size'] }) }),
    );
    const relock = await runCli(['lock'], { cwd: dir, env: WITH_TOKEN });
    expect(relock.code, show(relock)).toBe(1);
    expect(relock.stdout).toMatch(/deep-research › securitySchemes\.bearer/);
    await writeManifest(dir, manifest({ research: deepResearch(a.origin) }));
    // A description added to a scheme, or `bearer` for `Bearer`, presents it the same way: not drift.
    a.setExtendedCard({
      ...extendedCard(a.origin),
      securitySchemes: { bearer: { description: 'a token', httpAuthSecurityScheme: { scheme: 'bearer' } } },
    } as Card);
    const same = await runCli(['verify', '--json'], { cwd: dir, env: WITH_TOKEN });
    expect(same.code, show(same)).toBe(0);
    expect(jsonOf(same).agents.research.status).toBe('changed');
  });

  it('a public card whose apiKey moves from a header to the query: drift for verify and for lock after a skill is added (not a silent relock); a respelled header name is not', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const other = {
      id: 'other',
      name: 'Other',
      description: 'Another skill.',
      tags: [],
      inputModes: ['text/plain'],
      outputModes: ['application/json'],
    };
    const card = (origin: string, apiKey: Record<string, string>) =>
      ({
        ...sampleCard(origin),
        securitySchemes: { key: { apiKeySecurityScheme: apiKey } },
        securityRequirements: [{ schemes: { key: { list: [] } } }],
        skills: [...sampleCard(origin).skills, other],
      }) as Card;
    const agent = await res.agent({ card: (o: string) => card(o, { location: 'header', name: 'X-Key' }) });
    const entry = (skills: string[]) => ({
      card: agent.origin,
      skills,
      credentials: { key: { env: 'RESEARCH_TOKEN' } },
    });
    const dir = await res.dir(manifest({ keyed: entry(['market-size']) }));
    expect((await runCli(['lock'], { cwd: dir, env: WITH_TOKEN })).code).toBe(0);
    const before = await readLockBytes(dir);

    agent.setCard(card(agent.origin, { location: 'header', name: 'x-key' }));
    const respelled = await runCli(['verify', '--json'], { cwd: dir, env: WITH_TOKEN });
    expect(respelled.code, show(respelled)).toBe(0);

    agent.setCard(card(agent.origin, { location: 'query', name: 'key' }));
    const v = await runCli(['verify', '--json'], { cwd: dir, env: WITH_TOKEN });
    expect(v.code, show(v)).toBe(1);
    expect(jsonOf(v).agents.keyed.drift[0].field).toBe('securitySchemes.key');

    await writeManifest(dir, manifest({ keyed: entry(['market-size', 'other']) }));
    const l = await runCli(['lock'], { cwd: dir, env: WITH_TOKEN });
    expect(l.code, show(l)).toBe(1);
    expect(l.stdout).toMatch(/securitySchemes\.key/);
    expect(l.stdout).toContain('run: a2a update keyed');
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('a served card that drops or redefines the locked scheme is drift and gets no credential (no crash, no token in a URL or cookie)', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await extendedAgent(res);
    const other = await res.agent({ card: sampleCard });
    const { dir } = await res.locked(
      manifest({ research: deepResearch(a.origin), other: research(other.origin) }),
      WITH_TOKEN,
    );

    const variants: Record<string, Partial<Card>> = {
      dropped: { securitySchemes: {}, securityRequirements: [] },
      query: { securitySchemes: { bearer: { apiKeySecurityScheme: { location: 'query', name: 'leak' } } } },
      cookie: { securitySchemes: { bearer: { apiKeySecurityScheme: { location: 'cookie', name: 'c' } } } },
    };
    for (const [name, change] of Object.entries(variants)) {
      a.setCard({ ...publicCard(a.origin), ...change } as Card);
      const seenBefore = a.requests.length;
      const r = await runCli(['verify', '--json'], { cwd: dir, env: WITH_TOKEN });
      expect(r.code, `${name}: ${show(r)}`).toBe(1);
      const report = jsonOf(r).agents;
      expect(report.research.status, name).toBe('drift');
      expect(report.research.drift[0].field, name).toBe('securitySchemes.bearer');
      expect(report.other.status, name).toBe('ok'); // the other agent is still reported
      expect(
        a.requests.slice(seenBefore).map((q) => q.path),
        name,
      ).toEqual(['/.well-known/agent-card.json']);
      await expectTokenNowhere(dir, [r]);
    }
  });
});

describe.concurrent('card signatures (SDK generateAgentCardSignature, ES256)', { timeout: 40_000 }, () => {
  it('a card signed by k1 with the JWKS at its jku → lock records verified k1 with the jose thumbprint', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { agent, jwks } = await signedAgent(res.agent, k1);
    const { dir, lock: r } = await res.locked(manifest({ research: research(agent.origin) }));

    const entry = (await readLock(dir)).agents.research;
    expect(entry.signature).toEqual(verified(k1));
    expect(entry.signature.thumbprint).toBe(await jose.calculateJwkThumbprint(k1.jwk));
    expect(entry.integrity).toMatch(/^sha256-/); // separate from the signature
    expect(entry.snapshot.signatures).toHaveLength(1);
    expect(jwks.hits()).toBeGreaterThan(0);
    expect(allOutput(r)).not.toMatch(/signature-unverifiable/);

    const v = await runCli(['verify'], { cwd: dir });
    expect(v.code, show(v)).toBe(0);
  });

  it('trust.jwks (a manifest file holding k1) verifies the card without fetching the jku', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { agent, jwks } = await signedAgent(res.agent, k1);
    const dir = await res.dir(
      manifest({ research: { ...research(agent.origin), trust: { jwks: 'keys.json' } } as ManifestAgent }),
    );
    await writeFile(join(dir, 'keys.json'), JSON.stringify({ keys: [k1.jwk] }));

    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect((await readLock(dir)).agents.research.signature).toEqual(verified(k1));
    expect(jwks.hits()).toBe(0);
  });

  it('re-signed with k2 → verify 1 with old → new thumbprint; update 0 shows old → new key and writes; verify 0', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { agent, jwks, card } = await signedAgent(res.agent, k1);
    const { dir } = await res.locked(manifest({ research: research(agent.origin) }));
    const before = await readLockBytes(dir);

    jwks.setKeys([k2]);
    agent.setCard(await sign(card, k2, jwks.jku));
    const v = await runCli(['verify'], { cwd: dir });
    expect(v.code, show(v)).toBe(1);
    expect(v.stdout).toMatch(/research: beyond the lockfile/);
    expect(v.stdout).toContain(
      `signature (card): verified (kid k1, ES256, thumbprint ${k1.thumbprint}) → verified (kid k2, ES256, thumbprint ${k2.thumbprint})`,
    );
    expect(v.stdout).not.toMatch(/market-size/); // the plans themselves are unchanged
    expect(v.stdout).toContain('run: a2a update research');
    expect(await readLockBytes(dir)).toEqual(before);

    const u = await runCli(['update', 'research'], { cwd: dir });
    expect(u.code, show(u)).toBe(0);
    expect(u.stdout).toContain(
      `signature (card): verified (kid k1, ES256, thumbprint ${k1.thumbprint}) → verified (kid k2, ES256, thumbprint ${k2.thumbprint})`,
    );
    expect(u.stdout).toMatch(/wrote .*a2a\.lock\.json/);
    expect((await readLock(dir)).agents.research.signature).toEqual(verified(k2));

    const v2 = await runCli(['verify'], { cwd: dir });
    expect(v2.code, show(v2)).toBe(0);
  });

  it('re-signed with k2, then re-read by lock (card URL respelled): lock refuses the key change (exit 1), only update accepts it', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { agent, jwks, card } = await signedAgent(res.agent, k1);
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    jwks.setKeys([k1, k2]);
    agent.setCard(await sign(card, k2, jwks.jku));
    await writeManifest(dir, manifest({ research: research(`${agent.origin}/`) }));
    const before = await readLockBytes(dir);
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toContain(
      `signature (card): verified (kid k1, ES256, thumbprint ${k1.thumbprint}) → verified (kid k2, ES256, thumbprint ${k2.thumbprint})`,
    );
    expect(r.stdout).toContain('run: a2a update research');
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('the same signed card whose key left the JWKS → verify 1 (verified → unverifiable), not a silent pass', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { agent, jwks } = await signedAgent(res.agent, k1);
    const { dir } = await res.locked(manifest({ research: research(agent.origin) }));
    expect((await readLock(dir)).agents.research.signature).toEqual(verified(k1));

    jwks.setKeys([k2]); // k1 revoked; the card bytes are unchanged
    const v = await runCli(['verify', '--json'], { cwd: dir });
    expect(v.code, show(v)).toBe(1);
    expect(jsonOf(v).agents.research).toMatchObject({
      status: 'drift',
      signatureDrift: [{ snapshot: 'card', locked: verified(k1), fresh: { status: 'unverifiable' } }],
    });
  });

  it('a tampered card (description changed after signing) → verify 1: verified → unverifiable', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { agent, signed } = await signedAgent(res.agent, k1);
    const { dir } = await res.locked(manifest({ research: research(agent.origin) }));
    const before = await readLockBytes(dir);

    agent.setCard({ ...signed, description: 'Sizes markets. Now with 50% more confidence.' });
    const v = await runCli(['verify'], { cwd: dir });
    expect(v.code, show(v)).toBe(1);
    expect(v.stdout).toContain(
      `signature (card): verified (kid k1, ES256, thumbprint ${k1.thumbprint}) → unverifiable (kid k1, ES256)`,
    );
    expect(v.stderr).toMatch(/signature-unverifiable: .*does not match the card/);
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('a verified card served unsigned later → verify 1: verified → absent', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const { agent, card } = await signedAgent(res.agent, k1);
    const { dir } = await res.locked(manifest({ research: research(agent.origin) }));

    agent.setCard(card);
    const v = await runCli(['verify', '--json'], { cwd: dir });
    expect(v.code, show(v)).toBe(1);
    expect(jsonOf(v).agents.research).toMatchObject({
      status: 'drift',
      signatureDrift: [{ snapshot: 'card', locked: verified(k1), fresh: { status: 'absent' } }],
    });
  });

  it('requireSignature: an unsigned card → lock 1, clear message, nothing written; signed → lock 0', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { agent, card, signed } = await signedAgent(res.agent, k1);
    agent.setCard(card); // unsigned first
    const dir = await res.dir(
      manifest({ research: { ...research(agent.origin), requireSignature: true } as ManifestAgent }),
    );

    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toMatch(
      /research: signature-required: .*card signature is absent; the manifest requires a verified signature/,
    );
    expect(r.stdout).toMatch(/a2a\.lock\.json not written/);
    expect(await readLockBytes(dir)).toBeUndefined();

    agent.setCard(signed);
    const ok = await runCli(['lock'], { cwd: dir });
    expect(ok.code, show(ok)).toBe(0);
    const lock = await readLock(dir);
    expect(lock.agents.research.signature).toEqual(verified(k1));
    expect(lock.settings.research.requireSignature).toBe(true);
  });

  it('trust.jwks without the card key → unverifiable, even though the jku JWKS has it (pinned keys win)', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { agent, jwks } = await signedAgent(res.agent, k1);
    const dir = await res.dir(
      manifest({ research: { ...research(agent.origin), trust: { jwks: 'pinned.json' } } as ManifestAgent }),
    );
    // The pinned set holds another key, even under the same kid.
    await writeFile(join(dir, 'pinned.json'), JSON.stringify({ keys: [{ ...k2.jwk, kid: 'k1' }] }));

    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect((await readLock(dir)).agents.research.signature).toEqual({
      status: 'unverifiable',
      kid: 'k1',
      alg: 'ES256',
    });
    expect(r.stderr).toMatch(/signature-unverifiable: /);
    expect(jwks.hits()).toBe(0); // the jku was never consulted
  });

  it('a signed extended card: the extended snapshot records its own verified signature', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const a = await res.agent({ card: publicCard, bearerToken: TOKEN });
    const jwks = jwksOn(a, [k2]);
    a.setExtendedCard(await sign(extendedCard(a.origin), k2, jwks.jku));
    const { dir } = await res.locked(manifest({ research: deepResearch(a.origin) }), WITH_TOKEN);

    const entry = (await readLock(dir)).agents.research;
    expect(entry.signature).toEqual({ status: 'absent' });
    expect(entry.extended.signature).toEqual(verified(k2));
    expect(entry.plans['deep-research']).toBeDefined();
  });
});
