/**
 * Issue 33: a credential never crosses a proxy in cleartext. A real CONNECT proxy on 127.0.0.1
 * records every byte sent through it; with `HTTP_PROXY` set and `NO_PROXY=localhost`, requests to
 * agents on `http://127.0.0.1:<port>` that carry a credential (the `originAuth` bearer of `a2a lock`,
 * the runtime's bearer through `agent.fetch`, an OAuth client secret to a loopback `tokenUrl`) go
 * direct: the proxy never sees them. A plain-http request with a credential to a host only the proxy
 * resolves is refused, naming `HTTP_PROXY`; the same request without a credential goes through it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageRequest } from '@a2a-js/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { placeCredential } from '../../src/credentials.js';
import { fetchCard } from '../../src/http/card.js';
import { closeDefaultDispatcher } from '../../src/http/dispatcher.js';
import { fetchExtendedCard } from '../../src/http/extended-card.js';
import { loadLock } from '../../src/runtime/index.js';
import { type AgentCard, type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';
import { startGateway } from '../helpers/gateway.js';
import { type HttpServer, startHttp } from '../helpers/http.js';
import { JSONRPC_PROFILE, lockProject } from '../helpers/lock-project.js';
import { type ConnectProxy, startConnectProxy } from '../helpers/proxy.js';
import { errorText, expectSecretContained } from '../helpers/secrets.js';
import { manifest, readLock, research, resources, runCli, SLOW, show } from './helpers.js';

const ORIGIN_TOKEN = 'origin-bearer-T0ken-51c9a7';
const AGENT_TOKEN = 'agent-bearer-T0ken-83e2b4';
const ACCESS_TOKEN = 'issued-access-T0ken-6f0d';
const CLIENT_SECRET = 'client-Secret-value-2a9e71';
const PROXY_NAMES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];

let proxy: ConnectProxy;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  proxy = await startConnectProxy({ 'agent.test': '127.0.0.1' });
  for (const name of PROXY_NAMES) saved[name] = process.env[name];
});

afterEach(async () => {
  for (const name of PROXY_NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await closeDefaultDispatcher();
});

afterAll(() => {
  proxy.server.closeAllConnections();
  proxy.server.close();
});

/** Set the proxy variables of this process (the shared dispatcher reads them when made). */
async function useProxy(env: Record<string, string>): Promise<void> {
  for (const name of PROXY_NAMES) delete process.env[name];
  Object.assign(process.env, env);
  await closeDefaultDispatcher();
}

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
const rpc = (text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: SendMessageRequest.toJSON(SendMessageRequest.fromJSON({ message: message(text) })),
  });

describe('HTTP_PROXY set, NO_PROXY=localhost: a credential to 127.0.0.1 never reaches the proxy', {
  timeout: SLOW,
}, () => {
  it('a2a lock with originAuth: the card request goes direct, the proxy sees nothing', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const gateway = await startGateway(agent.origin, { bearer: ORIGIN_TOKEN });
    onTestFinished(() => gateway.close());
    const dir = await res.dir({
      ...manifest({ hosted: { ...research(`${gateway.origin}/v1/card`), cardPath: '' } as never }),
      originAuth: { [gateway.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    });
    const before = proxy.seen().length;
    const locked = await runCli(['lock'], {
      cwd: dir,
      env: { HTTP_PROXY: proxy.origin, NO_PROXY: 'localhost', ORIGIN_TOKEN, RESEARCH_TOKEN: AGENT_TOKEN },
    });
    expect(locked.code, show(locked)).toBe(0);
    expect((await readLock(dir)).agents.hosted.resolved).toBe(`${gateway.origin}/v1/card`);
    expect(gateway.passed).toBe(1);
    expect(proxy.tunnels).not.toContain(new URL(gateway.origin).host);
    await expectSecretContained(ORIGIN_TOKEN, { texts: { 'what the proxy saw': proxy.seen().slice(before) } });
  });

  it("the runtime's bearer through agent.fetch, and an OAuth client secret to a loopback tokenUrl: direct, never through the proxy", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'a2a-proxy-cleartext-'));
    const tokenEndpoint: HttpServer = await startHttp((req, res) => {
      req.resume();
      req.on('end', () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: ACCESS_TOKEN, token_type: 'Bearer', expires_in: 3600 })),
      );
    });
    const tokenUrl = `${tokenEndpoint.origin}/oauth/token`;
    const oauthCard = (origin: string): AgentCard => ({
      ...sampleCard(origin),
      securitySchemes: {
        oauth: {
          oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl, scopes: { 'a2a.read': 'read' } } } },
        },
      },
      securityRequirements: [{ schemes: { oauth: { list: ['a2a.read'] } } }],
    });
    const bearer: StartedAgent = await startAgent({ card: (o) => sampleCard(o), bearerToken: AGENT_TOKEN });
    const oauth: StartedAgent = await startAgent({ card: oauthCard, bearerToken: ACCESS_TOKEN });
    try {
      await lockProject(dir, {
        profile: JSONRPC_PROFILE,
        agents: {
          research: { card: bearer.origin, skills: ['market-size'], credentials: { bearer: { env: 'AGENT_TOKEN' } } },
          client: {
            card: oauth.origin,
            skills: ['market-size'],
            credentials: { oauth: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'CSECRET' } } } },
          },
        },
      });
      await useProxy({ HTTP_PROXY: proxy.origin, NO_PROXY: 'localhost' });
      const before = proxy.seen().length;
      const lock = await loadLock({
        lockfile: join(dir, 'a2a.lock.json'),
        env: { AGENT_TOKEN, CID: 'client-7', CSECRET: CLIENT_SECRET },
      });
      const research = lock.agent('research', 'market-size');
      const answer = await research.fetch(research.plan.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: rpc('through agent.fetch'),
      });
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('echo: through agent.fetch');
      const client = await lock.agent('client', 'market-size').createClient();
      expect(
        JSON.stringify(await client.sendMessage(SendMessageRequest.fromJSON({ message: message('oauth') }))),
      ).toContain('echo: oauth');
      lock.close();
      expect(bearer.requests.some((r) => r.headers.authorization === `Bearer ${AGENT_TOKEN}`)).toBe(true);
      expect(tokenEndpoint.requests.map((r) => r.path)).toEqual(['/oauth/token']);
      expect(proxy.tunnels.filter((t) => t.startsWith('127.0.0.1:'))).toEqual([]);
      await expectSecretContained([AGENT_TOKEN, CLIENT_SECRET, ACCESS_TOKEN], {
        texts: { 'what the proxy saw': proxy.seen().slice(before) },
      });
    } finally {
      await Promise.all([bearer.close(), oauth.close(), tokenEndpoint.close()]);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('plain http to a host only the proxy resolves: without a credential it goes through the proxy; with one it is refused naming HTTP_PROXY, nothing sent', async () => {
    const agent = await startAgent({ card: (o) => sampleCard(o) });
    try {
      await useProxy({ HTTP_PROXY: proxy.origin, NO_PROXY: 'localhost' });
      const port = new URL(agent.origin).port;
      const origin = `http://agent.test:${port}`;
      const card = await fetchCard(origin, { versionHeader: '1.0', allowHttp: true });
      expect(card.url).toBe(`${origin}/.well-known/agent-card.json`);
      expect(proxy.tunnels).toContain(`agent.test:${port}`);
      const tunnels = proxy.tunnels.length;
      const before = proxy.seen().length;
      const error = await fetchExtendedCard({
        url: `${origin}/a2a/jsonrpc`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
        credentials: [placeCredential({ type: 'http', scheme: 'Bearer' }, AGENT_TOKEN)],
        allowHttp: true,
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'insecure-url',
        message: expect.stringContaining(
          'a credential is never sent through a proxy in cleartext: this plain-http request carries one (the authorization header) and HTTP_PROXY would send it through the proxy',
        ),
      });
      expect(proxy.tunnels).toHaveLength(tunnels);
      await expectSecretContained(AGENT_TOKEN, {
        texts: { 'what the proxy saw': proxy.seen().slice(before), error: errorText(error) },
      });
    } finally {
      await agent.close();
    }
  });
});
