/**
 * Issue 25 against real @a2a-js/sdk servers on 127.0.0.1: credentials belong to an agent (two
 * agents whose cards both name a scheme `bearer` never see each other's token), a push config goes
 * only to the locked pushEndpoint, the default fetch goes through HTTPS_PROXY / HTTP_PROXY (a
 * CONNECT proxy recording tunnels) unless a custom fetch is given, and the `degraded` event of a
 * drifted agent names its skill.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageRequest } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDefaultDispatcher } from '../../src/http/dispatcher.js';
import { type CredentialRequest, type DegradedEvent, type LoadLockOptions, loadLock } from '../../src/runtime/index.js';
import { type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';
import { lockProject } from '../helpers/lock-project.js';
import { startConnectProxy } from '../helpers/proxy.js';

const TOKEN_A = 'token-of-agent-a';
const TOKEN_B = 'token-of-agent-b';
const HOOK = 'https://hook.example/a2a';
let a: StartedAgent;
let b: StartedAgent;
let dir: string;

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
const plain = (text: string) => SendMessageRequest.fromJSON({ message: message(text) });
const withPush = (text: string, url: string) =>
  SendMessageRequest.fromJSON({ message: message(text), configuration: { taskPushNotificationConfig: { url } } });
/** Put back the process environment's variables as `saved` holds them (undefined: unset). */
function restoreEnv(saved: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

/** A JSON-RPC 1.0 profile of plain text, no streaming (the proxied agents' manifests). */
const PLAIN_JSONRPC = {
  bindings: ['JSONRPC'],
  versions: ['1.0'],
  accepts: ['application/json', 'text/plain'],
  sends: ['text/plain'],
  streaming: false,
};
const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

function options(extra: LoadLockOptions = {}): LoadLockOptions {
  return { lockfile: join(dir, 'a2a.lock.json'), env: { B_TOKEN: TOKEN_B }, ...extra };
}

/** The Authorization headers `agent` received on its A2A routes since `from`. */
function authorizations(agent: StartedAgent, from = 0): unknown[] {
  return agent.requests
    .slice(from)
    .filter((r) => r.path.startsWith('/a2a'))
    .map((r) => r.headers.authorization);
}

beforeAll(async () => {
  const pushing = (origin: string) => {
    const card = sampleCard(origin);
    return { ...card, capabilities: { ...card.capabilities, pushNotifications: true } };
  };
  a = await startAgent({ card: pushing, bearerToken: TOKEN_A });
  b = await startAgent({ card: (origin) => sampleCard(origin), bearerToken: TOKEN_B });
  dir = await mkdtemp(join(tmpdir(), 'a2a-agent-credentials-'));
  await lockProject(dir, {
    profile: {
      bindings: ['JSONRPC', 'HTTP+JSON'],
      versions: ['1.0'],
      accepts: ['application/json', 'text/plain'],
      sends: ['text/plain'],
      streaming: false,
    },
    agents: {
      'agent-a': { card: a.origin, skills: ['market-size'], credentials: { bearer: { env: 'A_TOKEN' } } },
      'agent-b': { card: b.origin, skills: ['market-size'], credentials: { bearer: { env: 'B_TOKEN' } } },
      pusher: {
        card: a.origin,
        skills: ['market-size'],
        credentials: { bearer: { env: 'A_TOKEN' } },
        profile: { pushEndpoint: HOOK },
      },
      'pusher-rest': {
        card: a.origin,
        skills: ['market-size'],
        credentials: { bearer: { env: 'A_TOKEN' } },
        profile: { bindings: ['HTTP+JSON'], pushEndpoint: HOOK },
      },
    },
  });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('credentials belong to an agent', () => {
  it("per agent, then scheme: agent B's server never receives agent A's token (both cards name `bearer`)", async () => {
    const lock = await loadLock(options({ credentials: { 'agent-a': { bearer: () => TOKEN_A } } }));
    const [fromA, fromB] = [a.requests.length, b.requests.length];
    expect(
      JSON.stringify(await (await lock.agent('agent-a', 'market-size').createClient()).sendMessage(plain('to a'))),
    ).toContain('echo: to a');
    expect(
      JSON.stringify(await (await lock.agent('agent-b', 'market-size').createClient()).sendMessage(plain('to b'))),
    ).toContain('echo: to b');
    expect(authorizations(a, fromA)).toEqual([`Bearer ${TOKEN_A}`]);
    // agent-b has no provider: its manifest source (B_TOKEN), never A's provider.
    expect(authorizations(b, fromB)).toEqual([`Bearer ${TOKEN_B}`]);
  });

  it('one function answers every credential, told the agent, skill, scheme, scopes and origin', async () => {
    const asked: CredentialRequest[] = [];
    const lock = await loadLock(
      options({
        env: {},
        credentials: (request) => {
          asked.push(request);
          return request.agent === 'agent-a' ? TOKEN_A : TOKEN_B;
        },
      }),
    );
    const [fromA, fromB] = [a.requests.length, b.requests.length];
    await (await lock.agent('agent-a', 'market-size').createClient()).sendMessage(plain('x'));
    await (await lock.agent('agent-b', 'market-size').createClient()).sendMessage(plain('y'));
    expect(asked).toEqual([
      { agent: 'agent-a', skill: 'market-size', scheme: 'bearer', scopes: [], origin: a.origin },
      { agent: 'agent-b', skill: 'market-size', scheme: 'bearer', scopes: [], origin: b.origin },
    ]);
    expect(authorizations(a, fromA)).toEqual([`Bearer ${TOKEN_A}`]);
    expect(authorizations(b, fromB)).toEqual([`Bearer ${TOKEN_B}`]);
  });

  it('the scheme-only form is a UsageError naming the per-agent form (no fallback), as is a key that is not a locked agent', async () => {
    await expect(loadLock(options({ credentials: { bearer: () => TOKEN_A } as never }))).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringMatching(
        /credentials\["bearer"\] is a function: the scheme-only form .*credentials: \{ 'research-agent': \{ bearer: /,
      ),
    });
    // A function under an agent's own name is the scheme-only shape too (never read as "every scheme").
    await expect(loadLock(options({ credentials: { 'agent-a': () => TOKEN_A } as never }))).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringMatching(/credentials\["agent-a"\] is a function/),
    });
    await expect(loadLock(options({ credentials: { 'agent-c': { bearer: () => TOKEN_A } } }))).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringMatching(/names "agent-c", which is not an agent of .*locked: agent-a, agent-b/),
    });
    await expect(loadLock(options({ credentials: { 'agent-a': { bearer: TOKEN_A } } as never }))).rejects.toMatchObject(
      { code: 'usage', message: expect.stringMatching(/credentials\["agent-a"\]\["bearer"\] is not a function/) },
    );
  });

  it('a provider that returns nothing is credential-unset naming the provider, not the manifest variable; nothing is sent', async () => {
    const from = b.requests.length;
    const lock = await loadLock(options({ credentials: { 'agent-b': { bearer: () => undefined } } }));
    const error = await (await lock.agent('agent-b', 'market-size').createClient())
      .sendMessage(plain('x'))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'credential-unset',
      message: `agent-b (market-size): no credential for scheme "bearer" (loadLock's credentials["agent-b"]["bearer"] returned nothing)`,
    });
    expect((error as Error).message).not.toContain('B_TOKEN');
    const viaFunction = await loadLock(options({ credentials: async () => undefined }));
    await expect(
      viaFunction
        .agent('agent-b', 'market-size')
        .fetch(b.jsonRpcUrl, { method: 'POST', body: rpc('GetTask', { id: 't' }) }),
    ).rejects.toMatchObject({
      code: 'credential-unset',
      message: expect.stringMatching(/the credentials function of loadLock returned nothing\)$/),
    });
    expect(b.requests.length).toBe(from);
  });
});

describe('the push endpoint', () => {
  it('a push config whose URL is not the locked pushEndpoint is a PlanViolationError and nothing is sent; the locked one goes through', async () => {
    const lock = await loadLock(options({ env: { A_TOKEN: TOKEN_A } }));
    for (const name of ['pusher', 'pusher-rest']) {
      const pusher = lock.agent(name, 'market-size');
      expect(pusher.plan.delivery).toBe('push');
      const client = await pusher.createClient();
      const from = a.requests.length;
      await expect(client.sendMessage(withPush('elsewhere', 'https://attacker.example/hook'))).rejects.toMatchObject({
        name: 'PlanViolationError',
        message: expect.stringMatching(
          /push notification config url https:\/\/attacker\.example\/hook is not the locked pushEndpoint https:\/\/hook\.example\/a2a/,
        ),
      });
      await expect(
        client.createTaskPushNotificationConfig({
          tenant: '',
          id: '',
          taskId: 't1',
          url: 'https://attacker.example/hook',
          token: '',
          authentication: undefined,
        } as never),
      ).rejects.toMatchObject({ code: 'plan-violation' });
      expect(a.requests.length).toBe(from);
      expect(JSON.stringify(await client.sendMessage(withPush('locked', HOOK)))).toContain('echo: locked');
    }
    // Through agent.fetch: the 0.3 nesting and a config without a url are refused the same way.
    const pusher = lock.agent('pusher', 'market-size');
    const from = a.requests.length;
    const send = (params: unknown) => pusher.fetch(a.jsonRpcUrl, { method: 'POST', body: rpc('SendMessage', params) });
    await expect(
      send({ message: message('x'), configuration: { pushNotificationConfig: { url: 'http://127.0.0.1:9/x' } } }),
    ).rejects.toMatchObject({ code: 'plan-violation' });
    await expect(
      send({ message: message('x'), configuration: { taskPushNotificationConfig: { token: 't' } } }),
    ).rejects.toMatchObject({ code: 'plan-violation', message: expect.stringMatching(/without a url/) });
    await expect(
      pusher.fetch(a.jsonRpcUrl, {
        method: 'POST',
        body: rpc('CreateTaskPushNotificationConfig', { taskId: 't', url: 'https://hook.example/other' }),
      }),
    ).rejects.toMatchObject({ code: 'plan-violation' });
    expect(a.requests.length).toBe(from);
  });

  it('a push config on a plan that does not push is refused as before', async () => {
    const lock = await loadLock(options({ env: { A_TOKEN: TOKEN_A } }));
    const client = await lock.agent('agent-a', 'market-size').createClient();
    await expect(client.sendMessage(withPush('x', HOOK))).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(/the locked delivery is poll/),
    });
  });
});

describe('proxies', () => {
  it('the default fetch goes through HTTP_PROXY (a CONNECT tunnel) to a host that is not loopback; loopback goes direct whatever NO_PROXY says; NO_PROXY is honoured; a custom fetch still wins', async () => {
    // `agent.test` is a name only the proxy resolves (to 127.0.0.1): an agent that is not loopback.
    const proxy = await startConnectProxy({ 'agent.test': '127.0.0.1' });
    const open = await startAgent({
      card: (origin) =>
        sampleCard(origin.replace('127.0.0.1', 'agent.test'), { securitySchemes: {}, securityRequirements: [] }),
    });
    const openHost = `agent.test:${new URL(open.origin).port}`;
    const saved = {
      HTTP_PROXY: process.env.HTTP_PROXY,
      NO_PROXY: process.env.NO_PROXY,
      no_proxy: process.env.no_proxy,
    };
    process.env.HTTP_PROXY = proxy.origin;
    process.env.NO_PROXY = '';
    delete process.env.no_proxy;
    await closeDefaultDispatcher();
    const openDir = await mkdtemp(join(tmpdir(), 'a2a-agent-proxied-'));
    try {
      // Locked through the proxy too (the CLI's dispatcher is the same one).
      await lockProject(openDir, {
        profile: PLAIN_JSONRPC,
        agents: { open: { card: `http://${openHost}`, skills: ['market-size'], allowHttp: true } },
      });
      expect(proxy.tunnels).toContain(openHost);
      const proxied = await loadLock({ lockfile: join(openDir, 'a2a.lock.json'), env: {} });
      const tunnels = proxy.tunnels.length;
      expect(
        JSON.stringify(await (await proxied.agent('open', 'market-size').createClient()).sendMessage(plain('proxied'))),
      ).toContain('echo: proxied');
      expect(proxy.tunnels.length).toBeGreaterThan(tunnels);
      // The agents on 127.0.0.1 (with their bearer): direct, NO_PROXY empty.
      const lock = await loadLock(options({ env: { A_TOKEN: TOKEN_A } }));
      const before = proxy.tunnels.length;
      expect(
        JSON.stringify(await (await lock.agent('agent-a', 'market-size').createClient()).sendMessage(plain('direct'))),
      ).toContain('echo: direct');
      expect(proxy.tunnels.length).toBe(before);
      // A fetch of the application's is used as it is.
      const custom = await loadLock({
        lockfile: join(openDir, 'a2a.lock.json'),
        env: {},
        fetch: (input, init) => fetch(input, init),
      });
      await expect(
        (await custom.agent('open', 'market-size').createClient()).sendMessage(plain('custom')),
      ).rejects.toThrow();
      expect(proxy.tunnels.length).toBe(before);
      // NO_PROXY lists the host: direct (the name does not resolve outside the proxy).
      await closeDefaultDispatcher();
      process.env.NO_PROXY = '.test';
      const bypass = await loadLock({ lockfile: join(openDir, 'a2a.lock.json'), env: {} });
      await expect(
        (await bypass.agent('open', 'market-size').createClient()).sendMessage(plain('no proxy')),
      ).rejects.toThrow();
      expect(proxy.tunnels.length).toBe(before);
      // A proxy variable that is not an http(s) URL refuses, as a usage error naming it (not its value), the
      // requests it would carry; loopback still goes direct (conformance/vectors/proxy.json).
      await closeDefaultDispatcher();
      process.env.NO_PROXY = '';
      process.env.HTTP_PROXY = 'socks5://u:pw-secret@127.0.0.1:1080';
      const broken = await loadLock({ lockfile: join(openDir, 'a2a.lock.json'), env: {} });
      const refused = broken.agent('open', 'market-size');
      const error = await refused
        .fetch(refused.plan.url, { method: 'POST', body: rpc('GetTask', { id: 't' }) })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'usage',
        message: 'HTTP_PROXY is set but is not an http:// or https:// proxy URL',
      });
      const loopback = await loadLock(options({ env: { A_TOKEN: TOKEN_A } }));
      expect(
        JSON.stringify(
          await (await loopback.agent('agent-a', 'market-size').createClient()).sendMessage(plain('direct')),
        ),
      ).toContain('echo: direct');
      expect(proxy.tunnels.length).toBe(before);
    } finally {
      restoreEnv(saved);
      await closeDefaultDispatcher();
      await open.close();
      await rm(openDir, { recursive: true, force: true });
      proxy.server.closeAllConnections();
      proxy.server.close();
    }
  });
});

describe('the proxy variables of a loaded lock', () => {
  it('are the process environment as it was when loadLock ran: a lock loaded later takes the proxy set then, an earlier lock keeps its own, and the env option (credentials) is never read for them', async () => {
    const first = await startConnectProxy({ 'agent.test': '127.0.0.1' });
    const second = await startConnectProxy({ 'agent.test': '127.0.0.1' });
    const open = await startAgent({
      card: (origin) =>
        sampleCard(origin.replace('127.0.0.1', 'agent.test'), { securitySchemes: {}, securityRequirements: [] }),
    });
    const host = `agent.test:${new URL(open.origin).port}`;
    const names = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];
    const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
    for (const n of names) delete process.env[n];
    process.env.HTTP_PROXY = first.origin;
    await closeDefaultDispatcher();
    const dir = await mkdtemp(join(tmpdir(), 'a2a-agent-proxy-when-'));
    const send = async (lock: Awaited<ReturnType<typeof loadLock>>) =>
      JSON.stringify(await (await lock.agent('open', 'market-size').createClient()).sendMessage(plain('hi')));
    try {
      await lockProject(dir, {
        profile: PLAIN_JSONRPC,
        agents: { open: { card: `http://${host}`, skills: ['market-size'], allowHttp: true } },
      });
      const lockfile = join(dir, 'a2a.lock.json');
      // Loaded with the first proxy set; the env option's proxy variable is not a proxy setting.
      const early = await loadLock({ lockfile, env: { HTTP_PROXY: 'socks5://u:pw@127.0.0.1:1' } });
      process.env.HTTP_PROXY = second.origin;
      const late = await loadLock({ lockfile, env: {} });
      const [firstBefore, secondBefore] = [first.tunnels.length, second.tunnels.length];
      expect(await send(late)).toContain('echo: hi');
      expect([first.tunnels.length - firstBefore, second.tunnels.length - secondBefore]).toEqual([0, 1]);
      expect(await send(early)).toContain('echo: hi');
      expect([first.tunnels.length - firstBefore, second.tunnels.length - secondBefore]).toEqual([1, 1]);
      // No proxy in the process environment: direct (agent.test resolves only at the proxies), whatever env says.
      delete process.env.HTTP_PROXY;
      const direct = await loadLock({ lockfile, env: { HTTP_PROXY: second.origin } });
      await expect(send(direct)).rejects.toThrow();
      expect([first.tunnels.length - firstBefore, second.tunnels.length - secondBefore]).toEqual([1, 1]);
    } finally {
      restoreEnv(saved);
      await closeDefaultDispatcher();
      await open.close();
      await rm(dir, { recursive: true, force: true });
      for (const proxy of [first, second]) {
        proxy.server.closeAllConnections();
        proxy.server.close();
      }
    }
  });
});

describe('events', () => {
  it('the degraded event of a drifted agent names the skill it concerns, never "*"', async () => {
    const lock = await loadLock(options({ env: { A_TOKEN: TOKEN_A } }));
    const degraded: DegradedEvent[] = [];
    lock.on('degraded', (e: DegradedEvent) => degraded.push(e));
    b.setCard({
      ...sampleCard(b.origin),
      capabilities: { streaming: false, pushNotifications: false },
      defaultOutputModes: ['text/csv'],
      skills: [{ ...sampleCard(b.origin).skills[0]!, outputModes: ['text/csv'] }],
    });
    try {
      await lock.refresh();
    } finally {
      b.setCard(sampleCard(b.origin));
    }
    const event = degraded.find((e) => e.agent === 'agent-b');
    expect(event).toMatchObject({ agent: 'agent-b', skill: 'market-size', skills: ['market-size'], reason: 'drift' });
    expect(event!.error.message).toMatch(/^agent-b \(market-size\): /);
  });
});
