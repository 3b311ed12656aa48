/**
 * The flow against real SDK agents: lock → verify 0 → drift → verify 1 (readable diff,
 * lockfile untouched) → update → verify 0; descriptive vs structural changes; a card served with
 * `Cache-Control: max-age=3600` changed a second later.
 */
import { describe, expect, it } from 'vitest';
import {
  cardRequests,
  jsonOf,
  manifest,
  readLock,
  readLockBytes,
  research,
  resources,
  runCli,
  sampleCard,
  show,
  sleep,
} from './helpers.js';

describe.concurrent('lock → verify → drift → update → verify (1.0 agent + 0.3-compat agent)', () => {
  it('locks both agents, refuses drift with a readable diff, and accepts it after update', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const v1 = await res.sampleAgent();
    const v03 = await res.sampleAgent({ legacy: true });
    const dir = await res.dir(
      manifest({
        research: research(v1.origin),
        'legacy-research': research(v03.origin, {
          credentials: { bearer: { env: 'LEGACY_TOKEN' } },
          profile: { versions: ['0.3'] },
        }),
      }),
    );
    // The headline flow runs the real binary (node dist/a2a.js, the bundle) as a process: exit codes, output
    // and the pooled connections closed at exit, end to end. Other tests mostly run in-process.
    const cli = (...args: string[]) => runCli(args, { cwd: dir, spawn: true });

    // lock
    const lock = await cli('lock');
    expect(lock.code, show(lock)).toBe(0);
    expect(lock.stdout).toMatch(/\+ research added/);
    expect(lock.stdout).toMatch(/\+ legacy-research added/);
    const locked = await readLock(dir);
    expect(Object.keys(locked.agents).sort()).toEqual(['legacy-research', 'research']);

    // Headers on every card request: A2A-Version = the agent profile's first version, Accept JSON.
    for (const [agent, version] of [
      [v1, '1.0'],
      [v03, '0.3'],
    ] as const) {
      const requests = cardRequests(agent.requests);
      expect(requests.length).toBeGreaterThan(0);
      for (const r of requests) {
        expect(r.headers['a2a-version']).toBe(version);
        expect(r.headers.accept).toBe('application/json');
        expect(r.headers.authorization).toBeUndefined();
      }
    }

    // The 1.0 agent: JSONRPC 1.0; the compat agent served its 0.3-shaped card and the 0.3 plan was locked.
    expect(locked.agents.research.plans['market-size']).toEqual({
      url: v1.jsonRpcUrl,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      security: { bearer: [] },
      acceptedOutputModes: ['application/json'],
      delivery: 'stream',
      extensions: ['https://example.com/ext/citations/v1'],
      fallbacks: {
        interfaces: [{ url: v1.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
        delivery: ['poll'],
      },
    });
    expect(locked.agents.research.snapshot.protocolVersion).toBeUndefined();
    expect(locked.agents['legacy-research'].plans['market-size']).toMatchObject({
      url: v03.jsonRpcUrl,
      protocolBinding: 'JSONRPC',
      protocolVersion: '0.3',
    });
    expect(locked.agents['legacy-research'].snapshot).toMatchObject({
      protocolVersion: '0.3',
      url: v03.jsonRpcUrl,
      preferredTransport: 'JSONRPC',
    });
    expect(locked.settings['legacy-research'].versions).toEqual(['0.3']);
    expect(locked.settings.research.versions).toEqual(['1.0', '0.3']);

    // verify: all good
    const ok = await cli('verify');
    expect(ok.code, show(ok)).toBe(0);
    expect(ok.stdout).toMatch(/verified 2 agents/);

    // Drift on both: the 1.0 agent's skill no longer outputs application/json (text/plain instead);
    // the 0.3 agent stops streaming.
    const before = await readLockBytes(dir);
    const card1 = sampleCard(v1.origin);
    card1.skills[0]!.outputModes = ['text/plain', 'application/pdf'];
    v1.setCard(card1);
    const card03 = sampleCard(v03.origin, {}, { legacy: true });
    card03.capabilities = { ...card03.capabilities, streaming: false };
    v03.setCard(card03);

    const [drift, driftJson] = await Promise.all([cli('verify'), cli('verify', '--json')]);
    expect(drift.code, show(drift)).toBe(1);
    // agent, skill, field, locked → fresh, and the command to run
    expect(drift.stdout).toMatch(/✗ research: beyond the lockfile/);
    expect(drift.stdout).toContain('market-size › acceptedOutputModes:\n      - application/json\n      + text/plain');
    expect(drift.stdout).toMatch(/run: a2a update research\b/);
    expect(drift.stdout).toMatch(/✗ legacy-research: beyond the lockfile/);
    expect(drift.stdout).toMatch(/market-size › delivery: "stream" → "poll"/);
    expect(drift.stdout).toMatch(/run: a2a update legacy-research\b/);
    expect(driftJson.code, show(driftJson)).toBe(1);
    const report = jsonOf(driftJson);
    expect(report.ok).toBe(false);
    expect(report.agents.research.status).toBe('drift');
    expect(report.agents['legacy-research'].status).toBe('drift');
    expect(report.agents['legacy-research'].drift).toContainEqual({
      skill: 'market-size',
      field: 'delivery',
      locked: 'stream',
      fresh: 'poll',
    });
    expect(report.agents.research.drift).toContainEqual({
      skill: 'market-size',
      field: 'acceptedOutputModes',
      locked: ['application/json'],
      fresh: ['text/plain'],
    });
    // verify read only
    expect(await readLockBytes(dir)).toEqual(before);

    // update one agent: prints the card and plan diff and writes it
    const update = await cli('update', 'research');
    expect(update.code, show(update)).toBe(0);
    expect(update.stdout).toMatch(/~ research updated/);
    expect(update.stdout).toContain('- $.skills["market-size"].outputModes: "application/json" structural');
    expect(update.stdout).toContain(
      'plan market-size › acceptedOutputModes:\n      - application/json\n      + text/plain',
    );
    expect(update.stdout).not.toMatch(/legacy-research (updated|added)/);
    const afterUpdate = await readLock(dir);
    expect(afterUpdate.agents.research.plans['market-size'].acceptedOutputModes).toEqual(['text/plain']);
    expect(afterUpdate.agents['legacy-research']).toEqual(JSON.parse(before!.toString()).agents['legacy-research']);

    // The other agent still drifts.
    const partly = await cli('verify');
    expect(partly.code, show(partly)).toBe(1);
    expect(partly.stdout).toMatch(/✓ research/);
    expect(partly.stdout).toMatch(/✗ legacy-research: beyond the lockfile/);

    const update2 = await cli('update', 'legacy-research');
    expect(update2.code, show(update2)).toBe(0);
    expect(update2.stdout).toMatch(/plan market-size › delivery: "stream" → "poll"/);
    expect((await readLock(dir)).agents['legacy-research'].plans['market-size'].delivery).toBe('poll');

    const final = await cli('verify');
    expect(final.code, show(final)).toBe(0);
    expect(final.stdout).toMatch(/✓ research/);
    expect(final.stdout).toMatch(/✓ legacy-research/);
  });

  it('a refused narrowed plan (interface gone) names skill, field and locked → fresh values', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const v1 = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(v1.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readLockBytes(dir);

    // The JSONRPC interface is dropped: the agent now only offers HTTP+JSON 1.0.
    const card = sampleCard(v1.origin);
    card.supportedInterfaces = card.supportedInterfaces.filter((i) => i.protocolBinding !== 'JSONRPC');
    v1.setCard(card);

    const r = await runCli(['verify'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toMatch(/✗ research: beyond the lockfile/);
    expect(r.stdout).toMatch(/market-size: refused with the locked choices: no-common-interface/);
    expect(r.stdout).toMatch(/market-size › protocolBinding: "JSONRPC" → "HTTP\+JSON"/);
    expect(r.stdout).toContain(`market-size › url: "${v1.jsonRpcUrl}" → "${v1.restUrl}"`);
    expect(r.stdout).toMatch(/run: a2a update research\b/);
    expect(await readLockBytes(dir)).toEqual(before);
  });
});

describe.concurrent('card changes that leave every plan equal', () => {
  it('descriptive change: verify exit 0 reporting it; --strict exit 1; lockfile untouched', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const v1 = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(v1.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readLockBytes(dir);
    v1.setCard(sampleCard(v1.origin, { description: 'Now with more charts.' }));

    const [plain, strict, json] = await Promise.all([
      runCli(['verify'], { cwd: dir }),
      runCli(['verify', '--strict'], { cwd: dir }),
      runCli(['verify', '--json'], { cwd: dir }),
    ]);
    expect(plain.code, show(plain)).toBe(0);
    expect(plain.stdout).toMatch(/research: card changed \(descriptive\), plans unchanged/);
    expect(plain.stdout).toMatch(/\$\.description: "Sizes markets.*" → "Now with more charts\." descriptive/);
    expect(strict.code, show(strict)).toBe(1);
    expect(strict.stdout).toMatch(/research: card changed \(descriptive\)/);
    expect(strict.stdout).toMatch(/run: a2a update research/);
    expect(plain.stdout).not.toMatch(/run: a2a update/);
    expect(jsonOf(json).agents.research).toMatchObject({ status: 'changed', change: 'descriptive' });
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('structural change the locked plan does not use: exit 0 reported as structural; --strict exit 1', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const v1 = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(v1.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readLockBytes(dir);
    const card = sampleCard(v1.origin);
    card.supportedInterfaces = [
      ...card.supportedInterfaces,
      { url: `${v1.origin}/grpc`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ];
    v1.setCard(card);

    const [plain, strict] = await Promise.all([
      runCli(['verify'], { cwd: dir }),
      runCli(['verify', '--strict'], { cwd: dir }),
    ]);
    expect(plain.code, show(plain)).toBe(0);
    expect(plain.stdout).toMatch(/research: card changed \(structural\), plans unchanged/);
    // An interface is known by (binding, version, url), not by its index.
    expect(plain.stdout).toMatch(
      /\+ \$\.supportedInterfaces\["GRPC 1\.0 http:\/\/127\.0\.0\.1:\d+\/grpc"\]: .*structural/,
    );
    expect(strict.code, show(strict)).toBe(1);
    expect(await readLockBytes(dir)).toEqual(before);
  });
});

describe.concurrent('HTTP caching', () => {
  it('a card served with Cache-Control: max-age=3600 and changed a second later is seen as changed', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const v1 = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(v1.origin) }));
    // The SDK's card handler really sends a long max-age (and an ETag).
    const probe = await fetch(v1.cardUrl, { headers: { 'A2A-Version': '1.0', Accept: 'application/json' } });
    await probe.arrayBuffer();
    expect(probe.headers.get('cache-control')).toMatch(/max-age=3600/);

    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    await sleep(1000);
    const card = sampleCard(v1.origin);
    card.skills[0]!.outputModes = ['text/plain'];
    v1.setCard(card);
    const seen = cardRequests(v1.requests).length;

    const r = await runCli(['verify', '--json'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(jsonOf(r).agents.research.status).toBe('drift');
    expect(cardRequests(v1.requests).length).toBeGreaterThan(seen);
  });
});
