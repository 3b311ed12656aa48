/**
 * HTTP-layer faults the SDK cannot produce (a redirect to another origin), on node:http servers,
 * and the agent-error classification in every binding with both 1.0.0 and 1.0.1 status tables.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeCredential } from '../../src/credentials.js';
import { PlanViolationError, UsageError } from '../../src/errors.js';
import type { Plan } from '../../src/negotiate/types.js';
import { classifyAgentError, classifySdkError } from '../../src/runtime/classify.js';
import { enforcingFetch } from '../../src/runtime/enforce.js';
import { peer } from '../../src/runtime/peer.js';
import { checkRequest } from '../../src/runtime/request-check.js';

const servers: http.Server[] = [];
const hits: Record<string, Array<{ url: string; authorization?: string }>> = { a: [], b: [] };
let a = '';
let b = '';

async function listen(
  name: 'a' | 'b',
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<string> {
  const server = http.createServer((req, res) => {
    hits[name]!.push({ url: req.url ?? '', authorization: req.headers.authorization });
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  b = await listen('b', (_req, res) => res.end('{}'));
  a = await listen('a', (req, res) => {
    res.statusCode = req.url === '/same' ? 307 : 308;
    res.setHeader('Location', req.url === '/same' ? '/same' : `${b}/rpc`);
    res.end();
  });
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function fetchFor(url: string) {
  const plan: Plan = {
    url,
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.0',
    security: { bearer: [] },
    acceptedOutputModes: ['text/plain'],
    delivery: 'poll',
    extensions: [],
  };
  return enforcingFetch({
    agent: 'x',
    skill: 's',
    plan,
    iface: plan,
    inputModes: ['text/plain'],
    placements: async () => [placeCredential({ type: 'http', scheme: 'Bearer' }, 'secret-value', 'bearer')],
    security: true,
    send: fetch,
  });
}

describe('redirects', () => {
  it('a redirect to another origin is refused: the other origin gets nothing, least of all the credential', async () => {
    const before = hits.b!.length;
    await expect(
      fetchFor(`${a}/rpc`)(`${a}/rpc`, {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}',
      }),
    ).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(/redirect to .*\/rpc refused/),
    });
    expect(hits.b!.length).toBe(before);
    expect(hits.a!.at(-1)!.authorization).toBe('Bearer secret-value');
  });

  it('a redirect loop on the locked URL stops after 5 redirects', async () => {
    const before = hits.a!.length;
    await expect(
      fetchFor(`${a}/same`)(`${a}/same`, {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}',
      }),
    ).rejects.toMatchObject({ code: 'plan-violation', message: expect.stringMatching(/more than 5 redirects/) });
    expect(hits.a!.length - before).toBe(5);
  });
});

describe('every form of a fetch call is checked alike', () => {
  const body = '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}';
  const conflicting = { 'A2A-Version': '0.3', 'Content-Type': 'application/json' };
  /** The same call with an A2A-Version the plan does not lock, in each way fetch takes one. */
  const forms = (url: string): Array<[string, () => Promise<Response>]> => {
    const f = fetchFor(url);
    return [
      ['a header record', () => f(url, { method: 'POST', headers: conflicting, body })],
      [
        'a record without a prototype',
        () => f(url, { method: 'POST', headers: Object.assign(Object.create(null), conflicting), body }),
      ],
      ['a Headers', () => f(url, { method: 'POST', headers: new Headers(conflicting), body })],
      ['header pairs', () => f(url, { method: 'POST', headers: Object.entries(conflicting), body })],
      ['a Request', () => f(new Request(url, { method: 'POST', headers: conflicting, body }))],
      [
        'a URL and a Blob body',
        () => f(new URL(url), { method: 'POST', headers: conflicting, body: new Blob([body]) }),
      ],
      ['bytes', () => f(url, { method: 'POST', headers: conflicting, body: new TextEncoder().encode(body) })],
    ];
  };

  it('an A2A-Version the plan does not lock is refused in every form, and nothing is sent', async () => {
    const before = hits.b!.length;
    for (const [form, call] of forms(`${b}/rpc`))
      await expect(call(), form).rejects.toMatchObject({
        code: 'plan-violation',
        message: expect.stringMatching(/A2A-Version "0\.3" conflicts/),
      });
    expect(hits.b!.length).toBe(before);
  });
});

describe('protocol headers in a header record, in any spelling', () => {
  const body = '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}';

  it('every spelling of A2A-Version counts, joined as Headers joins them; an extension under either name must be locked', async () => {
    const before = hits.b!.length;
    const f = fetchFor(`${b}/rpc`);
    await expect(
      f(`${b}/rpc`, { method: 'POST', headers: { 'a2a-VERSION': '1.0', 'A2A-Version': '0.3' }, body }),
    ).rejects.toMatchObject({ code: 'plan-violation', message: expect.stringMatching(/A2A-Version "1\.0, 0\.3"/) });
    await expect(
      f(`${b}/rpc`, { method: 'POST', headers: { 'X-A2A-Extensions': 'https://other.example.com/y' }, body }),
    ).rejects.toMatchObject({ code: 'plan-violation', message: expect.stringMatching(/extension https:\/\/other/) });
    expect(hits.b!.length).toBe(before);
  });

  it('sends the locked A2A-Version once, whatever spelling the request gave, and the other headers as given', async () => {
    let raw: string[] = [];
    const server = http.createServer((req, res) => {
      raw = req.rawHeaders;
      res.end('{}');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
    const response = await fetchFor(url)(url, {
      method: 'POST',
      headers: { 'A2A-Version': '1.0', 'A2A-EXTENSIONS': '', 'X-Trace': 'abc' },
      body,
    });
    expect(response.status).toBe(200);
    const sent = (name: string) => raw.filter((_, i) => i % 2 === 0 && raw[i]!.toLowerCase() === name).length;
    expect(sent('a2a-version')).toBe(1);
    expect(raw[raw.findIndex((h) => h.toLowerCase() === 'a2a-version') + 1]).toBe('1.0');
    expect(sent('a2a-extensions')).toBe(0);
    expect(raw[raw.findIndex((h) => h.toLowerCase() === 'x-trace') + 1]).toBe('abc');
  });
});

describe('network failures', () => {
  it('a refused port is a FetchError unreachable naming the URL without its query (where a credential may sit)', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/rpc`;
    await new Promise((r) => closed.close(r));
    const plan: Plan = {
      url,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      security: { key: [] },
      acceptedOutputModes: ['text/plain'],
      delivery: 'poll',
      extensions: [],
    };
    const placements = async () => [
      placeCredential({ type: 'apiKey', location: 'query', name: 'key' }, 'secret-value', 'key'),
    ];
    const f = enforcingFetch({
      agent: 'x',
      skill: 's',
      plan,
      iface: plan,
      inputModes: ['text/plain'],
      placements,
      security: true,
      send: fetch,
    });
    const error = (await f(url, {
      method: 'POST',
      body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}',
    }).catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({
      name: 'FetchError',
      code: 'unreachable',
      url,
      message: `${url}: network error (ECONNREFUSED)`,
    });
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain('secret-value');
  });

  it('a request that times out (an AbortSignal.timeout of the caller) is a FetchError timeout', async () => {
    const silent = http.createServer(() => {
      /* never answers */
    });
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/rpc`;
    await expect(
      fetchFor(url)(url, {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}',
        signal: AbortSignal.timeout(20),
      }),
    ).rejects.toMatchObject({ name: 'FetchError', code: 'timeout', url });
  });
});

describe('classifyAgentError', () => {
  it('JSON-RPC codes', () => {
    expect(
      [-32009, -32005, -32008, -32004, -32003, -32001].map((code) => classifyAgentError({ binding: 'JSONRPC', code })),
    ).toEqual([
      'version-not-supported',
      'content-type-not-supported',
      'extension-support-required',
      'unsupported-operation',
      'push-notification-not-supported',
      undefined,
    ]);
  });

  it('HTTP+JSON: reason with a status from the 1.0.1 or the 1.0.0 table; 415 alone is ContentTypeNotSupported', () => {
    expect(classifyAgentError({ binding: 'HTTP+JSON', status: 400, reason: 'CONTENT_TYPE_NOT_SUPPORTED' })).toBe(
      'content-type-not-supported',
    );
    expect(classifyAgentError({ binding: 'HTTP+JSON', status: 415, reason: 'CONTENT_TYPE_NOT_SUPPORTED' })).toBe(
      'content-type-not-supported',
    );
    expect(classifyAgentError({ binding: 'HTTP+JSON', status: 415 })).toBe('content-type-not-supported');
    expect(classifyAgentError({ binding: 'HTTP+JSON', status: 400, reason: 'VERSION_NOT_SUPPORTED' })).toBe(
      'version-not-supported',
    );
    expect(classifyAgentError({ binding: 'HTTP+JSON', status: 500, reason: 'VERSION_NOT_SUPPORTED' })).toBeUndefined();
    expect(classifyAgentError({ binding: 'HTTP+JSON', status: 400 })).toBeUndefined();
  });

  it('gRPC: FAILED_PRECONDITION (1.0.1) and UNIMPLEMENTED (1.0.0) with the reason', () => {
    expect(classifyAgentError({ binding: 'GRPC', code: 9, reason: 'VERSION_NOT_SUPPORTED' })).toBe(
      'version-not-supported',
    );
    expect(classifyAgentError({ binding: 'GRPC', code: 12, reason: 'UNSUPPORTED_OPERATION' })).toBe(
      'unsupported-operation',
    );
    expect(classifyAgentError({ binding: 'GRPC', code: 3, reason: 'UNSUPPORTED_OPERATION' })).toBeUndefined();
  });

  it('SDK errors of each transport', async () => {
    const errors = await import('@a2a-js/sdk/errors');
    expect(classifySdkError(new errors.JsonRpcVersionNotSupportedError())).toBe('version-not-supported');
    expect(classifySdkError(new errors.RestExtensionSupportRequiredError())).toBe('extension-support-required');
    expect(classifySdkError(new errors.RestContentTypeNotSupportedError({ statusCode: 415 }))).toBe(
      'content-type-not-supported',
    );
    const grpcErrors = await import('@a2a-js/sdk/errors/grpc');
    expect(classifySdkError(new grpcErrors.GrpcVersionNotSupportedError())).toBe('version-not-supported');
    expect(classifySdkError(new grpcErrors.GrpcUnsupportedOperationError({ status: 12 }))).toBe(
      'unsupported-operation',
    );
    expect(classifySdkError(new Error('network'))).toBeUndefined();
  });
});

describe('the SDK stays a peer of the runtime entry', () => {
  it('only src/runtime/client.ts and grpc.ts (and the wire probe of a gRPC interface, http/probe.ts) load @a2a-js/sdk or @grpc/grpc-js at run time, and only by dynamic import', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const root = new URL('../../src/', import.meta.url);
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const loaders: string[] = [];
    for (const file of files) {
      const code = (await readFile(new URL(file, root), 'utf8')).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code, file).not.toMatch(/^import (?!type )[^;]*from '(@a2a-js\/sdk|@grpc\/grpc-js)/m);
      if (/import\('(@a2a-js\/sdk|@grpc\/grpc-js)/.test(code)) loaders.push(file.replaceAll('\\', '/'));
    }
    expect(loaders.sort()).toEqual(['http/probe.ts', 'runtime/client.ts', 'runtime/grpc.ts']);
  });
});

describe('optional peer dependencies', () => {
  it('a missing package is a UsageError naming it and how to install it', async () => {
    const error = await peer(() => import('not-installed-a2a-lock-peer' as string)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message: 'createClient() needs the optional peer dependency not-installed-a2a-lock-peer, which is not installed',
      hint: 'npm install not-installed-a2a-lock-peer',
    });
  });
});

describe('checkRequest: the request check alone, nothing sent', () => {
  const plan: Plan = {
    url: 'https://agent.example.com/a2a',
    protocolBinding: 'HTTP+JSON',
    protocolVersion: '1.0',
    security: {},
    acceptedOutputModes: ['text/plain'],
    delivery: 'poll',
    extensions: ['https://ext.example.com/x'],
  };
  const ctx = { agent: 'x', skill: 's', plan, iface: plan, inputModes: ['text/plain'] };
  const send = (body: unknown, headers: Record<string, string> = {}) =>
    checkRequest(ctx, { url: 'https://agent.example.com/a2a/message:send', method: 'POST', headers, body });

  it('completes a request on the plan: the locked headers, the accepted output modes filled in, the path below the interface', () => {
    const checked = send(JSON.stringify({ message: { parts: [{ text: 'hi' }] } }), {
      'content-type': 'application/json',
    });
    expect(checked.path).toBe('/message:send');
    expect(checked.headers).toEqual({
      'a2a-version': '1.0',
      'a2a-extensions': 'https://ext.example.com/x',
      'content-type': 'application/json',
    });
    expect(JSON.parse(checked.body!).configuration).toEqual({ acceptedOutputModes: ['text/plain'] });
  });

  it('throws a PlanViolationError for anything off the plan, the URL first', () => {
    expect(() => send('{}', { 'a2a-extensions': 'https://other.example.com/y' })).toThrow(PlanViolationError);
    expect(() => send(JSON.stringify({ message: { parts: [{ data: {} }] } }))).toThrow(
      /application\/json is not in the locked input modes/,
    );
    expect(() =>
      checkRequest(ctx, {
        url: 'https://elsewhere.example.com/a2a/message:send',
        method: 'POST',
        headers: {},
        body: {},
      }),
    ).toThrow(/is not the locked interface/);
    expect(() => send({ not: 'text' })).toThrow(/must be JSON text/);
    expect(() =>
      checkRequest(
        { ...ctx, iface: { ...plan, protocolBinding: 'GRPC' } },
        { url: plan.url, method: 'POST', headers: {} },
      ),
    ).toThrow(/not carried over fetch/);
  });
});
