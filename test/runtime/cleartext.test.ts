/**
 * One plain-http rule (issue 15, "Transport"): an http interface or push endpoint on a host that is
 * not loopback is not locked unless the agent's `allowHttp` (a2a.json) says so, which the lockfile
 * records in its settings; and whatever the lockfile says, the runtime never places a credential on a
 * cleartext request to such a host (refused before anything is sent).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeCard } from '../../src/card/normalize.js';
import { runLock } from '../../src/commands/lock.js';
import { routeFor } from '../../src/lock/route.js';
import { agentSettings } from '../../src/manifest/schema.js';
import { loadLock } from '../../src/runtime/index.js';
import { sampleCard } from '../helpers/agents.js';
import { sdkText } from '../helpers/sdk-message.js';

const TOKEN = 'cleartext-secret';
const PROFILE = {
  bindings: ['JSONRPC'],
  versions: ['1.0'],
  accepts: ['application/json'],
  sends: ['text/plain'],
  streaming: false,
};
let dir: string;

/** A card on a host that is not loopback, read from a file (nothing is fetched). */
function remoteCard(url: string, secured = true) {
  const card = sampleCard('https://agent.example', {
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  });
  return secured ? card : { ...card, securitySchemes: {}, securityRequirements: [] };
}

async function lockWith(agents: Record<string, unknown>, profile: Record<string, unknown> = PROFILE) {
  await writeFile(join(dir, 'a2a.json'), JSON.stringify({ profile, agents }));
  return runLock({ manifest: join(dir, 'a2a.json'), json: true, verbose: false, cwd: dir, env: {} });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-cleartext-'));
  await writeFile(join(dir, 'http.json'), JSON.stringify(remoteCard('http://agent.example:8080/a2a/jsonrpc')));
  await writeFile(join(dir, 'open.json'), JSON.stringify(remoteCard('http://agent.example:8080/a2a/jsonrpc', false)));
  await writeFile(
    join(dir, 'both.json'),
    JSON.stringify(
      sampleCard('https://agent.example', {
        supportedInterfaces: [
          { url: 'http://agent.example/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: 'https://agent.example/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ],
      }),
    ),
  );
  await writeFile(join(dir, 'loopback.json'), JSON.stringify(remoteCard('http://127.0.0.2:9/a2a/jsonrpc')));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('locking plain http off loopback', () => {
  it('refuses an http interface on a non-loopback host with plain-http (exit 1) unless the agent allows http', async () => {
    const refused = await lockWith({
      remote: { card: 'http.json', skills: ['market-size'], credentials: { bearer: { env: 'T' } } },
    });
    expect(refused.exitCode).toBe(1);
    expect(JSON.stringify(refused.data)).toContain('"code":"plain-http"');
    expect(JSON.stringify(refused.data)).toMatch(/allowHttp/);
  });

  it('takes the https interface of the same binding and version instead of the http one before it', async () => {
    const result = await lockWith({
      both: { card: 'both.json', skills: ['market-size'], credentials: { bearer: { env: 'T' } } },
    });
    expect(result.exitCode, JSON.stringify(result.data)).toBe(0);
    const lock = JSON.parse(await readFile(join(dir, 'a2a.lock.json'), 'utf8'));
    expect(lock.agents.both.plans['market-size'].url).toBe('https://agent.example/a2a/jsonrpc');
    expect(lock.agents.both.plans['market-size'].fallbacks).toBeUndefined();
  });

  it('locks loopback http (127.0.0.2 too) without allowHttp', async () => {
    const result = await lockWith({
      local: { card: 'loopback.json', skills: ['market-size'], credentials: { bearer: { env: 'T' } } },
    });
    expect(result.exitCode, JSON.stringify(result.data)).toBe(0);
  });

  it('refuses a plain-http push endpoint off loopback (plain-http) unless the agent allows http', async () => {
    const push = sampleCard('https://agent.example', {
      supportedInterfaces: [
        { url: 'https://agent.example/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: false, pushNotifications: true, extensions: [] },
    });
    await writeFile(join(dir, 'push.json'), JSON.stringify(push));
    const profile = { ...PROFILE, pushEndpoint: 'http://client.example/hook' };
    const refused = await lockWith(
      { push: { card: 'push.json', skills: ['market-size'], credentials: { bearer: { env: 'T' } } } },
      profile,
    );
    expect(refused.exitCode).toBe(1);
    expect(JSON.stringify(refused.data)).toMatch(/"code":"plain-http".*push endpoint http:\/\/client\.example\/hook/);
    const allowed = await lockWith(
      { push: { card: 'push.json', skills: ['market-size'], credentials: { bearer: { env: 'T' } }, allowHttp: true } },
      profile,
    );
    expect(allowed.exitCode, JSON.stringify(allowed.data)).toBe(0);
  });

  it('with "allowHttp": true locks it and records allowHttp in the lock settings; removing it makes the lock out of date', async () => {
    const agents = {
      remote: { card: 'http.json', skills: ['market-size'], credentials: { bearer: { env: 'T' } }, allowHttp: true },
    };
    const result = await lockWith(agents);
    expect(result.exitCode, JSON.stringify(result.data)).toBe(0);
    const lock = JSON.parse(await readFile(join(dir, 'a2a.lock.json'), 'utf8'));
    expect(lock.settings.remote.allowHttp).toBe(true);
    expect(lock.agents.remote.plans['market-size'].url).toBe('http://agent.example:8080/a2a/jsonrpc');
    await writeFile(
      join(dir, 'a2a.json'),
      JSON.stringify({ profile: PROFILE, agents: { remote: { ...agents.remote, allowHttp: undefined } } }),
    );
    // Lazy (the default): the agent is refused on its first lock.agent(); eager: the load is.
    const lazy = await loadLock({ lockfile: join(dir, 'a2a.lock.json') });
    expect(() => lazy.agent('remote', 'market-size')).toThrow(
      expect.objectContaining({ code: 'lockfile-out-of-date' }),
    );
    await expect(loadLock({ lockfile: join(dir, 'a2a.lock.json'), eager: true })).rejects.toMatchObject({
      code: 'lockfile-out-of-date',
    });
  });
});

describe('fetching over plain http off loopback', () => {
  it("a card URL is refused insecure-url (exit 2) before connecting; the agent's allowHttp lets the request go (here: a host that does not resolve)", async () => {
    const refused = await lockWith({ remote: { card: 'http://agent.invalid/', skills: ['market-size'] } });
    expect(refused.exitCode).toBe(2);
    expect(JSON.stringify(refused.data)).toMatch(/"code":"insecure-url".*allowHttp/);
    const allowed = await lockWith({
      remote: { card: 'http://agent.invalid/', skills: ['market-size'], allowHttp: true },
    });
    expect(allowed.exitCode).toBe(3);
    expect(JSON.stringify(allowed.data)).toContain('"code":"unreachable"');
  });
});

describe('the runtime on a cleartext interface off loopback', () => {
  it('never sends the credential, though the lockfile allows http: agent.fetch and createClient() refuse before sending', async () => {
    const agents = {
      remote: { card: 'http.json', skills: ['market-size'], credentials: { bearer: { env: 'T' } }, allowHttp: true },
    };
    expect((await lockWith(agents)).exitCode).toBe(0);
    const sent: string[] = [];
    const recorder: typeof fetch = async (input) => {
      sent.push(String(input instanceof Request ? input.url : input));
      return new Response('{}', { headers: { 'content-type': 'application/json' } });
    };
    const lock = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: { T: TOKEN }, fetch: recorder });
    const agent = lock.agent('remote', 'market-size');
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    });
    await expect(
      agent.fetch(agent.plan.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
    ).rejects.toMatchObject({
      name: 'PlanViolationError',
      code: 'plan-violation',
      message: expect.stringMatching(/plain http to a host that is not loopback: a credential is never sent/),
    });
    const client = await agent.createClient();
    await expect(client.sendMessage({ message: sdkText('hi') } as never)).rejects.toMatchObject({
      code: 'plan-violation',
    });
    expect(sent).toEqual([]);
  });

  it('sends a request that needs no credential (the agent allows http)', async () => {
    const agents = { open: { card: 'open.json', skills: ['market-size'], allowHttp: true } };
    expect((await lockWith(agents)).exitCode).toBe(0);
    const sent: string[] = [];
    const recorder: typeof fetch = async (input) => {
      sent.push(String(input instanceof Request ? input.url : input));
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }), {
        headers: { 'content-type': 'application/json' },
      });
    };
    const lock = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), fetch: recorder });
    const agent = lock.agent('open', 'market-size');
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    });
    await agent.fetch(agent.plan.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(sent).toEqual(['http://agent.example:8080/a2a/jsonrpc']);
  });
});

describe('the extended card over plain http', () => {
  it('is not fetched with a credential through a plain-http interface off loopback, though the agent allows http', () => {
    const raw = { ...remoteCard('http://agent.example:8080/a2a/jsonrpc'), capabilities: { extendedAgentCard: true } };
    const { card } = normalizeCard(raw, { source: 'card.json' });
    const manifest = {
      profile: { ...PROFILE, pushEndpoint: null, extensions: [] },
      agents: {
        remote: { card: 'card.json', skills: ['market-size'], credentials: { bearer: { env: 'T' } }, allowHttp: true },
      },
    };
    const warnings: Array<{ code: string; message: string }> = [];
    expect(routeFor(card, ['market-size'], agentSettings(manifest as never, 'remote'), warnings)).toBeUndefined();
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'no-extended-card', message: expect.stringMatching(/plain http .* never sent/) }),
    ]);
  });
});
