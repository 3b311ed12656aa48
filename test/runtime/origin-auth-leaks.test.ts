/**
 * The runtime keeps the platform credential (`originAuth`) out of its errors and events: a gateway
 * in front of a real SDK agent that answers a refusal quoting the header it was sent gets the value
 * shown as `***`, as the card's own credentials are.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runLock } from '../../src/commands/lock.js';
import { loadLock } from '../../src/runtime/index.js';
import { type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';
import { type Gateway, startGateway } from '../helpers/gateway.js';
import { sdkText } from '../helpers/sdk-message.js';
import { errorText } from '../helpers/secrets.js';

const TOKEN = 'platform-runtime-t0ken-Secret-55';
const PROFILE = {
  bindings: ['JSONRPC'],
  versions: ['1.0'],
  accepts: ['text/plain', 'application/json'],
  sends: ['text/plain'],
  streaming: false,
};
let dir: string;
let agent: StartedAgent;
let gateway: Gateway;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-origin-auth-leaks-'));
  agent = await startAgent({
    card: (origin: string) =>
      sampleCard(origin.replace('127.0.0.1', '0.0.0.0'), { securitySchemes: {}, securityRequirements: [] }),
  });
  gateway = await startGateway(agent.origin, { header: 'x-serverless-authorization', value: `Bearer ${TOKEN}` });
  await writeFile(
    join(dir, 'a2a.json'),
    JSON.stringify({
      profile: PROFILE,
      agents: {
        hosted: { card: `${gateway.origin}/v1/card`, cardPath: '', rebaseInterfaces: true, skills: ['market-size'] },
      },
      originAuth: {
        [gateway.origin]: { header: { name: 'X-Serverless-Authorization', env: 'ORIGIN_TOKEN', prefix: 'Bearer ' } },
      },
    }),
  );
  const result = await runLock({
    manifest: join(dir, 'a2a.json'),
    json: true,
    verbose: false,
    cwd: dir,
    env: { ORIGIN_TOKEN: TOKEN },
  });
  expect(result.exitCode, JSON.stringify(result.data)).toBe(0);
});

afterAll(async () => {
  await Promise.all([gateway?.close(), agent?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('a gateway refusal that quotes the platform header: the error and the degraded event show ***', async () => {
  gateway.setHandler((req: http.IncomingMessage, res: http.ServerResponse) => {
    req.resume();
    res
      .writeHead(403, { 'content-type': 'text/plain' })
      .end(`forbidden: ${String(req.headers['x-serverless-authorization'])} may not call this service`);
  });
  const lock = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: { ORIGIN_TOKEN: TOKEN } });
  const events: unknown[] = [];
  lock.on('degraded', (e) => events.push(e));
  const client = await lock.agent('hosted', 'market-size').createClient();
  const message = sdkText('x');
  const error = await client.sendMessage({ message } as never).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  // The gateway did receive it (the request went), and its words are kept, the value not.
  expect(gateway.requests.at(-1)!.headers['x-serverless-authorization']).toBe(`Bearer ${TOKEN}`);
  expect(errorText(error)).toContain('forbidden');
  expect(errorText(error)).not.toContain(TOKEN);
  for (const event of events) expect(errorText((event as { error: unknown }).error)).not.toContain(TOKEN);
  lock.close();
});

it("the application's own fetch failing with an error that quotes the request headers: agent.fetch and createClient() show ***", async () => {
  const quoting: typeof fetch = async (input, init) => {
    throw new Error(
      `could not send ${String(input)} with ${JSON.stringify(Object.fromEntries(new Headers(init?.headers)))}`,
    );
  };
  const lock = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: { ORIGIN_TOKEN: TOKEN }, fetch: quoting });
  const agentHandle = lock.agent('hosted', 'market-size');
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
  });
  const direct = await agentHandle
    .fetch(agentHandle.plan.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    .catch((e: unknown) => e);
  expect(direct).toBeInstanceOf(Error);
  expect(errorText(direct)).toContain('could not send');
  expect(errorText(direct)).not.toContain(TOKEN);
  const client = await agentHandle.createClient();
  const message = sdkText('x');
  const viaClient = await client.sendMessage({ message } as never).catch((e: unknown) => e);
  expect(errorText(viaClient)).not.toContain(TOKEN);
  lock.close();
});
