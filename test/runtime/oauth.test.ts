/**
 * OAuth 2.0 client credentials at run time: a node:http token endpoint on 127.0.0.1 recording what
 * it received, and a real @a2a-js/sdk agent that demands the bearer it issues. The token is requested
 * from the token URL locked in the snapshot (never the one the agent serves now), with the locked
 * scopes, HTTP Basic client authentication (or the form body), cached until shortly before
 * `expires_in`, renewed once on a 401; a redirect is never followed and the client secret goes
 * nowhere else.
 */

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageRequest } from '@a2a-js/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLock } from '../../src/commands/lock.js';
import { ClientCredentialsTokens } from '../../src/http/oauth-token.js';
import { type DriftEvent, type LoadLockOptions, loadLock } from '../../src/runtime/index.js';
import { type AgentCard, type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';
import { faultServers } from '../helpers/http.js';
import { JSONRPC_PROFILE, lockProject } from '../helpers/lock-project.js';

const ACCESS_TOKEN = 'issued-access-token';
const CLIENT_ID = 'client-7';
const CLIENT_SECRET = 'client-secret-value-9';
const servers = faultServers();
let agent: StartedAgent;
let dir: string;
let tokenUrl: string;
let card: AgentCard;

interface TokenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
/** What the token endpoint received, and how it answers the next request (default: the token, 1 h). */
const received: TokenRequest[] = [];
let answer: (n: number, res: http.ServerResponse) => void;
const issue =
  (token = ACCESS_TOKEN, expiresIn = 3600) =>
  (_n: number, res: http.ServerResponse) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: expiresIn }));

/** A node:http endpoint recording every request (method, path, headers, body). */
async function recordingEndpoint(
  into: TokenRequest[],
  reply: (n: number, res: http.ServerResponse) => void,
): Promise<string> {
  const server = await servers.start((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      into.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      reply(into.length, res);
    });
  });
  return server.origin;
}

function oauthCard(origin: string, url: string): AgentCard {
  return {
    ...sampleCard(origin),
    securitySchemes: {
      oauth: {
        oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: url, scopes: { 'a2a.read': 'read' } } } },
      },
    },
    securityRequirements: [{ schemes: { oauth: { list: ['a2a.read'] } } }],
  };
}

const send = (text: string) =>
  SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
const options = (extra: LoadLockOptions = {}): LoadLockOptions => ({
  lockfile: join(dir, 'a2a.lock.json'),
  env: { CID: CLIENT_ID, CSECRET: CLIENT_SECRET },
  ...extra,
});

beforeAll(async () => {
  tokenUrl = `${await recordingEndpoint(received, (n, res) => answer(n, res))}/oauth/token`;
  agent = await startAgent({ card: (origin) => oauthCard(origin, tokenUrl), bearerToken: ACCESS_TOKEN });
  card = oauthCard(agent.origin, tokenUrl);
  dir = await mkdtemp(join(tmpdir(), 'a2a-oauth-'));
  await lockProject(dir, {
    profile: JSONRPC_PROFILE,
    agents: {
      research: {
        card: agent.origin,
        skills: ['market-size'],
        credentials: { oauth: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'CSECRET' } } } },
      },
      formauth: {
        card: agent.origin,
        skills: ['market-size'],
        credentials: {
          oauth: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'CSECRET' }, clientAuth: 'form' } },
        },
      },
    },
  });
});

afterAll(async () => {
  await agent?.close();
  await servers.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  received.length = 0;
  answer = issue();
  agent.setCard(card);
});

/** Every header value the agent received, joined (to look for the client secret). */
const agentSaw = () => JSON.stringify(agent.requests.map((r) => r.headers));

describe('OAuth client credentials', () => {
  it('POSTs to the locked token URL with HTTP Basic and the locked scopes, once while the token is fresh; the agent gets only the bearer', async () => {
    const lock = await loadLock(options());
    const client = await lock.agent('research', 'market-size').createClient();
    const from = agent.requests.length;
    expect(JSON.stringify(await client.sendMessage(send('one')))).toContain('echo: one');
    expect(JSON.stringify(await client.sendMessage(send('two')))).toContain('echo: two');
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request).toMatchObject({ method: 'POST', path: '/oauth/token' });
    expect(request!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
    );
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(request!.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'a2a.read',
    });
    expect(agent.requests.slice(from).map((r) => r.headers.authorization)).toEqual([
      `Bearer ${ACCESS_TOKEN}`,
      `Bearer ${ACCESS_TOKEN}`,
    ]);
    expect(agentSaw()).not.toContain(CLIENT_SECRET);
    expect(agentSaw()).not.toContain(Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64'));
  });

  it('client authentication in the form body (clientAuth: "form"): no Authorization header to the token endpoint', async () => {
    const lock = await loadLock(options());
    await (await lock.agent('formauth', 'market-size').createClient()).sendMessage(send('form'));
    expect(received).toHaveLength(1);
    expect(received[0]!.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(received[0]!.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'a2a.read',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
  });

  it('a token within 30 s of expires_in is not used again: a new one is requested', async () => {
    answer = issue(ACCESS_TOKEN, 30);
    const lock = await loadLock(options());
    const client = await lock.agent('research', 'market-size').createClient();
    await client.sendMessage(send('a'));
    await client.sendMessage(send('b'));
    expect(received).toHaveLength(2);
  });

  it('a 401 from the agent: once more with a new token (never a loop)', async () => {
    answer = (n, res) => issue(n === 1 ? 'revoked-token' : ACCESS_TOKEN)(n, res);
    const lock = await loadLock(options());
    const client = await lock.agent('research', 'market-size').createClient();
    const from = agent.requests.length;
    expect(JSON.stringify(await client.sendMessage(send('renewed')))).toContain('echo: renewed');
    expect(received).toHaveLength(2);
    expect(agent.requests.slice(from).map((r) => r.headers.authorization)).toEqual([
      'Bearer revoked-token',
      `Bearer ${ACCESS_TOKEN}`,
    ]);
    // Always refused: one retry, then the typed error.
    answer = issue('always-refused');
    const refusing = await loadLock(options());
    const before = agent.requests.length;
    await expect(
      (await refusing.agent('research', 'market-size').createClient()).sendMessage(send('no')),
    ).rejects.toMatchObject({ code: 'auth-refused' });
    expect(agent.requests.length - before).toBe(2);
  });

  it('the token URL is the locked one: a card that now names another token URL gets no client secret', async () => {
    const evil: TokenRequest[] = [];
    const moved = `${await recordingEndpoint(evil, issue())}/steal`;
    agent.setCard(oauthCard(agent.origin, moved));
    const lock = await loadLock(options());
    await (await lock.agent('research', 'market-size').createClient()).sendMessage(send('locked'));
    expect(received).toHaveLength(1);
    expect(evil).toEqual([]);
    // And the moved token URL is drift, as a2a verify reports it.
    const drift: DriftEvent[] = [];
    lock.on('drift', (e: DriftEvent) => drift.push(e));
    await lock.refresh();
    expect(drift.find((d) => d.agent === 'research')?.report.drift).toContainEqual(
      expect.objectContaining({ skill: 'market-size', field: 'securitySchemes.oauth' }),
    );
    expect(evil).toEqual([]);
  });

  it('a redirect from the token endpoint is never followed; the client secret goes nowhere else', async () => {
    const elsewhere: TokenRequest[] = [];
    const target = await recordingEndpoint(elsewhere, issue());
    answer = (_n, res) => res.writeHead(307, { location: `${target}/token` }).end();
    const lock = await loadLock(options());
    const from = agent.requests.length;
    const error = await (await lock.agent('research', 'market-size').createClient())
      .sendMessage(send('x'))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      message: expect.stringMatching(/token endpoint answered a redirect \(HTTP 307\), which is never followed/),
    });
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(CLIENT_SECRET);
    expect(elsewhere).toEqual([]);
    expect(agent.requests.length).toBe(from);
  });

  it('a refused client is auth-refused naming the OAuth error code, never the body; an unset variable is credential-unset naming it', async () => {
    answer = (_n, res) =>
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'invalid_client', error_description: `bad ${CLIENT_SECRET}` }));
    const lock = await loadLock(options());
    const error = (await (
      await lock.agent('research', 'market-size').createClient()
    )
      .sendMessage(send('x'))
      .catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({
      code: 'auth-refused',
      message: expect.stringMatching(/refused the client credentials \(HTTP 401 invalid_client\)/),
    });
    expect(error.message).not.toContain(CLIENT_SECRET);
    const unset = await loadLock(options({ env: { CID: CLIENT_ID } }));
    await expect(
      (await unset.agent('research', 'market-size').createClient()).sendMessage(send('x')),
    ).rejects.toMatchObject({ code: 'credential-unset', message: expect.stringMatching(/CSECRET is not set/) });
  });

  it('a token endpoint that sends its headers and then drips its body past the deadline: a typed timeout (code timeout), not a raw TimeoutError; the agent receives nothing', async () => {
    answer = (_n, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"access_token":"');
      const timer = setInterval(() => res.write('a'), 50);
      res.on('close', () => clearInterval(timer));
    };
    agent.requests.length = 0;
    const lock = await loadLock(options({ timeoutMs: 400 }));
    const error = await lock
      .agent('research', 'market-size')
      .fetch(`${agent.origin}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't-1' } }),
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'FetchError',
      code: 'timeout',
      message: `${tokenUrl}: the token endpoint did not answer in time`,
    });
    expect(agent.requests).toEqual([]);
  });

  it('TLS only: a plain-http token URL off loopback is refused before anything is sent', async () => {
    let calls = 0;
    const tokens = new ClientCredentialsTokens(async () => {
      calls++;
      return new Response('{}');
    });
    await expect(
      tokens.token({ tokenUrl: 'http://auth.example/token', clientId: 'c', clientSecret: 's', scopes: [] }),
    ).rejects.toMatchObject({ code: 'insecure-url' });
    expect(calls).toBe(0);
  });
});

describe('the CLI, for an extended card', () => {
  it("a2a lock obtains the access token from the public card's tokenUrl to fetch the extended card; the agent never sees the client secret", async () => {
    const extended = await startAgent({
      card: (origin) => {
        const c = oauthCard(origin, tokenUrl);
        return { ...c, capabilities: { ...c.capabilities, extendedAgentCard: true } };
      },
      extendedCard: (origin) => ({ ...oauthCard(origin, tokenUrl), description: 'the extended card' }),
      bearerToken: ACCESS_TOKEN,
    });
    const project = await mkdtemp(join(tmpdir(), 'a2a-oauth-cli-'));
    try {
      await writeFile(
        join(project, 'a2a.json'),
        JSON.stringify({
          profile: {
            bindings: ['JSONRPC'],
            versions: ['1.0'],
            accepts: ['application/json', 'text/plain'],
            sends: ['text/plain'],
          },
          agents: {
            research: {
              card: extended.origin,
              skills: ['market-size'],
              credentials: { oauth: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'CSECRET' } } } },
            },
          },
        }),
      );
      const result = await runLock(
        {
          manifest: join(project, 'a2a.json'),
          json: true,
          verbose: false,
          cwd: project,
          env: { CID: CLIENT_ID, CSECRET: CLIENT_SECRET },
        },
        // No wire probe: the requests asserted are the runtime's (the probe's: test/e2e/lock-probe.test.ts).
        { probe: false },
      );
      expect(result.exitCode, JSON.stringify(result.data)).toBe(0);
      expect(received).toHaveLength(1);
      expect(received[0]!.headers.authorization).toBe(
        `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
      );
      const lockfile = JSON.parse(await readFile(join(project, 'a2a.lock.json'), 'utf8'));
      expect(lockfile.agents.research.extended.snapshot.description).toBe('the extended card');
      expect(JSON.stringify(extended.requests.map((r) => r.headers))).not.toContain(CLIENT_SECRET);
      expect(extended.requests.some((r) => r.headers.authorization === `Bearer ${ACCESS_TOKEN}`)).toBe(true);
    } finally {
      await extended.close();
      await rm(project, { recursive: true, force: true });
    }
  });
});
