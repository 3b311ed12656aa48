/**
 * The runtime loader against real @a2a-js/sdk servers on 127.0.0.1: the plan enforced on every
 * request (headers the server saw, violations refused with nothing sent), the locked fallbacks
 * (-32009 once → the 0.3 fallback; twice → degraded after exactly two requests), drift refresh.
 * One agent server for the file; the tests run in sequence and reset its card.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AgentDegradedError,
  type DegradedEvent,
  type DriftEvent,
  type LoadLockOptions,
  loadLock,
} from '../../src/runtime/index.js';
import { type AgentCard, type RecordedRequest, type StartedAgent, sampleCard } from '../helpers/agents.js';
import { type LockedAgentProject, startLockedAgent } from '../helpers/locked-agent.js';
import { sdkText } from '../helpers/sdk-message.js';

const TOKEN = 'rt-secret-token';
const CITATIONS = 'https://example.com/ext/citations/v1';
const PROFILE = {
  bindings: ['JSONRPC', 'HTTP+JSON'],
  versions: ['1.0', '0.3'],
  accepts: ['application/json', 'text/plain'],
  sends: ['text/plain'],
  streaming: true,
  extensions: [CITATIONS],
};

let project: LockedAgentProject;
let agent: StartedAgent;
let dir: string;
let card: AgentCard;
/** What the runtime finally sent (URL, headers, body), recorded around the global fetch. */
const sent: Array<{ url: string; headers: Record<string, string>; body?: string }> = [];

const recordingFetch: typeof fetch = async (input, init) => {
  sent.push({
    url: String(input),
    headers: { ...(init?.headers as Record<string, string>) },
    ...(typeof init?.body === 'string' ? { body: init.body } : {}),
  });
  return fetch(input, init);
};

function options(extra: LoadLockOptions = {}): LoadLockOptions {
  return { lockfile: join(dir, 'a2a.lock.json'), env: { RT_TOKEN: TOKEN }, fetch: recordingFetch, ...extra };
}

/** The A2A requests (not card fetches) the server received since `from`. */
function a2aRequests(from: number): RecordedRequest[] {
  return agent.requests.slice(from).filter((r) => r.path.startsWith('/a2a'));
}

beforeAll(async () => {
  project = await startLockedAgent(
    { card: (origin) => sampleCard(origin, {}, { legacy: true }), legacyCompat: true, bearerToken: TOKEN },
    {
      profile: PROFILE,
      agents: (a) => ({
        research: { card: a.origin, skills: ['market-size'], credentials: { bearer: { env: 'RT_TOKEN' } } },
        rest: {
          card: a.origin,
          skills: ['market-size'],
          credentials: { bearer: { env: 'RT_TOKEN' } },
          profile: { bindings: ['HTTP+JSON'] },
        },
        legacy: {
          card: a.origin,
          skills: ['market-size'],
          credentials: { bearer: { env: 'RT_TOKEN' } },
          profile: { versions: ['0.3'] },
        },
        polling: {
          card: a.origin,
          skills: ['market-size'],
          credentials: { bearer: { env: 'RT_TOKEN' } },
          profile: { streaming: false },
        },
        restpoll: {
          card: a.origin,
          skills: ['market-size'],
          credentials: { bearer: { env: 'RT_TOKEN' } },
          profile: { bindings: ['HTTP+JSON'], streaming: false },
        },
      }),
    },
  );
  ({ agent, dir } = project);
  card = sampleCard(agent.origin, {}, { legacy: true });
});

afterAll(() => project?.close());

beforeEach(() => {
  agent.setCard(card);
  sent.length = 0;
});

describe('loadLock', () => {
  it('gives the frozen locked plan with its fallbacks; unknown agents and skills throw', async () => {
    const lock = await loadLock(options());
    const research = lock.agent('research', 'market-size');
    expect(research.plan).toMatchObject({
      url: agent.jsonRpcUrl,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      delivery: 'stream',
      extensions: [CITATIONS],
    });
    expect(research.plan.fallbacks).toEqual({
      interfaces: [
        { url: agent.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: agent.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
      delivery: ['poll'],
    });
    expect(Object.isFrozen(research.plan)).toBe(true);
    expect(Object.isFrozen(research.plan.fallbacks!.interfaces[0])).toBe(true);
    expect(() => lock.agent('nobody', 'market-size')).toThrow(/no locked agent "nobody"/);
    expect(() => lock.agent('research', 'nope')).toThrow(/no locked skill "nope"/);
  });
});

describe('createClient(): the headers the server saw on every call kind', () => {
  it('JSON-RPC 1.0: SendMessage, SendStreamingMessage, GetTask carry A2A-Version, A2A-Extensions and the bearer', async () => {
    const lock = await loadLock(options());
    const client = await lock.agent('research', 'market-size').createClient();
    const from = agent.requests.length;
    const reply = await client.sendMessage({ message: sdkText('hi') } as never);
    expect(JSON.stringify(reply)).toContain('echo: hi');
    const events = [];
    for await (const e of client.sendMessageStream({ message: sdkText('streamed') } as never)) events.push(e);
    expect(JSON.stringify(events)).toContain('echo: streamed');
    await expect(client.getTask({ id: 'no-such-task', tenant: '' } as never)).rejects.toThrow();
    const seen = a2aRequests(from);
    expect(seen).toHaveLength(3);
    for (const r of seen) {
      expect(r.path).toBe('/a2a/jsonrpc');
      expect(r.headers['a2a-version']).toBe('1.0');
      expect(r.headers['a2a-extensions']).toBe(CITATIONS);
      expect(r.headers['x-a2a-extensions']).toBeUndefined();
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
    }
    expect(JSON.parse(sent[0]!.body!).params.configuration.acceptedOutputModes).toEqual(['application/json']);
  });
});

describe('createClient(): other bindings and versions', () => {
  it('HTTP+JSON 1.0: message:send and message:stream under the plan', async () => {
    const lock = await loadLock(options());
    const rest = lock.agent('rest', 'market-size');
    expect(rest.plan).toMatchObject({ url: agent.restUrl, protocolBinding: 'HTTP+JSON' });
    const client = await rest.createClient();
    const from = agent.requests.length;
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('rest') } as never))).toContain('echo: rest');
    const events = [];
    for await (const e of client.sendMessageStream({ message: sdkText('rest stream') } as never)) events.push(e);
    expect(JSON.stringify(events)).toContain('echo: rest stream');
    const seen = a2aRequests(from);
    expect(seen.map((r) => r.path)).toEqual(['/a2a/rest/message:send', '/a2a/rest/message:stream']);
    for (const r of seen) {
      expect(r.headers['a2a-version']).toBe('1.0');
      expect(r.headers['a2a-extensions']).toBe(CITATIONS);
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
    }
  });

  it('a 0.3 plan goes through the SDK v0.3 compat transport with X-A2A-Extensions', async () => {
    const lock = await loadLock(options());
    const legacy = lock.agent('legacy', 'market-size');
    expect(legacy.plan).toMatchObject({ url: agent.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' });
    const client = await legacy.createClient();
    const from = agent.requests.length;
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('old') } as never))).toContain('echo: old');
    const [r] = a2aRequests(from);
    expect(r!.headers['a2a-version']).toBe('0.3');
    expect(r!.headers['a2a-extensions']).toBeUndefined();
    expect(r!.headers['x-a2a-extensions']).toBe(legacy.plan.extensions.join(', ') || undefined);
    expect(JSON.parse(sent[0]!.body!).method).toBe('message/send');
  });
});

describe('locked fallbacks and degraded', () => {
  it('VersionNotSupported (-32009) once: one retry on the locked JSONRPC 0.3 fallback succeeds', async () => {
    const lock = await loadLock(options());
    const degraded: DegradedEvent[] = [];
    lock.on('degraded', (e: DegradedEvent) => degraded.push(e));
    const research = lock.agent('research', 'market-size');
    const client = await research.createClient();
    // The agent now serves JSON-RPC only as 0.3: the SDK answers A2A-Version 1.0 with -32009.
    agent.setCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3'),
    });
    const from = agent.requests.length;
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('again') } as never))).toContain('echo: again');
    const seen = a2aRequests(from);
    expect(seen.map((r) => r.headers['a2a-version'])).toEqual(['1.0', '0.3']);
    expect(seen[1]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen[1]!.headers['x-a2a-extensions']).toBeDefined();
    expect(research.degraded).toBe(false);
    expect(degraded).toEqual([]);
  });

  it('VersionNotSupported twice: degraded after exactly two requests, a typed error, no loop', async () => {
    const lock = await loadLock(options());
    const degraded: DegradedEvent[] = [];
    lock.on('degraded', (e: DegradedEvent) => degraded.push(e));
    const research = lock.agent('research', 'market-size');
    const client = await research.createClient();
    agent.setCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === 'HTTP+JSON'),
    });
    const from = agent.requests.length;
    const error = await client.sendMessage({ message: sdkText('x') } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'agent-degraded', reason: 'version-not-supported' });
    expect(a2aRequests(from)).toHaveLength(2);
    expect(research.degraded).toBe(true);
    expect(degraded).toHaveLength(1);
    expect(degraded[0]).toMatchObject({ agent: 'research', skill: 'market-size', reason: 'version-not-supported' });
  });
});

describe('agent.fetch: each violation refused with nothing sent', () => {
  const rpc = (method: string, params: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const message = (parts: unknown[]) => ({ messageId: 'm1', role: 'ROLE_USER', parts });

  it.each([
    [
      'another URL on the same origin',
      'research',
      (u: string) => [
        `${u}/other`,
        { method: 'POST', body: rpc('SendMessage', { message: message([{ text: 'x' }]) }) },
      ],
      /is not the locked interface/,
    ],
    [
      'another origin',
      'research',
      () => ['http://127.0.0.2:9/a2a/jsonrpc', { method: 'POST', body: '{}' }],
      /is not the locked interface/,
    ],
    [
      'a conflicting A2A-Version',
      'research',
      (u: string) => [
        u,
        {
          method: 'POST',
          headers: { 'A2A-Version': '0.3' },
          body: rpc('SendMessage', { message: message([{ text: 'x' }]) }),
        },
      ],
      /A2A-Version "0.3" conflicts with the locked 1.0/,
    ],
    [
      'an extension that is not locked',
      'research',
      (u: string) => [
        u,
        {
          method: 'POST',
          headers: { 'A2A-Extensions': 'https://x.example/ext' },
          body: rpc('SendMessage', { message: message([{ text: 'x' }]) }),
        },
      ],
      /extension https:\/\/x.example\/ext is not locked/,
    ],
    [
      'a part whose media type is not a locked input mode',
      'research',
      (u: string) => [
        u,
        { method: 'POST', body: rpc('SendMessage', { message: message([{ raw: 'AAAA', mediaType: 'image/png' }]) }) },
      ],
      /image\/png is not in the locked input modes/,
    ],
    [
      'an accepted output mode outside the lock',
      'research',
      (u: string) => [
        u,
        {
          method: 'POST',
          body: rpc('SendMessage', {
            message: message([{ text: 'x' }]),
            configuration: { acceptedOutputModes: ['application/pdf'] },
          }),
        },
      ],
      /application\/pdf" is not locked/,
    ],
    [
      'a push config when delivery is not push',
      'research',
      (u: string) => [
        u,
        {
          method: 'POST',
          body: rpc('SendMessage', {
            message: message([{ text: 'x' }]),
            configuration: { taskPushNotificationConfig: { url: 'https://hook.example' } },
          }),
        },
      ],
      /push notification config/,
    ],
    [
      'CreateTaskPushNotificationConfig when delivery is not push',
      'research',
      (u: string) => [u, { method: 'POST', body: rpc('CreateTaskPushNotificationConfig', { taskId: 't' }) }],
      /push notification config/,
    ],
    [
      'SendStreamingMessage when delivery is poll',
      'polling',
      (u: string) => [u, { method: 'POST', body: rpc('SendStreamingMessage', { message: message([{ text: 'x' }]) }) }],
      /streaming call, but the locked delivery is poll/,
    ],
    [
      'REST message:stream when delivery is poll (the 0.3 path too)',
      'restpoll',
      (u: string) => [`${u}/v1/message:stream`, { method: 'POST', body: '{}' }],
      /streaming call, but the locked delivery is poll/,
    ],
    ['a body that is not JSON', 'research', (u: string) => [u, { method: 'POST', body: 'not json' }], /not JSON/],
    [
      'REST message:stream with a trailing slash when delivery is poll',
      'restpoll',
      (u: string) => [`${u}/message:stream/`, { method: 'POST', body: '{}' }],
      /streaming call/,
    ],
    [
      'REST MESSAGE:STREAM (upper case) when delivery is poll',
      'restpoll',
      (u: string) => [`${u}/MESSAGE:STREAM`, { method: 'POST', body: '{}' }],
      /streaming call/,
    ],
    [
      'REST message:stream behind repeated slashes and percent-encoding',
      'restpoll',
      (u: string) => [`${u}//message%3Astream`, { method: 'POST', body: '{}' }],
      /streaming call/,
    ],
    [
      'REST GET tasks/<id>:subscribe when delivery is poll',
      'restpoll',
      (u: string) => [`${u}/tasks/abc:subscribe`, { method: 'GET' }],
      /streaming call/,
    ],
    [
      'REST message:send/ with an accepted output mode outside the lock',
      'restpoll',
      (u: string) => [
        `${u}/message:send/`,
        {
          method: 'POST',
          body: JSON.stringify({
            message: message([{ text: 'x' }]),
            configuration: { acceptedOutputModes: ['text/html'] },
          }),
        },
      ],
      /"text\/html" is not locked/,
    ],
    [
      'REST tasks/<id>/PushNotificationConfigs when delivery is not push',
      'restpoll',
      (u: string) => [`${u}/tasks/abc/PushNotificationConfigs`, { method: 'POST', body: '{}' }],
      /push notification config/,
    ],
    [
      'REST tasks/<id>/pushNotificationConfigs/ when delivery is not push',
      'restpoll',
      (u: string) => [`${u}/tasks/abc/pushNotificationConfigs/`, { method: 'POST', body: '{}' }],
      /push notification config/,
    ],
    [
      'a REST path that looks like a send route but is not one',
      'restpoll',
      (u: string) => [`${u}/message:send:stream`, { method: 'POST', body: '{}' }],
      /not an A2A route this plan can check/,
    ],
    [
      'a part with a snake_case media_type outside the locked input modes',
      'research',
      (u: string) => [
        u,
        { method: 'POST', body: rpc('SendMessage', { message: message([{ text: 'x', media_type: 'image/png' }]) }) },
      ],
      /image\/png is not in the locked input modes/,
    ],
    [
      'a snake_case task_push_notification_config when delivery is poll',
      'polling',
      (u: string) => [
        u,
        {
          method: 'POST',
          body: rpc('SendMessage', {
            message: message([{ text: 'x' }]),
            configuration: { task_push_notification_config: { url: 'https://hook.example' } },
          }),
        },
      ],
      /push notification config/,
    ],
    [
      'a snake_case accepted_output_modes outside the lock',
      'research',
      (u: string) => [
        u,
        {
          method: 'POST',
          body: rpc('SendMessage', {
            message: message([{ text: 'x' }]),
            configuration: { accepted_output_modes: ['text/html'] },
          }),
        },
      ],
      /"text\/html" is not locked/,
    ],
    [
      'a message-level extension that is not locked',
      'research',
      (u: string) => [
        u,
        {
          method: 'POST',
          body: rpc('SendMessage', { message: { ...message([{ text: 'x' }]), extensions: ['https://evil/x'] } }),
        },
      ],
      /message extension "https:\/\/evil\/x" is not locked/,
    ],
    [
      'a part with no recognisable content',
      'research',
      (u: string) => [
        u,
        { method: 'POST', body: rpc('SendMessage', { message: message([{ mediaType: 'text/plain' }]) }) },
      ],
      /a message part has no recognisable content/,
    ],
    [
      'the locked URL with a query string',
      'research',
      (u: string) => [`${u}?a=1`, { method: 'POST', body: '{}' }],
      /jsonrpc: it has a query string$/,
    ],
    [
      'the locked URL with an empty query string (a bare ?)',
      'research',
      (u: string) => [`${u}?`, { method: 'POST', body: '{}' }],
      /jsonrpc is not the locked interface JSONRPC \S+jsonrpc: it has a query string$/,
    ],
    [
      'the locked URL with an empty fragment (a bare #)',
      'research',
      (u: string) => [`${u}#`, { method: 'POST', body: '{}' }],
      /jsonrpc is not the locked interface JSONRPC \S+jsonrpc: it has a fragment$/,
    ],
    [
      'the locked URL with userinfo (never echoed)',
      'research',
      (u: string) => [u.replace('//', '//user:pw-secret@'), { method: 'POST', body: '{}' }],
      /^(?!.*pw-secret).*: it has userinfo/,
    ],
    [
      'an HTTP+JSON route under the locked URL with userinfo (never echoed)',
      'restpoll',
      (u: string) => [`${u.replace('//', '//user:pw-secret@')}/message:send`, { method: 'POST', body: '{}' }],
      /^(?!.*pw-secret).*: it has userinfo/,
    ],
  ] as const)('%s', async (_what, name, make, pattern) => {
    const lock = await loadLock(options());
    const locked = lock.agent(name, 'market-size');
    const from = agent.requests.length;
    const [url, init] = make(locked.plan.url) as [string, RequestInit];
    await expect(locked.fetch(url, init)).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(pattern),
    });
    expect(agent.requests.length).toBe(from);
    expect(sent).toEqual([]);
  });

  it('a missing credential is refused before anything is sent; a credentials option is read per request', async () => {
    const unset = await loadLock(options({ env: {} }));
    await expect(
      unset.agent('research', 'market-size').fetch(agent.jsonRpcUrl, {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}',
      }),
    ).rejects.toMatchObject({ code: 'credential-unset', message: expect.stringMatching(/RT_TOKEN is not set/) });
    expect(sent).toEqual([]);
    let reads = 0;
    const lock = await loadLock(
      options({
        env: {},
        credentials: {
          research: {
            bearer: async () => {
              reads++;
              return TOKEN;
            },
          },
        },
      }),
    );
    const client = await lock.agent('research', 'market-size').createClient();
    await client.sendMessage({ message: sdkText('a') } as never);
    await client.sendMessage({ message: sdkText('b') } as never);
    expect(reads).toBe(2);
    expect(sent.map((s) => s.headers.Authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });

  it('a credentials provider that returns a non-string is named as such, its value not echoed', async () => {
    const lock = await loadLock(options({ credentials: { research: { bearer: (() => 42) as never } } }));
    const error = (await lock
      .agent('research', 'market-size')
      .fetch(agent.jsonRpcUrl, {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}',
      })
      .catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({
      code: 'usage',
      message: expect.stringMatching(/provider for scheme "bearer" returned a number, not a string$/),
    });
    expect(error.message).not.toContain('42');
    expect(sent).toEqual([]);
  });

  it('createClient(): a part in the wire shape instead of the SDK shape is refused as having no recognisable content', async () => {
    const lock = await loadLock(options());
    const client = await lock.agent('research', 'market-size').createClient();
    const wire = { ...sdkText('x'), parts: [{ text: 'x' }] };
    await expect(client.sendMessage({ message: wire } as never)).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(/no recognisable content/),
    });
    expect(sent).toEqual([]);
    // The README's and runtime guide's form: SendMessageRequest.fromJSON turns the wire shape into the SDK's.
    const { SendMessageRequest } = await import('@a2a-js/sdk');
    const result = await client.sendMessage(
      SendMessageRequest.fromJSON({ message: { messageId: 'readme', role: 'ROLE_USER', parts: [{ text: 'plain' }] } }),
    );
    expect(JSON.stringify(result)).toContain('echo: plain');
  });

  it('acceptedOutputModes is filled in with the locked list when absent', async () => {
    const lock = await loadLock(options());
    const research = lock.agent('research', 'market-size');
    const res = await research.fetch(research.plan.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: rpc('SendMessage', { message: message([{ text: 'plain' }]) }),
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain('echo: plain');
    expect(JSON.parse(sent[0]!.body!).params.configuration.acceptedOutputModes).toEqual(['application/json']);
  });
});

describe('stream fallback, drift refresh, lockfile checks', () => {
  it('a stream refused as unsupported is retried once as SendMessage (the locked poll fallback)', async () => {
    const lock = await loadLock(options());
    const research = lock.agent('research', 'market-size');
    const client = await research.createClient();
    agent.setCard({ ...card, capabilities: { ...card.capabilities, streaming: false } });
    const from = agent.requests.length;
    const events = [];
    for await (const e of client.sendMessageStream({ message: sdkText('no stream') } as never)) events.push(e);
    expect(JSON.stringify(events)).toContain('echo: no stream');
    expect(sent.map((s) => JSON.parse(s.body!).method)).toEqual(['SendStreamingMessage', 'SendMessage']);
    expect(a2aRequests(from)).toHaveLength(2);
    expect(research.degraded).toBe(false);
  });

  it('refresh(): a card now beyond the lock emits drift (the findings a2a verify prints) and degrades the agent; the plan in use does not change', async () => {
    const lock = await loadLock(options({ refreshIntervalMs: 60_000 }));
    try {
      const research = lock.agent('research', 'market-size');
      const before = JSON.stringify(research.plan);
      const drift: DriftEvent[] = [];
      const degraded: DegradedEvent[] = [];
      lock.on('drift', (e: DriftEvent) => drift.push(e));
      lock.on('degraded', (e: DegradedEvent) => degraded.push(e));
      await lock.refresh();
      expect(drift).toEqual([]);
      agent.setCard({ ...card, capabilities: { ...card.capabilities, streaming: false } });
      await lock.refresh();
      expect(drift.map((d) => d.agent).sort()).toEqual(['legacy', 'research', 'rest']);
      expect(drift.find((d) => d.agent === 'research')!.report.drift).toEqual([
        { skill: 'market-size', field: 'delivery', locked: 'stream', fresh: 'poll' },
        expect.objectContaining({ field: 'fallbacks' }),
      ]);
      expect(research.degraded).toBe(true);
      expect(lock.agent('polling', 'market-size').degraded).toBe(false);
      expect(degraded.map((d) => [d.agent, d.reason])).toContainEqual(['research', 'drift']);
      expect(JSON.stringify(research.plan)).toBe(before);
    } finally {
      lock.close();
    }
  });

  it("onDrift: 'refuse': after a refresh finds drift, every call to the drifted agent throws AgentDegradedError (agent-degraded, drift) and nothing is sent; other agents go on", async () => {
    await expect(loadLock(options({ onDrift: 'stop' as never }))).rejects.toMatchObject({ code: 'usage' });
    const lock = await loadLock(options({ onDrift: 'refuse' }));
    try {
      const research = lock.agent('research', 'market-size');
      const client = await research.createClient();
      const polling = await lock.agent('polling', 'market-size').createClient();
      expect(JSON.stringify(await client.sendMessage({ message: sdkText('before') } as never))).toContain(
        'echo: before',
      );
      agent.setCard({ ...card, capabilities: { ...card.capabilities, streaming: false } });
      await lock.refresh();
      expect(research.degraded).toBe(true);
      sent.length = 0;
      const from = agent.requests.length;
      const failures = [
        await client.sendMessage({ message: sdkText('after') } as never).catch((e: unknown) => e),
        await research.fetch(research.plan.url, { method: 'POST', body: '{}' }).catch((e: unknown) => e),
        await (await lock.agent('rest', 'market-size').createClient())
          .sendMessage({ message: sdkText('rest') } as never)
          .catch((e: unknown) => e),
      ];
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(AgentDegradedError);
        expect(failure).toMatchObject({ code: 'agent-degraded', reason: 'drift' });
      }
      expect(sent).toEqual([]);
      expect(agent.requests.length).toBe(from);
      // An agent that did not drift (its plan polls) is still called.
      expect(JSON.stringify(await polling.sendMessage({ message: sdkText('still') } as never))).toContain(
        'echo: still',
      );
    } finally {
      lock.close();
    }
  });

  it("onDrift: 'report' (the default): a drifted agent is degraded and still called", async () => {
    const lock = await loadLock(options());
    const research = lock.agent('research', 'market-size');
    agent.setCard({ ...card, capabilities: { ...card.capabilities, streaming: false } });
    await lock.refresh();
    expect(research.degraded).toBe(true);
    const client = await research.createClient();
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('on') } as never))).toContain('echo: on');
  });

  it('a tampered snapshot or a plan its snapshot does not negotiate is refused at load with eager: true', async () => {
    const text = await readFile(join(dir, 'a2a.lock.json'), 'utf8');
    const tampered = JSON.parse(text);
    tampered.agents.research.snapshot.name = 'Someone Else';
    const bad = join(dir, 'tampered.lock.json');
    await writeFile(bad, JSON.stringify(tampered));
    await expect(
      loadLock(options({ lockfile: bad, manifest: join(dir, 'a2a.json'), eager: true })),
    ).rejects.toMatchObject({ code: 'lockfile-invalid', message: expect.stringMatching(/integrity/) });
    const error = (await loadLock(options({ lockfile: bad, manifest: join(dir, 'a2a.json'), eager: true })).catch(
      (e: unknown) => e,
    )) as Error;
    expect(error.message.split(bad).length, error.message).toBe(2);
    expect(error.message).toContain(`${bad}: agents.research: snapshot does not match`);
    const moved = JSON.parse(text);
    moved.agents.research.plans['market-size'].fallbacks.interfaces.reverse();
    await writeFile(bad, JSON.stringify(moved));
    await expect(
      loadLock(options({ lockfile: bad, manifest: join(dir, 'a2a.json'), eager: true })),
    ).rejects.toMatchObject({ code: 'lockfile-out-of-date', message: expect.stringMatching(/fallbacks/) });
  });
  it('lazy (the default): loadLock reads a tampered lockfile, the tampered agent is refused on its first lock.agent() (every time) with nothing sent, the others work', async () => {
    const tampered = JSON.parse(await readFile(join(dir, 'a2a.lock.json'), 'utf8'));
    tampered.agents.rest.snapshot.name = 'Someone Else';
    tampered.agents.research.plans['market-size'].fallbacks.interfaces.reverse();
    const bad = join(dir, 'tampered-lazy.lock.json');
    await writeFile(bad, JSON.stringify(tampered));
    const lock = await loadLock(options({ lockfile: bad, manifest: join(dir, 'a2a.json') }));
    const from = agent.requests.length;
    for (let i = 0; i < 2; i++) {
      expect(() => lock.agent('rest', 'market-size')).toThrow(
        expect.objectContaining({ code: 'lockfile-invalid', message: expect.stringMatching(/integrity/) }),
      );
      expect(() => lock.agent('research', 'market-size')).toThrow(
        expect.objectContaining({ code: 'lockfile-out-of-date', message: expect.stringMatching(/fallbacks/) }),
      );
    }
    expect(agent.requests.length).toBe(from);
    expect(sent).toEqual([]);
    const client = await lock.agent('polling', 'market-size').createClient();
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('fine') } as never))).toContain('echo: fine');
  });
});

describe('secrets', () => {
  /** Everything an error or event exposes: message, stack, causes, own fields. */
  const exposed = (value: unknown): string => {
    const parts: string[] = [];
    for (
      let v = value as { message?: unknown; stack?: unknown; cause?: unknown } | undefined, i = 0;
      v && i < 5;
      v = v.cause as typeof v, i++
    ) {
      parts.push(String(v.message), String(v.stack), JSON.stringify(v, Object.getOwnPropertyNames(v)));
    }
    return parts.join('\n');
  };

  it('the credential value appears in no error, event, plan or lockfile, on success and failure paths; it goes to the locked origin only', async () => {
    const failures: unknown[] = [];
    const events: unknown[] = [];
    const lock = await loadLock(options());
    lock.on('degraded', (e: unknown) => events.push(e));
    lock.on('drift', (e: unknown) => events.push(e));
    const research = lock.agent('research', 'market-size');
    const client = await research.createClient();
    await client.sendMessage({ message: sdkText('ok') } as never);
    // Violations: another origin (where the token must never go), a conflicting version.
    failures.push(
      await research.fetch('http://127.0.0.2:9/a2a/jsonrpc', { method: 'POST', body: '{}' }).catch((e: unknown) => e),
    );
    failures.push(
      await research
        .fetch(research.plan.url, { method: 'POST', headers: { 'A2A-Version': '0.3' }, body: '{}' })
        .catch((e: unknown) => e),
    );
    // Degraded after two version errors, and drift found by a refresh.
    agent.setCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === 'HTTP+JSON'),
    });
    failures.push(await client.sendMessage({ message: sdkText('x') } as never).catch((e: unknown) => e));
    await lock.refresh();
    // A wrong token: the agent refuses it.
    const wrong = await loadLock(options({ env: { RT_TOKEN: `${TOKEN}-wrong` } }));
    agent.setCard(card);
    failures.push(
      await (await wrong.agent('research', 'market-size').createClient())
        .sendMessage({ message: sdkText('no') } as never)
        .catch((e: unknown) => e),
    );
    lock.close();
    wrong.close();

    expect(failures.every((f) => f instanceof Error)).toBe(true);
    expect(events.length).toBeGreaterThan(0);
    for (const value of [
      ...failures.map(exposed),
      ...events.map((e) => JSON.stringify(e)),
      JSON.stringify(research.plan),
      await readFile(join(dir, 'a2a.lock.json'), 'utf8'),
    ]) {
      expect(value).not.toContain(TOKEN);
    }
    const origins = new Set(sent.filter((s) => s.headers.Authorization).map((s) => new URL(s.url).origin));
    expect([...origins]).toEqual([agent.origin]);
  });
});
