/**
 * The enforcing fetch fails closed (issue 15): a JSON-RPC batch, a body without one named call,
 * and a method the enforcement does not check (a spelling it does not know, or a known non-send
 * method carrying a message or send configuration) are violations with nothing sent; on 0.3
 * HTTP+JSON both `message` and `request`, and both `parts` and `content`, are checked; a part is
 * classed by what the server will read (`{text: null, data}` is data).
 *
 * Against a real @a2a-js/sdk agent (legacy compat on, so it serves 0.3 HTTP+JSON too), whose
 * echo shows which fields it read.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LoadLockOptions, loadLock } from '../../src/runtime/index.js';
import { type AgentCard, type StartedAgent, sampleCard } from '../helpers/agents.js';
import { type LockedAgentProject, startLockedAgent } from '../helpers/locked-agent.js';

const TOKEN = 'fc-token';
let project: LockedAgentProject;
let agent: StartedAgent;
const sent: string[] = [];

function cardOf(origin: string): AgentCard {
  const card = sampleCard(origin, {}, { legacy: true });
  return {
    ...card,
    supportedInterfaces: [
      ...card.supportedInterfaces,
      { url: `${origin}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ],
  };
}

function options(): LoadLockOptions {
  const recording: typeof fetch = async (input, init) => {
    sent.push(String(input));
    return fetch(input, init);
  };
  return { lockfile: project.lockfile, env: { FC_TOKEN: TOKEN }, fetch: recording };
}

beforeAll(async () => {
  const credentials = { bearer: { env: 'FC_TOKEN' } };
  project = await startLockedAgent(
    { card: cardOf, legacyCompat: true, bearerToken: TOKEN },
    {
      profile: {
        bindings: ['JSONRPC', 'HTTP+JSON'],
        versions: ['1.0', '0.3'],
        accepts: ['application/json', 'text/plain'],
        sends: ['text/plain'],
        streaming: false,
      },
      agents: (a) => ({
        poll: {
          card: a.origin,
          skills: ['market-size'],
          credentials,
          profile: { bindings: ['JSONRPC'], versions: ['1.0'] },
        },
        rest03: {
          card: a.origin,
          skills: ['market-size'],
          credentials,
          profile: { bindings: ['HTTP+JSON'], versions: ['0.3'] },
        },
      }),
    },
  );
  agent = project.agent;
});

afterAll(() => project?.close());

beforeEach(() => {
  sent.length = 0;
});

const msg10 = (parts: unknown[]) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts });
const rpc = (method: unknown, params?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params !== undefined ? { params } : {}) });
const post = (body: string) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('JSON-RPC: one named call of the locked version, or nothing is sent', () => {
  it.each([
    [
      'a batch holding a stream on a poll plan',
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: msg10([{ text: 'x' }]) } },
      ]),
      /JSON-RPC batch .* refused/,
    ],
    ['an empty batch', '[]', /JSON-RPC batch/],
    [
      'a method spelling the enforcement does not know (sendStreamingMessage)',
      rpc('sendStreamingMessage', { message: msg10([{ text: 'x' }]) }),
      /"sendStreamingMessage" is not a JSON-RPC method of the locked version 1\.0/,
    ],
    [
      'no method',
      JSON.stringify({ jsonrpc: '2.0', id: 1, params: { message: msg10([{ text: 'x' }]) } }),
      /no "method" string/,
    ],
    ['a method that is not a string', rpc(['SendStreamingMessage']), /no "method" string/],
    ['a body that is not an object', '"SendStreamingMessage"', /not an object/],
    [
      'params that are not an object',
      rpc('SendMessage', [msg10([{ text: 'x' }])]),
      /params of SendMessage are not an object/,
    ],
    [
      'a known non-send method carrying a push config',
      rpc('GetTask', { id: 't', configuration: { taskPushNotificationConfig: { url: 'https://hook.example/x' } } }),
      /carrying "configuration"/,
    ],
    [
      'a known non-send method carrying a message',
      rpc('CancelTask', { id: 't', message: msg10([{ raw: 'AAAA', mediaType: 'image/png' }]) }),
      /carrying "message"/,
    ],
  ])('%s is a violation, nothing sent', async (_what, body, pattern) => {
    const lock = await loadLock(options());
    const poll = lock.agent('poll', 'market-size');
    const from = agent.requests.length;
    await expect(poll.fetch(poll.plan.url, post(body))).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(pattern),
    });
    expect(sent).toEqual([]);
    expect(agent.requests.length).toBe(from);
  });

  it('a JSON-RPC request without a body is a violation; a known method with only its own fields goes through checked', async () => {
    const lock = await loadLock(options());
    const poll = lock.agent('poll', 'market-size');
    await expect(poll.fetch(poll.plan.url, { method: 'GET' })).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(/without a body/),
    });
    expect(sent).toEqual([]);
    const res = await poll.fetch(poll.plan.url, post(rpc('GetTask', { id: 'no-such-task' })));
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(await res.json())).toMatch(/-32001|not found/i);
  });

  it('a part {text: null, data: {...}} is data, which the text/plain skill does not take; {text: "x"} goes through', async () => {
    const lock = await loadLock(options());
    const poll = lock.agent('poll', 'market-size');
    expect(poll.plan.protocolVersion).toBe('1.0');
    await expect(
      poll.fetch(
        poll.plan.url,
        post(rpc('SendMessage', { message: msg10([{ text: null, data: { secret: 'plan' } }]) })),
      ),
    ).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(/part of type application\/json is not in the locked input modes \(text\/plain\)/),
    });
    expect(sent).toEqual([]);
    const ok = await poll.fetch(poll.plan.url, post(rpc('SendMessage', { message: msg10([{ text: 'fine' }]) })));
    expect(JSON.stringify(await ok.json())).toContain('echo: fine');
  });
});

describe('0.3 HTTP+JSON: every field the server reads is checked', () => {
  const legacyMessage = (fields: Record<string, unknown>) => ({
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    ...fields,
  });

  it('the SDK reads message.content: a text part there is echoed (so content is what it sees)', async () => {
    const lock = await loadLock(options());
    const rest = lock.agent('rest03', 'market-size');
    expect(rest.plan).toMatchObject({ protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' });
    const res = await rest.fetch(
      `${rest.plan.url}/v1/message:send`,
      post(JSON.stringify({ message: legacyMessage({ parts: [], content: [{ text: 'from content' }] }) })),
    );
    expect(JSON.stringify(await res.json())).toContain('echo: from content');
  });

  it.each([
    [
      'parts: [] hiding an image in content',
      {
        message: legacyMessage({
          parts: [],
          content: [{ file: { fileWithUri: 'https://x.example/a.png', mimeType: 'image/png' } }],
        }),
      },
      /image\/png is not in the locked input modes/,
    ],
    [
      'a text message hiding data in content',
      { message: legacyMessage({ parts: [{ text: 'ok' }], content: [{ data: { data: { a: 1 } } }] }) },
      /application\/json is not in the locked input modes/,
    ],
    [
      'a data part under request',
      { request: legacyMessage({ content: [{ text: null, data: { data: { a: 1 } } }] }) },
      /application\/json is not in the locked input modes/,
    ],
    ['a body that is not an object', [{ message: legacyMessage({ content: [{ text: 'x' }] }) }], /not a JSON object/],
  ])('%s is a violation, nothing sent', async (_what, body, pattern) => {
    const lock = await loadLock(options());
    const rest = lock.agent('rest03', 'market-size');
    const from = agent.requests.length;
    await expect(rest.fetch(`${rest.plan.url}/v1/message:send`, post(JSON.stringify(body)))).rejects.toMatchObject({
      code: 'plan-violation',
      message: expect.stringMatching(pattern),
    });
    expect(sent).toEqual([]);
    expect(agent.requests.length).toBe(from);
  });
});
