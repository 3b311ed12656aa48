/**
 * Every locked fallback taken once and reported (`fallback` event, `agent.fallbacksTaken`), dead
 * ends whose message agrees with the lockfile, the typed errors that leave `createClient()`, and
 * the JSON-RPC method set of the locked version; against a real @a2a-js/sdk server (node:http
 * servers only for HTTP-layer faults: a non-A2A 500, a server that never answers).
 */

import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageRequest } from '@a2a-js/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AgentCallError,
  type DegradedEvent,
  type FallbackEvent,
  type LoadLockOptions,
  loadLock,
  PlanViolationError,
} from '../../src/runtime/index.js';
import { type AgentCard, type RecordedRequest, type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';
import { faultServers } from '../helpers/http.js';
import { lockProject } from '../helpers/lock-project.js';
import { text03 } from '../helpers/sdk-message.js';

const TOKEN = 'fb-secret-token';
const HOOK = 'https://hook.example/a2a';
let agent: StartedAgent;
let dir: string;
let card: AgentCard;
const faults = faultServers();
/** Bodies the runtime finally sent. */
const sent: Array<{ url: string; body?: string }> = [];

/** A node:http fault server (closed after the file): its origin. */
async function fault(handler: http.RequestListener): Promise<string> {
  return (await faults.start(handler)).origin;
}

function options(extra: LoadLockOptions = {}): LoadLockOptions {
  const recording: typeof fetch = async (input, init) => {
    sent.push({ url: String(input), ...(typeof init?.body === 'string' ? { body: init.body } : {}) });
    return fetch(input, init);
  };
  return { lockfile: join(dir, 'a2a.lock.json'), env: { FB_TOKEN: TOKEN }, fetch: recording, ...extra };
}

/** A send fetch that delivers every request to `origin` instead (same path): an HTTP-layer fault there. */
function to(origin: string): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    return fetch(`${origin}${url.pathname}`, init);
  };
}

function a2aRequests(from: number): RecordedRequest[] {
  return agent.requests.slice(from).filter((r) => r.path.startsWith('/a2a'));
}

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
const withPush = (text: string) =>
  SendMessageRequest.fromJSON({ message: message(text), configuration: { taskPushNotificationConfig: { url: HOOK } } });
const plain = (text: string) => SendMessageRequest.fromJSON({ message: message(text) });

/** Everything an error exposes: message, stack, causes, own fields. */
function exposed(value: unknown): string {
  const parts: string[] = [];
  for (
    let v = value as { message?: unknown; stack?: unknown; cause?: unknown } | undefined, i = 0;
    v && i < 5;
    v = v.cause as typeof v, i++
  ) {
    parts.push(String(v.message), String(v.stack), JSON.stringify(v, Object.getOwnPropertyNames(v)));
  }
  return parts.join('\n');
}

beforeAll(async () => {
  const make = (origin: string) => {
    const base = sampleCard(origin, {}, { legacy: true });
    return { ...base, capabilities: { ...base.capabilities, pushNotifications: true } };
  };
  agent = await startAgent({ card: make, legacyCompat: true, bearerToken: TOKEN, strictPush: true });
  card = make(agent.origin);
  dir = await mkdtemp(join(tmpdir(), 'a2a-fallbacks-'));
  const credentials = { bearer: { env: 'FB_TOKEN' } };
  const manifest = {
    profile: {
      bindings: ['JSONRPC', 'HTTP+JSON'],
      versions: ['1.0', '0.3'],
      accepts: ['application/json', 'text/plain'],
      sends: ['text/plain'],
      streaming: true,
    },
    agents: {
      research: { card: agent.origin, skills: ['market-size'], credentials },
      pusher: {
        card: agent.origin,
        skills: ['market-size'],
        credentials,
        profile: { streaming: false, pushEndpoint: HOOK },
      },
      restpush: {
        card: agent.origin,
        skills: ['market-size'],
        credentials,
        profile: { bindings: ['HTTP+JSON'], streaming: false, pushEndpoint: HOOK },
      },
      legacy: { card: agent.origin, skills: ['market-size'], credentials, profile: { versions: ['0.3'] } },
      rest: { card: agent.origin, skills: ['market-size'], credentials, profile: { bindings: ['HTTP+JSON'] } },
    },
  };
  await lockProject(dir, manifest);
});

afterAll(async () => {
  await agent?.close();
  await faults.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  agent.setCard(card);
  sent.length = 0;
});

describe('push → poll', () => {
  it('a push plan whose agent answers PushNotificationNotSupported (-32003) is retried once without the push config; fallback reported', async () => {
    const lock = await loadLock(options());
    const legacy = lock.agent('legacy', 'market-size');
    expect(legacy.card).toMatchObject({
      protocolVersion: '0.3.0',
      url: agent.jsonRpcUrl,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: true },
    });
    expect(await (await legacy.fetch(agent.cardUrl)).json()).toEqual(legacy.card);
    const pusher = lock.agent('pusher', 'market-size');
    expect(pusher.plan).toMatchObject({ delivery: 'push', fallbacks: { delivery: ['poll'] } });
    const events: FallbackEvent[] = [];
    lock.on('fallback', (e: FallbackEvent) => events.push(e));
    const client = await pusher.createClient();
    // While the agent pushes, the push config goes through and nothing falls back.
    expect(JSON.stringify(await client.sendMessage(withPush('pushed')))).toContain('echo: pushed');
    expect(events).toEqual([]);
    agent.setCard({ ...card, capabilities: { ...card.capabilities, pushNotifications: false } });
    const from = agent.requests.length;
    sent.length = 0;
    expect(JSON.stringify(await client.sendMessage(withPush('no push')))).toContain('echo: no push');
    expect(a2aRequests(from)).toHaveLength(2);
    const [first, second] = sent.map((s) => JSON.parse(s.body!).params.configuration);
    expect(first.taskPushNotificationConfig).toMatchObject({ url: HOOK });
    expect(second.taskPushNotificationConfig).toBeUndefined();
    expect(events).toEqual([
      { agent: 'pusher', skill: 'market-size', from: 'push', to: 'poll', reason: 'push-notification-not-supported' },
    ]);
    expect(pusher.fallbacksTaken).toEqual({ 'push-notification-not-supported': 1 });
    expect(pusher.degraded).toBe(false);
  });

  it('push → poll over HTTP+JSON too', async () => {
    const lock = await loadLock(options());
    const restpush = lock.agent('restpush', 'market-size');
    expect(restpush.plan).toMatchObject({ protocolBinding: 'HTTP+JSON', delivery: 'push' });
    const client = await restpush.createClient();
    agent.setCard({ ...card, capabilities: { ...card.capabilities, pushNotifications: false } });
    const from = agent.requests.length;
    expect(JSON.stringify(await client.sendMessage(withPush('rest no push')))).toContain('echo: rest no push');
    expect(a2aRequests(from).map((r) => r.path)).toEqual(['/a2a/rest/message:send', '/a2a/rest/message:send']);
    expect(restpush.fallbacksTaken).toEqual({ 'push-notification-not-supported': 1 });
  });

  it('a push config call answered -32003 is a dead end whose message names the locked poll fallback, not "no locked alternative"', async () => {
    const lock = await loadLock(options());
    const legacy = lock.agent('legacy', 'market-size');
    expect(legacy.card).toMatchObject({
      protocolVersion: '0.3.0',
      url: agent.jsonRpcUrl,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: true },
    });
    expect(await (await legacy.fetch(agent.cardUrl)).json()).toEqual(legacy.card);
    const pusher = lock.agent('pusher', 'market-size');
    const client = await pusher.createClient();
    agent.setCard({ ...card, capabilities: { ...card.capabilities, pushNotifications: false } });
    const error = (await client
      .createTaskPushNotificationConfig({
        tenant: '',
        id: '',
        taskId: 't1',
        url: HOOK,
        token: '',
        authentication: undefined,
      } as never)
      .catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: 'agent-degraded', reason: 'push-notification-not-supported' });
    expect(error.message).toContain('delivery poll');
    expect(error.message).toMatch(/no poll equivalent/);
    expect(error.message).not.toMatch(/no locked (alternative|fallback)/);
    expect(pusher.fallbacksTaken).toEqual({});
  });
});

describe('interface and stream fallbacks are reported', () => {
  it('VersionNotSupported: the fallback event names both interfaces; fallbacksTaken counts per reason', async () => {
    const lock = await loadLock(options());
    const events: FallbackEvent[] = [];
    lock.on('fallback', (e: FallbackEvent) => events.push(e));
    const research = lock.agent('research', 'market-size');
    const client = await research.createClient();
    agent.setCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3'),
    });
    await client.sendMessage(plain('a'));
    await client.sendMessage(plain('b'));
    expect(events).toHaveLength(2);
    expect(events[0]).toEqual({
      agent: 'research',
      skill: 'market-size',
      from: `JSONRPC 1.0 ${agent.jsonRpcUrl}`,
      to: `JSONRPC 0.3 ${agent.jsonRpcUrl}`,
      reason: 'version-not-supported',
    });
    expect(research.fallbacksTaken).toEqual({ 'version-not-supported': 2 });
    // The count is per agent, a fresh object on each read.
    const taken = research.fallbacksTaken;
    taken['version-not-supported'] = 99;
    expect(research.fallbacksTaken).toEqual({ 'version-not-supported': 2 });
  });

  it('a refused stream retried as SendMessage is reported stream → poll', async () => {
    const lock = await loadLock(options());
    const events: FallbackEvent[] = [];
    lock.on('fallback', (e: FallbackEvent) => events.push(e));
    const research = lock.agent('research', 'market-size');
    const client = await research.createClient();
    agent.setCard({ ...card, capabilities: { ...card.capabilities, streaming: false } });
    for await (const _ of client.sendMessageStream(plain('s'))) void _;
    expect(events).toEqual([
      { agent: 'research', skill: 'market-size', from: 'stream', to: 'poll', reason: 'unsupported-operation' },
    ]);
    expect(research.fallbacksTaken).toEqual({ 'unsupported-operation': 1 });
  });

  it('a dead end names the locked fallbacks and why none applies', async () => {
    const lock = await loadLock(options());
    const degraded: DegradedEvent[] = [];
    lock.on('degraded', (e: DegradedEvent) => degraded.push(e));
    const legacy = lock.agent('legacy', 'market-size');
    const client = await legacy.createClient();
    // The 0.3 plan's agent now serves 1.0 only: VersionNotSupported, and no locked fallback is of another version.
    agent.setCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '1.0'),
    });
    const error = (await client.sendMessage(plain('x')).catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: 'agent-degraded', reason: 'version-not-supported' });
    expect(error.message).toMatch(/locked fallbacks: .*; none is of another protocol version/);
    expect(degraded).toHaveLength(1);
  });
});

describe('typed errors out of createClient()', () => {
  it('a 401 is auth-refused naming agent and skill, the credential nowhere, the SDK error as cause', async () => {
    const lock = await loadLock(options({ env: { FB_TOKEN: `${TOKEN}-wrong` } }));
    const client = await lock.agent('research', 'market-size').createClient();
    const error = (await client.sendMessage(plain('x')).catch((e: unknown) => e)) as AgentCallError;
    expect(error).toBeInstanceOf(AgentCallError);
    expect(error).toMatchObject({ code: 'auth-refused', agent: 'research', skill: 'market-size', status: 401 });
    expect(error.message).toMatch(/^research \(market-size\): JSONRPC 1\.0 .*refused the credential \(HTTP 401\)/);
    expect(error.hint).toBe(
      'check the credential given for research (its variable in a2a.json, or your credentials provider); a2a verify says whether the card the agent serves has changed since the lock',
    );
    expect((error.cause as Error).message).toMatch(/HTTP error for SendMessage! Status: 401/);
    expect(exposed(error)).not.toContain(TOKEN);
  });

  it('a 401 over HTTP+JSON is auth-refused too', async () => {
    const lock = await loadLock(options({ env: { FB_TOKEN: 'nope' } }));
    const error = await (await lock.agent('rest', 'market-size').createClient())
      .sendMessage(plain('x'))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AgentCallError', code: 'auth-refused', status: 401 });
  });

  it('an A2A error is agent-error with its JSON-RPC code (and over HTTP+JSON with status and reason)', async () => {
    const lock = await loadLock(options());
    const rpc = await lock.agent('research', 'market-size').createClient();
    const error = (await rpc
      .getTask({ id: 'no-such-task', tenant: '' } as never)
      .catch((e: unknown) => e)) as AgentCallError;
    expect(error).toMatchObject({
      name: 'AgentCallError',
      code: 'agent-error',
      agent: 'research',
      skill: 'market-size',
      a2aCode: -32001,
    });
    expect(error.message).toMatch(/the agent answered an A2A error \(.*A2A error -32001/);
    const rest = await lock.agent('rest', 'market-size').createClient();
    const restError = await rest.getTask({ id: 'no-such-task', tenant: '' } as never).catch((e: unknown) => e);
    expect(restError).toMatchObject({ code: 'agent-error', agent: 'rest', status: 404, a2aReason: 'TASK_NOT_FOUND' });
  });

  it('a 500 with a non-A2A body is agent-error with the HTTP status and no A2A code', async () => {
    const origin = await fault((_req, res) => {
      res.statusCode = 500;
      res.setHeader('content-type', 'text/html');
      res.end('<h1>oops</h1>');
    });
    const lock = await loadLock(options({ fetch: to(origin) }));
    for (const name of ['research', 'rest']) {
      const error = (await (
        await lock.agent(name, 'market-size').createClient()
      )
        .sendMessage(plain('x'))
        .catch((e: unknown) => e)) as AgentCallError;
      expect(error, name).toMatchObject({
        name: 'AgentCallError',
        code: 'agent-error',
        agent: name,
        status: 500,
        a2aCode: undefined,
        a2aReason: undefined,
      });
      expect(error.message).toMatch(/not an A2A error \(HTTP 500\)/);
    }
  });

  it('a refused connection is unreachable and a deadline is timeout, both naming agent and skill', async () => {
    const server = await faults.start(() => {
      /* closed before any request */
    });
    await server.close();
    const closed = server.origin;
    const down = await loadLock(options({ fetch: to(closed) }));
    const error = await (await down.agent('research', 'market-size').createClient())
      .sendMessage(plain('x'))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'AgentCallError',
      code: 'unreachable',
      agent: 'research',
      skill: 'market-size',
      cause: expect.objectContaining({ code: 'unreachable' }),
    });
    const silent = await fault(() => {
      /* never answers */
    });
    const slow = await loadLock(options({ fetch: to(silent) }));
    const late = await (await slow.agent('research', 'market-size').createClient())
      .sendMessage(plain('x'), { signal: AbortSignal.timeout(100) } as never)
      .catch((e: unknown) => e);
    expect(late).toMatchObject({ name: 'AgentCallError', code: 'timeout', agent: 'research', skill: 'market-size' });
  });

  it("push config calls on a plan that does not push are a typed plan violation (not the SDK client's own error), nothing sent", async () => {
    const lock = await loadLock(options());
    const client = await lock.agent('research', 'market-size').createClient();
    const from = agent.requests.length;
    await expect(
      client.createTaskPushNotificationConfig({
        tenant: '',
        id: '',
        taskId: 't1',
        url: HOOK,
        token: '',
        authentication: undefined,
      } as never),
    ).rejects.toMatchObject({
      name: 'PlanViolationError',
      code: 'plan-violation',
      message: expect.stringMatching(/CreateTaskPushNotificationConfig\), but the locked delivery is stream/),
    });
    await expect(
      client.getTaskPushNotificationConfig({ tenant: '', taskId: 't1', id: 'c' } as never),
    ).rejects.toMatchObject({ code: 'plan-violation' });
    await expect(
      client.listTaskPushNotificationConfig({ tenant: '', taskId: 't1', pageSize: 0, pageToken: '' } as never),
    ).rejects.toMatchObject({ code: 'plan-violation' });
    await expect(
      client.deleteTaskPushNotificationConfig({ tenant: '', taskId: 't1', id: 'c' } as never),
    ).rejects.toMatchObject({ code: 'plan-violation' });
    expect(agent.requests.length).toBe(from);
  });

  it('PlanViolationError is not retryable', async () => {
    const lock = await loadLock(options());
    const error = await lock
      .agent('research', 'market-size')
      .fetch('http://127.0.0.2:9/x', { method: 'POST', body: '{}' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanViolationError);
    expect(error).toMatchObject({ retryable: false });
  });
});

describe('the method set belongs to the locked protocol version', () => {
  const rpc = (method: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
    });

  it.each([
    [
      'a 0.3 method (message/send) on a 1.0 plan',
      'research',
      'message/send',
      /"message\/send" is not a JSON-RPC method of the locked version 1\.0/,
    ],
    [
      'a 1.0 method (SendMessage) on a 0.3 plan',
      'legacy',
      'SendMessage',
      /"SendMessage" is not a JSON-RPC method of the locked version 0\.3/,
    ],
    ['a method of no version', 'research', 'tasks/send', /is not a JSON-RPC method of the locked version 1\.0/],
  ] as const)('%s is a violation, nothing sent', async (_what, name, method, pattern) => {
    const lock = await loadLock(options());
    const locked = lock.agent(name, 'market-size');
    const from = agent.requests.length;
    await expect(locked.fetch(locked.plan.url, { method: 'POST', body: rpc(method) })).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(pattern),
    });
    expect(agent.requests.length).toBe(from);
    expect(sent).toEqual([]);
  });

  it("the locked version's own method goes through", async () => {
    const lock = await loadLock(options());
    const legacy = lock.agent('legacy', 'market-size');
    const res = await legacy.fetch(legacy.plan.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: text03('old', 'm') },
      }),
    });
    expect(JSON.stringify(await res.json())).toContain('echo: old');
  });
});

describe('@a2a-js/sdk 0.3 (npm alias a2a-sdk-03) through agent.fetch', () => {
  it('A2AClient.fromCardUrl(cardUrl, { fetchImpl: agent.fetch }) reads the card from the lock and sends on the locked 0.3 interface; off-plan calls are refused before sending', async () => {
    const { A2AClient } = (await import('a2a-sdk-03/client')) as {
      A2AClient: { fromCardUrl(url: string, o: { fetchImpl: typeof fetch }): Promise<any> };
    };
    const lock = await loadLock(options());
    const legacy = lock.agent('legacy', 'market-size');
    const from = agent.requests.length;
    const client = await A2AClient.fromCardUrl(agent.cardUrl, { fetchImpl: legacy.fetch });
    expect(agent.requests.length).toBe(from);
    const reply = await client.sendMessage({ message: text03('from 0.3') });
    expect(JSON.stringify(reply)).toContain('echo: from 0.3');
    expect(a2aRequests(from).map((r) => [r.path, r.headers['a2a-version'], r.headers.authorization])).toEqual([
      ['/a2a/jsonrpc', '0.3', `Bearer ${TOKEN}`],
    ]);
    // An unlocked output mode is refused with nothing sent.
    const count = agent.requests.length;
    await expect(
      client.sendMessage({
        message: text03('x', 'm2'),
        configuration: { acceptedOutputModes: ['image/png'] },
      }),
    ).rejects.toMatchObject({ code: 'plan-violation', retryable: false });
    expect(agent.requests.length).toBe(count);
  });
});

describe('agent.fetch answers the locked card URL and the well-known paths from the lock; agent.card', () => {
  it('the official SDK 1.x ClientFactory + DefaultAgentCardResolver with fetchImpl: agent.fetch get the narrowed card without the network and pick the locked interface', async () => {
    const { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } = await import(
      '@a2a-js/sdk/client'
    );
    const lock = await loadLock(options());
    const research = lock.agent('research', 'market-size');
    const from = agent.requests.length;
    const factory = new ClientFactory({
      transports: [
        new JsonRpcTransportFactory({ fetchImpl: research.fetch }),
        new RestTransportFactory({ fetchImpl: research.fetch }),
      ],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: research.fetch }),
    });
    const client = await factory.createFromUrl(agent.origin);
    expect(agent.requests.length).toBe(from);
    expect(JSON.stringify(await client.sendMessage(plain('via factory')))).toContain('echo: via factory');
    expect(a2aRequests(from).map((r) => [r.path, r.headers['a2a-version']])).toEqual([['/a2a/jsonrpc', '1.0']]);
  });

  it('served in the shape A2A-Version asks for, narrowed to the plan; agent.card is the same object', async () => {
    const lock = await loadLock(options());
    const research = lock.agent('research', 'market-size');
    const from = agent.requests.length;
    const v10 = await (await research.fetch(agent.cardUrl, { headers: { 'A2A-Version': '1.0' } })).json();
    expect(v10).toEqual(research.card);
    expect(v10.supportedInterfaces).toEqual([
      { url: agent.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: agent.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: agent.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    // The served card pushes; the plan streams: the narrowed card says stream only.
    expect(v10.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
    expect(v10.skills).toEqual([
      expect.objectContaining({
        id: 'market-size',
        inputModes: ['text/plain'],
        outputModes: research.plan.acceptedOutputModes,
      }),
    ]);
    expect(v10.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
    const v03 = await (await research.fetch(`${agent.origin}/.well-known/agent.json`)).json();
    expect(v03).toMatchObject({
      protocolVersion: '1.0.0',
      url: agent.jsonRpcUrl,
      preferredTransport: 'JSONRPC',
      security: [{ bearer: [] }],
    });
    expect(v03.additionalInterfaces).toEqual([
      { url: agent.restUrl, transport: 'HTTP+JSON' },
      { url: agent.jsonRpcUrl, transport: 'JSONRPC' },
    ]);
    expect(v03.securitySchemes.bearer).toMatchObject({ type: 'http' });
    expect(v03.supportedInterfaces).toBeUndefined();
    const legacy = lock.agent('legacy', 'market-size');
    expect(legacy.card).toMatchObject({
      protocolVersion: '0.3.0',
      url: agent.jsonRpcUrl,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: true },
    });
    expect(await (await legacy.fetch(agent.cardUrl)).json()).toEqual(legacy.card);
    const pusher = lock.agent('pusher', 'market-size');
    expect(pusher.card).toMatchObject({ capabilities: { streaming: false, pushNotifications: true } });
    expect(agent.requests.length).toBe(from);
    expect(sent).toEqual([]);
    // Another path on the origin is still not the locked interface.
    await expect(research.fetch(`${agent.origin}/.well-known/other.json`)).rejects.toMatchObject({
      code: 'plan-violation',
    });
  });
});
