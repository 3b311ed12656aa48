/**
 * The platform credential (`originAuth`) stays out of what a2a-lock prints: an agent or gateway
 * that quotes the request's headers in its answer (a version refusal of the card, a JSON-RPC error
 * of the extended card) gets the value shown as `***`, as the card's own credentials are.
 * node:http servers on 127.0.0.1 that echo what they received.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeCredential } from '../../src/credentials.js';
import { fetchCard } from '../../src/http/card.js';
import { closeDefaultDispatcher } from '../../src/http/dispatcher.js';
import { fetchExtendedCard } from '../../src/http/extended-card.js';
import { originAuthenticator } from '../../src/http/origin-auth.js';
import { requestJson } from '../../src/http/request.js';
import { parseManifest } from '../../src/manifest/parse.js';
import { faultServers } from '../helpers/http.js';
import { errorText, expectSecretContained } from '../helpers/secrets.js';

const PLATFORM = 'platform-id-t0ken-Secret-77';
const servers = faultServers();
let echo: (req: http.IncomingMessage, res: http.ServerResponse) => void;
let origin: string;

beforeAll(async () => {
  origin = (await servers.start((req, res) => echo(req, res))).origin;
});
afterAll(async () => {
  await servers.close();
  await closeDefaultDispatcher();
});

const headersOf = (req: http.IncomingMessage) =>
  `${req.headers.authorization ?? ''} ${req.headers['x-serverless-authorization'] ?? ''}`;
const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const bearer = () =>
  originAuthenticator({ [origin]: { bearer: { env: 'ORIGIN_TOKEN' } } }, { env: { ORIGIN_TOKEN: PLATFORM } });
const header = () =>
  originAuthenticator(
    { [origin]: { header: { name: 'X-Serverless-Authorization', env: 'ORIGIN_TOKEN', prefix: 'Bearer ' } } },
    { env: { ORIGIN_TOKEN: PLATFORM } },
  );

describe('a platform credential echoed by the agent', () => {
  it('a card request refused for its version, the refusal quoting the Authorization header: not printed', async () => {
    echo = (req, res) =>
      json(res, 400, {
        code: -32009,
        message: `version ${String(req.headers['a2a-version'])} not supported for ${headersOf(req)}`,
      });
    const error = await fetchCard(`${origin}/v1/card`, {
      versionHeader: '1.0',
      cardPath: '',
      platformAuth: bearer(),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'CardVersionRefusedError' });
    expect((error as Error).message).toMatch(/VersionNotSupported \(-32009\): version 1\.0 not supported for/);
    expect(errorText(error)).not.toContain(PLATFORM);
  });

  it('an extended card request answered by a JSON-RPC error quoting the platform header: not printed', async () => {
    echo = (req, res) =>
      json(res, 200, {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32603, message: `internal error for ${headersOf(req)}` },
      });
    const error = await fetchExtendedCard({
      url: `${origin}/a2a/jsonrpc`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      credentials: [],
      platformAuth: header(),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unreachable', message: expect.stringMatching(/internal error for/) });
    expect(errorText(error)).not.toContain(PLATFORM);
  });
});

describe('a header prefix that is not a header value', () => {
  it('a prefix with a line break or control character is refused before sending, the value not quoted', async () => {
    for (const prefix of ['Bearer\r\nX-Injected: 1\r\n', 'Bearer\u0000', 'Bearer\u007f ']) {
      const auth = originAuthenticator(
        { [origin]: { header: { name: 'X-Serverless-Authorization', env: 'ORIGIN_TOKEN', prefix } } },
        { env: { ORIGIN_TOKEN: PLATFORM } },
      );
      const error = await auth
        .headersFor({ url: new URL(`${origin}/v1/card`), method: 'GET', headers: {}, body: undefined })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'usage', message: expect.stringMatching(/control character/) });
      expect(errorText(error)).not.toContain(PLATFORM);
    }
  });

  it('the manifest refuses such a prefix (a2a.json is pull-request content)', () => {
    const manifest = (prefix: string) =>
      JSON.stringify({
        profile: {
          bindings: ['JSONRPC'],
          versions: ['1.0'],
          accepts: ['text/plain'],
          sends: ['text/plain'],
          streaming: false,
        },
        agents: {},
        originAuth: {
          'https://run.example': { header: { name: 'X-Serverless-Authorization', env: 'ORIGIN_TOKEN', prefix } },
        },
      });
    expect(() => parseManifest(manifest('Bearer '), 'a2a.json')).not.toThrow();
    expect(() => parseManifest(manifest('Bearer\r\n'), 'a2a.json')).toThrow(/prefix/);
    expect(() => parseManifest(manifest('\u001b]8;;https://evil.example\u0007Bearer '), 'a2a.json')).toThrow(/prefix/);
  });
});

describe('a card that quotes the credential its request carried', () => {
  const card = (description: string) => ({
    name: 'Echo',
    description,
    version: '1.0.0',
    supportedInterfaces: [],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  });

  it('a public card fetched with originAuth whose text holds the platform value is refused (it would be written to the lockfile)', async () => {
    echo = (req, res) => json(res, 200, card(`served to ${headersOf(req)}`));
    const error = await fetchCard(`${origin}/v1/card`, {
      versionHeader: '1.0',
      cardPath: '',
      platformAuth: bearer(),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'card-invalid', message: expect.stringMatching(/quotes a credential/) });
    expect(errorText(error)).not.toContain(PLATFORM);
    // The same card without the value is read.
    echo = (_req, res) => json(res, 200, card('served'));
    await expect(
      fetchCard(`${origin}/v1/card`, { versionHeader: '1.0', cardPath: '', platformAuth: bearer() }),
    ).resolves.toMatchObject({ body: { description: 'served' } });
  });

  it("an extended card whose text holds the agent's bearer or the platform value is refused", async () => {
    const credentials = [placeCredential({ type: 'http', scheme: 'Bearer' }, 'agent-own-bearer-Secret-31')];
    echo = (req, res) =>
      json(res, 200, { jsonrpc: '2.0', id: 1, result: card(`for ${String(req.headers.authorization)}`) });
    const error = await fetchExtendedCard({
      url: `${origin}/a2a/jsonrpc`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      credentials,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'card-invalid',
      message: expect.stringMatching(/holds the credential it was fetched with/),
    });
    expect(errorText(error)).not.toContain('agent-own-bearer-Secret-31');
    echo = (req, res) => json(res, 200, { jsonrpc: '2.0', id: 1, result: card(`for ${headersOf(req)}`) });
    const platform = await fetchExtendedCard({
      url: `${origin}/a2a/jsonrpc`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      credentials,
      platformAuth: header(),
    }).catch((e: unknown) => e);
    expect(platform).toMatchObject({ code: 'card-invalid' });
    expect(errorText(platform)).not.toContain(PLATFORM);
  });
});

describe('a redirect whose target echoes the credential its request carried', () => {
  const card = {
    name: 'Echo',
    description: 'served',
    version: '1.0.0',
    supportedInterfaces: [],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  const tokenOf = (req: http.IncomingMessage) => (req.headers.authorization ?? '').replace(/^Bearer /, '');
  /** Every spelling an echoing origin may use, and where the echo points after the redirect. */
  const spellings: Array<[string, (token: string) => string]> = [
    ['percent-encoded', (t) => `/card.json?echo=${encodeURIComponent(t)}`],
    ['base64url', (t) => `/card.json?echo=${Buffer.from(t).toString('base64url')}`],
    ['in the path', (t) => `/echo/${t}/card.json`],
    ['the whole header', (t) => `/card.json?auth=${encodeURIComponent(`Bearer ${t}`)}`],
    ['plain http elsewhere', (t) => `http://agent.invalid/card.json?echo=${t}`],
    ['hex', (t) => `/card.json?echo=${Buffer.from(t).toString('hex')}`],
  ];
  /** An origin that redirects every authenticated request to `to(token)` and serves the card otherwise. */
  const redirecting = (to: (token: string) => string) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    const token = tokenOf(req);
    if (token === '') return json(res, 200, card);
    res.writeHead(302, { location: to(token) }).end();
  };

  it('a card: refused (card-invalid), the target never asked for, the value in no message, in every spelling', async () => {
    for (const [label, to] of spellings) {
      const seen: string[] = [];
      echo = (req, res) => {
        seen.push(req.url ?? '');
        redirecting(to)(req, res);
      };
      const error = await fetchCard(`${origin}/v1/card`, {
        versionHeader: '1.0',
        cardPath: '',
        platformAuth: bearer(),
      }).catch((e: unknown) => e);
      expect(error, label).toMatchObject({
        code: 'card-invalid',
        source: `${origin}/v1/card`,
        message: expect.stringMatching(/redirected to a URL that holds the credential it carried/),
      });
      expect(seen, label).toEqual(['/v1/card']);
      await expectSecretContained(PLATFORM, { texts: { [label]: errorText(error) } });
    }
  });

  it('a chain of redirects that echoes the credential on its last hop: refused there, never "too many redirects" naming it', async () => {
    echo = (req, res) => {
      const n = Number(/^\/hop\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
      const token = tokenOf(req) || new URL(req.url ?? '/', origin).searchParams.get('t') || '';
      const next = n >= 3 ? `/hop/${n + 1}?echo=${encodeURIComponent(token || PLATFORM)}` : `/hop/${n + 1}`;
      res.writeHead(302, { location: next }).end();
    };
    const error = await fetchCard(`${origin}/hop/0`, {
      versionHeader: '1.0',
      cardPath: '',
      platformAuth: bearer(),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'card-invalid', source: `${origin}/hop/3` });
    await expectSecretContained(PLATFORM, { texts: { error: errorText(error) } });
  });

  it('an extended card and a JWKS asked for with originAuth: the same refusal', async () => {
    const seen: string[] = [];
    echo = (req, res) => {
      seen.push(req.url ?? '');
      redirecting((t) => `/elsewhere?echo=${encodeURIComponent(t)}`)(req, res);
    };
    const extended = await fetchExtendedCard({
      url: `${origin}/a2a/rest`,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
      credentials: [],
      platformAuth: bearer(),
    }).catch((e: unknown) => e);
    expect(extended).toMatchObject({ code: 'card-invalid', message: expect.stringMatching(/extended card request/) });
    const jwks = await requestJson(`${origin}/jwks.json`, { subject: 'JWKS', platformAuth: bearer() }).catch(
      (e: unknown) => e,
    );
    expect(jwks).toMatchObject({ code: 'card-invalid', message: expect.stringMatching(/JWKS request/) });
    expect(seen).toEqual(['/a2a/rest/extendedAgentCard', '/jwks.json']);
    await expectSecretContained(PLATFORM, { texts: { extended: errorText(extended), jwks: errorText(jwks) } });
  });

  it('a redirect that does not hold the credential is still followed', async () => {
    echo = (req, res) => {
      if (req.url === '/v1/card') return void res.writeHead(302, { location: '/card.json?v=2' }).end();
      json(res, 200, card);
    };
    await expect(
      fetchCard(`${origin}/v1/card`, { versionHeader: '1.0', cardPath: '', platformAuth: bearer() }),
    ).resolves.toMatchObject({ url: `${origin}/card.json?v=2` });
  });
});

it('what the authenticator keeps to redact stays bounded as values rotate (a long-running runtime)', async () => {
  const env: NodeJS.ProcessEnv = {};
  const auth = originAuthenticator({ [origin]: { bearer: { env: 'ORIGIN_TOKEN' } } }, { env });
  for (let i = 0; i < 50; i++) {
    env.ORIGIN_TOKEN = `rotating-token-${i}`;
    await auth.headersFor({ url: new URL(`${origin}/a2a`), method: 'GET', headers: {}, body: undefined });
  }
  expect(auth.sentSecrets()).toEqual([
    'Bearer rotating-token-49',
    'rotating-token-49',
    'Bearer rotating-token-48',
    'rotating-token-48',
  ]);
});

it('an originAuth key at http://<name>.localhost is refused by the manifest, and (from a lockfile) gets no header', async () => {
  const manifest = JSON.stringify({
    profile: {
      bindings: ['JSONRPC'],
      versions: ['1.0'],
      accepts: ['text/plain'],
      sends: ['text/plain'],
      streaming: false,
    },
    agents: {},
    originAuth: { 'http://run.localhost:8080': { bearer: { env: 'T' } } },
  });
  expect(() => parseManifest(manifest, 'a2a.json')).toThrow(/plain http only to a loopback host/);
  const auth = originAuthenticator({ 'http://run.localhost:8080': { bearer: { env: 'T' } } }, { env: { T: PLATFORM } });
  await expect(
    auth.headersFor({ url: new URL('http://run.localhost:8080/a2a'), method: 'GET', headers: {}, body: undefined }),
  ).resolves.toBeUndefined();
});
