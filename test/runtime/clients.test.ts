/**
 * Other A2A clients through `agent.fetch` / `agent.card`, the way the frameworks wire them (checked against
 * the real frameworks in a scratch folder; see docs/guide/other-clients.md). Here with the SDK
 * lines those frameworks ship, against a real @a2a-js/sdk 1.3.0 server with v0.3 compat:
 * - Google ADK JS `RemoteA2AAgent` builds its client with the @a2a-js/sdk 0.3 `ClientFactory.createFromAgentCard(card)`
 *   and streams exactly when `card.capabilities.streaming !== false`;
 * - `a2a-ai-provider` calls the 0.3 `A2AClient.fromCardUrl(url)` with no fetch option (the global fetch) and
 *   always asks `acceptedOutputModes: ["text/plain"]`.
 * The 0.3 SDK is the devDependency `a2a-sdk-03` (npm alias of @a2a-js/sdk 0.3.14).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageRequest } from '@a2a-js/sdk';
import * as sdk03 from 'a2a-sdk-03/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentCallError } from '../../src/errors.js';
import { type FallbackEvent, type LoadLockOptions, loadLock } from '../../src/runtime/index.js';
import {
  type AgentCard,
  REST_PATH,
  type RecordedRequest,
  type StartedAgent,
  sampleCard,
  startAgent,
} from '../helpers/agents.js';
import { lockProject } from '../helpers/lock-project.js';
import { text03 } from '../helpers/sdk-message.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const { A2AClient, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } = sdk03 as any;

const TOKEN = 'clients-secret-token';
const HOOK = 'https://hook.example/a2a';
let agent: StartedAgent;
let dir: string;

function options(extra: LoadLockOptions = {}): LoadLockOptions {
  return { lockfile: join(dir, 'a2a.lock.json'), env: { CL_TOKEN: TOKEN }, ...extra };
}
function since(from: number): Array<[string, string, unknown, unknown]> {
  return agent.requests
    .slice(from)
    .map((r: RecordedRequest) => [r.method, r.path, r.headers['a2a-version'], r.headers.authorization]);
}
const message03 = (text: string) => ({ message: text03(text) });
/** What ADK's RemoteA2AAgent does with `agentCard` + `clientFactory`. */
function adkClient(card: unknown, fetchImpl: typeof fetch): Promise<any> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromAgentCard(card);
}

beforeAll(async () => {
  agent = await startAgent({
    card: (origin: string) => sampleCard(origin, {}, { legacy: true }),
    legacyCompat: true,
    bearerToken: TOKEN,
  });
  dir = await mkdtemp(join(tmpdir(), 'a2a-clients-'));
  const credentials = { bearer: { env: 'CL_TOKEN' } };
  const manifest = {
    profile: {
      bindings: ['JSONRPC'],
      versions: ['0.3'],
      accepts: ['application/json', 'text/plain'],
      sends: ['text/plain'],
      streaming: false,
    },
    agents: {
      poll: { card: agent.origin, skills: ['market-size'], credentials },
      stream: { card: agent.origin, skills: ['market-size'], credentials, profile: { streaming: true } },
    },
  };
  await lockProject(dir, manifest);
});

afterAll(async () => {
  await agent?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('ADK RemoteA2AAgent: a 0.3 ClientFactory configured from agent.card, transports with fetchImpl: agent.fetch', () => {
  it('on a poll plan the card from the lock says streaming: false; the message goes through on the locked 0.3 interface', async () => {
    const poll = (await loadLock(options())).agent('poll', 'market-size');
    expect(poll.card).toMatchObject({
      protocolVersion: '0.3.0',
      url: agent.jsonRpcUrl,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: false, pushNotifications: false },
    });
    const from = agent.requests.length;
    const client = await adkClient(poll.card, poll.fetch);
    const reply = await client.sendMessage(message03('from adk'));
    expect(JSON.stringify(reply)).toContain('echo: from adk');
    expect(since(from)).toEqual([['POST', '/a2a/jsonrpc', '0.3', `Bearer ${TOKEN}`]]);
  });

  it('on a stream plan the card says streaming: true and the stream goes through', async () => {
    const stream = (await loadLock(options())).agent('stream', 'market-size');
    expect(stream.card).toMatchObject({ capabilities: { streaming: true } });
    const from = agent.requests.length;
    const client = await adkClient(stream.card, stream.fetch);
    const events: unknown[] = [];
    for await (const event of client.sendMessageStream(message03('streamed'))) events.push(event);
    expect(JSON.stringify(events)).toContain('echo: streamed');
    expect(since(from)).toEqual([['POST', '/a2a/jsonrpc', '0.3', `Bearer ${TOKEN}`]]);
  });

  it('a card that claims more than the plan (streaming: true, hand-edited, on a poll plan) makes the client stream, and the stream is refused with nothing sent', async () => {
    const poll = (await loadLock(options())).agent('poll', 'market-size');
    const edited = {
      ...(poll.card as Record<string, any>),
      capabilities: { ...(poll.card as Record<string, any>).capabilities, streaming: true },
    };
    const client = await adkClient(edited, poll.fetch);
    const from = agent.requests.length;
    const stream = client.sendMessageStream(message03('x'));
    await expect(stream.next()).rejects.toMatchObject({
      name: 'PlanViolationError',
      code: 'plan-violation',
      retryable: false,
      message: expect.stringMatching(/a streaming call, but the locked delivery is poll/),
    });
    expect(since(from)).toEqual([]);
  });

  it('an unlocked output mode in the send configuration (ADK messageSendConfig) is refused with nothing sent', async () => {
    const poll = (await loadLock(options())).agent('poll', 'market-size');
    const client = await adkClient(poll.card, poll.fetch);
    const from = agent.requests.length;
    await expect(
      client.sendMessage({ ...message03('x'), configuration: { acceptedOutputModes: ['image/png'] } }),
    ).rejects.toMatchObject({ code: 'plan-violation', message: expect.stringMatching(/"image\/png" is not locked/) });
    expect(since(from)).toEqual([]);
  });
});

describe('a client with no fetch option (a2a-ai-provider): the global fetch routed to agent.fetch by origin', () => {
  it("the card URL is answered from the lock, the message goes through; the provider's fixed text/plain output mode on a plan locked to application/json is refused before sending", async () => {
    const realFetch = globalThis.fetch;
    // The real fetch is what finally sends: agent.fetch must not call the replaced global fetch (itself).
    const poll = (await loadLock(options({ fetch: realFetch }))).agent('poll', 'market-size');
    const origin = new URL(poll.plan.url).origin;
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) =>
      new URL(input instanceof Request ? input.url : String(input)).origin === origin
        ? poll.fetch(input, init)
        : realFetch(input, init)) as typeof fetch;
    try {
      const from = agent.requests.length;
      const client = await A2AClient.fromCardUrl(agent.cardUrl);
      expect(since(from)).toEqual([]);
      const reply = await client.sendMessage(message03('global'));
      expect(JSON.stringify(reply)).toContain('echo: global');
      expect(since(from)).toEqual([['POST', '/a2a/jsonrpc', '0.3', `Bearer ${TOKEN}`]]);
      const count = agent.requests.length;
      await expect(
        client.sendMessage({
          ...message03('x'),
          configuration: { blocking: true, acceptedOutputModes: ['text/plain'] },
        }),
      ).rejects.toMatchObject({
        code: 'plan-violation',
        message: expect.stringMatching(/"text\/plain" is not locked \(locked: application\/json\)/),
      });
      expect(agent.requests.length).toBe(count);
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});

describe("a 0.3 HTTP+JSON plan (ADK toA2a serves 0.3 HTTP+JSON at /rest): the SDK's v0.3 REST transport throws its plain A2A error classes", () => {
  let rest: StartedAgent;
  let restDir: string;
  let restCard: AgentCard;
  beforeAll(async () => {
    const make = (origin: string): AgentCard => {
      const base = sampleCard(origin, {}, { legacy: true });
      return {
        ...base,
        capabilities: { ...base.capabilities, pushNotifications: true },
        supportedInterfaces: [
          ...base.supportedInterfaces,
          { url: origin + REST_PATH, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
        ],
      };
    };
    rest = await startAgent({ card: make, legacyCompat: true, bearerToken: TOKEN, strictPush: true });
    restCard = make(rest.origin);
    restDir = await mkdtemp(join(tmpdir(), 'a2a-clients-rest-'));
    const manifest = {
      profile: {
        bindings: ['HTTP+JSON'],
        versions: ['0.3'],
        accepts: ['application/json'],
        sends: ['text/plain'],
        streaming: true,
      },
      agents: {
        rest03: { card: rest.origin, skills: ['market-size'], credentials: { bearer: { env: 'CL_TOKEN' } } },
        push03: {
          card: rest.origin,
          skills: ['market-size'],
          credentials: { bearer: { env: 'CL_TOKEN' } },
          profile: { streaming: false, pushEndpoint: HOOK },
        },
      },
    };
    await lockProject(restDir, manifest);
  });
  beforeEach(() => rest.setCard(restCard));
  afterAll(async () => {
    await rest?.close();
    if (restDir) await rm(restDir, { recursive: true, force: true });
  });
  const request = (text: string) =>
    SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });

  it('a stream refused with UnsupportedOperation (the agent stopped streaming) is retried once as SendMessage: the locked stream → poll fallback, reported', async () => {
    const lock = await loadLock({ lockfile: join(restDir, 'a2a.lock.json'), env: { CL_TOKEN: TOKEN } });
    const events: FallbackEvent[] = [];
    lock.on('fallback', (e: FallbackEvent) => events.push(e));
    const rest03 = lock.agent('rest03', 'market-size');
    expect(rest03.plan).toMatchObject({
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '0.3',
      delivery: 'stream',
      fallbacks: { delivery: ['poll'] },
    });
    const client = await rest03.createClient();
    rest.setCard({ ...restCard, capabilities: { ...restCard.capabilities, streaming: false } });
    const from = rest.requests.length;
    const got: unknown[] = [];
    for await (const event of client.sendMessageStream(request('s03'))) got.push(event);
    expect(JSON.stringify(got)).toContain('echo: s03');
    expect(rest.requests.slice(from).map((r) => [r.method, r.path, r.headers['a2a-version']])).toEqual([
      ['POST', '/a2a/rest/v1/message:stream', '0.3'],
      ['POST', '/a2a/rest/v1/message:send', '0.3'],
    ]);
    expect(events).toEqual([
      { agent: 'rest03', skill: 'market-size', from: 'stream', to: 'poll', reason: 'unsupported-operation' },
    ]);
    expect(rest03.fallbacksTaken).toEqual({ 'unsupported-operation': 1 });
  });

  it('an error body the v0.3 REST transport cannot map (ADK: HTTP 500, code -32603) is agent-error with its A2A code, not "could not be read as A2A"', async () => {
    const lock = await loadLock({ lockfile: join(restDir, 'a2a.lock.json'), env: { CL_TOKEN: TOKEN } });
    const rest03 = lock.agent('rest03', 'market-size');
    const client = await rest03.createClient();
    rest.serve('/a2a/rest/v1/tasks/nope', (_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: -32603, message: 'Task not found: nope' }));
    });
    try {
      const error = await client.getTask({ id: 'nope' } as never).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AgentCallError);
      expect((error as AgentCallError).code).toBe('agent-error');
      expect((error as AgentCallError).a2aCode).toBe(-32603);
      expect((error as Error).message).toMatch(/the agent answered an A2A error \(A2A error -32603\)/);
    } finally {
      rest.serve('/a2a/rest/v1/tasks/nope', undefined);
    }
  });

  it('a push config answered PushNotificationNotSupported (the agent stopped pushing) is retried once without it: the locked push → poll fallback, reported', async () => {
    const lock = await loadLock({ lockfile: join(restDir, 'a2a.lock.json'), env: { CL_TOKEN: TOKEN } });
    const events: FallbackEvent[] = [];
    lock.on('fallback', (e: FallbackEvent) => events.push(e));
    const push03 = lock.agent('push03', 'market-size');
    expect(push03.plan).toMatchObject({
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '0.3',
      delivery: 'push',
      fallbacks: { delivery: ['poll'] },
    });
    const client = await push03.createClient();
    rest.setCard({ ...restCard, capabilities: { ...restCard.capabilities, pushNotifications: false } });
    const from = rest.requests.length;
    const reply = await client.sendMessage(
      SendMessageRequest.fromJSON({
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'p03' }] },
        configuration: { taskPushNotificationConfig: { url: HOOK } },
      }),
    );
    expect(JSON.stringify(reply)).toContain('echo: p03');
    expect(rest.requests.slice(from).map((r) => r.path)).toEqual([
      '/a2a/rest/v1/message:send',
      '/a2a/rest/v1/message:send',
    ]);
    expect(events).toEqual([
      { agent: 'push03', skill: 'market-size', from: 'push', to: 'poll', reason: 'push-notification-not-supported' },
    ]);
  });
});
