import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, MockAgent } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type CredentialPlacement, placeCredential } from '../../src/credentials.js';
import { FetchError, InvalidInputError } from '../../src/errors.js';
import { closeDefaultDispatcher } from '../../src/http/dispatcher.js';
import { type ExtendedCardRequest, type ExtendedCardResult, fetchExtendedCard } from '../../src/http/extended-card.js';
import {
  type AgentCard,
  type StartAgentOptions,
  type StartedAgent,
  sampleCard,
  startAgent,
} from '../helpers/agents.js';

const TOKEN = 'tok-3xtended-Secret-42';
const bearer = (token: string): CredentialPlacement[] => [placeCredential({ type: 'http', scheme: 'Bearer' }, token)];
const SECRET_SKILL = {
  id: 'deep-dive',
  name: 'Deep dive',
  description: 'Long-form research for paying customers.',
  tags: ['research'],
};

/** Public card that advertises the extended card; `v03Rest` adds an HTTP+JSON 0.3 interface (for GET /v1/card). */
function publicCard(origin: string, opts: { legacy?: boolean; v03Rest?: boolean; extended?: boolean } = {}): AgentCard {
  const card = sampleCard(origin, {}, { legacy: opts.legacy ?? false });
  card.capabilities = { ...card.capabilities, extendedAgentCard: opts.extended ?? true };
  if (opts.v03Rest)
    card.supportedInterfaces.push({ url: `${origin}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' });
  return card;
}
function extendedCard(origin: string, opts: { legacy?: boolean; v03Rest?: boolean } = {}): AgentCard {
  const card = publicCard(origin, opts);
  return { ...card, description: 'Extended: includes the paid skills.', skills: [...card.skills, SECRET_SKILL] };
}

const started: StartedAgent[] = [];
const servers: Server[] = [];
const dispatchers: Array<Agent | MockAgent> = [];
async function agent(opts: StartAgentOptions): Promise<StartedAgent> {
  const a = await startAgent(opts);
  started.push(a);
  return a;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((a) => a.close()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});
afterAll(async () => {
  await closeDefaultDispatcher();
  await Promise.all(dispatchers.splice(0).map((d) => d.close()));
});

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

function expectCard(result: ExtendedCardResult): Record<string, unknown> {
  if (result.card === undefined) throw new Error(`expected a card, got warning: ${result.warning.message}`);
  return result.card;
}
function expectWarning(result: ExtendedCardResult): string {
  if (result.card !== undefined) throw new Error('expected a no-extended-card warning, got a card');
  expect(result.warning.code).toBe('no-extended-card');
  return result.warning.message;
}
const skillIds = (card: Record<string, unknown>): string[] => (card.skills as Array<{ id: string }>).map((s) => s.id);

/** A plain node:http server for HTTP-layer faults only. */
async function faultServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ origin: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}
function sendJson(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

describe('fetchExtendedCard against a real @a2a-js/sdk 1.3.0 server', () => {
  it('JSON-RPC 1.0: GetExtendedAgentCard with the bearer token returns the extended card', async () => {
    const a = await agent({ card: (o) => publicCard(o), extendedCard: (o) => extendedCard(o), bearerToken: TOKEN });
    const result = await fetchExtendedCard({
      url: a.jsonRpcUrl,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      credentials: bearer(TOKEN),
    });
    const card = expectCard(result);
    expect(result).toMatchObject({ url: a.jsonRpcUrl });
    expect(skillIds(card)).toEqual(['market-size', 'deep-dive']);
    expect(card).toMatchObject({
      name: 'Market Research Agent',
      description: 'Extended: includes the paid skills.',
      capabilities: { extendedAgentCard: true },
    });
    // The SDK re-serialises the extended card with AgentCard.toJSON (ProtoJSON): empty scope lists are omitted.
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);

    expect(a.requests).toHaveLength(1);
    const [req] = a.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/a2a/jsonrpc' });
    expect(req!.headers).toMatchObject({
      'a2a-version': '1.0',
      accept: 'application/json',
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
    });
  });

  it('HTTP+JSON 1.0: GET /extendedAgentCard (and /{tenant}/extendedAgentCard) with the bearer token', async () => {
    const a = await agent({ card: (o) => publicCard(o), extendedCard: (o) => extendedCard(o), bearerToken: TOKEN });
    const plain = await fetchExtendedCard({
      url: `${a.restUrl}/`,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
      credentials: bearer(TOKEN),
    });
    expect(plain).toMatchObject({ url: `${a.restUrl}/extendedAgentCard` });
    expect(skillIds(expectCard(plain))).toEqual(['market-size', 'deep-dive']);

    const tenant = await fetchExtendedCard({
      url: a.restUrl,
      protocolBinding: 'http+json',
      protocolVersion: '1.0',
      tenant: 'acme eu',
      credentials: bearer(TOKEN),
    });
    expect(tenant).toMatchObject({ url: `${a.restUrl}/acme%20eu/extendedAgentCard` });
    expect(skillIds(expectCard(tenant))).toContain('deep-dive');

    expect(a.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /a2a/rest/extendedAgentCard',
      'GET /a2a/rest/acme%20eu/extendedAgentCard',
    ]);
    expect(a.requests[0]!.headers).toMatchObject({
      'a2a-version': '1.0',
      accept: 'application/json',
      authorization: `Bearer ${TOKEN}`,
    });
    expect(a.requests[0]!.headers['content-type']).toBeUndefined();
  });

  it('a wrong token or no credential is auth-refused (401), and the token never appears in the error', async () => {
    const a = await agent({ card: (o) => publicCard(o), extendedCard: (o) => extendedCard(o), bearerToken: TOKEN });
    const wrong = `${TOKEN}-wrong`;
    for (const [binding, url] of [
      ['JSONRPC', a.jsonRpcUrl],
      ['HTTP+JSON', a.restUrl],
    ] as const) {
      for (const credentials of [bearer(wrong), []]) {
        const error = await rejection(
          fetchExtendedCard({ url, protocolBinding: binding, protocolVersion: '1.0', credentials }),
        );
        expect(error).toBeInstanceOf(FetchError);
        expect(error).toMatchObject({ code: 'auth-refused', status: 401 });
        expect(error.message).toMatch(
          /^http:\/\/127\.0\.0\.1:\d+\/a2a\/(jsonrpc|rest\/extendedAgentCard): authentication refused \(401\)$/,
        );
        expect(JSON.stringify((error as FetchError).toJSON())).not.toContain(TOKEN);
      }
    }
  });

  it('no extended card configured (-32007 / EXTENDED_AGENT_CARD_NOT_CONFIGURED) is a no-extended-card warning', async () => {
    const a = await agent({ card: (o) => publicCard(o), bearerToken: TOKEN });
    const rpc = expectWarning(
      await fetchExtendedCard({
        url: a.jsonRpcUrl,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
        credentials: bearer(TOKEN),
      }),
    );
    expect(rpc).toBe(
      `${a.jsonRpcUrl}: the agent has no extended card (GetExtendedAgentCard answered -32007 ExtendedAgentCardNotConfigured: Extended Agent Card not configured)`,
    );
    const rest = expectWarning(
      await fetchExtendedCard({
        url: a.restUrl,
        protocolBinding: 'HTTP+JSON',
        protocolVersion: '1.0',
        credentials: bearer(TOKEN),
      }),
    );
    expect(rest).toBe(
      `${a.restUrl}/extendedAgentCard: the agent has no extended card (HTTP 400 EXTENDED_AGENT_CARD_NOT_CONFIGURED ExtendedAgentCardNotConfigured: Extended Agent Card not configured)`,
    );

    // setExtendedCard configures it on the running agent; the next request sees it.
    a.setExtendedCard(extendedCard(a.origin));
    expect(
      skillIds(
        expectCard(
          await fetchExtendedCard({
            url: a.restUrl,
            protocolBinding: 'HTTP+JSON',
            protocolVersion: '1.0',
            credentials: bearer(TOKEN),
          }),
        ),
      ),
    ).toContain('deep-dive');
  });

  it('a card without capabilities.extendedAgentCard gets UnsupportedOperation (-32004 / UNSUPPORTED_OPERATION): warning', async () => {
    const a = await agent({
      card: (o) => publicCard(o, { extended: false }),
      extendedCard: (o) => extendedCard(o),
      bearerToken: TOKEN,
    });
    expect(
      expectWarning(
        await fetchExtendedCard({
          url: a.jsonRpcUrl,
          protocolBinding: 'JSONRPC',
          protocolVersion: '1.0',
          credentials: bearer(TOKEN),
        }),
      ),
    ).toContain('-32004 UnsupportedOperation');
    expect(
      expectWarning(
        await fetchExtendedCard({
          url: a.restUrl,
          protocolBinding: 'HTTP+JSON',
          protocolVersion: '1.0',
          credentials: bearer(TOKEN),
        }),
      ),
    ).toContain('HTTP 400 UNSUPPORTED_OPERATION UnsupportedOperation');
  });

  it('0.3 JSON-RPC (legacyCompat): agent/getAuthenticatedExtendedCard returns the extended card in 0.3 JSON form', async () => {
    const a = await agent({
      card: (o) => publicCard(o, { legacy: true }),
      extendedCard: (o) => extendedCard(o, { legacy: true }),
      bearerToken: TOKEN,
      legacyCompat: true,
    });
    const card = expectCard(
      await fetchExtendedCard({
        url: a.jsonRpcUrl,
        protocolBinding: 'JSONRPC',
        protocolVersion: '0.3',
        credentials: bearer(TOKEN),
      }),
    );
    expect(skillIds(card)).toEqual(['market-size', 'deep-dive']);
    // The SDK's toCompatAgentCard: `type` discriminators, plain-map security, the 0.3 capability flag, no supportedInterfaces.
    expect(card).toMatchObject({
      protocolVersion: '0.3',
      url: a.jsonRpcUrl,
      preferredTransport: 'JSONRPC',
      supportsAuthenticatedExtendedCard: true,
      securitySchemes: { bearer: { type: 'http', scheme: 'Bearer' } },
      security: [{ bearer: [] }],
    });
    expect(card).not.toHaveProperty('supportedInterfaces');
    expect(a.requests[0]!.headers).toMatchObject({ 'a2a-version': '0.3', authorization: `Bearer ${TOKEN}` });

    a.setExtendedCard(undefined);
    expect(
      expectWarning(
        await fetchExtendedCard({
          url: a.jsonRpcUrl,
          protocolBinding: 'JSONRPC',
          protocolVersion: '0.3',
          credentials: bearer(TOKEN),
        }),
      ),
    ).toContain('agent/getAuthenticatedExtendedCard answered -32007 ExtendedAgentCardNotConfigured');
  });

  it('0.3 HTTP+JSON (legacyCompat): GET /v1/card returns the extended card in the 0.3 proto-JSON form', async () => {
    const a = await agent({
      card: (o) => publicCard(o, { legacy: true, v03Rest: true }),
      extendedCard: (o) => extendedCard(o, { legacy: true, v03Rest: true }),
      bearerToken: TOKEN,
      legacyCompat: true,
    });
    const result = await fetchExtendedCard({
      url: a.restUrl,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '0.3',
      credentials: bearer(TOKEN),
    });
    expect(result).toMatchObject({ url: `${a.restUrl}/v1/card` });
    const card = expectCard(result);
    expect(skillIds(card)).toEqual(['market-size', 'deep-dive']);
    // SDK 1.3.0 encodes /v1/card with the 0.3 gRPC proto's JSON (wrapper keys), not the 0.3 JSON-RPC form.
    expect(card).toMatchObject({
      protocolVersion: '0.3',
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      security: [{ schemes: { bearer: {} } }],
    });

    a.setExtendedCard(undefined);
    // The legacy REST error body is a JSON-RPC-style `{code, message}` at the top level, HTTP 400.
    expect(
      expectWarning(
        await fetchExtendedCard({
          url: a.restUrl,
          protocolBinding: 'HTTP+JSON',
          protocolVersion: '0.3',
          credentials: bearer(TOKEN),
        }),
      ),
    ).toContain('HTTP 400 -32007 ExtendedAgentCardNotConfigured');
  });

  it('a 0.3 JSON-RPC plan against a server without legacyCompat: the 1.0 handler answers -32602 InvalidParams (an error)', async () => {
    // The card declares JSONRPC 0.3, so the SDK's version check passes; without legacyCompat the 1.0
    // handler gets the 0.3 request, which (like the SDK's own 0.3 client) has no `params`, and it
    // validates params before looking at the method name: -32602, not -32601.
    const a = await agent({
      card: (o) => publicCard(o, { legacy: true }),
      extendedCard: (o) => extendedCard(o, { legacy: true }),
      bearerToken: TOKEN,
    });
    const error = await rejection(
      fetchExtendedCard({
        url: a.jsonRpcUrl,
        protocolBinding: 'JSONRPC',
        protocolVersion: '0.3',
        credentials: bearer(TOKEN),
      }),
    );
    expect(error).toMatchObject({ code: 'unreachable' });
    expect(error.message).toBe(
      `${a.jsonRpcUrl}: agent/getAuthenticatedExtendedCard failed: JSON-RPC error -32602 InvalidParams: Invalid method parameters.`,
    );
  });

  it('another JSON-RPC error (VersionNotSupported -32009) is unreachable, naming the code', async () => {
    const a = await agent({ card: (o) => publicCard(o), extendedCard: (o) => extendedCard(o), bearerToken: TOKEN });
    const error = await rejection(
      fetchExtendedCard({
        url: a.jsonRpcUrl,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.1',
        credentials: bearer(TOKEN),
      }),
    );
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ code: 'unreachable' });
    expect(error.message).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/a2a\/jsonrpc: GetExtendedAgentCard failed: JSON-RPC error -32009 VersionNotSupported: The requested A2A protocol version '1\.1' is not supported/,
    );
  });

  it('harness/SDK: without bearerToken every user is unauthenticated and the SDK answers with the PUBLIC card', async () => {
    const a = await agent({ card: (o) => publicCard(o), extendedCard: (o) => extendedCard(o) });
    const card = expectCard(
      await fetchExtendedCard({
        url: a.jsonRpcUrl,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
        credentials: [],
      }),
    );
    expect(skillIds(card)).toEqual(['market-size']);
  });
});

describe('fetchExtendedCard without the network', () => {
  /** An undici Agent that counts connection attempts and never connects. */
  function countingDispatcher(): { dispatcher: Agent; attempts: () => number } {
    let attempts = 0;
    const dispatcher = new Agent({
      connect: (_options, callback) => {
        attempts++;
        callback(Object.assign(new Error('refused by test'), { code: 'ECONNREFUSED' }), null);
      },
    });
    dispatchers.push(dispatcher);
    return { dispatcher, attempts: () => attempts };
  }

  it('GRPC, a custom binding, or an unsupported version → warning, nothing contacted', async () => {
    const { dispatcher, attempts } = countingDispatcher();
    const base = { credentials: bearer(TOKEN), dispatcher };
    const grpc = expectWarning(
      await fetchExtendedCard({ ...base, url: 'agent.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0' }),
    );
    expect(grpc).toBe(
      'the extended card is not fetched over the GRPC binding (only JSONRPC and HTTP+JSON); agent.example:443 was not contacted',
    );
    expectWarning(
      await fetchExtendedCard({
        ...base,
        url: 'https://agent.example/x',
        protocolBinding: 'https://example.com/bindings/ws',
        protocolVersion: '1.0',
      }),
    );
    expect(
      expectWarning(
        await fetchExtendedCard({
          ...base,
          url: 'https://agent.example/x',
          protocolBinding: 'JSONRPC',
          protocolVersion: '0.2',
        }),
      ),
    ).toContain('protocol version 0.2');
    expectWarning(
      await fetchExtendedCard({
        ...base,
        url: 'https://agent.example/x',
        protocolBinding: 'JSONRPC',
        protocolVersion: '2.0',
      }),
    );
    expect(attempts()).toBe(0);
  });

  it('request shapes: JSON-RPC 1.0 params carry the tenant, 0.3 sends no params', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    dispatchers.push(mock);
    const bodies: unknown[] = [];
    const pool = mock.get('https://agent.example');
    const card = { name: 'x' };
    for (let i = 0; i < 3; i++) {
      pool.intercept({ path: '/rpc', method: 'POST' }).reply(
        200,
        (opts) => {
          bodies.push(JSON.parse(String(opts.body)));
          return { jsonrpc: '2.0', id: 1, result: card };
        },
        { headers: { 'content-type': 'application/json' } },
      );
    }
    const base = {
      url: 'https://agent.example/rpc',
      protocolBinding: 'JSONRPC',
      credentials: bearer(TOKEN),
      dispatcher: mock,
    };
    await fetchExtendedCard({ ...base, protocolVersion: '1.0', tenant: 'acme' });
    await fetchExtendedCard({ ...base, protocolVersion: '1.0' });
    await fetchExtendedCard({ ...base, protocolVersion: '0.3', tenant: 'ignored' });
    expect(bodies).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: { tenant: 'acme' } },
      { jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} },
      { jsonrpc: '2.0', id: 1, method: 'agent/getAuthenticatedExtendedCard' },
    ]);
  });

  it('JSON-RPC MethodNotFound (-32601) is a warning; a JSON-RPC error identified only by ErrorInfo reason counts too', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    dispatchers.push(mock);
    const pool = mock.get('https://agent.example');
    const json = { headers: { 'content-type': 'application/json' } };
    pool
      .intercept({ path: '/a', method: 'POST' })
      .reply(200, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }, json);
    // A server using a code outside the table but the spec's ErrorInfo reason (data is an array of Any).
    pool.intercept({ path: '/b', method: 'POST' }).reply(
      200,
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32099,
          message: 'nope',
          data: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
              domain: 'a2a-protocol.org',
            },
          ],
        },
      },
      json,
    );
    // 0.3 style: a bare code, no ErrorInfo.
    pool
      .intercept({ path: '/d', method: 'POST' })
      .reply(200, { jsonrpc: '2.0', id: 1, error: { code: -32004, message: 'Unsupported' } }, json);
    pool
      .intercept({ path: '/e', method: 'POST' })
      .reply(200, { jsonrpc: '2.0', id: 1, error: { code: -32007, message: 'Not configured' } }, json);
    // A JSON-RPC error body on an HTTP 500 is still read.
    pool
      .intercept({ path: '/c', method: 'POST' })
      .reply(500, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } }, json);
    const base = { protocolBinding: 'JSONRPC', protocolVersion: '1.0', credentials: bearer(TOKEN), dispatcher: mock };
    expect(expectWarning(await fetchExtendedCard({ ...base, url: 'https://agent.example/a' }))).toBe(
      'https://agent.example/a: the agent has no extended card (GetExtendedAgentCard answered -32601 MethodNotFound: Method not found)',
    );
    expect(expectWarning(await fetchExtendedCard({ ...base, url: 'https://agent.example/b' }))).toContain(
      '-32099 ExtendedAgentCardNotConfigured',
    );
    expect(
      expectWarning(await fetchExtendedCard({ ...base, url: 'https://agent.example/d', protocolVersion: '0.3' })),
    ).toContain('-32004 UnsupportedOperation: Unsupported');
    expect(
      expectWarning(await fetchExtendedCard({ ...base, url: 'https://agent.example/e', protocolVersion: '0.3' })),
    ).toContain('-32007 ExtendedAgentCardNotConfigured: Not configured');
    expect(await rejection(fetchExtendedCard({ ...base, url: 'https://agent.example/c' }))).toMatchObject({
      code: 'unreachable',
      status: 500,
      message: 'https://agent.example/c: GetExtendedAgentCard failed: JSON-RPC error -32603 InternalError: boom',
    });
  });
});

describe('fetchExtendedCard: HTTP-layer faults (node:http)', () => {
  const rpc = (url: string, extra: Partial<ExtendedCardRequest> = {}): ExtendedCardRequest => ({
    url,
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.0',
    credentials: bearer(TOKEN),
    ...extra,
  });
  const rest = (url: string, extra: Partial<ExtendedCardRequest> = {}): ExtendedCardRequest => ({
    url,
    protocolBinding: 'HTTP+JSON',
    protocolVersion: '1.0',
    credentials: bearer(TOKEN),
    ...extra,
  });

  it('never follows a redirect with credentials, and does not reveal where it pointed', async () => {
    const target = await faultServer((_req, res) => sendJson(res, 200, { name: 'stolen' }));
    const s = await faultServer((_req, res) => {
      res.writeHead(307, { location: `${target.origin}/steal?next=here` });
      res.end();
    });
    for (const req of [rpc(`${s.origin}/rpc`), rest(s.origin)]) {
      const error = await rejection(fetchExtendedCard(req));
      expect(error).toMatchObject({ code: 'unreachable', status: 307 });
      expect(error.message).toMatch(/redirect \(307\) refused: credentials are never sent across a redirect$/);
      expect(error.message).not.toContain(target.origin);
    }
    expect(target.hits()).toBe(0);
  });

  it('a result that is not a JSON object, or a body that is not JSON-RPC, is card-invalid', async () => {
    const s = await faultServer((req, res) => {
      if (req.url === '/array') return sendJson(res, 200, { jsonrpc: '2.0', id: 1, result: [1] });
      if (req.url === '/null') return sendJson(res, 200, { jsonrpc: '2.0', id: 1, result: null });
      if (req.url === '/notrpc') return sendJson(res, 200, { name: 'a card, not a JSON-RPC response' });
      return sendJson(res, 200, [1, 2]); // REST body that is an array
    });
    for (const [path, text] of [
      ['/array', 'the result is not a JSON object (an array)'],
      ['/null', 'the result is not a JSON object (null)'],
      ['/notrpc', 'the answer is not a JSON-RPC 2.0 response'],
    ] as const) {
      const error = await rejection(fetchExtendedCard(rpc(`${s.origin}${path}`)));
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error).toMatchObject({ code: 'card-invalid' });
      expect(error.message).toBe(`${s.origin}${path}: GetExtendedAgentCard: ${text}`);
    }
    const restError = await rejection(fetchExtendedCard(rest(`${s.origin}/r`)));
    expect(restError).toMatchObject({ code: 'card-invalid' });
    expect(restError.message).toBe(`${s.origin}/r/extendedAgentCard: extended card is not a JSON object`);
  });

  it('REST errors are classified by ErrorInfo reason, whatever the status (1.0.0 and 1.0.1 tables)', async () => {
    const status = (code: number, reason: string | undefined) => ({
      error: {
        code,
        status: 'X',
        message: `m-${reason}`,
        details: reason
          ? [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }]
          : [],
      },
    });
    const s = await faultServer((req, res) => {
      const [, code, reason] = req.url!.split('/');
      sendJson(res, Number(code), status(Number(code), reason === 'none' ? undefined : reason), 'application/a2a+json');
    });
    // 1.0.0 mapped UnsupportedOperation to UNIMPLEMENTED; a server may use 501 for it.
    expect(expectWarning(await fetchExtendedCard(rest(`${s.origin}/501/UNSUPPORTED_OPERATION`)))).toContain(
      'HTTP 501 UNSUPPORTED_OPERATION UnsupportedOperation',
    );
    expect(
      expectWarning(await fetchExtendedCard(rest(`${s.origin}/400/EXTENDED_AGENT_CARD_NOT_CONFIGURED`))),
    ).toContain('ExtendedAgentCardNotConfigured');
    expect(
      expectWarning(await fetchExtendedCard(rest(`${s.origin}/404/EXTENDED_AGENT_CARD_NOT_CONFIGURED`))),
    ).toContain('HTTP 404');
    // Same status, another reason: an error.
    const other = await rejection(fetchExtendedCard(rest(`${s.origin}/400/VERSION_NOT_SUPPORTED`)));
    expect(other).toMatchObject({ code: 'unreachable', status: 400 });
    expect(other.message).toBe(
      `${s.origin}/400/VERSION_NOT_SUPPORTED/extendedAgentCard: extended card request failed: HTTP 400 VERSION_NOT_SUPPORTED: m-VERSION_NOT_SUPPORTED`,
    );
    // No reason at all: the status decides.
    expect(await rejection(fetchExtendedCard(rest(`${s.origin}/400/none`)))).toMatchObject({
      code: 'unreachable',
      status: 400,
      message: `${s.origin}/400/none/extendedAgentCard: unexpected status 400`,
    });
    expect(await rejection(fetchExtendedCard(rest(`${s.origin}/404/none`)))).toMatchObject({
      code: 'unreachable',
      status: 404,
    });
  });

  it('403 is auth-refused; an HTML 500 is unreachable; a stalled server times out', async () => {
    const s = await faultServer((req, res) => {
      if (req.url!.startsWith('/forbidden'))
        return sendJson(res, 403, { error: { code: 403, status: 'PERMISSION_DENIED', message: 'no' } });
      if (req.url!.startsWith('/stall')) return; // never answers
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<h1>oops</h1>');
    });
    expect(await rejection(fetchExtendedCard(rest(`${s.origin}/forbidden`)))).toMatchObject({
      code: 'auth-refused',
      status: 403,
    });
    expect(await rejection(fetchExtendedCard(rpc(`${s.origin}/html`)))).toMatchObject({
      code: 'unreachable',
      status: 500,
      message: `${s.origin}/html: unexpected status 500`,
    });
    const timeout = await rejection(fetchExtendedCard(rpc(`${s.origin}/stall`, { timeoutMs: 200 })));
    expect(timeout).toMatchObject({ code: 'timeout', message: `${s.origin}/stall: no extended card within 200 ms` });
  });

  it('secrets stay out of errors: an apiKey in the query is shown as ***, an echoed token is scrubbed', async () => {
    const s = await faultServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      sendJson(res, 200, {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32603, message: `bad credential ${auth} / ${req.url}` },
      });
    });
    const credentials = [
      placeCredential({ type: 'http', scheme: 'Bearer' }, TOKEN),
      placeCredential({ type: 'apiKey', location: 'query', name: 'key' }, 'QUERY-SECRET-9'),
    ];
    const error = await rejection(fetchExtendedCard(rpc(`${s.origin}/rpc?region=eu`, { credentials })));
    expect(error).toMatchObject({ code: 'unreachable' });
    expect(error.message).toBe(
      `${s.origin}/rpc?region=eu&key=***: GetExtendedAgentCard failed: JSON-RPC error -32603 InternalError: bad credential *** / /rpc?region=eu&key=***`,
    );
    const json = JSON.stringify((error as FetchError).toJSON());
    expect(json).not.toContain(TOKEN);
    expect(json).not.toContain('QUERY-SECRET-9');
  });

  it('the returned url hides a query credential; a request without credentials may follow a redirect', async () => {
    const s = await faultServer((req, res) => {
      if (req.url!.startsWith('/old')) {
        res.writeHead(308, { location: '/new/extendedAgentCard' });
        return res.end();
      }
      sendJson(res, 200, { name: 'ext' });
    });
    const key = [placeCredential({ type: 'apiKey', location: 'query', name: 'key' }, 'QUERY-SECRET-9')];
    expect(await fetchExtendedCard(rest(`${s.origin}/a`, { credentials: key }))).toEqual({
      card: { name: 'ext' },
      url: `${s.origin}/a/extendedAgentCard?key=***`,
    });
    expect(await fetchExtendedCard(rest(`${s.origin}/old`, { credentials: [] }))).toEqual({
      card: { name: 'ext' },
      url: `${s.origin}/new/extendedAgentCard`,
    });
  });
});
