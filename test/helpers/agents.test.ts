import { type Message, SendMessageRequest, type SendMessageResult } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentCard, type StartAgentOptions, type StartedAgent, sampleCard, startAgent } from './agents.js';
import { text03 } from './sdk-message.js';

const started: StartedAgent[] = [];
async function agent(opts: StartAgentOptions): Promise<StartedAgent> {
  const a = await startAgent(opts);
  started.push(a);
  return a;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((a) => a.close()));
});

async function getJson(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { res, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

function userMessage(text: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }] },
  });
}

function replyText(result: SendMessageResult): string | undefined {
  expect('messageId' in result, 'expected a Message, got a Task').toBe(true);
  const part = (result as Message).parts[0];
  return part?.content?.$case === 'text' ? part.content.value : undefined;
}

const V1 = { 'A2A-Version': '1.0', Accept: 'application/json' };

describe('startAgent / sampleCard', () => {
  it('binds 127.0.0.1 on a random port and derives the URLs', async () => {
    const a = await agent({ card: (origin) => sampleCard(origin) });
    expect(a.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(a.cardUrl).toBe(`${a.origin}/.well-known/agent-card.json`);
    expect(a.jsonRpcUrl).toBe(`${a.origin}/a2a/jsonrpc`);
    expect(a.restUrl).toBe(`${a.origin}/a2a/rest`);
  });

  it('(a) serves the 1.0 card exactly as given, with the SDK caching headers', async () => {
    let given: AgentCard | undefined;
    const a = await agent({
      card: (origin) => (given = { ...sampleCard(origin), 'x-unknown-field': { kept: true } }),
    });
    const { res, body } = await getJson(a.cardUrl, V1);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(res.headers.get('etag')).toMatch(/^W\/"[0-9a-f]{16}"$/);
    expect(res.headers.get('vary')).toBeNull();
    expect(body).toEqual(JSON.parse(JSON.stringify(given)));
    expect(body).toMatchObject({
      name: 'Market Research Agent',
      version: '2.4.0',
      supportedInterfaces: [
        { url: a.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: a.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      skills: [{ id: 'market-size', inputModes: ['text/plain'], outputModes: ['application/json', 'application/pdf'] }],
    });
  });

  it('sampleCard: overrides are shallow, legacy adds a JSONRPC 0.3 interface', () => {
    const card = sampleCard('http://h:1/', { version: '3.0.0' }, { legacy: true });
    expect(card.version).toBe('3.0.0');
    expect(card.supportedInterfaces).toEqual([
      { url: 'http://h:1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://h:1/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'http://h:1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities).toEqual({
      streaming: true,
      pushNotifications: false,
      extensions: [{ uri: 'https://example.com/ext/citations/v1', required: false }],
    });
    expect(card.defaultInputModes).toEqual(['text/plain', 'application/json']);
    expect(card.defaultOutputModes).toEqual(['text/plain', 'application/pdf']);
  });

  it('(b) with legacyCompat, A2A-Version picks the card shape', async () => {
    const a = await agent({ card: (o) => sampleCard(o, {}, { legacy: true }), legacyCompat: true });

    const v03 = await getJson(a.cardUrl, { 'A2A-Version': '0.3', Accept: 'application/json' });
    expect(v03.res.status).toBe(200);
    expect(v03.res.headers.get('vary')).toMatch(/A2A-Version/i);
    expect(v03.body).toMatchObject({
      name: 'Market Research Agent',
      url: a.jsonRpcUrl,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3',
      securitySchemes: { bearer: { type: 'http', scheme: 'Bearer' } },
      security: [{ bearer: [] }],
    });
    expect(v03.body).not.toHaveProperty('securityRequirements');
    // the SDK embeds the 1.0 interfaces in the 0.3 card too (hybrid)
    expect(v03.body?.supportedInterfaces).toHaveLength(3);

    const none = await getJson(a.cardUrl, { Accept: 'application/json' }); // absent header == 0.3
    expect(none.body).toEqual(v03.body);

    const v1 = await getJson(a.cardUrl, V1);
    expect(v1.body).toEqual(sampleCard(a.origin, {}, { legacy: true }));
    expect(v1.res.headers.get('vary')).toMatch(/A2A-Version/i);
    expect(v1.res.headers.get('etag')).not.toBe(v03.res.headers.get('etag'));
  });

  it('(b) with legacyCompat but no 0.3 interface, 0.3/absent header is a 400; 1.0 is fine', async () => {
    const a = await agent({ card: (o) => sampleCard(o), legacyCompat: true });
    const none = await getJson(a.cardUrl, {});
    expect(none.res.status).toBe(400);
    expect(none.body).toMatchObject({ code: -32009 });
    expect((await getJson(a.cardUrl, V1)).res.status).toBe(200);
  });

  it('(c) setCard changes the next response despite Cache-Control max-age; ETag/304 are real', async () => {
    const a = await agent({ card: (o) => sampleCard(o) });
    const first = await request(a.cardUrl, { headers: V1 });
    const firstBody = (await first.body.json()) as AgentCard;
    expect(first.headers['cache-control']).toMatch(/max-age=\d+/);
    const etag = String(first.headers.etag);
    expect(firstBody.version).toBe('2.4.0');

    // conditional revalidation: undici.request gets the SDK's 304 ...
    const revalidated = await request(a.cardUrl, { headers: { ...V1, 'If-None-Match': etag } });
    await revalidated.body.dump();
    expect(revalidated.statusCode).toBe(304);
    // ... global fetch does not: it adds Cache-Control/Pragma: no-cache when If-None-Match is set.
    const viaFetch = await fetch(a.cardUrl, { headers: { ...V1, 'If-None-Match': etag } });
    await viaFetch.arrayBuffer();
    expect(viaFetch.status).toBe(200);
    expect(a.requests.at(-1)?.headers['cache-control']).toBe('no-cache');

    a.setCard(sampleCard(a.origin, { version: '2.5.0' }));
    const second = await request(a.cardUrl, { headers: { ...V1, 'If-None-Match': etag } });
    expect(second.statusCode).toBe(200);
    expect(second.headers.etag).not.toBe(etag);
    expect(((await second.body.json()) as AgentCard).version).toBe('2.5.0');
    const third = await fetch(a.cardUrl, { headers: V1 });
    expect(((await third.json()) as AgentCard).version).toBe('2.5.0');
  });

  it('(d) a real SDK client can sendMessage over JSON-RPC and gets the echo', async () => {
    const a = await agent({ card: (o) => sampleCard(o) });
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(a.origin);
    const result = await client.sendMessage(userMessage('size the EU heat-pump market'));
    expect(replyText(result)).toBe('echo: size the EU heat-pump market');
    expect((result as Message).role).toBe(2 /* ROLE_AGENT */);
    const rpc = a.requests.find((r) => r.method === 'POST' && r.path === '/a2a/jsonrpc');
    expect(rpc?.headers['a2a-version']).toBe('1.0');
  });

  it('(d) with bearerToken, A2A calls need the token; the card stays public', async () => {
    const a = await agent({ card: (o) => sampleCard(o), bearerToken: 's3cret' });
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(a.origin);
    await expect(client.sendMessage(userMessage('no token'))).rejects.toThrow(/401/);
    await expect(
      client.sendMessage(userMessage('wrong'), { serviceParameters: { Authorization: 'Bearer nope' } }),
    ).rejects.toThrow(/401/);
    const ok = await client.sendMessage(userMessage('with token'), {
      serviceParameters: { Authorization: 'Bearer s3cret' },
    });
    expect(replyText(ok)).toBe('echo: with token');

    const raw = await fetch(a.jsonRpcUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const rest = await fetch(`${a.restUrl}/message:send`, { method: 'POST' });
    expect(rest.status).toBe(401);
  });

  it('with legacyCompat, a raw v0.3 JSON-RPC message/send (no A2A-Version) is answered in 0.3 form', async () => {
    const a = await agent({ card: (o) => sampleCard(o, {}, { legacy: true }), legacyCompat: true });
    const res = await fetch(a.jsonRpcUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: text03('hi', 'm1') },
      }),
    });
    const body = (await res.json()) as { result?: { kind?: string; role?: string; parts?: Array<{ text?: string }> } };
    expect(body.result).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'echo: hi' }] });
  });

  it('(e) serveLegacyPathOnly: 404 at agent-card.json, 200 at agent.json', async () => {
    const a = await agent({ card: (o) => sampleCard(o), serveLegacyPathOnly: true });
    const modern = await fetch(a.cardUrl, { headers: V1 });
    await modern.arrayBuffer();
    expect(modern.status).toBe(404);
    const legacy = await getJson(`${a.origin}/.well-known/agent.json`, V1);
    expect(a.legacyCardUrl).toBe(`${a.origin}/.well-known/agent.json`);
    expect(legacy.res.status).toBe(200);
    expect(legacy.body).toMatchObject({ name: 'Market Research Agent' });
  });

  it('(f) records every request with its headers', async () => {
    const a = await agent({ card: (o) => sampleCard(o), bearerToken: 't' });
    await (await fetch(a.cardUrl, { headers: { ...V1, 'X-Trace': 'abc' } })).arrayBuffer();
    await (await fetch(`${a.jsonRpcUrl}?q=1`, { method: 'POST', headers: { 'A2A-Version': '1.0' } })).arrayBuffer();
    await (await fetch(`${a.origin}/nope`)).arrayBuffer();
    expect(a.requests.map((r) => [r.method, r.path])).toEqual([
      ['GET', '/.well-known/agent-card.json'],
      ['POST', '/a2a/jsonrpc'],
      ['GET', '/nope'],
    ]);
    expect(a.requests[0]?.headers).toMatchObject({
      'a2a-version': '1.0',
      accept: 'application/json',
      'x-trace': 'abc',
    });
    expect(a.requests[1]?.headers['a2a-version']).toBe('1.0');
  });

  it('close() is idempotent and frees the port even with keep-alive sockets open', async () => {
    const a = await startAgent({ card: (o) => sampleCard(o) });
    await (await fetch(a.cardUrl)).arrayBuffer(); // leaves an idle keep-alive socket in fetch's pool
    await Promise.all([a.close(), a.close()]);
    await expect(fetch(a.cardUrl)).rejects.toThrow();
  });
});
