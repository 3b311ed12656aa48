/**
 * A header record with an own `__proto__` key (what JSON.parse, an object spread or a computed key
 * makes): copied into the headers to send by assignment, it would set their prototype, and an
 * iterable prototype made fetch read them as pairs, so the locked A2A-Version and extensions header
 * were replaced by the record's pairs (found by an attack on c978501). Such a header is a plan
 * violation in every form, and nothing is sent.
 */

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageRequest } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/negotiate/types.js';
import { enforcingFetch } from '../../src/runtime/enforce.js';
import { sampleCard } from '../helpers/agents.js';
import { type LockedAgentProject, startLockedAgent } from '../helpers/locked-agent.js';

let server: http.Server;
let url = '';
const raw: string[][] = [];

let project: LockedAgentProject;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    raw.push(req.rawHeaders);
    res.setHeader('content-type', 'application/json');
    res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;

  project = await startLockedAgent(
    {
      card: (origin) => {
        const { securitySchemes: _s, securityRequirements: _r, ...card } = sampleCard(origin);
        return card;
      },
    },
    { agents: (a) => ({ open: { card: a.origin, skills: ['market-size'] } }) },
  );
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await project?.close();
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
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    out[name] = [...(out[name] ?? []), rawHeaders[i + 1]!];
  }
  return out;
}

const body = '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}';

describe('a header named __proto__', () => {
  it('JSON data alone (no code): a plan violation, nothing sent, in a record, pairs or Headers', async () => {
    const headers = JSON.parse(
      '{"__proto__":[["A2A-Version","0.3"],["A2A-Extensions","urn:not-locked"],["Authorization","Bearer injected"]]}',
    );
    const before = raw.length;
    const f = openFetch();
    for (const given of [headers, [['__proto__', 'x']], new Headers([['__proto__', 'x']])])
      await expect(f(url, { method: 'POST', headers: given, body })).rejects.toMatchObject({
        code: 'plan-violation',
        message: expect.stringMatching(/a header named "__proto__" is refused/),
      });
    expect(raw.length).toBe(before);
  });

  it('through createClient(): serviceParameters parsed from JSON are refused, and the agent gets nothing', async () => {
    const lock = await project.load({ env: {} });
    const client = await lock.agent('open', 'market-size').createClient();
    const from = project.agent.requests.length;
    const serviceParameters = JSON.parse('{"__proto__":[["A2A-Version","0.3"],["X-Injected","yes"]]}');
    await expect(
      client.sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
        }),
        { serviceParameters },
      ),
    ).rejects.toMatchObject({ code: 'plan-violation' });
    expect(project.agent.requests.slice(from).filter((r) => r.path.startsWith('/a2a'))).toEqual([]);
  });

  it('other headers reach the wire as the text of the value read at the check', async () => {
    const before = raw.length;
    let reads = 0;
    const headers = {
      'X-Count': 7,
      get 'X-Once'() {
        reads++;
        return reads === 1 ? 'first' : 'second';
      },
    } as unknown as Record<string, string>;
    await (await openFetch()(url, { method: 'POST', headers, body })).text();
    const sent = byName(raw[before]!);
    expect(sent['x-count']).toEqual(['7']);
    expect(sent['x-once']).toEqual(['first']);
    expect(sent['a2a-version']).toEqual(['1.0']);
    expect(sent['a2a-extensions']).toEqual(['urn:locked']);
  });
});
