/**
 * The runtime loader against real @a2a-js/sdk servers on 127.0.0.1: the plan enforced on every
 * request (headers the server saw, violations refused with nothing sent), the locked fallbacks
 * (-32009 once → the 0.3 fallback; twice → degraded after exactly two requests), drift refresh.
 * One agent server for the file; the tests run in sequence and reset its card.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLock } from '../../src/commands/lock.js';
import { loadLock, type DegradedEvent, type DriftEvent, type LoadLockOptions } from '../../src/runtime/index.js';
import { sampleCard, startAgent, type AgentCard, type RecordedRequest, type StartedAgent } from '../helpers/agents.js';

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

let agent: StartedAgent;
let dir: string;
let card: AgentCard;
/** What the runtime finally sent (URL, headers, body), recorded around the global fetch. */
const sent: Array<{ url: string; headers: Record<string, string>; body?: string }> = [];

const recordingFetch: typeof fetch = async (input, init) => {
  sent.push({ url: String(input), headers: { ...(init?.headers as Record<string, string>) }, ...(typeof init?.body === 'string' ? { body: init.body } : {}) });
  return fetch(input, init);
};

function options(extra: LoadLockOptions = {}): LoadLockOptions {
  return { lockfile: join(dir, 'a2a.lock.json'), env: { RT_TOKEN: TOKEN }, fetch: recordingFetch, ...extra };
}

/** The A2A requests (not card fetches) the server received since `from`. */
function a2aRequests(from: number): RecordedRequest[] {
  return agent.requests.slice(from).filter((r) => r.path.startsWith('/a2a'));
}

function text(value: string) {
  return { kind: 'message' as const, messageId: crypto.randomUUID(), role: 1, parts: [{ content: { $case: 'text' as const, value }, mediaType: '', filename: '', metadata: undefined }], contextId: '', taskId: '', extensions: [], referenceTaskIds: [], metadata: undefined };
}

beforeAll(async () => {
  agent = await startAgent({ card: (origin) => sampleCard(origin, {}, { legacy: true }), legacyCompat: true, bearerToken: TOKEN });
  card = sampleCard(agent.origin, {}, { legacy: true });
  dir = await mkdtemp(join(tmpdir(), 'a2a-runtime-'));
  const manifest = {
    profile: PROFILE,
    agents: {
      research: { card: agent.origin, skills: ['market-size'], credentials: { bearer: { env: 'RT_TOKEN' } } },
      rest: { card: agent.origin, skills: ['market-size'], credentials: { bearer: { env: 'RT_TOKEN' } }, profile: { bindings: ['HTTP+JSON'] } },
      legacy: { card: agent.origin, skills: ['market-size'], credentials: { bearer: { env: 'RT_TOKEN' } }, profile: { versions: ['0.3'] } },
      polling: { card: agent.origin, skills: ['market-size'], credentials: { bearer: { env: 'RT_TOKEN' } }, profile: { streaming: false } },
    },
  };
  await writeFile(join(dir, 'a2a.json'), JSON.stringify(manifest));
  const result = await runLock({ manifest: join(dir, 'a2a.json'), json: true, verbose: false, cwd: dir, env: {} });
  expect(result.exitCode, JSON.stringify(result.json)).toBe(0);
});

afterAll(async () => {
  await agent?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  agent.setCard(card);
  sent.length = 0;
});

describe('loadLock', () => {
  it('gives the frozen locked plan with its fallbacks; unknown agents and skills throw', async () => {
    const lock = await loadLock(options());
    const research = lock.agent('research', 'market-size');
    expect(research.plan).toMatchObject({ url: agent.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0', delivery: 'stream', extensions: [CITATIONS] });
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
    const reply = await client.sendMessage({ message: text('hi') } as never);
    expect(JSON.stringify(reply)).toContain('echo: hi');
    const events = [];
    for await (const e of client.sendMessageStream({ message: text('streamed') } as never)) events.push(e);
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
    expect(JSON.stringify(await client.sendMessage({ message: text('rest') } as never))).toContain('echo: rest');
    const events = [];
    for await (const e of client.sendMessageStream({ message: text('rest stream') } as never)) events.push(e);
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
    expect(JSON.stringify(await client.sendMessage({ message: text('old') } as never))).toContain('echo: old');
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
    agent.setCard({ ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3') });
    const from = agent.requests.length;
    expect(JSON.stringify(await client.sendMessage({ message: text('again') } as never))).toContain('echo: again');
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
    agent.setCard({ ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === 'HTTP+JSON') });
    const from = agent.requests.length;
    const error = await client.sendMessage({ message: text('x') } as never).then(
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
