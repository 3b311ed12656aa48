// A fleet of N agents behind one local node:http server, and the processes the benchmarks time.
//
// Every agent i serves its own card at /agents/<i>/.well-known/agent-card.json (the design
// document's worked example, renamed and re-addressed), answered after `server.latencyMs`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = join(root, 'dist', 'a2a.js');
const probe = join(root, 'bench', 'lib', 'probe.js');

/** The design document's worked example card (raw JSON, as served). */
export function workedExample() {
  return JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'cards', 'worked-example.json'), 'utf8'));
}

/** The worked example's orchestrator profile (no credentials held: the card requires none). */
export const PROFILE = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'orchestrator-profile.json'), 'utf8'));

function cardOf(origin, i) {
  const card = workedExample();
  card.name = `Agent ${i}`;
  card.version = `2.4.${i}`;
  for (const iface of card.supportedInterfaces)
    iface.url = iface.url.replace('https://research.example.com', `${origin}/agents/${i}`);
  return JSON.stringify(card);
}

/**
 * Start the card server on 127.0.0.1 (random port). `server.latencyMs` delays every answer. `card`
 * writes agent i's card (default: the worked example, renamed and re-addressed); `other` answers
 * any request that is not for a card, with its body read (default: 404).
 * @param {{ card?: (origin: string, i: number) => string, other?: (req: import('node:http').IncomingMessage, body: Buffer, res: import('node:http').ServerResponse) => void }} [options]
 * @returns {Promise<{ origin: string, latencyMs: number, requests: number, close(): Promise<void> }>}
 */
export async function startFleetServer({ card = cardOf, other = (_req, _body, res) => res.writeHead(404).end() } = {}) {
  const state = { latencyMs: 0, requests: 0, origin: '' };
  const cards = new Map();
  const server = createServer((req, res) => {
    state.requests++;
    const m = /^\/agents\/(\d+)\/\.well-known\/agent-card\.json$/.exec(req.url ?? '');
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const answer = () => {
        if (!m) {
          other(req, Buffer.concat(chunks), res);
          return;
        }
        const i = Number(m[1]);
        if (!cards.has(i)) cards.set(i, card(state.origin, i));
        const body = cards.get(i);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      };
      if (state.latencyMs > 0) setTimeout(answer, state.latencyMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  // A deep accept queue: the unbounded Promise.all baseline opens one connection per card at once.
  await new Promise((ok) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, ok));
  server.unref();
  state.origin = `http://127.0.0.1:${server.address().port}`;
  state.close = () =>
    new Promise((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    });
  return state;
}

/** The agent base URLs 0..n-1 (what a user writes, without the well-known path). */
export function agentUrls(server, n) {
  return Array.from({ length: n }, (_, i) => `${server.origin}/agents/${i}`);
}

/**
 * Write a2a.json for agents 0..n-1 with `profile` (default the orchestrator's) in a new temp
 * directory and lock it with the real CLI (latency 0).
 * @returns {Promise<string>} the directory (removed when the process exits)
 */
export async function lockedFleet(server, n, profile = PROFILE) {
  const dir = mkdtempSync(join(tmpdir(), `a2a-bench-${n}-`));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const agents = Object.fromEntries(
    agentUrls(server, n).map((card, i) => [`agent-${i}`, { card, skills: ['market-size'] }]),
  );
  writeFileSync(join(dir, 'a2a.json'), `${JSON.stringify({ profile, agents }, null, 2)}\n`);
  const saved = server.latencyMs;
  server.latencyMs = 0;
  const run = await runNode([bin, 'lock', '--concurrency', '64'], { cwd: dir });
  server.latencyMs = saved;
  if (run.code !== 0) throw new Error(`a2a lock failed (exit ${run.code}): ${run.stderr.slice(0, 500)}`);
  return dir;
}

let shared;
const fleets = new Map();

/**
 * The benchmark run's one card server (unref'd: it never keeps the process alive) and a locked
 * fleet of `n` agents on it, made once per process and shared by the sections.
 * @returns {Promise<{ server: Awaited<ReturnType<typeof startFleetServer>>, dir: string }>}
 */
export async function fleet(n) {
  shared ??= startFleetServer();
  const server = await shared;
  if (!fleets.has(n)) fleets.set(n, lockedFleet(server, n));
  return { server, dir: await fleets.get(n) };
}

/**
 * Run `node <args>` as a child process; wall time is measured here, from spawn to exit.
 * With `probe: true` the child preloads bench/lib/probe.js, which reports its peak RSS and the
 * time from its first HTTP request to its exit.
 * @returns {Promise<{ code: number, wallMs: number, stdout: string, stderr: string, probe?: { networkMs?: number, maxRssBytes: number } }>}
 */
export async function runNode(args, { cwd = root, probe: withProbe = false } = {}) {
  const argv = withProbe ? ['--import', pathToFileURL(probe).href, ...args] : args;
  const run = await runTimed(process.execPath, argv, { cwd, env: { ...process.env, NO_COLOR: '1' } });
  const found = /^@@probe (.*)$/m.exec(run.stderr);
  return { ...run, ...(found ? { probe: JSON.parse(found[1]) } : {}) };
}

/**
 * Run `command` with `args` as a child process (no stdin), collecting its output; wall time is
 * measured here, from spawn to exit. Rejects only when it cannot be started.
 * @returns {Promise<{ code: number, wallMs: number, stdout: string, stderr: string }>}
 */
export function runTimed(command, args, { cwd = root, env = process.env } = {}) {
  return new Promise((ok, fail) => {
    const start = performance.now();
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => ok({ code: code ?? -1, wallMs: performance.now() - start, stdout, stderr }));
  });
}

/**
 * Run every command of `commands` (name → `node` arguments) `rounds` times, interleaved so that
 * machine load hits all alike; the median wall time (ms) of each. Throws on a non-zero exit.
 */
export async function interleaved(commands, rounds, cwd) {
  const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    for (const [name, args] of Object.entries(commands)) {
      const r = await runNode(args, { cwd });
      if (r.code !== 0) throw new Error(`${name} failed (exit ${r.code}): ${r.stderr.slice(0, 500)}`);
      times[name].push(r.wallMs);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

/** The middle of `xs` (the upper one of an even count), as the rows of the verify and startup sections compare them. */
/** The median of numbers: the middle one of an odd count (one of the values), the mean of the two middle ones of an even count. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One benchmark row (the runner's contract). */
export function row(name, value, unit, baseline, ratio, goal) {
  return { name, value, unit, baseline, ratio, goal };
}
