/**
 * Issue 23, points 3, 4 and 7 (REST bodies): an `a2a-sdk` 1.3.0 (Python) agent serving HTTP+JSON,
 * gRPC and JSON-RPC behind a bearer token, with an authenticated extended card (test/python/sdk_agent.py,
 * started once for the file). Its card is as a2a-sdk serves it: interfaces without
 * `protocolVersion`, hybrid 0.3 fields.
 *
 * 3. lock, verify, send and stream over HTTP+JSON and over gRPC through `createClient()`;
 * 4. the extended card fetched with the credential (REST `GET /extendedAgentCard`, JSON-RPC
 *    `GetExtendedAgentCard`), locked, and re-checked by verify (over gRPC it is not fetched:
 *    `no-extended-card`, as for every gRPC plan);
 * 7. its REST error bodies (`google.rpc.Status` with an ErrorInfo reason) leave the runtime typed.
 */
import { join } from 'node:path';
import { GetTaskRequest, SendMessageRequest } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentCallError, loadLock } from '../../src/runtime/index.js';
import { type PythonServer, startPythonServer } from '../helpers/python.js';
import { jsonOf, readLock, readLockBytes, resources, runCli, SLOW, show, verifyStrictTwice } from './helpers.js';

const py = inject('python');
const TOKEN = 'py-rest-grpc-T0ken';
const ENV = { PY_TOKEN: TOKEN };
const credentials = { bearer: { env: 'PY_TOKEN' } };
const PROFILE = {
  bindings: ['HTTP+JSON'],
  versions: ['1.0'],
  accepts: ['text/plain'],
  sends: ['text/plain'],
  streaming: true,
};
const message = (text: string) =>
  SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });

interface Seen {
  method: string;
  path: string;
  version: string | null;
  authorization: boolean;
}

describe.skipIf(!py.ok)('a2a-sdk 1.3.0 (Python): HTTP+JSON, gRPC and the extended card', () => {
  let agent: PythonServer;
  const seen = async (): Promise<Seen[]> => (await fetch(`${agent.origin}/_seen`)).json() as Promise<Seen[]>;
  /** One SendMessage and one SendStreamingMessage through the locked plan of `dir` (each answered with its echo); what the agent saw of them. */
  async function sendAndStream(dir: string, label: string): Promise<Seen[]> {
    const client = await (await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: ENV }))
      .agent('py', 'market-size')
      .createClient();
    const from = (await seen()).length;
    expect(JSON.stringify(await client.sendMessage(message(`over ${label}`)))).toContain(`echo: over ${label}`);
    const events: unknown[] = [];
    for await (const event of client.sendMessageStream(message(`${label} stream`))) events.push(event);
    expect(JSON.stringify(events)).toContain(`echo: ${label} stream`);
    return (await seen()).slice(from);
  }

  beforeAll(async () => {
    if (!py.ok) return;
    agent = await startPythonServer(py, 'sdk_agent.py', [
      JSON.stringify({ bindings: ['HTTP+JSON', 'GRPC', 'JSONRPC'], token: TOKEN, extended: true }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await agent?.close();
  });

  it('HTTP+JSON: lock (the extended card fetched with the bearer and locked), verify --strict twice, send and stream', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({
      profile: PROFILE,
      agents: { py: { card: agent.origin, skills: ['market-size', 'deep-dive'], credentials } },
    });
    const lock = await runCli(['lock', '--json'], { cwd: dir, env: ENV });
    expect(lock.code, show(lock)).toBe(0);
    const locked = (await readLock(dir)).agents.py;
    expect(locked.plans['market-size']).toMatchObject({
      url: `${agent.origin}/a2a/rest`,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
      delivery: 'stream',
    });
    // deep-dive is only on the extended card: fetched with the credential and locked as the second snapshot.
    expect(locked.plans['deep-dive']).toMatchObject({ protocolBinding: 'HTTP+JSON' });
    expect(locked.extended.snapshot.skills.map((s: { id: string }) => s.id)).toEqual(['market-size', 'deep-dive']);
    const extendedRequests = (await seen()).filter((r) => r.path === '/a2a/rest/extendedAgentCard');
    expect(extendedRequests.at(-1)).toEqual({
      method: 'GET',
      path: '/a2a/rest/extendedAgentCard',
      version: '1.0',
      authorization: true,
    });

    const before = await readLockBytes(dir);
    for (const run of [1, 2]) {
      const from = (await seen()).length;
      const strict = await runCli(['verify', '--strict', '--json'], { cwd: dir, env: ENV });
      expect(strict.code, `run ${run}: ${show(strict)}`).toBe(0);
      expect(jsonOf(strict).agents.py.status).toBe('ok');
      // verify re-checks the extended card too, with the credential.
      expect((await seen()).slice(from).filter((r) => r.path === '/a2a/rest/extendedAgentCard')).toEqual([
        { method: 'GET', path: '/a2a/rest/extendedAgentCard', version: '1.0', authorization: true },
      ]);
    }
    expect(await readLockBytes(dir)).toEqual(before);

    expect(await sendAndStream(dir, 'rest')).toEqual([
      { method: 'POST', path: '/a2a/rest/message:send', version: '1.0', authorization: true },
      { method: 'POST', path: '/a2a/rest/message:stream', version: '1.0', authorization: true },
    ]);
  });

  it('the extended card over JSON-RPC (GetExtendedAgentCard with the bearer): locked, re-checked by verify', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({
      profile: { ...PROFILE, bindings: ['JSONRPC'] },
      agents: { py: { card: agent.origin, skills: ['deep-dive'], credentials } },
    });
    const from = (await seen()).length;
    const lock = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(lock.code, show(lock)).toBe(0);
    const locked = (await readLock(dir)).agents.py;
    expect(locked.plans['deep-dive']).toMatchObject({
      url: `${agent.origin}/a2a/jsonrpc`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(locked.extended.snapshot.skills.map((s: { id: string }) => s.id)).toEqual(['market-size', 'deep-dive']);
    // GetExtendedAgentCard, then the wire probe's GetTask (issue 37), both with the bearer.
    expect((await seen()).slice(from).filter((r) => r.method === 'POST')).toEqual([
      { method: 'POST', path: '/a2a/jsonrpc', version: '1.0', authorization: true },
      { method: 'POST', path: '/a2a/jsonrpc', version: '1.0', authorization: true },
    ]);
    expect(locked.probe).toEqual({ [`JSONRPC 1.0 ${agent.origin}/a2a/jsonrpc`]: 'served' });
    await verifyStrictTwice(dir, 'py', ENV);
  });

  it('gRPC: lock, verify --strict, send and stream with a2a-version and the bearer in metadata', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({
      profile: { ...PROFILE, bindings: ['GRPC'] },
      agents: { py: { card: agent.origin, skills: ['market-size'], credentials } },
    });
    const lock = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(lock.code, show(lock)).toBe(0);
    const locked = (await readLock(dir)).agents.py;
    expect(locked.plans['market-size']).toMatchObject({
      url: `127.0.0.1:${agent.grpcPort}`,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
      delivery: 'stream',
    });
    const strict = await runCli(['verify', '--strict'], { cwd: dir, env: ENV });
    expect(strict.code, show(strict)).toBe(0);

    expect(await sendAndStream(dir, 'grpc')).toEqual([
      { method: 'GRPC', path: '/lf.a2a.v1.A2AService/SendMessage', version: '1.0', authorization: true },
      { method: 'GRPC', path: '/lf.a2a.v1.A2AService/SendStreamingMessage', version: '1.0', authorization: true },
    ]);
    // A gRPC TaskNotFound (NOT_FOUND with its ErrorInfo) is a typed agent error too.
    const client = await (await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: ENV }))
      .agent('py', 'market-size')
      .createClient();
    const error = await client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' })).catch((e: unknown) => e);
    expect(error, String(error)).toBeInstanceOf(AgentCallError);
    expect(error).toMatchObject({ code: 'agent-error' });
  });

  it("a2a-sdk's REST error body (404, google.rpc.Status with ErrorInfo TASK_NOT_FOUND) and a refused bearer leave the runtime typed", {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({
      profile: PROFILE,
      agents: { py: { card: agent.origin, skills: ['market-size'], credentials } },
    });
    expect((await runCli(['lock'], { cwd: dir, env: ENV })).code).toBe(0);
    const lockfile = join(dir, 'a2a.lock.json');
    const client = await (await loadLock({ lockfile, env: ENV })).agent('py', 'market-size').createClient();
    const missing = await client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' })).catch((e: unknown) => e);
    expect(missing, String(missing)).toBeInstanceOf(AgentCallError);
    expect(missing).toMatchObject({ code: 'agent-error', data: { status: 404, a2aReason: 'TASK_NOT_FOUND' } });
    const refused = await (
      await (await loadLock({ lockfile, env: { PY_TOKEN: 'wrong' } })).agent('py', 'market-size').createClient()
    )
      .sendMessage(message('x'))
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'auth-refused', data: { status: 401 } });
  });
});
