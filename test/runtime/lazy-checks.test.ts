/**
 * Lazy checks do not weaken the lock: a tampered snapshot (integrity mismatch) and a plan edited
 * beyond its card are refused on the agent's first `lock.agent()` (lazy) or by `loadLock` (eager),
 * before any byte reaches the agent or the place the edit points at (a recording node:http server);
 * an invalid entry for agent B breaks only B when lazy, and the load when eager; a manifest out of
 * step refuses every agent on the first `lock.agent()` (lazy) or at load (eager). Against a real
 * @a2a-js/sdk server on 127.0.0.1.
 */

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import { runLock } from '../../src/commands/lock.js';
import { type LoadLockOptions, loadLock } from '../../src/runtime/index.js';
import { type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';
import { sdkText } from '../helpers/sdk-message.js';

const PROFILE = {
  bindings: ['JSONRPC'],
  versions: ['1.0'],
  accepts: ['application/json'],
  sends: ['text/plain'],
  streaming: true,
  extensions: [],
};

let agent: StartedAgent;
let elsewhere: http.Server;
let elsewhereUrl: string;
/** Every request the recording server received. */
const received: string[] = [];
let dir: string;
let locked: Record<string, any>;

const text = (value: string) => ({ message: sdkText(value) });

/** Write `lock` as a lockfile beside the manifest; the loadLock options for it. */
async function lockfile(name: string, lock: unknown, extra: LoadLockOptions = {}): Promise<LoadLockOptions> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(lock));
  return { lockfile: path, manifest: join(dir, 'a2a.json'), ...extra };
}

/** The A2A requests (not card fetches) the agent received since `from`. */
function a2aSince(from: number): number {
  return agent.requests.slice(from).filter((r) => r.path.startsWith('/a2a')).length;
}

beforeAll(async () => {
  agent = await startAgent({ card: (origin) => sampleCard(origin, { securitySchemes: {}, securityRequirements: [] }) });
  elsewhere = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((ok) => elsewhere.listen(0, '127.0.0.1', ok));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/a2a/jsonrpc`;
  dir = await mkdtemp(join(tmpdir(), 'a2a-lazy-'));
  const agents = {
    a: { card: agent.origin, skills: ['market-size'] },
    b: { card: agent.origin, skills: ['market-size'] },
  };
  await writeFile(join(dir, 'a2a.json'), JSON.stringify({ profile: PROFILE, agents }));
  const result = await runLock({ manifest: join(dir, 'a2a.json'), json: true, verbose: false, cwd: dir, env: {} });
  expect(result.exitCode, JSON.stringify(result.data)).toBe(0);
  locked = JSON.parse(await readFile(join(dir, 'a2a.lock.json'), 'utf8'));
});

afterAll(async () => {
  await agent?.close();
  await new Promise((ok) => elsewhere?.close(ok));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('tampered entries are refused before any byte is sent, lazy and eager', () => {
  /** The lockfile with agent b's plan pointed at the recording server (beyond its card). */
  const planElsewhere = () => {
    const lock = structuredClone(locked);
    lock.agents.b.plans['market-size'].url = elsewhereUrl;
    return lock;
  };
  /** The lockfile with agent b's snapshot pointed at the recording server and its integrity recomputed: the plan is then beyond nothing but still must match. */
  const snapshotEdited = () => {
    const lock = structuredClone(locked);
    lock.agents.b.snapshot.supportedInterfaces[0].url = elsewhereUrl;
    return lock;
  };

  it('lazy: a plan edited beyond its card and a snapshot edited without its integrity: b refused on every lock.agent(), nothing reaches the agent or the edited URL; a still works', async () => {
    for (const [name, lock, code, pattern] of [
      [
        'plan-elsewhere.lock.json',
        planElsewhere(),
        'lockfile-out-of-date',
        /locked plan differs from the plan its snapshot negotiates \(url/,
      ],
      ['snapshot-edited.lock.json', snapshotEdited(), 'lockfile-invalid', /snapshot does not match its integrity/],
    ] as const) {
      const from = agent.requests.length;
      received.length = 0;
      const lockNow = await loadLock(await lockfile(name, lock));
      for (let i = 0; i < 2; i++)
        expect(() => lockNow.agent('b', 'market-size'), name).toThrow(
          expect.objectContaining({ code, message: expect.stringMatching(pattern) }),
        );
      expect(received, name).toEqual([]);
      expect(a2aSince(from), name).toBe(0);
      const client = await lockNow.agent('a', 'market-size').createClient();
      expect(JSON.stringify(await client.sendMessage(text('fine') as never))).toContain('echo: fine');
      expect(received).toEqual([]);
    }
  });

  it('a snapshot edited with its integrity recomputed and the plan following it is refused too: the plan is checked against what the snapshot negotiates, not against the hash', async () => {
    const lock = snapshotEdited();
    lock.agents.b.integrity = integrityOf(lock.agents.b.snapshot);
    lock.agents.b.plans['market-size'].fallbacks = { interfaces: [], delivery: ['poll'] };
    received.length = 0;
    const lazy = await loadLock(await lockfile('consistent.lock.json', lock));
    expect(() => lazy.agent('b', 'market-size')).toThrow(expect.objectContaining({ code: 'lockfile-out-of-date' }));
    await expect(loadLock(await lockfile('consistent.lock.json', lock, { eager: true }))).rejects.toMatchObject({
      code: 'lockfile-out-of-date',
    });
    expect(received).toEqual([]);
  });

  it('eager: the same lockfiles are refused by loadLock itself, nothing sent', async () => {
    received.length = 0;
    const from = agent.requests.length;
    await expect(
      loadLock(await lockfile('plan-elsewhere.lock.json', planElsewhere(), { eager: true })),
    ).rejects.toMatchObject({ code: 'lockfile-out-of-date', message: expect.stringMatching(/agent "b"/) });
    await expect(
      loadLock(await lockfile('snapshot-edited.lock.json', snapshotEdited(), { eager: true })),
    ).rejects.toMatchObject({
      code: 'lockfile-invalid',
      message: expect.stringMatching(/agents\.b: snapshot does not match its integrity/),
    });
    expect(received).toEqual([]);
    expect(a2aSince(from)).toBe(0);
  });
});

describe('an invalid entry', () => {
  const invalid = () => {
    const lock = structuredClone(locked);
    lock.agents.b.plans['market-size'].delivery = 'carrier-pigeon';
    lock.settings.b.streaming = 'yes';
    delete lock.agents.b.version;
    return lock;
  };

  it('lazy: breaks only its own agent (the schema error, naming the path, on every call); the other agent works', async () => {
    const lock = await loadLock(await lockfile('invalid-b.lock.json', invalid()));
    for (let i = 0; i < 2; i++) {
      expect(() => lock.agent('b', 'market-size')).toThrow(
        expect.objectContaining({
          code: 'lockfile-invalid',
          data: expect.objectContaining({ path: '$.settings.b.streaming' }),
        }),
      );
    }
    const client = await lock.agent('a', 'market-size').createClient();
    expect(JSON.stringify(await client.sendMessage(text('still fine') as never))).toContain('echo: still fine');
  });

  it("lazy: an entry's own schema error is named when its settings are valid", async () => {
    const bad = invalid();
    bad.settings.b.streaming = true;
    const lock = await loadLock(await lockfile('invalid-b2.lock.json', bad));
    const error = (() => {
      try {
        lock.agent('b', 'market-size');
      } catch (e) {
        return e as { code: string; data: { path: string } };
      }
      return undefined;
    })();
    expect(error).toMatchObject({ code: 'lockfile-invalid', data: { path: '$.agents.b.version' } });
    expect(() => lock.agent('a', 'market-size')).not.toThrow();
  });

  it('eager: fails the load, with the error the CLI reads the file with', async () => {
    await expect(loadLock(await lockfile('invalid-b.lock.json', invalid(), { eager: true }))).rejects.toMatchObject({
      code: 'lockfile-invalid',
      data: expect.objectContaining({ path: '$.settings.b.streaming' }),
    });
  });

  it('a malformed top level fails the load either way', async () => {
    const bad = structuredClone(locked);
    bad.agents = [];
    for (const eager of [false, true]) {
      await expect(loadLock(await lockfile('top.lock.json', bad, { eager }))).rejects.toMatchObject({
        code: 'lockfile-invalid',
        data: expect.objectContaining({ path: '$.agents' }),
      });
    }
  });
});

describe('the manifest', () => {
  it('out of step for every agent: lazy refuses each on lock.agent(), eager refuses the load; an invalid manifest refuses every agent; nothing sent', async () => {
    const manifest = join(dir, 'other.json');
    await writeFile(
      manifest,
      JSON.stringify({
        profile: { ...PROFILE, streaming: false },
        agents: {
          a: { card: agent.origin, skills: ['market-size'] },
          b: { card: agent.origin, skills: ['market-size'] },
        },
      }),
    );
    const from = agent.requests.length;
    const lazy = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), manifest });
    for (const name of ['a', 'b', 'a'])
      expect(() => lazy.agent(name, 'market-size')).toThrow(
        expect.objectContaining({ code: 'lockfile-out-of-date', message: expect.stringMatching(/does not match/) }),
      );
    await expect(loadLock({ lockfile: join(dir, 'a2a.lock.json'), manifest, eager: true })).rejects.toMatchObject({
      code: 'lockfile-out-of-date',
    });
    await writeFile(manifest, '{"agents": 3}');
    const invalid = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), manifest });
    expect(() => invalid.agent('a', 'market-size')).toThrow(expect.objectContaining({ code: 'manifest-invalid' }));
    expect(a2aSince(from)).toBe(0);
  });

  it('out of step for one agent: lazy refuses only that agent, eager the load', async () => {
    const manifest = join(dir, 'one.json');
    await writeFile(
      manifest,
      JSON.stringify({
        profile: PROFILE,
        agents: {
          a: { card: agent.origin, skills: ['market-size'] },
          b: { card: agent.origin, skills: ['market-size'], profile: { streaming: false } },
        },
      }),
    );
    const lazy = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), manifest });
    expect(() => lazy.agent('b', 'market-size')).toThrow(
      expect.objectContaining({
        code: 'lockfile-out-of-date',
        message: expect.stringMatching(/: b: profile, credentials/),
      }),
    );
    expect(() => lazy.agent('a', 'market-size')).not.toThrow();
    await expect(loadLock({ lockfile: join(dir, 'a2a.lock.json'), manifest, eager: true })).rejects.toMatchObject({
      code: 'lockfile-out-of-date',
      message: expect.stringMatching(/: b: profile, credentials/),
    });
  });

  it('an explicit manifest that does not exist fails the load', async () => {
    await expect(
      loadLock({ lockfile: join(dir, 'a2a.lock.json'), manifest: join(dir, 'missing.json') }),
    ).rejects.toMatchObject({ code: 'manifest-not-found' });
  });
});
