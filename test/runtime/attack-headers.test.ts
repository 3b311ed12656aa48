/**
 * Attack on c978501 (a plain header record passed to the enforcing fetch is read as given): a
 * record with an OWN `__proto__` key (what JSON.parse, an object spread or a computed key makes)
 * whose value is an object. checkHeaders copies it with `planned[name] = value`, which for
 * `__proto__` SETS THE PROTOTYPE of the headers to send. An array (or any iterable) as that
 * prototype makes `planned` iterable, and fetch's HeadersInit conversion then takes it as a
 * sequence of pairs: the locked A2A-Version and extensions header are dropped and the pairs from
 * the array are sent instead. Before c978501 every value was String()ed ('[object Object]'), and
 * assigning a string to `__proto__` is a no-op. A plan with a credential is not affected
 * (applyCredentials spreads the record, which drops the prototype).
 */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageRequest } from '@a2a-js/sdk';
import type { Plan } from '../../src/negotiate/types.js';
import { enforcingFetch } from '../../src/runtime/enforce.js';
import { loadLock } from '../../src/runtime/index.js';
import { sampleCard, startAgent, type StartedAgent } from '../helpers/agents.js';
import { lockProject } from '../helpers/lock-project.js';

let server: http.Server;
let url = '';
const raw: string[][] = [];

let agent: StartedAgent;
let dir: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    raw.push(req.rawHeaders);
    res.setHeader('content-type', 'application/json');
    res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;

  agent = await startAgent({
    card: (origin) => {
      const { securitySchemes: _s, securityRequirements: _r, ...card } = sampleCard(origin);
      return card;
    },
  });
  dir = await mkdtemp(join(tmpdir(), 'a2a-attack-headers-'));
  await lockProject(dir, {
    profile: {
      bindings: ['JSONRPC'],
      versions: ['1.0'],
      accepts: ['application/json', 'text/plain'],
      sends: ['text/plain'],
      streaming: false,
    },
    agents: { open: { card: agent.origin, skills: ['market-size'] } },
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await agent?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A 1.0 JSON-RPC plan with no security requirement (a public agent) and one locked extension. */
function openFetch() {
  const plan = {
    url,
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.0',
    security: {},
    acceptedOutputModes: ['text/plain'],
    delivery: 'poll',
    extensions: ['urn:locked'],
  } as unknown as Plan;
  return enforcingFetch({
    agent: 'x',
    skill: 's',
    plan,
    iface: plan,
    inputModes: ['text/plain'],
    placements: async () => [],
    security: false,
    send: fetch,
  });
}

/** Header name → values, names lower-cased, from node's rawHeaders. */
function byName(rawHeaders: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) (out[rawHeaders[i]!.toLowerCase()] ??= []).push(rawHeaders[i + 1]!);
  return out;
}

const body = '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}';

describe('a header record with an own __proto__ key', () => {
  it('JSON data alone (no code): the locked A2A-Version and extensions never reach the wire, the record’s pairs do', async () => {
    // e.g. extra headers read from a config file or forwarded from a request: plain JSON.
    const headers = JSON.parse(
      '{"__proto__":[["A2A-Version","0.3"],["A2A-Extensions","urn:not-locked"],["Authorization","Bearer injected"]]}',
    );
    const before = raw.length;
    let error: unknown;
    try {
      await (await openFetch()(url, { method: 'POST', headers, body })).text();
    } catch (e) {
      error = e;
    }
    const sent = raw.length > before ? byName(raw[before]!) : undefined;
    // Fail-closed would be: a plan violation and nothing sent, or the locked headers only.
    if (sent) {
      expect(sent['a2a-version']).toEqual(['1.0']);
      expect(sent['a2a-extensions']).toEqual(['urn:locked']);
    } else {
      expect(error).toMatchObject({ code: 'plan-violation' });
    }
  });

  it('through createClient(): serviceParameters parsed from JSON put A2A-Version 0.3 on the wire of a 1.0 plan', async () => {
    const lock = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: {} });
    const client = await lock.agent('open', 'market-size').createClient();
    const from = agent.requests.length;
    const serviceParameters = JSON.parse('{"__proto__":[["A2A-Version","0.3"],["X-Injected","yes"]]}');
    await client
      .sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
        }),
        { serviceParameters },
      )
      .catch(() => undefined);
    const rpc = agent.requests.slice(from).filter((r) => r.path.startsWith('/a2a'));
    expect(rpc.length).toBeGreaterThan(0);
    for (const r of rpc) {
      expect(r.headers['a2a-version']).toBe('1.0');
      expect(r.headers['x-injected']).toBeUndefined();
    }
  });
});
