/**
 * The fault suite (docs/explanation/security-model.md, "Reliability"): agents that misbehave on purpose, over real sockets on
 * 127.0.0.1. One `a2a lock` run meets every failing case at once; each agent gets its documented
 * exit code and a one-line message naming the agent and the URL, and the lockfile stays
 * byte-identical. A second run meets the cases that must work: a cross-origin redirect of the
 * public card, a card with 10,000 skills, and an https agent reached through `HTTPS_PROXY`.
 */
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectProxy } from '../helpers/proxy.js';
import { TEST_CERT, TEST_KEY } from '../helpers/tls.js';
import {
  closedPort,
  type HttpServer,
  jsonOf,
  manifest,
  readLock,
  readLockBytes,
  removeDir,
  research,
  runCli,
  sampleCard,
  show,
  startHttp,
  tempDir,
  writeManifest,
} from './helpers.js';

interface Case {
  /** Agent name. */
  name: string;
  /** Card location: a path on the faulty server, or a full URL. */
  card: string;
  exitCode: number;
  error: string;
  detail: RegExp;
}

let faulty: HttpServer;
let tls: https.Server;
let tlsOrigin: string;
let other: HttpServer;
let proxy: http.Server;
let proxyOrigin: string;
let tunnels: string[];
const dirs: string[] = [];

function card(res: http.ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'Content-Type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** Every fault, by the first path segment. */
function fault(req: http.IncomingMessage, res: http.ServerResponse): void {
  const [, kind = '', arg = ''] = (req.url ?? '').split('/');
  switch (kind) {
    case 'good':
      return void card(res, sampleCard(faulty.origin));
    case 'slow-headers':
      return; // never answers
    case 'trickle': {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case 'reset': {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '5000' });
      res.write('{"name": "half a card');
      setTimeout(() => res.socket?.resetAndDestroy(), 20);
      return;
    }
    case 'status': {
      res.writeHead(Number(arg), {
        'Content-Type': 'application/json',
        'Retry-After': '0',
        'WWW-Authenticate': 'Bearer',
      });
      return void res.end('{"error": "no"}');
    }
    case 'loop':
      res.writeHead(302, { Location: req.url });
      return void res.end();
    case 'hops': {
      const n = Number(arg);
      res.writeHead(302, { Location: n > 0 ? `/hops/${n - 1}/card.json` : '/good/card.json' });
      return void res.end();
    }
    case 'huge': {
      // Chunked, no Content-Length: the reader must stop at 1 MiB itself.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"pad": "');
      const chunk = 'x'.repeat(64 * 1024);
      const push = (left: number): void => {
        if (left === 0 || res.destroyed) return void res.end('"}');
        if (res.write(chunk)) setImmediate(() => push(left - 1));
        else res.once('drain', () => push(left - 1));
      };
      return void push(48); // 3 MiB
    }
    case 'html':
      res.writeHead(200, { 'Content-Type': 'text/html' });
      return void res.end('<!doctype html><p>agent</p>');
    case 'invalid-json':
      return void card(res, '{"name": "x",');
    case 'deep':
      return void card(res, `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`);
    case 'empty':
      return void card(res, '');
    default:
      res.writeHead(404);
      res.end();
  }
}

beforeAll(async () => {
  faulty = await startHttp(fault);
  other = await startHttp((_req, res) => card(res, sampleCard(other.origin)));
  tls = https.createServer({ key: TEST_KEY, cert: TEST_CERT }, (req, res) => {
    if (req.url?.startsWith('/down')) {
      res.writeHead(301, { Location: `${faulty.origin}/good/card.json` });
      return void res.end();
    }
    card(res, sampleCard(tlsOrigin));
  });
  tls.listen(0, '127.0.0.1');
  await once(tls, 'listening');
  tlsOrigin = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
  // `agent.test` is a name only the proxy resolves (to the TLS server): loopback is never proxied.
  ({ server: proxy, origin: proxyOrigin, tunnels } = await startConnectProxy({ 'agent.test': '127.0.0.1' }));
});

afterAll(async () => {
  for (const server of [tls, proxy]) {
    server.closeAllConnections();
    server.close();
  }
  await Promise.all([faulty.close(), other.close(), ...dirs.map(removeDir)]);
});

async function project(agents: Record<string, string>): Promise<string> {
  const dir = await tempDir();
  dirs.push(dir);
  await writeManifest(
    dir,
    manifest(Object.fromEntries(Object.entries(agents).map(([name, location]) => [name, research(location)]))),
  );
  return dir;
}

describe('fault suite', () => {
  it('every failing agent gets its exit code and a one-line message naming it and its URL; the lockfile is byte-identical', async () => {
    const port = await closedPort();
    const f = faulty.origin;
    const cases: Case[] = [
      {
        name: 'slow-headers',
        card: `${f}/slow-headers/card.json`,
        exitCode: 5,
        error: 'timeout',
        detail: /no card within 1500 ms/,
      },
      {
        name: 'trickle',
        card: `${f}/trickle/card.json`,
        exitCode: 5,
        error: 'timeout',
        detail: /no card within 1500 ms/,
      },
      {
        name: 'reset',
        card: `${f}/reset/card.json`,
        exitCode: 3,
        error: 'unreachable',
        detail: /connection reset|connection closed|truncated/,
      },
      {
        name: 'refused',
        card: `http://127.0.0.1:${port}/card.json`,
        exitCode: 3,
        error: 'unreachable',
        detail: /connection refused \(ECONNREFUSED\)/,
      },
      {
        name: 'dns',
        card: 'https://agent.invalid/card.json',
        exitCode: 3,
        error: 'unreachable',
        detail: /host not found|DNS lookup failed/,
      },
      {
        name: 'status-500',
        card: `${f}/status/500/card.json`,
        exitCode: 3,
        error: 'unreachable',
        detail: /unexpected status 500 after 2 retries/,
      },
      {
        name: 'status-503',
        card: `${f}/status/503/card.json`,
        exitCode: 3,
        error: 'unreachable',
        detail: /unexpected status 503 after 2 retries/,
      },
      {
        name: 'not-found',
        card: `${f}/missing`,
        exitCode: 3,
        error: 'unreachable',
        detail: /agent-card\.json: not found \(404\)/,
      },
      {
        name: 'status-401',
        card: `${f}/status/401/card.json`,
        exitCode: 4,
        error: 'auth-refused',
        detail: /authentication refused \(401\)/,
      },
      {
        name: 'status-403',
        card: `${f}/status/403/card.json`,
        exitCode: 4,
        error: 'auth-refused',
        detail: /authentication refused \(403\)/,
      },
      {
        name: 'redirect-loop',
        card: `${f}/loop/card.json`,
        exitCode: 3,
        error: 'unreachable',
        detail: /too many redirects \(more than 5\)/,
      },
      {
        name: 'six-redirects',
        card: `${f}/hops/5/card.json`,
        exitCode: 3,
        error: 'unreachable',
        detail: /too many redirects \(more than 5\)/,
      },
      {
        name: 'huge',
        card: `${f}/huge/card.json`,
        exitCode: 1,
        error: 'card-invalid',
        detail: /card larger than 1048576 bytes/,
      },
      {
        name: 'html',
        card: `${f}/html/card.json`,
        exitCode: 1,
        error: 'card-invalid',
        detail: /served text\/html, not JSON/,
      },
      {
        name: 'invalid-json',
        card: `${f}/invalid-json/card.json`,
        exitCode: 1,
        error: 'card-invalid',
        detail: /invalid JSON/,
      },
      {
        name: 'deep',
        card: `${f}/deep/card.json`,
        exitCode: 1,
        error: 'card-invalid',
        detail: /nested deeper than 64 levels/,
      },
      { name: 'empty', card: `${f}/empty/card.json`, exitCode: 1, error: 'card-invalid', detail: /empty body/ },
      {
        name: 'tls',
        card: `${tlsOrigin}/card.json`,
        exitCode: 3,
        error: 'unreachable',
        detail: /TLS error \([A-Z_]+\)/,
      },
    ];
    const dir = await project({ good: `${f}/good/card.json` });
    const locked = await runCli(['lock'], { cwd: dir });
    expect(locked.code, show(locked)).toBe(0);
    const baseline = (await readLockBytes(dir))!;
    await writeManifest(
      dir,
      manifest({
        good: research(`${f}/good/card.json`),
        ...Object.fromEntries(cases.map((c) => [c.name, research(c.card)])),
      }),
    );
    const before = faulty.requests.length;
    const args = ['lock', '--timeout', '1500', '--concurrency', '20'];
    // The JSON run also asks again only once (--retries 1), the human run twice (the default).
    const [human, json] = await Promise.all([
      runCli(args, { cwd: dir }),
      runCli([...args, '--json', '--retries', '1'], { cwd: dir }),
    ]);
    expect(human.code, show(human)).toBe(1); // the lowest non-zero code wins (an invalid card: 1)
    expect(json.code, show(json)).toBe(1);
    const agents = jsonOf(json).agents as Record<
      string,
      { exitCode: number; error: { code: string; message: string } }
    >;
    // Every agent with its outcome, the one that would have locked too.
    expect(Object.keys(agents).sort()).toEqual([...cases.map((c) => c.name), 'good'].sort());
    expect(agents.good).toEqual({ status: 'unchanged' });
    const lines = human.stdout.split('\n');
    for (const c of cases) {
      const url = c.card.replace(/\/missing$/, '/missing/.well-known/agent-card.json');
      expect({ name: c.name, exitCode: agents[c.name]!.exitCode, error: agents[c.name]!.error.code }).toEqual({
        name: c.name,
        exitCode: c.exitCode,
        error: c.error,
      });
      expect(agents[c.name]!.error.message.replace('after 1 retry', 'after 2 retries'), c.name).toMatch(c.detail);
      const line = lines.filter((l) => l.startsWith(`✗ ${c.name}: `));
      expect(line, `${c.name}\n${show(human)}`).toHaveLength(1);
      expect(line[0]).toContain(`${c.error}: ${c.name === 'six-redirects' ? `${f}/hops/0/card.json` : url}`);
    }
    expect(human.stderr).toBe('');
    expect(await readLockBytes(dir), 'the lockfile changed').toEqual(baseline);
    // 500 and 503 were asked three times by the human run and twice by the JSON run; 401 once each.
    const asked = (path: string) => faulty.requests.slice(before).filter((r) => r.path === path).length;
    expect([asked('/status/500/card.json'), asked('/status/503/card.json'), asked('/status/401/card.json')]).toEqual([
      5, 5, 2,
    ]);
    expect(agents['status-503']!.error.message).toMatch(/unexpected status 503 after 1 retry$/);
  });

  it('works: a cross-origin redirect of the public card, 10,000 skills, an https agent through HTTPS_PROXY; https→http refused', async () => {
    const many = sampleCard(other.origin) as unknown as { skills: Array<Record<string, unknown>> };
    for (let i = 0; i < 9_999; i++) many.skills.push({ id: `s${i}`, name: `s${i}`, description: 'd', tags: [] });
    const bytes = JSON.stringify(many);
    expect(bytes.length).toBeLessThan(1_048_576);
    faulty.setHandler((req, res) => {
      if (req.url === '/cross/card.json') {
        res.writeHead(302, { Location: `${other.origin}/card.json` });
        return void res.end();
      }
      if (req.url === '/many/card.json') return card(res, bytes);
      fault(req, res);
    });
    const certFile = join(await project({}), 'cert.pem');
    await writeFile(certFile, TEST_CERT);
    const env = { HTTPS_PROXY: proxyOrigin, NODE_EXTRA_CA_CERTS: certFile };
    const dir = await project({
      cross: `${faulty.origin}/cross/card.json`,
      many: `${faulty.origin}/many/card.json`,
      proxied: `${tlsOrigin.replace('127.0.0.1', 'agent.test')}/card.json`,
    });
    const [locked, down] = await Promise.all([
      runCli(['lock'], { cwd: dir, env }),
      runCli(['card', `${tlsOrigin}/down/card.json`], { cwd: dir, env }),
    ]);
    expect(locked.code, show(locked)).toBe(0);
    const lock = await readLock(dir);
    expect(lock.agents.cross.resolved).toBe(`${other.origin}/card.json`);
    expect(lock.agents.many.snapshot.skills).toHaveLength(10_000);
    const proxied = tlsOrigin.replace('127.0.0.1', 'agent.test');
    expect(lock.agents.proxied.resolved).toBe(`${proxied}/card.json`);
    expect(tunnels).toContain(new URL(proxied).host); // https went through the proxy
    expect(tunnels).not.toContain(new URL(tlsOrigin).host); // loopback never does
    expect(tunnels).not.toContain(new URL(faulty.origin).host); // plain http has no HTTP_PROXY here
    expect(down.code, show(down)).toBe(2);
    expect(down.stderr).toBe(
      `error insecure-url: ${tlsOrigin}/down/card.json: redirect from https to plain http refused\n`,
    );
  });
});
