import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { Agent } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FetchError, InvalidInputError, UsageError } from '../../src/errors.js';
import { cardUrlsFor, fetchCard, versionRefusalOf } from '../../src/http/card.js';
import { closeDefaultDispatcher, DEFAULT_CONNECTIONS, getDefaultDispatcher } from '../../src/http/dispatcher.js';
import { requestJson, retryDelayMs } from '../../src/http/request.js';
import { mapSettled } from '../../src/pool.js';
import { startConnectProxy } from '../helpers/proxy.js';
import { TEST_CERT, TEST_KEY } from '../helpers/tls.js';

const CARD = { name: 'echo', description: 'Echo agent', version: '1.0.0' };
const OPTS = { versionHeader: '1.0' } as const;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface TestServer {
  /** `http://127.0.0.1:<port>` (or https://). */
  origin: string;
  /** Paths requested, in order. */
  paths: string[];
  /** Request headers, in order. */
  headers: IncomingHttpHeaders[];
  /** TCP connections accepted. */
  connections: () => number;
  server: Server;
}

const servers: Server[] = [];
const extraDispatchers: Agent[] = [];

async function listen(server: Server, handler: Handler, scheme: 'http' | 'https'): Promise<TestServer> {
  const paths: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  let connections = 0;
  server.on('connection', () => connections++);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    paths.push(req.url ?? '');
    headers.push(req.headers);
    handler(req, res);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { origin: `${scheme}://127.0.0.1:${port}`, paths, headers, connections: () => connections, server };
}

function serve(handler: Handler): Promise<TestServer> {
  return listen(createServer(), handler, 'http');
}

function serveHttps(handler: Handler): Promise<TestServer> {
  return listen(createHttpsServer({ key: TEST_KEY, cert: TEST_CERT }) as unknown as Server, handler, 'https');
}

function json(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...extra });
  res.end(text);
}

function redirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, 'content-type': 'text/plain' });
  res.end('moved');
}

/** Await a rejection and return the error (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** An undici Agent whose connector records attempts and never opens a socket. */
function recordingDispatcher(): { dispatcher: Agent; attempts: () => number } {
  let attempts = 0;
  const dispatcher = new Agent({
    connect: (_options, callback) => {
      attempts++;
      const error = Object.assign(new Error('connect refused by test'), { code: 'ECONNREFUSED' });
      callback(error, null);
    },
  });
  extraDispatchers.push(dispatcher);
  return { dispatcher, attempts: () => attempts };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

afterAll(async () => {
  await closeDefaultDispatcher();
  await Promise.all(extraDispatchers.splice(0).map((d) => d.close()));
});

describe('cardUrlsFor', () => {
  it('with cardPath: "" the URL is the card whatever its path; another cardPath is joined as the SDK resolvers join relative_card_path', () => {
    expect(cardUrlsFor('https://x.example/v1/projects/p/agents/a/v1/card', '')).toEqual([
      'https://x.example/v1/projects/p/agents/a/v1/card',
    ]);
    expect(cardUrlsFor('https://x.example/v1/card?alt=json#f', '')).toEqual(['https://x.example/v1/card?alt=json']);
    expect(cardUrlsFor('https://x.example/agents/a/', '/card')).toEqual(['https://x.example/agents/a/card']);
    expect(cardUrlsFor('https://x.example/agents/a', 'v1/card')).toEqual(['https://x.example/agents/a/v1/card']);
    expect(cardUrlsFor('https://x.example', '.well-known/agent.json')).toEqual([
      'https://x.example/.well-known/agent.json',
    ]);
  });

  it('uses a .json URL as-is', () => {
    expect(cardUrlsFor('https://a.example/cards/echo.json')).toEqual(['https://a.example/cards/echo.json']);
    expect(cardUrlsFor('https://a.example/.well-known/agent-card.json#x')).toEqual([
      'https://a.example/.well-known/agent-card.json',
    ]);
  });

  it('appends the well-known paths to a base URL, stripping a trailing slash', () => {
    expect(cardUrlsFor('https://a.example')).toEqual([
      'https://a.example/.well-known/agent-card.json',
      'https://a.example/.well-known/agent.json',
    ]);
    expect(cardUrlsFor('https://a.example/agents/echo/')).toEqual([
      'https://a.example/agents/echo/.well-known/agent-card.json',
      'https://a.example/agents/echo/.well-known/agent.json',
    ]);
    expect(cardUrlsFor('http://127.0.0.1:8080/x?tenant=t')).toEqual([
      'http://127.0.0.1:8080/x/.well-known/agent-card.json?tenant=t',
      'http://127.0.0.1:8080/x/.well-known/agent.json?tenant=t',
    ]);
  });

  it('rejects non-http(s) URLs and credentials', () => {
    for (const bad of ['ftp://a.example/card.json', 'not a url', 'https://user:secret@a.example/']) {
      const error = (() => {
        try {
          cardUrlsFor(bad);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).code).toBe('insecure-url');
      expect((error as Error).message).not.toContain('secret');
    }
  });
});

describe('fetchCard', () => {
  it('fetches a card and sends exactly the A2A headers', async () => {
    const s = await serve((_req, res) => json(res, 200, CARD));
    const got = await fetchCard(s.origin, { versionHeader: '1.0' });
    expect(got).toEqual({ url: `${s.origin}/.well-known/agent-card.json`, body: CARD, warnings: [] });
    expect(s.paths).toEqual(['/.well-known/agent-card.json']);
    const h = s.headers[0]!;
    expect(h['a2a-version']).toBe('1.0');
    expect(h.accept).toBe('application/json');
    expect(h['user-agent']).toMatch(/^a2a-lock\//);
    expect(h.authorization).toBeUndefined();
    expect(h.cookie).toBeUndefined();
  });

  it('uses a .json URL as-is and appends the well-known path to a base URL', async () => {
    const s = await serve((_req, res) => json(res, 200, CARD));
    const direct = await fetchCard(`${s.origin}/cards/echo.json`, OPTS);
    expect(direct.url).toBe(`${s.origin}/cards/echo.json`);
    const based = await fetchCard(`${s.origin}/agents/echo/`, OPTS);
    expect(based.url).toBe(`${s.origin}/agents/echo/.well-known/agent-card.json`);
    expect(s.paths).toEqual(['/cards/echo.json', '/agents/echo/.well-known/agent-card.json']);
  });

  it('falls back to the legacy agent.json on 404, with a warning', async () => {
    const s = await serve((req, res) =>
      req.url === '/.well-known/agent.json' ? json(res, 200, CARD) : json(res, 404, { error: 'nope' }),
    );
    const got = await fetchCard(s.origin, OPTS);
    expect(got.url).toBe(`${s.origin}/.well-known/agent.json`);
    expect(got.body).toEqual(CARD);
    expect(got.warnings).toHaveLength(1);
    expect(got.warnings[0]!.code).toBe('legacy-well-known-path');
    expect(s.paths).toEqual(['/.well-known/agent-card.json', '/.well-known/agent.json']);
    expect(s.headers[1]!['a2a-version']).toBe('1.0');
  });

  it('does not try the legacy path after a non-404 failure', async () => {
    const s = await serve((_req, res) => json(res, 500, {}));
    expect(await rejection(fetchCard(s.origin, { ...OPTS, retries: 0 }))).toMatchObject({
      code: 'unreachable',
      status: 500,
    });
    expect(s.paths).toEqual(['/.well-known/agent-card.json']);
  });

  it('404 on both paths is unreachable and names both URLs tried', async () => {
    const s = await serve((_req, res) => json(res, 404, {}));
    const error = await rejection(fetchCard(s.origin, OPTS));
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ code: 'unreachable', status: 404 });
    expect(error.message).toBe(
      `${s.origin}/.well-known/agent-card.json: not found (404); ${s.origin}/.well-known/agent.json: not found (404) either`,
    );
    expect((error as FetchError).data?.tried).toEqual([
      `${s.origin}/.well-known/agent-card.json`,
      `${s.origin}/.well-known/agent.json`,
    ]);
    expect(s.paths).toHaveLength(2);
  });

  it('versionRefusalOf: the JSON-RPC and google.rpc.ErrorInfo VersionNotSupported forms, nothing else', () => {
    expect(versionRefusalOf({ jsonrpc: '2.0', id: null, error: { code: -32009, message: 'no 1.1' } })).toBe(
      'VersionNotSupported (-32009): no 1.1',
    );
    expect(
      versionRefusalOf({
        error: {
          code: 400,
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'VERSION_NOT_SUPPORTED' }],
        },
      }),
    ).toBe('VERSION_NOT_SUPPORTED');
    expect(versionRefusalOf({ code: -32009, message: 'no 0.3' })).toBe('VersionNotSupported (-32009): no 0.3');
    expect(versionRefusalOf({ error: { code: -32600, message: 'bad' } })).toBeUndefined();
    expect(versionRefusalOf({ error: { code: 400, details: [{ reason: 'OTHER' }] } })).toBeUndefined();
    expect(versionRefusalOf({ name: 'a card', error: 'x' })).toBeUndefined();
    expect(versionRefusalOf(null)).toBeUndefined();
  });

  it('never caches: a re-fetch sees the card as served now despite max-age', async () => {
    let version = '1.0.0';
    const s = await serve((_req, res) => json(res, 200, { ...CARD, version }, { 'cache-control': 'max-age=3600' }));
    expect((await fetchCard(s.origin, OPTS)).body).toMatchObject({ version: '1.0.0' });
    version = '2.0.0';
    expect((await fetchCard(s.origin, OPTS)).body).toMatchObject({ version: '2.0.0' });
    expect(s.paths).toHaveLength(2);
  });

  it('401 and 403 are auth-refused', async () => {
    for (const status of [401, 403]) {
      const s = await serve((_req, res) => json(res, status, {}, { 'www-authenticate': 'Bearer secret-realm' }));
      const error = await rejection(fetchCard(`${s.origin}/card.json`, OPTS));
      expect(error).toBeInstanceOf(FetchError);
      expect(error).toMatchObject({ code: 'auth-refused', status });
      expect(error.message).not.toContain('secret-realm');
    }
  });

  it('500 is unreachable after the default 2 retries with backoff (250 ms, 500 ms)', async () => {
    const s = await serve((_req, res) => json(res, 500, { error: 'boom' }));
    const error = await rejection(fetchCard(`${s.origin}/card.json`, OPTS));
    expect(error).toMatchObject({ code: 'unreachable', status: 500 });
    expect(error.message).toBe(`${s.origin}/card.json: unexpected status 500 after 2 retries`);
    expect(s.paths).toHaveLength(3);
  });

  it('503 with Retry-After is asked again after that pause; retries: 0 asks once', async () => {
    let calls = 0;
    const s = await serve((_req, res) =>
      ++calls === 1 ? json(res, 503, {}, { 'retry-after': '0' }) : json(res, 200, CARD),
    );
    expect((await fetchCard(`${s.origin}/card.json`, OPTS)).body).toEqual(CARD);
    expect(s.paths).toHaveLength(2);
    calls = 0;
    expect(await rejection(fetchCard(`${s.origin}/card.json`, { ...OPTS, retries: 0 }))).toMatchObject({
      code: 'unreachable',
      status: 503,
    });
    expect(s.paths).toHaveLength(3);
  });

  it('a Retry-After that would end past the deadline is not waited for: the status error comes at once', async () => {
    const s = await serve((_req, res) => json(res, 503, {}, { 'retry-after': '3' }));
    const error = await rejection(fetchCard(`${s.origin}/card.json`, { ...OPTS, timeoutMs: 2000 }));
    // The status error, not a timeout: it did not sleep into the deadline.
    expect(error).toMatchObject({
      code: 'unreachable',
      status: 503,
      message: `${s.origin}/card.json: unexpected status 503`,
    });
    expect(s.paths).toHaveLength(1);
  });

  it('429 is retried; 400 and a POST answered 503 are not', async () => {
    const s = await serve((req, res) =>
      json(res, req.url === '/busy' ? 429 : req.url === '/bad' ? 400 : 503, {}, { 'retry-after': '0' }),
    );
    expect(await rejection(requestJson(`${s.origin}/busy`, { retries: 1 }))).toMatchObject({ status: 429 });
    expect(await rejection(requestJson(`${s.origin}/bad`, {}))).toMatchObject({ status: 400 });
    expect(await rejection(requestJson(`${s.origin}/rpc`, { method: 'POST', body: {} }))).toMatchObject({
      status: 503,
    });
    expect(s.paths).toEqual(['/busy', '/busy', '/bad', '/rpc']);
  });

  it('retryDelayMs: Retry-After in seconds or as an HTTP date, capped at 5 s; else 250 ms doubled', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryDelayMs('2', 0, now)).toBe(2000);
    expect(retryDelayMs('3600', 0, now)).toBe(5000);
    expect(retryDelayMs('Thu, 01 Jan 2026 00:00:03 GMT', 0, now)).toBe(3000);
    expect(retryDelayMs('Wed, 31 Dec 2025 00:00:00 GMT', 0, now)).toBe(0);
    expect([0, 1, 2].map((attempt) => retryDelayMs(undefined, attempt, now))).toEqual([250, 500, 1000]);
    expect(retryDelayMs('soon', 1, now)).toBe(500);
    expect(retryDelayMs('-1', 0, now)).toBe(250);
  });

  it('DNS failure (a .invalid host) is unreachable naming the URL', async () => {
    const error = await rejection(fetchCard('https://agent.invalid/', OPTS));
    expect(error).toMatchObject({ code: 'unreachable' });
    expect(error.message).toMatch(
      /^https:\/\/agent\.invalid\/\.well-known\/agent-card\.json: (host not found \(ENOTFOUND\)|DNS lookup failed \(EAI_AGAIN\))$/,
    );
  });

  it('HTTP_PROXY / HTTPS_PROXY send requests through a CONNECT proxy; NO_PROXY hosts and loopback go direct', async () => {
    const target = await serve((_req, res) => json(res, 200, CARD));
    // `agent.test` is a name only the proxy resolves (to the target): a host that is not loopback.
    const proxy = await startConnectProxy({ 'agent.test': '127.0.0.1' });
    const named = `http://agent.test:${new URL(target.origin).port}/card.json`;
    const saved = { ...process.env };
    try {
      for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'])
        delete process.env[name];
      process.env.HTTP_PROXY = proxy.origin;
      await closeDefaultDispatcher();
      expect((await fetchCard(named, { ...OPTS, allowHttp: true })).body).toEqual(CARD);
      expect(proxy.tunnels).toEqual([new URL(named).host]);
      // Loopback is never proxied, whatever NO_PROXY says (it is unset here); its failure names no proxy.
      expect((await fetchCard(`${target.origin}/card.json`, OPTS)).body).toEqual(CARD);
      expect(proxy.tunnels).toHaveLength(1);
      const refused = await fetchCard('http://127.0.0.1:9/card.json', OPTS).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'unreachable', hint: undefined });
      expect(proxy.tunnels).toHaveLength(1);
      // A NO_PROXY entry (curl's rule: a subdomain of `.test`) sends it direct: no tunnel, the name not found.
      process.env.NO_PROXY = 'localhost,.test';
      await closeDefaultDispatcher();
      await expect(fetchCard(named, { ...OPTS, allowHttp: true })).rejects.toMatchObject({
        code: 'unreachable',
        message: expect.stringMatching(/host not found|DNS lookup failed/),
      });
      expect(proxy.tunnels).toHaveLength(1);
      expect(target.paths).toHaveLength(2);
    } finally {
      process.env = saved;
      await closeDefaultDispatcher();
      proxy.server.closeAllConnections();
      proxy.server.close();
    }
  });

  it('a proxy that accepts and never answers: a timeout naming the proxy in its hint, and the pool closes at once', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => void sockets.push(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const saved = { ...process.env };
    try {
      for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'])
        delete process.env[name];
      process.env.HTTPS_PROXY = `http://user:hunter2@127.0.0.1:${(silent.address() as AddressInfo).port}`;
      await closeDefaultDispatcher();
      const error = await fetchCard('https://agent.example/card.json', { ...OPTS, timeoutMs: 300 }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'timeout', hint: expect.stringMatching(/a proxy is set \(HTTPS_PROXY\)/) });
      expect(JSON.stringify([String(error), (error as Error).stack, (error as { hint: string }).hint])).not.toContain(
        'hunter2',
      );
      // Before: a graceful close waited for the CONNECT the proxy never answered (5 minutes).
      await closeDefaultDispatcher();
    } finally {
      process.env = saved;
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('a proxy variable that is not an http(s) URL is a usage error naming it, without its value, for the requests it would carry only (loopback goes direct)', async () => {
    const saved = { ...process.env };
    const s = await serve((_req, res) => json(res, 200, CARD));
    try {
      for (const [name, value] of [
        ['HTTP_PROXY', 'not a url'],
        ['https_proxy', 'http://u:pw-secret@[::1'],
        ['HTTPS_PROXY', 'socks5://127.0.0.1:1080'],
      ]) {
        for (const n of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy']) delete process.env[n];
        process.env[name!] = value;
        await closeDefaultDispatcher();
        // An https host the variable's proxy would carry (https falls back to the http proxy): refused, nothing sent.
        const error = await fetchCard('https://agent.invalid/card.json', OPTS).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UsageError);
        expect((error as Error).message).toBe(`${name} is set but is not an http:// or https:// proxy URL`);
        // Loopback is never proxied: the variable is not its concern (conformance/vectors/proxy.json).
        await expect(fetchCard(`${s.origin}/card.json`, OPTS)).resolves.toMatchObject({ body: CARD });
      }
    } finally {
      process.env = saved;
      await closeDefaultDispatcher();
    }
  });

  it('follows a chain of 5 redirects and refuses the 6th', async () => {
    // /hop/N redirects to /hop/N-1; /hop/0 serves the card.
    const s = await serve((req, res) => {
      const n = Number(req.url!.split('/')[2]);
      if (n === 0) json(res, 200, CARD);
      else redirect(res, [301, 302, 303, 307, 308][n % 5]!, `/hop/${n - 1}/card.json`);
    });
    const ok = await fetchCard(`${s.origin}/hop/5/card.json`, OPTS);
    expect(ok.url).toBe(`${s.origin}/hop/0/card.json`);
    expect(s.paths).toHaveLength(6);
    const error = await rejection(fetchCard(`${s.origin}/hop/6/card.json`, OPTS));
    expect(error).toMatchObject({ code: 'unreachable' });
    expect(error.message).toContain('too many redirects');
    expect(s.paths).toHaveLength(12); // 6 more requests, none for /hop/0
  });

  it('catches a redirect loop', async () => {
    const s = await serve((req, res) => redirect(res, 302, req.url === '/a.json' ? '/b.json' : '/a.json'));
    const error = await rejection(fetchCard(`${s.origin}/a.json`, OPTS));
    expect(error).toMatchObject({ code: 'unreachable' });
    expect(error.message).toContain('too many redirects');
  });

  it('resolves a relative Location against the current URL', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/agents/echo/.well-known/agent-card.json') redirect(res, 307, '../v2/card.json');
      else if (req.url === '/agents/echo/v2/card.json') json(res, 200, CARD);
      else json(res, 404, {});
    });
    const got = await fetchCard(`${s.origin}/agents/echo`, OPTS);
    expect(got.url).toBe(`${s.origin}/agents/echo/v2/card.json`);
    expect(got.warnings).toEqual([]);
  });

  it('refuses a redirect from https to http, without echoing the Location', async () => {
    const plain = await serve((_req, res) => json(res, 200, CARD));
    const tls = await serveHttps((_req, res) => redirect(res, 302, `${plain.origin}/card.json?token=hunter2`));
    const dispatcher = new Agent({ connect: { ca: TEST_CERT } });
    extraDispatchers.push(dispatcher);
    const error = await rejection(fetchCard(`${tls.origin}/card.json`, { ...OPTS, dispatcher, allowHttp: true }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: 'insecure-url' });
    expect(error.message).not.toContain('hunter2');
    expect(plain.paths).toEqual([]);
    // The same server over TLS serves a card fine when it does not redirect down.
    const tlsOk = await serveHttps((_req, res) => json(res, 200, CARD));
    expect((await fetchCard(`${tlsOk.origin}/card.json`, { ...OPTS, dispatcher })).body).toEqual(CARD);
  });

  it('a TLS certificate error is unreachable with its code', async () => {
    const tls = await serveHttps((_req, res) => json(res, 200, CARD));
    const error = await rejection(fetchCard(`${tls.origin}/card.json`, OPTS));
    expect(error).toMatchObject({ code: 'unreachable' });
    expect(error.message).toMatch(/TLS error \([A-Z_]+\)/);
  });

  it('connection refused is unreachable with ECONNREFUSED', async () => {
    const s = await serve(() => undefined);
    const port = (s.server.address() as AddressInfo).port;
    s.server.close();
    await once(s.server, 'close');
    const error = await rejection(fetchCard(`http://127.0.0.1:${port}/card.json`, OPTS));
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ code: 'unreachable' });
    expect(error.message).toBe(`http://127.0.0.1:${port}/card.json: connection refused (ECONNREFUSED)`);
  });

  it('a connection closed mid-body is unreachable with the cause code', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"name": "ec');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const error = await rejection(fetchCard(`${s.origin}/card.json`, OPTS));
    expect(error).toMatchObject({ code: 'unreachable' });
    expect(error.message).toMatch(/\((ECONNRESET|UND_ERR_SOCKET|UND_ERR_RES_CONTENT_LENGTH_MISMATCH)\)$/);
  });

  it('a TCP reset mid-body is unreachable with ECONNRESET', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"name": "ec');
      setTimeout(() => res.socket?.resetAndDestroy(), 20);
    });
    const error = await rejection(fetchCard(`${s.origin}/card.json`, OPTS));
    expect(error).toMatchObject({ code: 'unreachable' });
    expect(error.message).toBe(`${s.origin}/card.json: connection reset (ECONNRESET)`);
  });

  it('slow headers past the deadline time out', async () => {
    const s = await serve(() => undefined); // never answers
    const started = Date.now();
    const error = await rejection(fetchCard(`${s.origin}/card.json`, { ...OPTS, timeoutMs: 300 }));
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ code: 'timeout' });
    expect(error.message).toBe(`${s.origin}/card.json: no card within 300 ms`);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('a trickling body past the deadline times out', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"name":"');
      const tick = setInterval(() => res.write('e'), 40);
      res.on('close', () => clearInterval(tick));
    });
    const error = await rejection(fetchCard(`${s.origin}/card.json`, { ...OPTS, timeoutMs: 300 }));
    expect(error).toMatchObject({ code: 'timeout' });
    expect(error.message).toContain('no card within 300 ms');
  });

  it('stops reading a body over maxBytes and closes the connection', async () => {
    let written = 0;
    let serverSawClose!: () => void;
    const closed = new Promise<void>((resolve) => (serverSawClose = resolve));
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no content-length to pre-check
      const tick = setInterval(() => {
        written += 2000;
        res.write(' '.repeat(2000));
      }, 5);
      res.on('close', () => {
        clearInterval(tick);
        serverSawClose();
      });
    });
    const error = await rejection(fetchCard(`${s.origin}/card.json`, { ...OPTS, maxBytes: 1000 }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: 'card-invalid' });
    expect(error.message).toBe(`${s.origin}/card.json: card larger than 1000 bytes`);
    await closed; // the server sees the connection go away (the test would time out otherwise)
    expect(written).toBeLessThan(200_000);
  });

  it('rejects a declared Content-Length over maxBytes without reading', async () => {
    const big = JSON.stringify({ ...CARD, pad: 'x'.repeat(5000) });
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) });
      res.end(big);
    });
    expect(await rejection(fetchCard(`${s.origin}/card.json`, { ...OPTS, maxBytes: 1000 }))).toMatchObject({
      code: 'card-invalid',
    });
  });

  it('text/html is card-invalid; +json types and a missing type are accepted', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/html.json') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<html></html>');
      } else if (req.url === '/plus.json') {
        res.writeHead(200, { 'content-type': 'application/a2a+json; charset=utf-8' });
        res.end(JSON.stringify(CARD));
      } else {
        res.writeHead(200);
        res.end(JSON.stringify(CARD));
      }
    });
    const error = await rejection(fetchCard(`${s.origin}/html.json`, OPTS));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: 'card-invalid' });
    expect(error.message).toBe(`${s.origin}/html.json: served text/html, not JSON`);
    expect((await fetchCard(`${s.origin}/plus.json`, OPTS)).body).toEqual(CARD);
    expect((await fetchCard(`${s.origin}/none.json`, OPTS)).body).toEqual(CARD);
  });

  it('invalid JSON, an empty body and a JSON array are card-invalid', async () => {
    const s = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end({ '/bad.json': '{"name": ', '/empty.json': '', '/array.json': '[1,2]' }[req.url!] ?? 'null');
    });
    const bad = await rejection(fetchCard(`${s.origin}/bad.json`, OPTS));
    expect(bad).toMatchObject({ code: 'card-invalid' });
    expect(bad.message).toMatch(/invalid JSON/);
    expect(bad.message).not.toContain('\n');
    const empty = await rejection(fetchCard(`${s.origin}/empty.json`, OPTS));
    expect(empty).toMatchObject({ code: 'card-invalid' });
    expect(empty.message).toMatch(/empty body/);
    const array = await rejection(fetchCard(`${s.origin}/array.json`, OPTS));
    expect(array.message).toBe(`${s.origin}/array.json: card is not a JSON object`);
    const nul = await rejection(fetchCard(`${s.origin}/null.json`, OPTS));
    expect(nul.message).toContain('card is not a JSON object');
  });

  it('refuses plain http to a non-loopback host before connecting, unless allowHttp', async () => {
    expect(cardUrlsFor('http://example.invalid')[0]).toBe('http://example.invalid/.well-known/agent-card.json');
    const { dispatcher, attempts } = recordingDispatcher();
    const error = await rejection(fetchCard('http://example.invalid', { ...OPTS, dispatcher }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: 'insecure-url' });
    expect(attempts()).toBe(0);
    // With allowHttp the policy passes and a connection is attempted (the test connector refuses it).
    const allowed = await rejection(
      fetchCard('http://example.invalid/card.json', { ...OPTS, dispatcher, allowHttp: true }),
    );
    expect(allowed).toMatchObject({ code: 'unreachable' });
    expect(attempts()).toBe(1);
    // Loopback is always allowed.
    for (const host of ['localhost', '127.1.2.3', '[::1]']) {
      await rejection(fetchCard(`http://${host}:9/card.json`, { ...OPTS, dispatcher }));
    }
    expect(attempts()).toBe(4);
  });

  it('the shared dispatcher keeps as many connections to one origin as the caller has requests in flight, and reuses them', async () => {
    // Each answer waits until `limit` requests are pending (or 2 s pass), so a per-origin cap below
    // the caller's concurrency shows as fewer requests in flight, and no cap as more sockets.
    const limit = 12;
    let gate = limit;
    let inFlight = 0;
    let maxInFlight = 0;
    let waiting: Array<() => void> = [];
    const s = await serve((_req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const answer = () => {
        inFlight--;
        json(res, 200, CARD);
      };
      waiting.push(answer);
      const release = () => {
        const batch = waiting;
        waiting = [];
        batch.forEach((fn) => fn());
      };
      if (waiting.length >= gate) release();
      else setTimeout(() => waiting.includes(answer) && release(), 2_000);
    });
    const n = 2 * limit;
    const results = await mapSettled(Array.from({ length: n }), limit, () =>
      fetchCard(`${s.origin}/card.json`, { ...OPTS, concurrency: limit }),
    );
    expect(
      results.every((r) => r.status === 'fulfilled' && JSON.stringify(r.value.body) === JSON.stringify(CARD)),
    ).toBe(true);
    expect(maxInFlight).toBe(limit);
    expect(s.connections()).toBe(limit);
    // Then a sequential batch on the warm pool: no new connection.
    gate = 1;
    for (let i = 0; i < 4; i++) await fetchCard(`${s.origin}/card.json`, { ...OPTS, concurrency: limit });
    expect(s.paths).toHaveLength(n + 4);
    expect(s.connections()).toBe(limit);
    expect(getDefaultDispatcher(limit)).toBe(getDefaultDispatcher(limit));
    expect(getDefaultDispatcher()).toBe(getDefaultDispatcher(DEFAULT_CONNECTIONS));
  });
});

describe('fetchCard and the connection pool', () => {
  it("resolves only once its connection is free again: a request made right then leaves at once instead of queueing behind the caller's CPU work", async () => {
    // undici returns a kept-alive socket to its pool one event-loop turn after the response. Were
    // fetchCard to resolve before that turn, a verify slot would check its card (CPU) and queue its
    // next request behind the whole batch of cards read in the same turn (docs/explanation/performance.md).
    const s = await serve((_req, res) => json(res, 200, CARD));
    const dispatcher = new Agent({ connections: 2 });
    extraDispatchers.push(dispatcher);
    const { body } = await fetchCard(`${s.origin}/a.json`, { ...OPTS, dispatcher });
    expect(body).toEqual(CARD);
    expect(dispatcher.stats[s.origin]).toMatchObject({ connected: 1, free: 1, pending: 0, queued: 0, running: 0 });
    // And the next request goes out on that same socket.
    await fetchCard(`${s.origin}/b.json`, { ...OPTS, dispatcher });
    expect(s.connections()).toBe(1);
  });

  it('a proxy that refuses the tunnel (407) is named as such, with the proxy hint', async () => {
    const proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (_req, socket: Socket) =>
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n'),
    );
    servers.push(proxy);
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const saved = process.env.HTTPS_PROXY;
    process.env.HTTPS_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      await closeDefaultDispatcher(); // the shared dispatcher reads the proxy variables when made
      const error = await fetchCard('https://agent.example/card.json', { ...OPTS, concurrency: 3 }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(FetchError);
      expect((error as FetchError).message).toMatch(/the proxy refused the tunnel \(HTTP 407\)/);
      expect((error as FetchError).hint).toMatch(/the proxy wants credentials: give them in the proxy URL/);
    } finally {
      if (saved === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = saved;
      await closeDefaultDispatcher();
    }
  });

  it('a body that is not JSON is named without quoting it (a server may echo a credential there)', async () => {
    const s = await serve((_req, res) => {
      const body = '{"x": tok-SECRET-9f}';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
    const error = await fetchCard(`${s.origin}/card.json`, OPTS).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/invalid JSON \(Unexpected token/);
    expect((error as Error).message).not.toContain('SECRET');
  });

  it('running out of file descriptors (EMFILE) says so, with what to do', async () => {
    const failing = {
      dispatch: () => {
        throw Object.assign(new Error('open failed'), { code: 'EMFILE' });
      },
    } as unknown as Agent;
    const error = await fetchCard('http://127.0.0.1:9/card.json', { ...OPTS, dispatcher: failing }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).message).toMatch(/too many open files \(EMFILE\)/);
    expect((error as FetchError).hint).toMatch(/lower --concurrency.*ulimit -n/);
  });

  it('works through any dispatcher that only implements dispatch() (one from another copy of undici, a wrapper)', async () => {
    const s = await serve((_req, res) => json(res, 200, CARD));
    const inner = new Agent();
    extraDispatchers.push(inner);
    let dispatched = 0;
    const wrapper = {
      dispatch: (opts: Parameters<Agent['dispatch']>[0], handler: Parameters<Agent['dispatch']>[1]) => {
        dispatched++;
        return inner.dispatch(opts, handler);
      },
    } as unknown as Agent;
    const { body } = await fetchCard(`${s.origin}/a.json?x=1`, { ...OPTS, dispatcher: wrapper });
    expect(body).toEqual(CARD);
    expect(dispatched).toBe(1);
    expect(s.paths).toEqual(['/a.json?x=1']);
  });
});

describe('requestJson', () => {
  /** Collects each request's method, URL, headers and body. */
  async function echoServer(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
    const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
    const s = await serve((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        handler(req, body, res);
      });
    });
    return { ...s, seen };
  }

  it('POSTs a JSON body to the exact URL with merged headers; A2A-Version only when given', async () => {
    const s = await echoServer((_req, _body, res) => json(res, 200, { ok: true }));
    const got = await requestJson(`${s.origin}/rpc?x=1`, {
      method: 'POST',
      body: { jsonrpc: '2.0', id: 1, method: 'M' },
      versionHeader: '1.0',
      headers: { accept: 'application/a2a+json', 'X-Key': 'k' },
    });
    expect(got).toEqual({ url: `${s.origin}/rpc?x=1`, status: 200, body: { ok: true } });
    const [req] = s.seen;
    expect(req).toMatchObject({ method: 'POST', url: '/rpc?x=1', body: '{"jsonrpc":"2.0","id":1,"method":"M"}' });
    expect(req!.headers).toMatchObject({
      'a2a-version': '1.0',
      accept: 'application/a2a+json',
      'x-key': 'k',
      'content-type': 'application/json',
    });
    expect(req!.headers['user-agent']).toMatch(/^a2a-lock\//);

    await requestJson(`${s.origin}/get`, {});
    expect(s.seen[1]).toMatchObject({ method: 'GET', url: '/get', body: '' });
    expect(s.seen[1]!.headers['a2a-version']).toBeUndefined();
    expect(s.seen[1]!.headers['content-type']).toBeUndefined();
  });

  it('returns accepted error statuses with their JSON body; a non-JSON body falls back to the status error', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/json') return json(res, 400, { error: { code: 400 } });
      res.writeHead(400, { 'content-type': 'text/html' });
      res.end('<h1>bad</h1>');
    });
    expect(await requestJson(`${s.origin}/json`, { acceptErrorStatus: [400] })).toEqual({
      url: `${s.origin}/json`,
      status: 400,
      body: { error: { code: 400 } },
    });
    expect(await rejection(requestJson(`${s.origin}/html`, { acceptErrorStatus: [400] }))).toMatchObject({
      code: 'unreachable',
      status: 400,
      message: `${s.origin}/html: unexpected status 400`,
    });
    expect(await rejection(requestJson(`${s.origin}/json`, {}))).toMatchObject({ code: 'unreachable', status: 400 });
  });

  it('followRedirects: false refuses any redirect without contacting the target', async () => {
    const target = await serve((_req, res) => json(res, 200, CARD));
    const s = await serve((_req, res) => redirect(res, 302, `${target.origin}/x`));
    const error = await rejection(
      requestJson(`${s.origin}/a`, { followRedirects: false, headers: { Authorization: 'Bearer t0ken' } }),
    );
    expect(error).toMatchObject({
      code: 'unreachable',
      status: 302,
      message: `${s.origin}/a: redirect (302) refused: credentials are never sent across a redirect`,
    });
    expect(target.paths).toEqual([]);
  });

  it('when following, 303 turns a POST into a body-less GET and 307 keeps the POST and its body', async () => {
    const s = await echoServer((req, _body, res) => {
      if (req.url === '/303') return redirect(res, 303, '/after');
      if (req.url === '/307') return redirect(res, 307, '/after');
      json(res, 200, { at: req.url });
    });
    expect((await requestJson(`${s.origin}/303`, { method: 'POST', body: { a: 1 } })).url).toBe(`${s.origin}/after`);
    expect(s.seen[1]).toMatchObject({ method: 'GET', url: '/after', body: '' });
    await requestJson(`${s.origin}/307`, { method: 'POST', body: { a: 1 } });
    expect(s.seen[3]).toMatchObject({ method: 'POST', url: '/after', body: '{"a":1}' });
  });

  it('redactQueryParams hides secret query values in errors and in the returned url', async () => {
    const s = await serve((req, res) => (req.url!.startsWith('/ok') ? json(res, 200, {}) : json(res, 500, {})));
    expect((await requestJson(`${s.origin}/ok?key=SeCrEt&x=1`, { redactQueryParams: ['key'] })).url).toBe(
      `${s.origin}/ok?key=***&x=1`,
    );
    const error = await rejection(
      requestJson(`${s.origin}/fail?key=SeCrEt`, { redactQueryParams: ['key'], retries: 0 }),
    );
    expect(error.message).toBe(`${s.origin}/fail?key=***: unexpected status 500`);
    const bad = await rejection(requestJson('nonsense?key=SeCrEt', { redactQueryParams: ['key'] }));
    expect(bad).toMatchObject({ code: 'insecure-url' });
    expect(bad.message).not.toContain('SeCrEt');
  });

  it('bad caller input is a UsageError that never shows a header value', async () => {
    const e1 = await rejection(
      requestJson('http://127.0.0.1:9/x', { headers: { Authorization: 'Bearer abc\r\nX-Evil: 1' } }),
    );
    expect(e1).toBeInstanceOf(UsageError);
    expect(e1.message).toBe('the value of the Authorization header contains a line break or control character');
    // Beyond Latin-1 (not an RFC 9110 field-value): refused before anything is sent, not a network error.
    for (const value of ['Bearer ab\u20accd', 'Bearer ab\u2028cd']) {
      const e2 = await rejection(requestJson('http://127.0.0.1:9/x', { headers: { Authorization: value } }));
      expect(e2).toBeInstanceOf(UsageError);
      expect(e2.message).toBe(
        'the value of the Authorization header contains a character a header cannot carry (beyond Latin-1; RFC 9110 field-value)',
      );
    }
    expect(await rejection(requestJson('http://127.0.0.1:9/x', { headers: { 'Bad Name': 'v' } }))).toBeInstanceOf(
      UsageError,
    );
    expect(await rejection(requestJson('http://127.0.0.1:9/x', { headers: { Host: 'evil' } }))).toBeInstanceOf(
      UsageError,
    );
    expect(await rejection(requestJson('http://127.0.0.1:9/x', { body: { a: 1 } }))).toBeInstanceOf(UsageError);
  });

  it('keeps the card rules: URL policy before connecting, deadline, body limit, JSON object', async () => {
    const { dispatcher, attempts } = recordingDispatcher();
    expect(
      await rejection(requestJson('http://example.invalid/rpc', { method: 'POST', body: {}, dispatcher })),
    ).toMatchObject({ code: 'insecure-url' });
    expect(attempts()).toBe(0);
    const s = await serve((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => json(res, 200, {}), 1000);
      if (req.url === '/big') return json(res, 200, { pad: 'x'.repeat(2000) });
      json(res, 200, [1]);
    });
    expect(await rejection(requestJson(`${s.origin}/slow`, { timeoutMs: 150 }))).toMatchObject({
      code: 'timeout',
      message: `${s.origin}/slow: no response within 150 ms`,
    });
    expect(await rejection(requestJson(`${s.origin}/big`, { maxBytes: 1000, subject: 'extended card' }))).toMatchObject(
      {
        code: 'card-invalid',
        message: `${s.origin}/big: extended card larger than 1000 bytes`,
      },
    );
    expect(await rejection(requestJson(`${s.origin}/array`, {}))).toMatchObject({
      code: 'card-invalid',
      message: `${s.origin}/array: response is not a JSON object`,
    });
  });
});
