/**
 * The runtime behind platform authentication (issue 24): an agent whose card advertises its bind
 * address is locked through a gateway with `rebaseInterfaces` and `originAuth`; `agent.fetch` and
 * `createClient()` send through the rebased URL with the origin's credential, read from the
 * environment at request time or from `loadLock({ originAuth })` providers, and a request to
 * another origin carries nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLock } from '../../src/commands/lock.js';
import { originAuthenticator } from '../../src/http/origin-auth.js';
import { loadLock } from '../../src/runtime/index.js';
import { originAuthFetch } from '../../src/runtime/origin-auth.js';
import { type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';
import { AWS_TEST, type Gateway, startGateway } from '../helpers/gateway.js';
import { sdkText } from '../helpers/sdk-message.js';

const TOKEN = 'runtime-platform-t0ken';
const PROFILE = {
  bindings: ['JSONRPC'],
  versions: ['1.0'],
  accepts: ['text/plain', 'application/json'],
  sends: ['text/plain'],
  streaming: false,
};
let dir: string;
let agent: StartedAgent;
let bearer: Gateway;
let aws: Gateway;
const scope = { region: 'eu-west-1', service: 'bedrock-agentcore' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-origin-auth-'));
  agent = await startAgent({
    card: (origin: string) =>
      sampleCard(origin.replace('127.0.0.1', '0.0.0.0'), { securitySchemes: {}, securityRequirements: [] }),
  });
  bearer = await startGateway(agent.origin, { bearer: TOKEN });
  aws = await startGateway(agent.origin, { awsSigV4: scope });
  const entry = (gateway: Gateway) => ({
    card: `${gateway.origin}/v1/card`,
    cardPath: '',
    rebaseInterfaces: true,
    skills: ['market-size'],
  });
  await writeFile(
    join(dir, 'a2a.json'),
    JSON.stringify({
      profile: PROFILE,
      agents: { hosted: entry(bearer), core: entry(aws) },
      originAuth: { [bearer.origin]: { bearer: { env: 'ORIGIN_TOKEN' } }, [aws.origin]: { awsSigV4: scope } },
    }),
  );
  const env = {
    ORIGIN_TOKEN: TOKEN,
    AWS_ACCESS_KEY_ID: AWS_TEST.accessKeyId,
    AWS_SECRET_ACCESS_KEY: AWS_TEST.secretAccessKey,
    AWS_SESSION_TOKEN: AWS_TEST.sessionToken,
  };
  const result = await runLock({ manifest: join(dir, 'a2a.json'), json: true, verbose: false, cwd: dir, env });
  expect(result.exitCode, JSON.stringify(result.data)).toBe(0);
});

afterAll(async () => {
  await Promise.all([bearer?.close(), aws?.close(), agent?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** One SendMessage through the locked client; the agent echoes the text. */
async function ask(lock: Awaited<ReturnType<typeof loadLock>>, name: string, text: string): Promise<unknown> {
  const client = await lock.agent(name, 'market-size').createClient();
  const message = sdkText(text);
  return client.sendMessage({ message } as never);
}

describe('the runtime behind originAuth', () => {
  it('createClient() sends through the rebased URL with the bearer from the environment, read at request time', async () => {
    const env: NodeJS.ProcessEnv = { ORIGIN_TOKEN: TOKEN };
    const lock = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env });
    expect(lock.agent('hosted', 'market-size').plan.url).toBe(`${bearer.origin}/a2a/jsonrpc`);
    const before = bearer.requests.length;
    expect(JSON.stringify(await ask(lock, 'hosted', 'hello'))).toContain('echo: hello');
    const sent = bearer.requests.slice(before);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toContain('POST /a2a/jsonrpc');
    expect(sent.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    // A new value is read on the next request; the gateway refuses it (401) and nothing else is tried.
    env.ORIGIN_TOKEN = 'rotated-but-wrong';
    await expect(ask(lock, 'hosted', 'again')).rejects.toThrow();
    expect(bearer.requests.at(-1)!.headers.authorization).toBe('Bearer rotated-but-wrong');
    lock.close();
  });

  it('a provider per origin (loadLock({ originAuth })) wins over the environment', async () => {
    const seen: string[] = [];
    const send: typeof fetch = async (input, init) => {
      seen.push(
        `${String(input instanceof Request ? input.url : input)} ${new Headers(init?.headers).get('authorization') ?? '-'}`,
      );
      return fetch(input, init);
    };
    const lock = await loadLock({
      lockfile: join(dir, 'a2a.lock.json'),
      env: {},
      fetch: send,
      originAuth: { [bearer.origin]: () => TOKEN },
    });
    expect(JSON.stringify(await ask(lock, 'hosted', 'provided'))).toContain('echo: provided');
    expect(seen.some((s) => s === `${bearer.origin}/a2a/jsonrpc Bearer ${TOKEN}`)).toBe(true);
    lock.close();
  });

  it('an originAuth key no locked agent records (a misspelt origin, a trailing /) is refused by loadLock, naming the recorded ones', async () => {
    const lockfile = join(dir, 'a2a.lock.json');
    for (const key of [
      `${bearer.origin}/`,
      bearer.origin.replace('127.0.0.1', 'localhost'),
      'https://elsewhere.example',
    ])
      await expect(loadLock({ lockfile, env: {}, originAuth: { [key]: () => TOKEN } })).rejects.toMatchObject({
        code: 'usage',
        message: expect.stringContaining(`originAuth names ${JSON.stringify(key)}`),
      });
    await expect(loadLock({ lockfile, env: {}, originAuth: { [bearer.origin]: () => TOKEN } })).resolves.toBeDefined();
    await expect(
      loadLock({ lockfile, env: {}, originAuth: { [bearer.origin]: TOKEN as unknown as () => string } }),
    ).rejects.toMatchObject({ code: 'usage', message: expect.stringContaining('is not a function') });
  });

  it('the wrapped fetch adds the placement at its origin only: another origin, or plain http off loopback, gets nothing', async () => {
    const seen: Array<[string, string | null]> = [];
    const send: typeof fetch = async (input, init) => {
      seen.push([String(input), new Headers(init?.headers).get('x-serverless-authorization')]);
      return new Response('{}');
    };
    const auth = originAuthenticator(
      {
        'https://run.example': { header: { name: 'X-Serverless-Authorization', env: 'T', prefix: 'Bearer ' } },
        'http://127.0.0.1:9': { bearer: { env: 'T' } },
      },
      { env: { T: TOKEN } },
    );
    const wrapped = originAuthFetch(send, auth);
    await wrapped('https://run.example/a2a', { method: 'POST', body: '{}' });
    await wrapped('https://other.example/a2a', { method: 'POST', body: '{}' });
    await wrapped('http://run.example/a2a', { method: 'POST', body: '{}' });
    expect(seen).toEqual([
      ['https://run.example/a2a', `Bearer ${TOKEN}`],
      ['https://other.example/a2a', null],
      ['http://run.example/a2a', null],
    ]);
  });

  it("a placement never replaces the request's own credential header: refused before anything is sent", async () => {
    let sent = 0;
    const wrapped = originAuthFetch(
      async () => {
        sent++;
        return new Response('{}');
      },
      originAuthenticator({ 'https://run.example': { bearer: { env: 'T' } } }, { env: { T: TOKEN } }),
    );
    await expect(
      wrapped('https://run.example/a2a', {
        method: 'POST',
        body: '{}',
        headers: { Authorization: 'Bearer agent-scheme' },
      }),
    ).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringContaining("would replace the request's own Authorization header"),
    });
    expect(sent).toBe(0);
  });

  it('a value with a line break is refused without quoting it', async () => {
    const auth = originAuthenticator(
      { 'https://run.example': { bearer: { env: 'T' } } },
      { env: { T: 'sec\r\nX-Evil: 1' } },
    );
    const error = await auth
      .headersFor({ url: new URL('https://run.example/a2a'), method: 'GET', headers: {}, body: undefined })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'usage',
      message: 'the originAuth value for https://run.example (T) contains a line break or control character',
    });
  });

  it('AWS SigV4 at run time: the gateway verifies the signature it recomputes', async () => {
    const lock = await loadLock({
      lockfile: join(dir, 'a2a.lock.json'),
      env: {},
      originAuth: { [aws.origin]: () => ({ ...AWS_TEST }) },
    });
    const refused = aws.refused;
    expect(JSON.stringify(await ask(lock, 'core', 'signed'))).toContain('echo: signed');
    expect(aws.refused).toBe(refused);
    expect(String(aws.requests.at(-1)!.headers.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/bedrock-agentcore\/aws4_request/,
    );
    lock.close();
  });
});
