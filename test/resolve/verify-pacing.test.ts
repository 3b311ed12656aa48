/**
 * How many agents `lock` and `verify` keep in flight against one host, and over how many
 * connections: `--concurrency` (default {@link DEFAULT_CONCURRENCY}) bounds both.
 * Contract: issue 6 (performance). In process; the CLI shell is not the thing under test.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GlobalOptions } from '../../src/commands/context.js';
import { runLock } from '../../src/commands/lock.js';
import { runVerify } from '../../src/commands/verify.js';
import { closeFetcher } from '../../src/resolve/load-card.js';
import { DEFAULT_CONCURRENCY } from '../../src/resolve/options.js';

/** One server for every agent; each answer waits until `gate` requests are pending (or 2 s pass). */
let server: Server;
let origin = '';
let gate = 1;
let inFlight = 0;
let maxInFlight = 0;
let connections = 0;
let waiting: Array<() => void> = [];
let dir = '';

function card(i: number): string {
  return JSON.stringify({
    name: `Agent ${i}`,
    description: 'bench',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${origin}/agents/${i}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [{ id: 's', name: 'S', description: 'skill', tags: [] }],
  });
}

function release(): void {
  const batch = waiting;
  waiting = [];
  batch.forEach((answer) => answer());
}

/** The largest number of requests in flight, and the connections opened, during `run`. */
async function measure(run: () => Promise<unknown>): Promise<{ maxInFlight: number; connections: number }> {
  maxInFlight = 0;
  connections = 0;
  await run();
  await closeFetcher();
  return { maxInFlight, connections };
}

const N = 2 * DEFAULT_CONCURRENCY;
const options = (concurrency?: number): GlobalOptions => ({
  manifest: join(dir, 'a2a.json'),
  json: true,
  verbose: false,
  cwd: dir,
  env: {},
  ...(concurrency ? { network: { concurrency } } : {}),
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const i = Number(/^\/agents\/(\d+)\//.exec(req.url ?? '')?.[1]);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const answer = () => {
      inFlight--;
      const body = card(i);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    };
    waiting.push(answer);
    if (waiting.length >= gate) release();
    else setTimeout(() => waiting.includes(answer) && release(), 2_000);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'a2a-concurrency-'));
  const agents = Object.fromEntries(
    Array.from({ length: N }, (_, i) => [`agent-${i}`, { card: `${origin}/agents/${i}`, skills: ['s'] }]),
  );
  writeFileSync(
    join(dir, 'a2a.json'),
    JSON.stringify({ profile: { bindings: ['JSONRPC'], versions: ['1.0'], accepts: ['application/json'] }, agents }),
  );
});

afterAll(async () => {
  await closeFetcher();
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('agents in flight against one host', () => {
  it(`lock and verify keep DEFAULT_CONCURRENCY (${DEFAULT_CONCURRENCY}) agents in flight over as many kept-alive connections`, async () => {
    expect(DEFAULT_CONCURRENCY).toBe(128);
    gate = DEFAULT_CONCURRENCY;
    const lock = await measure(async () => expect((await runLock(options())).exitCode).toBe(0));
    expect(lock).toEqual({ maxInFlight: DEFAULT_CONCURRENCY, connections: DEFAULT_CONCURRENCY });
    const verify = await measure(async () =>
      expect((await runVerify(options(), { agents: [], offline: false, strict: false })).exitCode).toBe(0),
    );
    expect(verify).toEqual({ maxInFlight: DEFAULT_CONCURRENCY, connections: DEFAULT_CONCURRENCY });
  });

  it('--concurrency 8 keeps 8 in flight over 8 connections', async () => {
    gate = 8;
    const verify = await measure(async () =>
      expect((await runVerify(options(8), { agents: [], offline: false, strict: false })).exitCode).toBe(0),
    );
    expect(verify).toEqual({ maxInFlight: 8, connections: 8 });
  });
});

describe('agents on several hosts', () => {
  it('hosts are worked in turn: listed host by host, 3 hosts at --concurrency 12 open about 12 connections in all, not 12 to each', async () => {
    // Three hosts answering after 20 ms; each host's agents are listed together in the manifest.
    const hosts = await Promise.all(
      [0, 1, 2].map(async () => {
        let opened = 0;
        const s = createServer((req, res) => {
          const i = Number(/^\/agents\/(\d+)\//.exec(req.url ?? '')?.[1]);
          setTimeout(() => {
            const body = card(i)
              .split(origin)
              .join(`http://127.0.0.1:${(s.address() as AddressInfo).port}`);
            res
              .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
              .end(body);
          }, 20);
        });
        s.on('connection', () => opened++);
        await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
        return { server: s, origin: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, opened: () => opened };
      }),
    );
    const hostDir = mkdtempSync(join(tmpdir(), 'a2a-hosts-'));
    try {
      const agents = Object.fromEntries(
        hosts.flatMap((h, k) =>
          Array.from({ length: 36 }, (_, i) => [`h${k}-${i}`, { card: `${h.origin}/agents/${i}`, skills: ['s'] }]),
        ),
      );
      writeFileSync(
        join(hostDir, 'a2a.json'),
        JSON.stringify({
          profile: { bindings: ['JSONRPC'], versions: ['1.0'], accepts: ['application/json'] },
          agents,
        }),
      );
      const opts = { ...options(12), manifest: join(hostDir, 'a2a.json'), cwd: hostDir };
      expect((await runLock(opts)).exitCode).toBe(0);
      await closeFetcher();
      const before = hosts.map((h) => h.opened());
      const result = await runVerify(opts, { agents: [], offline: false, strict: false });
      expect(result.exitCode).toBe(0);
      // Report order is the manifest's, whatever order the hosts were worked in.
      expect(Object.keys(result.data.agents)).toEqual(Object.keys(agents));
      const opened = hosts.map((h, k) => h.opened() - before[k]!);
      // Worked host by host this was 12 + 12 + 12 = 36 kept-alive connections.
      expect(opened.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(18);
      for (const n of opened) expect(n).toBeLessThanOrEqual(8);
    } finally {
      await closeFetcher();
      for (const h of hosts) {
        h.server.closeAllConnections();
        h.server.close();
      }
      rmSync(hostDir, { recursive: true, force: true });
    }
  });
});
