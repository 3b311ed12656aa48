/**
 * Issue 14, point 2: a card request refused for its `A2A-Version` (a version-picky framework:
 * HTTP 400, or a VersionNotSupported body in JSON-RPC or google.rpc.ErrorInfo form) is asked again
 * with the profile's next versions in order; lock and verify ask the same way; when every version
 * is refused the error lists each version tried and its answer. Real SDK agents behind a
 * middleware that refuses the versions it does not list.
 */
import { describe, expect, it } from 'vitest';
import {
  allOutput,
  cardRequests,
  handlers,
  jsonOf,
  manifest,
  PROFILE,
  readLock,
  readLockBytes,
  research,
  resources,
  runCli,
  sampleCard,
  show,
} from './helpers.js';

const PICKY_PROFILE = { ...PROFILE, versions: ['1.1', '1.0', '0.3'] };

describe.concurrent('card versions: the profile order, asked until one answers', () => {
  for (const refusal of ['http-400', 'jsonrpc', 'error-info'] as const) {
    it(`${refusal}: lock asks 1.1 then 1.0, locks and records 1.0; verify asks 1.0 first (one request) and passes`, async ({
      onTestFinished,
    }) => {
      const res = resources(onTestFinished);
      const agent = await res.agent({
        card: (origin) => sampleCard(origin),
        cardVersions: ['1.0', '0.3'],
        cardVersionRefusal: refusal,
      });
      const dir = await res.dir(manifest({ research: research(agent.origin) }, PICKY_PROFILE));
      const env = { RESEARCH_TOKEN: 't' };

      const lock = await runCli(['lock'], { cwd: dir, env });
      expect(lock.code, show(lock)).toBe(0);
      expect(cardRequests(agent.requests).map((r) => r.headers['a2a-version'])).toEqual(['1.1', '1.0']);
      const locked = await readLock(dir);
      expect(locked.agents.research.plans['market-size'].protocolVersion).toBe('1.0');
      expect(locked.agents.research.versionHeader).toBe('1.0');

      agent.requests.length = 0;
      const before = await readLockBytes(dir);
      const verify = await runCli(['verify'], { cwd: dir, env });
      expect(verify.code, show(verify)).toBe(0);
      expect(cardRequests(agent.requests).map((r) => r.headers['a2a-version'])).toEqual(['1.0']);
      expect(await readLockBytes(dir)).toEqual(before);

      // lock again: the same answer, nothing written.
      agent.requests.length = 0;
      const again = await runCli(['lock'], { cwd: dir, env });
      expect(again.code, show(again)).toBe(0);
      expect(await readLockBytes(dir)).toEqual(before);
    });
  }

  it('the SDK itself (v0.3 compat on, a card with no 0.3 interface) refuses 0.3 with -32009: 1.0 is asked next', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (origin) => sampleCard(origin), legacyCompat: true });
    const dir = await res.dir(manifest({ research: research(agent.origin) }, { ...PROFILE, versions: ['0.3', '1.0'] }));
    const lock = await runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: 't' } });
    expect(lock.code, show(lock)).toBe(0);
    expect(cardRequests(agent.requests).map((r) => r.headers['a2a-version'])).toEqual(['0.3', '1.0']);
    expect((await readLock(dir)).agents.research.plans['market-size'].protocolVersion).toBe('1.0');
  });

  it("an agent that later refuses the recorded version: verify asks the profile's other versions in order", async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const first = await res.agent({ card: (origin) => sampleCard(origin), cardVersions: ['1.0'] });
    const dir = await res.dir(manifest({ research: research(first.origin) }, PICKY_PROFILE));
    const env = { RESEARCH_TOKEN: 't' };
    expect((await runCli(['lock'], { cwd: dir, env })).code).toBe(0);
    expect((await readLock(dir)).agents.research.versionHeader).toBe('1.0');
    await first.close();
    // The same port, now refusing 1.0 (answering 0.3 only); the card is unchanged.
    const port = Number(new URL(first.origin).port);
    const later = await res.agent({ card: () => sampleCard(first.origin), cardVersions: ['0.3'], port });
    const verify = await runCli(['verify'], { cwd: dir, env });
    expect(verify.code, show(verify)).toBe(0);
    expect(cardRequests(later.requests).map((r) => r.headers['a2a-version'])).toEqual(['1.0', '1.1', '0.3']);
  });

  it('the first version answers: one card request per agent on verify, no versionHeader recorded', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (origin) => sampleCard(origin), cardVersions: ['1.1', '1.0'] });
    const dir = await res.dir(manifest({ research: research(agent.origin) }, PICKY_PROFILE));
    const env = { RESEARCH_TOKEN: 't' };
    expect((await runCli(['lock'], { cwd: dir, env })).code).toBe(0);
    expect((await readLock(dir)).agents.research).not.toHaveProperty('versionHeader');
    agent.requests.length = 0;
    const verify = await runCli(['verify'], { cwd: dir, env });
    expect(verify.code, show(verify)).toBe(0);
    expect(cardRequests(agent.requests).map((r) => r.headers['a2a-version'])).toEqual(['1.1']);
  });

  it('every version refused: exit 3, the error names each version tried and its answer; no lockfile', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const plain = await res.agent({ card: (origin) => sampleCard(origin), cardVersions: ['2.0'] });
    const rpc = await res.agent({
      card: (origin) => sampleCard(origin),
      cardVersions: ['2.0'],
      cardVersionRefusal: 'jsonrpc',
    });
    const info = await res.agent({
      card: (origin) => sampleCard(origin),
      cardVersions: ['2.0'],
      cardVersionRefusal: 'error-info',
    });
    for (const [agent, answer] of [
      [plain, /HTTP 400\)/],
      [rpc, /HTTP 200: VersionNotSupported \(-32009\): A2A-Version 1\.1 not supported/],
      [info, /HTTP 400: VERSION_NOT_SUPPORTED: A2A-Version 1\.1 not supported/],
    ] as const) {
      const dir = await res.dir(manifest({ research: research(agent.origin) }, PICKY_PROFILE));
      const lock = await runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: 't' } });
      expect(lock.code, show(lock)).toBe(3);
      expect(allOutput(lock)).toMatch(/every A2A-Version asked for was refused: 1\.1 \(.*\), 1\.0 \(.*\), 0\.3 \(.*\)/);
      expect(allOutput(lock)).toMatch(answer);
      expect(cardRequests(agent.requests).map((r) => r.headers['a2a-version'])).toEqual(['1.1', '1.0', '0.3']);
      agent.requests.length = 0;
      expect(await readLockBytes(dir)).toBeUndefined();

      const json = await runCli(['lock', '--json'], { cwd: dir, env: { RESEARCH_TOKEN: 't' } });
      expect(jsonOf(json).agents.research.error.message).toMatch(
        /every A2A-Version asked for was refused: 1\.1 \(HTTP (400|200).*?\), 1\.0 \(/,
      );
      agent.requests.length = 0;
    }
  });
});

describe('card discovery: a 404 on both well-known paths', () => {
  it('names both URLs tried (a card command and lock)', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const server = await res.http(handlers.status(404));
    const dir = await res.dir(manifest({ research: research(server.origin) }));
    const [card, lock] = await Promise.all([
      runCli(['card', server.origin], { cwd: dir }),
      runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: 't' } }),
    ]);
    for (const r of [card, lock]) {
      expect(r.code, show(r)).toBe(3);
      expect(allOutput(r)).toContain(
        `${server.origin}/.well-known/agent-card.json: not found (404); ${server.origin}/.well-known/agent.json: not found (404) either`,
      );
    }
  });
});
