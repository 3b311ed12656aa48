/**
 * The runtime's errors and events carry no echo of the credential (issue 15): an agent that
 * quotes the Authorization header back (raw, percent-encoded and lower-cased, base64) in a
 * classified A2A error, an unclassified one, or a non-A2A 500 leaves AgentDegradedError (and its
 * cause), AgentCallError (and its cause) and the `degraded` / `fallback` events without any
 * spelling of the token.
 *
 * The plans are locked against a real @a2a-js/sdk agent; the echoing answers come from node:http
 * servers the send fetch is pointed at (an HTTP-layer fault: the body an agent answers).
 */

import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { SendMessageRequest } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentCallError,
  AgentDegradedError,
  type DegradedEvent,
  type FallbackEvent,
  loadLock,
} from '../../src/runtime/index.js';
import { sampleCard, startAgent } from '../helpers/agents.js';
import { faultServers } from '../helpers/http.js';
import { JSONRPC_PROFILE, lockProject } from '../helpers/lock-project.js';
import { type LockedAgentProject, startLockedAgent } from '../helpers/locked-agent.js';
import { expectNoCutShortEcho, expectSecretContained } from '../helpers/secrets.js';

/** Characters every encoding changes, mixed case. */
const TOKEN = 'rt-Secret/Tok+en=9Zq';
let project: LockedAgentProject;
const faults = faultServers();

/** How the fault agent quotes the Authorization header it got. */
function echo(req: http.IncomingMessage): string {
  const auth = String(req.headers.authorization ?? '');
  const token = auth.replace(/^Bearer\s+/i, '');
  return `bad credential ${auth} / ${encodeURIComponent(auth).toLowerCase()} / ${token.toUpperCase()} / ${Buffer.from(token).toString('base64')}`;
}

/** A JSON-RPC agent answering every call with error `code`, its message quoting the credential. */
function rpcError(code: number): http.RequestListener {
  return (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const id = (() => {
        try {
          return JSON.parse(body).id ?? 1;
        } catch {
          return 1;
        }
      })();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', id, error: { code, message: echo(req), data: { headers: req.headers } } }),
      );
    });
  };
}

/** A node:http fault server (closed after the file): its origin. */
async function fault(handler: http.RequestListener): Promise<string> {
  return (await faults.start(handler)).origin;
}

/** A send fetch that delivers every request to `origin` instead (same path). */
function to(origin: string): typeof fetch {
  return async (input, init) => fetch(`${origin}${new URL(String(input)).pathname}`, init);
}

const plain = (text: string) =>
  SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });

/** Everything a value exposes: inspect at depth, own fields (non-enumerable too), the cause chain. */
function exposed(value: unknown): string {
  const parts: string[] = [inspect(value, { depth: 12, showHidden: true })];
  for (
    let v = value as { message?: unknown; stack?: unknown; cause?: unknown } | undefined, i = 0;
    v && i < 6;
    v = v.cause as typeof v, i++
  ) {
    parts.push(String(v.message), String(v.stack), JSON.stringify(v, Object.getOwnPropertyNames(v)));
  }
  return parts.join('\n');
}

beforeAll(async () => {
  project = await startLockedAgent(
    { card: (origin) => sampleCard(origin, {}, { legacy: true }), legacyCompat: true, bearerToken: TOKEN },
    {
      profile: { ...JSONRPC_PROFILE, versions: ['1.0', '0.3'] },
      agents: (a) => ({
        research: { card: a.origin, skills: ['market-size'], credentials: { bearer: { env: 'RT_TOKEN' } } },
      }),
    },
  );
});

afterAll(async () => {
  await project?.close();
  await faults.close();
});

async function failing(origin: string) {
  const lock = await project.load({ env: { RT_TOKEN: TOKEN }, fetch: to(origin) });
  const degraded: DegradedEvent[] = [];
  const fallbacks: FallbackEvent[] = [];
  lock.on('degraded', (e: DegradedEvent) => degraded.push(e));
  lock.on('fallback', (e: FallbackEvent) => fallbacks.push(e));
  const research = lock.agent('research', 'market-size');
  const client = await research.createClient();
  const error = await client.sendMessage(plain('hi')).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, degraded, fallbacks, plan: research.plan };
}

describe('runtime errors and events carry no echo of the credential', () => {
  it('UnsupportedOperation quoting the token: AgentDegradedError, its cause and the degraded event are redacted', async () => {
    const { error, degraded } = await failing(await fault(rpcError(-32004)));
    expect(error).toBeInstanceOf(AgentDegradedError);
    expect(degraded).toHaveLength(1);
    // The cause still says what the agent answered, with the credential masked.
    expect(String((error as Error & { cause: Error }).cause.message)).toMatch(/\*\*\*/);
    await expectSecretContained(TOKEN, { texts: { error: exposed(error), 'degraded event': exposed(degraded) } });
  });

  it('VersionNotSupported quoting the token, then the locked 0.3 fallback too: fallback and degraded events and the error are redacted', async () => {
    const { error, degraded, fallbacks, plan } = await failing(await fault(rpcError(-32009)));
    expect(plan.fallbacks?.interfaces.some((i) => i.protocolVersion === '0.3')).toBe(true);
    expect(fallbacks).toHaveLength(1);
    expect(error).toBeInstanceOf(AgentDegradedError);
    expect(degraded).toHaveLength(1);
    await expectSecretContained(TOKEN, {
      texts: { error: exposed(error), 'fallback event': exposed(fallbacks), 'degraded event': exposed(degraded) },
    });
  });

  it('an unclassified JSON-RPC error and a non-A2A 500 quoting the token: AgentCallError and its cause are redacted', async () => {
    const rpc = await failing(await fault(rpcError(-32001)));
    const status = await failing(
      await fault((req, res) => {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(`internal error: ${echo(req)}`);
      }),
    );
    for (const { error } of [rpc, status]) {
      expect(error).toBeInstanceOf(AgentCallError);
      expect(exposed(error)).toMatch(/\*\*\*/);
    }
    await expectSecretContained(TOKEN, {
      texts: { 'rpc error': exposed(rpc.error), '500 error': exposed(status.error) },
    });
  });
});

describe('a cut-short echo of the credential is redacted too', () => {
  /** The token with its last 3 characters cut (and with its first 3 cut), raw, upper-cased and percent-encoded lower-case. */
  function cutShort(req: http.IncomingMessage): string {
    const token = String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
    const head = token.slice(0, -3);
    const tail = token.slice(3);
    return `bad credential ${head}… / ${head.toUpperCase()} / ${encodeURIComponent(head).toLowerCase()} / …${tail}`;
  }

  it('an agent echoing all but the last (or first) few characters of the token: AgentCallError, its cause and events carry no run of 12 of them', async () => {
    const origin = await fault((req, res) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`internal error: ${cutShort(req)}`);
    });
    const { error, degraded, fallbacks } = await failing(origin);
    expect(error).toBeInstanceOf(AgentCallError);
    expect(exposed(error)).toMatch(/bad credential \*\*\*/);
    await expectNoCutShortEcho(TOKEN, {
      error: exposed(error),
      degraded: exposed(degraded),
      fallbacks: exposed(fallbacks),
    });
  });

  it("agent.fetch: the caller's own fetch failing with the request URL in its message (apiKey in the query, percent-encoded) has it redacted in the cause", async () => {
    const KEY = 'qk-Secret/Key+9=Zx&long';
    const keyed = await startAgent({
      card: (o) =>
        sampleCard(o, {
          securitySchemes: { key: { apiKeySecurityScheme: { location: 'query', name: 'api_key' } } },
          securityRequirements: [{ schemes: { key: { list: [] } } }],
        }),
    });
    const keyDir = await mkdtemp(join(tmpdir(), 'a2a-redaction-key-'));
    try {
      await lockProject(keyDir, {
        profile: JSONRPC_PROFILE,
        agents: { keyed: { card: keyed.origin, skills: ['market-size'], credentials: { key: { env: 'API_KEY' } } } },
      });
      const failingFetch: typeof fetch = async (input) => {
        const url = String(input);
        // As a proxy library or a wrapped fetch might: the URL as sent, and again cut short.
        throw new TypeError(`fetch failed for ${url} (retrying ${url.slice(0, -4)})`, {
          cause: new Error(`connect ${decodeURIComponent(url)}`),
        });
      };
      const lock = await loadLock({
        lockfile: join(keyDir, 'a2a.lock.json'),
        env: { API_KEY: KEY },
        fetch: failingFetch,
      });
      const agentFetch = lock.agent('keyed', 'market-size').fetch;
      const error = await agentFetch(`${keyed.origin}/a2a/jsonrpc`, {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}',
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: 'FetchError', code: 'unreachable' });
      const cause = (error as { cause?: Error }).cause;
      expect(cause).toBeInstanceOf(TypeError);
      expect(cause?.message).toMatch(/fetch failed for .*api_key=\*\*\*/);
      await expectNoCutShortEcho(KEY, { error: exposed(error) });
    } finally {
      await keyed.close();
      await rm(keyDir, { recursive: true, force: true });
    }
  });
});
