/**
 * The wire probe (issue 37) against real peers on 127.0.0.1: the JS SDK agents (scripts/agents.js)
 * over JSON-RPC, HTTP+JSON and gRPC, with and without the bearer token they require, and the
 * servers that lie (test/helpers/lying-servers.ts). One GetTask per distinct interface, in its
 * own binding and version, with the A2A-Version and the credential its plan sends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDefaultDispatcher } from '../../src/http/dispatcher.js';
import { probeInterface } from '../../src/http/probe.js';
import type { Plan } from '../../src/negotiate/types.js';
import { probeInterfaces, probeRecord } from '../../src/resolve/probe.js';
import { type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';
import { startHttp } from '../helpers/http.js';
import { type LyingServer, startLyingServer } from '../helpers/lying-servers.js';

const TOKEN = 'probe-token-0123456789abcdef';
const plan = (url: string, protocolBinding: string, protocolVersion: string, extra: Partial<Plan> = {}): Plan => ({
  url,
  protocolBinding,
  protocolVersion,
  security: { bearer: [] },
  acceptedOutputModes: ['text/plain'],
  delivery: 'poll',
  extensions: [],
  ...extra,
});
/** The authenticated SDK agent's plan: JSON-RPC, with its HTTP+JSON and gRPC interfaces as locked fallbacks. */
const lockedAgentPlans = () => ({
  a: plan(locked.jsonRpcUrl, 'JSONRPC', '1.0', {
    fallbacks: {
      interfaces: [
        { url: locked.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: locked.grpcUrl!, protocolBinding: 'GRPC', protocolVersion: '1.0' },
      ],
      delivery: [],
    },
  }),
});
const schemes = { bearer: { type: 'http' as const, scheme: 'Bearer' } };
const options = (env: Record<string, string> = {}) => ({ baseDir: '/', env, allowHttp: true, timeoutMs: 5000 });

let open: StartedAgent;
let locked: StartedAgent;
const liars: LyingServer[] = [];

beforeAll(async () => {
  const card = (o: string, { grpcUrl }: { grpcUrl: string | undefined }) => {
    const base = sampleCard(o, {}, { legacy: true });
    return {
      ...base,
      supportedInterfaces: [
        ...base.supportedInterfaces,
        { url: grpcUrl!, protocolBinding: 'GRPC', protocolVersion: '1.0' },
      ],
    };
  };
  [open, locked] = await Promise.all([
    startAgent({ card, grpc: true, legacyCompat: true }),
    startAgent({ card, grpc: true, bearerToken: TOKEN }),
  ]);
  liars.push(
    ...(await Promise.all([
      startLyingServer('html-404'),
      startLyingServer('non-a2a-500', '0.3'),
      startLyingServer('grpc-unimplemented'),
    ])),
  );
});
afterAll(async () => {
  await Promise.all([open?.close(), locked?.close(), ...liars.map((l) => l.close())]);
  await closeDefaultDispatcher();
});

describe('probeInterfaces against the JS SDK agents', () => {
  it('served: JSON-RPC 1.0 and 0.3, HTTP+JSON 1.0, gRPC 1.0, each asked once with its A2A-Version', async () => {
    const plans = {
      a: plan(open.jsonRpcUrl, 'JSONRPC', '1.0', {
        security: {},
        fallbacks: {
          interfaces: [
            { url: open.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
            { url: open.grpcUrl!, protocolBinding: 'GRPC', protocolVersion: '1.0' },
          ],
          delivery: [],
        },
      }),
      b: plan(open.jsonRpcUrl, 'JSONRPC', '0.3', { security: {} }),
      c: plan(open.jsonRpcUrl, 'JSONRPC', '1.0', { security: {} }),
    };
    const before = open.requests.length;
    const outcomes = await probeInterfaces({ plans, schemes }, options());
    const kinds = Object.fromEntries([...outcomes].map(([key, o]) => [key, o.kind]));
    expect(kinds).toEqual({
      [`JSONRPC 1.0 ${open.jsonRpcUrl}`]: 'served',
      [`HTTP+JSON 1.0 ${open.restUrl}`]: 'served',
      [`GRPC 1.0 ${open.grpcUrl}`]: 'served',
      [`JSONRPC 0.3 ${open.jsonRpcUrl}`]: 'served',
    });
    expect(outcomes.get(`JSONRPC 1.0 ${open.jsonRpcUrl}`)!.answered).toMatch(
      /^HTTP 200 application\/json, JSON-RPC -32001 TaskNotFound/,
    );
    expect(outcomes.get(`JSONRPC 0.3 ${open.jsonRpcUrl}`)!.answered).toMatch(/-32001 TaskNotFound/);
    expect(outcomes.get(`HTTP+JSON 1.0 ${open.restUrl}`)!.answered).toMatch(
      /^HTTP 404 application\/a2a\+json, NOT_FOUND TASK_NOT_FOUND/,
    );
    expect(outcomes.get(`GRPC 1.0 ${open.grpcUrl}`)!.answered).toMatch(/^gRPC 5 NOT_FOUND TASK_NOT_FOUND/);
    const sent = open.requests.slice(before);
    expect(
      sent
        .map((r) => `${r.method} ${r.path.replace(/a2a-lock-probe-[0-9a-f-]+/, '<id>')} ${r.headers['a2a-version']}`)
        .sort(),
    ).toEqual([
      'GET /a2a/rest/tasks/<id> 1.0',
      'GRPC /lf.a2a.v1.A2AService/GetTask 1.0',
      'POST /a2a/jsonrpc 0.3',
      'POST /a2a/jsonrpc 1.0',
    ]);
    expect(probeRecord(outcomes)).toEqual({
      [`GRPC 1.0 ${open.grpcUrl}`]: 'served',
      [`HTTP+JSON 1.0 ${open.restUrl}`]: 'served',
      [`JSONRPC 0.3 ${open.jsonRpcUrl}`]: 'served',
      [`JSONRPC 1.0 ${open.jsonRpcUrl}`]: 'served',
    });
  });

  it('auth-required without the credential, served with it (HTTP 401, gRPC UNAUTHENTICATED)', async () => {
    const plans = lockedAgentPlans();
    const credentials = { bearer: { env: 'TOKEN' } };
    const without = await probeInterfaces({ plans, schemes, credentials }, options());
    expect([...without.values()].map((o) => o.kind)).toEqual(['auth-required', 'auth-required', 'auth-required']);
    expect(without.get(`GRPC 1.0 ${locked.grpcUrl}`)!.answered).toMatch(/^gRPC 16 UNAUTHENTICATED/);
    expect(without.get(`JSONRPC 1.0 ${locked.jsonRpcUrl}`)!.answered).toBe('HTTP 401 application/json');

    const before = locked.requests.length;
    const withToken = await probeInterfaces({ plans, schemes, credentials }, options({ TOKEN }));
    expect([...withToken.values()].map((o) => o.kind)).toEqual(['served', 'served', 'served']);
    for (const r of locked.requests.slice(before)) expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);

    // Withheld in this run (the pull-request gate): never sent, whatever the environment holds.
    const after = locked.requests.length;
    const withheld = await probeInterfaces(
      { plans, schemes, credentials },
      { ...options({ TOKEN }), credentialsWithheld: 'a pull request' },
    );
    expect([...withheld.values()].map((o) => o.kind)).toEqual(['auth-required', 'auth-required', 'auth-required']);
    for (const r of locked.requests.slice(after)) expect(r.headers.authorization).toBeUndefined();
  });
});

describe('a credential the transport cannot carry is not sent: not-probed in the tool’s words, never not-served', () => {
  it('beyond Latin-1 (€) for HTTP, beyond printable ASCII (é) for gRPC metadata; the agent is asked nothing it cannot be sent', async () => {
    const plans = lockedAgentPlans();
    const credentials = { bearer: { env: 'TOKEN' } };
    const http =
      'the run refused the request before it left: usage: the value of the Authorization header contains a character a header cannot carry (beyond Latin-1; RFC 9110 field-value)';
    const grpc =
      'the run refused the request before it left: usage: the value of the Authorization header contains a character gRPC metadata cannot carry (printable ASCII only)';

    const before = locked.requests.length;
    const euro = await probeInterfaces({ plans, schemes, credentials }, options({ TOKEN: `${TOKEN}-\u20ac` }));
    expect([...euro.values()]).toEqual([
      { kind: 'not-probed', reason: http },
      { kind: 'not-probed', reason: http },
      { kind: 'not-probed', reason: grpc },
    ]);
    expect(locked.requests.length).toBe(before);

    // é is obs-text, which HTTP carries (as one byte; this agent then refuses the token), and gRPC metadata does not.
    const latin1 = await probeInterfaces({ plans, schemes, credentials }, options({ TOKEN: `${TOKEN}-\u00e9` }));
    expect([...latin1.values()].map((o) => o.kind)).toEqual(['auth-required', 'auth-required', 'not-probed']);
    expect(latin1.get(`GRPC 1.0 ${locked.grpcUrl}`)).toEqual({ kind: 'not-probed', reason: grpc });
    expect(locked.requests.slice(before).map((r) => r.method)).toEqual(['POST', 'GET']);
  });
});

describe('probeInterface against servers that lie', () => {
  it('not-served: an HTML 404, a non-A2A 500, a gRPC server without the A2A service', async () => {
    const [html, five, grpc] = liars as [LyingServer, LyingServer, LyingServer];
    const probe = (l: LyingServer, version = '1.0') =>
      probeInterface({
        url: l.interfaceUrl,
        protocolBinding: l.binding,
        protocolVersion: version,
        credentials: [],
        allowHttp: true,
      });
    expect(await probe(html)).toEqual({
      kind: 'not-served',
      answered: expect.stringMatching(/^HTTP 404 text\/html, not a JSON object \(\d+ characters\)$/),
    });
    expect(await probe(five, '0.3')).toEqual({
      kind: 'not-served',
      answered: 'HTTP 500 application/json, not a JSON-RPC 2.0 answer',
    });
    expect(five.requests.filter((r) => r.method === 'POST')).toHaveLength(1); // one request: no retry
    expect(await probe(grpc)).toEqual({
      kind: 'not-served',
      answered: expect.stringMatching(/^gRPC 12 UNIMPLEMENTED/),
    });
  });

  it('not-served: a connection refused; a redirect is not followed, and the credential never crosses it', async () => {
    const closed = await startHttp((_req, res) => res.end());
    const url = `${closed.origin}/a2a/jsonrpc`;
    await closed.close();
    expect(
      await probeInterface({
        url,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
        credentials: [],
        allowHttp: true,
      }),
    ).toEqual({
      kind: 'not-served',
      answered: expect.stringMatching(/connection refused/),
    });

    const target = await startHttp((_req, res) => res.end('{}'));
    const redirect = await startHttp((_req, res) => {
      res.writeHead(307, { location: `${target.origin}/a2a/jsonrpc` });
      res.end();
    });
    try {
      const outcome = await probeInterface({
        url: `${redirect.origin}/a2a/jsonrpc`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
        credentials: [{ headers: { Authorization: `Bearer ${TOKEN}` }, query: {}, cookies: {} }],
        allowHttp: true,
      });
      expect(outcome).toEqual({ kind: 'not-served', answered: 'HTTP 307 (a redirect, not followed)' });
      expect(target.requests).toEqual([]);
      expect(redirect.requests).toHaveLength(1);
    } finally {
      await Promise.all([target.close(), redirect.close()]);
    }
  });

  it('not-served whatever the size: a JSON-RPC result followed by junk, a body holding `error` twice (the attacker’s smallgarbage, prefixgarbage, bigdup shapes)', async () => {
    const result = '{"jsonrpc":"2.0","id":1,"result":{}}';
    const methodNotFound = '{"code":-32601,"message":"Method not found"}';
    const taskNotFound = (data: number) => `{"code":-32001,"message":"x","data":"${'x'.repeat(data)}"}`;
    const bodies: Record<string, string> = {
      '/small-junk': `${result}<html>`,
      '/large-junk': `${result}${'<html>'.repeat(12_000)}`,
      '/small-twice': `{"jsonrpc":"2.0","id":1,"error":${methodNotFound},"error":${taskNotFound(1)}}`,
      '/large-twice': `{"jsonrpc":"2.0","id":1,"error":${methodNotFound},"error":${taskNotFound(70_000)}}`,
    };
    const server = await startHttp((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(bodies[req.url ?? ''] ?? '{}');
    });
    try {
      for (const path of Object.keys(bodies)) {
        const outcome = await probeInterface({
          url: `${server.origin}${path}`,
          protocolBinding: 'JSONRPC',
          protocolVersion: '1.0',
          credentials: [],
          allowHttp: true,
        });
        expect(outcome?.kind, path).toBe('not-served');
      }
      expect(server.requests).toHaveLength(4);
    } finally {
      await server.close();
    }
  });

  it('does not probe what it cannot ask: a custom binding, a version outside 0.3 and 1.x', async () => {
    const base = { url: open.jsonRpcUrl, credentials: [], allowHttp: true };
    expect(await probeInterface({ ...base, protocolBinding: 'WEBSOCKET', protocolVersion: '1.0' })).toBeUndefined();
    expect(await probeInterface({ ...base, protocolBinding: 'JSONRPC', protocolVersion: '0.2' })).toBeUndefined();
  });
});
