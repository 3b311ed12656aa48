/**
 * Issue 23, points 1, 2 and 7: the Python reference SDK `a2a-sdk` 1.3.0 as a real peer
 * (test/python/sdk_agent.py under the pinned environment of test/helpers/python.ts), through the
 * built CLI and the runtime loader. Each server starts once for the file.
 *
 * 1. its JSON-RPC card exactly as served (an interface without `protocolVersion`, the hybrid 0.3
 *    fields): lock, `verify --strict` twice, a message through `createClient()`; the same card from
 *    a file, `a2a card` and `a2a plan`;
 * 2. the 0.3 compatibility layer on: `["1.0","0.3"]` locks 1.0, `["0.3"]` locks 0.3 and the
 *    runtime's 0.3 requests are accepted;
 * 7. its error bodies map to the runtime's typed errors and fallbacks (-32001; a refused stream,
 *    -32004 / REST 400 UNSUPPORTED_OPERATION, takes the locked poll fallback); a VersionNotSupported
 *    answered while we sent `A2A-Version: 1.0` (a node:http proxy in between drops the header, as
 *    AWS AgentCore does) names the header and the proxy, in the runtime (JSON-RPC and REST) and in
 *    the CLI (the extended card request), and takes no version fallback.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { GetTaskRequest, SendMessageRequest } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentCallError, AgentDegradedError, loadLock } from '../../src/runtime/index.js';
import { type HttpServer, startHttp } from '../helpers/http.js';
import { type PythonServer, startPythonServer } from '../helpers/python.js';
import {
  allOutput,
  jsonOf,
  readLock,
  readLockBytes,
  resources,
  runCli,
  SLOW,
  show,
  verifyStrictTwice,
} from './helpers.js';

const py = inject('python');
const PROFILE = {
  bindings: ['JSONRPC', 'HTTP+JSON'],
  versions: ['1.0', '0.3'],
  accepts: ['text/plain'],
  sends: ['text/plain'],
  streaming: true,
};
const message = (text: string) =>
  SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });

const TOKEN = 'py-bearer-T0ken';

/** A node:http proxy to 127.0.0.1:<port()> that drops the A2A-Version header (as AWS AgentCore does). */
function strippingProxy(port: () => number): Promise<HttpServer> {
  return startHttp((req, res) => {
    const headers: http.OutgoingHttpHeaders = { ...req.headers, host: `127.0.0.1:${port()}` };
    delete headers['a2a-version'];
    const upstream = http.request(
      { host: '127.0.0.1', port: port(), path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
}

interface Seen {
  method: string;
  path: string;
  version: string | null;
  authorization: boolean;
}
async function seen(server: PythonServer): Promise<Seen[]> {
  return (await fetch(`${server.origin}/_seen`)).json() as Promise<Seen[]>;
}

describe.skipIf(!py.ok)('a2a-sdk 1.3.0 (Python) as a peer', () => {
  let plain: PythonServer;
  let compat: PythonServer;
  /** A proxy in front of `plain` that drops the A2A-Version header. */
  let stripping: HttpServer;
  /** An extended-card agent that advertises `gatedProxy`, a proxy dropping A2A-Version, as its origin. */
  let gated: PythonServer;
  let gatedProxy: HttpServer;
  /** JSONRPC and HTTP+JSON like `compat`, but its card says streaming: false: it refuses streams (-32004). */
  let nostream: PythonServer;
  /** A proxy in front of `nostream` that drops the A2A-Version header. */
  let nostreamProxy: HttpServer;
  const sha = (b: Buffer | undefined) =>
    createHash('sha256')
      .update(b ?? '')
      .digest('hex');

  beforeAll(async () => {
    if (!py.ok) return;
    [plain, compat, nostream] = await Promise.all([
      startPythonServer(py, 'sdk_agent.py', [JSON.stringify({})]),
      startPythonServer(py, 'sdk_agent.py', [JSON.stringify({ compat: true, bindings: ['JSONRPC', 'HTTP+JSON'] })]),
      startPythonServer(py, 'sdk_agent.py', [JSON.stringify({ streaming: false, bindings: ['JSONRPC', 'HTTP+JSON'] })]),
    ]);
    stripping = await strippingProxy(() => plain.port);
    gatedProxy = await strippingProxy(() => gated.port);
    nostreamProxy = await strippingProxy(() => nostream.port);
    gated = await startPythonServer(py, 'sdk_agent.py', [
      JSON.stringify({ token: TOKEN, extended: true, versionField: true, origin: gatedProxy.origin }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([
      plain?.close(),
      compat?.close(),
      nostream?.close(),
      gated?.close(),
      stripping?.close(),
      gatedProxy?.close(),
      nostreamProxy?.close(),
    ]);
  });

  it('the JSON-RPC card as served (no interface protocolVersion, hybrid 0.3 fields) locks as 1.0, verifies --strict twice, and a message goes through createClient()', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const served = await (await fetch(`${plain.origin}/.well-known/agent-card.json`)).json();
    // What a2a-sdk 1.3.0 serves for a plain JSON-RPC agent: the 1.0 proto form merged with 0.3 fields.
    expect(served.supportedInterfaces).toEqual([{ url: `${plain.origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC' }]);
    expect(served).toMatchObject({
      url: `${plain.origin}/a2a/jsonrpc`,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3',
    });

    const res = resources(onTestFinished);
    const dir = await res.dir({ profile: PROFILE, agents: { py: { card: plain.origin, skills: ['market-size'] } } });
    const lock = await runCli(['lock', '--json'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    const warnings = jsonOf(lock).warnings ?? [];
    const locked = (await readLock(dir)).agents.py;
    expect(locked.plans['market-size']).toMatchObject({
      url: `${plain.origin}/a2a/jsonrpc`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(JSON.stringify({ warnings, lock: lock.stderr })).toMatch(/interface-version-missing/);

    const before = sha(await readLockBytes(dir));
    await verifyStrictTwice(dir, 'py');
    expect(sha(await readLockBytes(dir))).toBe(before);

    const from = (await seen(plain)).length;
    const client = await (await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: {} }))
      .agent('py', 'market-size')
      .createClient();
    expect(JSON.stringify(await client.sendMessage(message('hello python')))).toContain('echo: hello python');
    const posts = (await seen(plain)).slice(from).filter((r) => r.method === 'POST');
    expect(posts).toEqual([{ method: 'POST', path: '/a2a/jsonrpc', version: '1.0', authorization: false }]);
  });

  it('the same card from a file, from `a2a card` and from `a2a plan`: read as 1.0, warning interface-version-missing naming the path; the top-level protocolVersion "0.3" does not override it', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const served = await (await fetch(`${plain.origin}/.well-known/agent-card.json`)).json();
    const res = resources(onTestFinished);
    const dir = await res.dir({ profile: PROFILE, agents: {} });
    await writeFile(join(dir, 'card.json'), JSON.stringify(served));
    const expected = { url: `${plain.origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' };
    const missing = { code: 'interface-version-missing', path: '$.supportedInterfaces[0].protocolVersion' };
    for (const source of ['card.json', plain.origin]) {
      const card = await runCli(['card', source, '--json'], { cwd: dir });
      expect(card.code, show(card)).toBe(0);
      expect(jsonOf(card).card.supportedInterfaces).toEqual([expected]);
      expect(jsonOf(card).warnings).toContainEqual(expect.objectContaining(missing));
      const plan = await runCli(['plan', source, '--skill', 'market-size', '--json'], { cwd: dir });
      expect(plan.code, show(plan)).toBe(0);
      expect(jsonOf(plan).plan).toMatchObject(expected);
      expect(jsonOf(plan).warnings).toContainEqual(expect.objectContaining(missing));
    }
    // A human run says it on one line naming the path.
    const human = await runCli(['card', 'card.json'], { cwd: dir });
    expect(human.stdout + human.stderr).toMatch(
      /interface-version-missing.*\$\.supportedInterfaces\[0\]\.protocolVersion|\$\.supportedInterfaces\[0\]\.protocolVersion.*interface-version-missing/,
    );
  });

  it('with the 0.3 compatibility layer on, ["1.0","0.3"] locks 1.0 and ["0.3"] locks 0.3; the runtime\'s 0.3 requests are accepted', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({
      profile: PROFILE,
      agents: {
        current: { card: compat.origin, skills: ['market-size'] },
        legacy: { card: compat.origin, skills: ['market-size'], profile: { versions: ['0.3'] } },
      },
    });
    const lock = await runCli(['lock'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    const agents = (await readLock(dir)).agents;
    expect(agents.current.plans['market-size']).toMatchObject({ protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(agents.legacy.plans['market-size']).toMatchObject({ protocolBinding: 'JSONRPC', protocolVersion: '0.3' });
    expect((await runCli(['verify', '--strict'], { cwd: dir })).code).toBe(0);

    const lockfile = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: {} });
    const from = (await seen(compat)).length;
    expect(
      JSON.stringify(
        await (await lockfile.agent('legacy', 'market-size').createClient()).sendMessage(message('old dialect')),
      ),
    ).toContain('echo: old dialect');
    expect(
      JSON.stringify(
        await (await lockfile.agent('current', 'market-size').createClient()).sendMessage(message('new dialect')),
      ),
    ).toContain('echo: new dialect');
    const posts = (await seen(compat)).slice(from).filter((r) => r.method === 'POST');
    // 0.3 requests carry no A2A-Version or "0.3" (the 0.3 dialect); the 1.0 plan sends 1.0.
    expect(posts.map((r) => [r.path, r.version ?? '0.3'])).toEqual([
      ['/a2a/jsonrpc', '0.3'],
      ['/a2a/jsonrpc', '1.0'],
    ]);
  });

  it("a2a-sdk's error bodies (-32001 task not found) leave the runtime as a typed AgentCallError with the A2A code", {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({ profile: PROFILE, agents: { py: { card: plain.origin, skills: ['market-size'] } } });
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const client = await (await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: {} }))
      .agent('py', 'market-size')
      .createClient();
    const error = await client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentCallError);
    expect(error, String(error)).toMatchObject({ code: 'agent-error', data: { a2aCode: -32001 } });
  });

  it('a2a-sdk refusing a stream (-32004 JSON-RPC; HTTP 400 UNSUPPORTED_OPERATION over REST) takes the locked poll fallback once, as for the JS SDK', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({
      profile: PROFILE,
      agents: {
        rpc: { card: compat.origin, skills: ['market-size'] },
        rest: { card: compat.origin, skills: ['market-size'], profile: { bindings: ['HTTP+JSON'] } },
      },
    });
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    // Locked while the agent streamed; now the calls reach an a2a-sdk agent whose card says it does not.
    const moved: typeof fetch = async (input, init) =>
      fetch(String(input).replace(compat.origin, nostream.origin), init);
    const lockfile = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: {}, fetch: moved });
    for (const [name, paths] of [
      ['rpc', ['/a2a/jsonrpc', '/a2a/jsonrpc']],
      ['rest', ['/a2a/rest/message:stream', '/a2a/rest/message:send']],
    ] as const) {
      const agent = lockfile.agent(name, 'market-size');
      expect(agent.plan).toMatchObject({ delivery: 'stream', fallbacks: { delivery: ['poll'] } });
      const from = (await seen(nostream)).length;
      const events: unknown[] = [];
      for await (const event of (await agent.createClient()).sendMessageStream(message(`no stream ${name}`)))
        events.push(event);
      expect(JSON.stringify(events)).toContain(`echo: no stream ${name}`);
      expect(agent.fallbacksTaken).toEqual({ 'unsupported-operation': 1 });
      expect((await seen(nostream)).slice(from).map((r) => r.path)).toEqual(paths);
    }
  });

  it("-32009 while we sent A2A-Version 1.0 (a proxy dropped the header): the runtime's typed error names the A2A-Version header and the proxy; no fallback to 0.3, no retry", {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({ profile: PROFILE, agents: { py: { card: plain.origin, skills: ['market-size'] } } });
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    expect((await readLock(dir)).agents.py.plans['market-size']).toMatchObject({
      url: `${plain.origin}/a2a/jsonrpc`,
      protocolVersion: '1.0',
    });
    // The calls go through the stripping proxy (an operator's gateway in front of the agent).
    const through: typeof fetch = async (input, init) =>
      fetch(String(input).replace(plain.origin, stripping.origin), init);
    const lockfile = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: {}, fetch: through });
    const client = await lockfile.agent('py', 'market-size').createClient();
    const from = (await seen(plain)).length;
    const proxied = stripping.requests.length;
    const error = (await client.sendMessage(message('through the gateway')).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(AgentDegradedError);
    expect(error.message).toMatch(/A2A-Version: 1\.0/);
    expect(error.message).toMatch(/removed or rewrote the A2A-Version header/);
    expect(error.message).toMatch(/AgentCore/);
    // What the peer received: one request without A2A-Version (the proxy dropped it); what the proxy received: 1.0.
    const posts = (await seen(plain)).slice(from).filter((r) => r.method === 'POST');
    expect(posts).toEqual([{ method: 'POST', path: '/a2a/jsonrpc', version: null, authorization: false }]);
    expect(stripping.requests.slice(proxied).map((r) => r.headers['a2a-version'])).toEqual(['1.0']);
  });

  it('the same over HTTP+JSON (400 FAILED_PRECONDITION, ErrorInfo VERSION_NOT_SUPPORTED): named, and the locked 0.3 fallback is not taken', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({
      profile: PROFILE,
      agents: { rest: { card: compat.origin, skills: ['market-size'], profile: { bindings: ['HTTP+JSON'] } } },
    });
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const agent = (
      await loadLock({
        lockfile: join(dir, 'a2a.lock.json'),
        env: {},
        fetch: async (input, init) => fetch(String(input).replace(compat.origin, nostreamProxy.origin), init),
      })
    ).agent('rest', 'market-size');
    // The lock holds a 0.3 interface as a version fallback; a lost header must not move the call to it.
    expect(agent.plan).toMatchObject({
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
      fallbacks: { interfaces: expect.arrayContaining([expect.objectContaining({ protocolVersion: '0.3' })]) },
    });
    const from = (await seen(nostream)).length;
    const error = (await (
      await agent.createClient()
    )
      .sendMessage(message('rest through the gateway'))
      .catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(AgentDegradedError);
    expect(error.message).toMatch(/A2A-Version: 1\.0.*removed or rewrote the A2A-Version header/);
    expect(agent.fallbacksTaken).toEqual({});
    expect((await seen(nostream)).slice(from)).toEqual([
      { method: 'POST', path: '/a2a/rest/message:send', version: null, authorization: false },
    ]);
  });

  it('the CLI says the same when the extended card request comes back -32009 through a proxy that drops A2A-Version', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({
      profile: PROFILE,
      agents: {
        py: { card: gatedProxy.origin, skills: ['market-size'], credentials: { bearer: { env: 'PY_TOKEN' } } },
      },
    });
    const lock = await runCli(['lock'], { cwd: dir, env: { PY_TOKEN: TOKEN } });
    expect(lock.code, show(lock)).not.toBe(0);
    const out = allOutput(lock);
    expect(out, show(lock)).toMatch(/GetExtendedAgentCard failed: JSON-RPC error -32009/);
    expect(out, show(lock)).toMatch(/A2A-Version: 1\.0/);
    expect(out, show(lock)).toMatch(/removed or rewrote the A2A-Version header/);
    expect(out, show(lock)).not.toContain(TOKEN);
    const extended = (await seen(gated)).filter((r) => r.method === 'POST');
    expect(extended.at(-1)).toEqual({ method: 'POST', path: '/a2a/jsonrpc', version: null, authorization: true });
  });
});

describe('a custom binding and an unknown capability through the CLI (no Python needed)', () => {
  it('a SLIMRPC interface (url a SLIM name) and capabilities.bidiStreaming: card, lock and verify --strict pass, both kept verbatim in the snapshot; a bidiStreaming change is structural', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const served = {
      name: 'Py',
      description: 'd',
      version: '1.0.0',
      supportedInterfaces: [
        { url: 'org/namespace/service', protocolBinding: 'SLIMRPC', protocolVersion: '1.0' },
        { url: 'https://agent.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true, bidiStreaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 's', description: 'd', tags: [] }],
    };
    const dir = await res.dir({
      profile: { ...PROFILE, bindings: ['JSONRPC'] },
      agents: { py: { card: './card.json', skills: ['s'] } },
    });
    await writeFile(join(dir, 'card.json'), JSON.stringify(served));
    const card = await runCli(['card', 'card.json', '--json'], { cwd: dir });
    expect(card.code, show(card)).toBe(0);
    expect(jsonOf(card).card.supportedInterfaces[0]).toEqual(served.supportedInterfaces[0]);
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const snapshot = (await readLock(dir)).agents.py.snapshot;
    expect(snapshot.supportedInterfaces[0]).toEqual(served.supportedInterfaces[0]);
    expect(snapshot.capabilities).toEqual({ streaming: true, bidiStreaming: true });
    expect((await runCli(['verify', '--strict'], { cwd: dir })).code).toBe(0);
    await writeFile(
      join(dir, 'card.json'),
      JSON.stringify({ ...served, capabilities: { streaming: true, bidiStreaming: false } }),
    );
    const changed = await runCli(['verify', '--json'], { cwd: dir });
    expect(jsonOf(changed).agents.py).toMatchObject({
      status: 'changed',
      change: 'structural',
      cardChanges: [{ path: '$.capabilities.bidiStreaming', structural: true }],
    });
  });
});
