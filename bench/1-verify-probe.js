// Beside section 1: `a2a verify --probe` of N=200 agents on one local server that answers each card
// and each probe after 50 ms. The probe is one more round trip per locked interface: the bound is
// ceil(N/C)·(1 + interfaces per agent)·50 ms, the same pacing rule as the verify rows.
//
// The server speaks as much A2A as a probe needs and no more: the card (the design document's worked
// example, re-addressed, JSON-RPC interfaces only) and, at each JSON-RPC interface, the TaskNotFound
// error (-32001) a served interface gives a GetTask for a task that does not exist.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, median, PROFILE, row, runNode, workedExample } from './lib/fleet.js';

const LATENCY_MS = 50;
const N = 200;
const CONCURRENCY = [8, 32];

function cardOf(origin, i) {
  const card = workedExample();
  card.name = `Agent ${i}`;
  card.version = `2.4.${i}`;
  card.supportedInterfaces = card.supportedInterfaces
    .filter((iface) => iface.protocolBinding === 'JSONRPC')
    .map((iface) => ({ ...iface, url: iface.url.replace('https://research.example.com', `${origin}/agents/${i}`) }));
  return JSON.stringify(card);
}

/** The card and probe server (127.0.0.1, random port); `latencyMs` delays every answer; `probes` counts the POSTs. */
async function startServer() {
  const state = { latencyMs: 0, probes: 0, origin: '' };
  const server = createServer((req, res) => {
    const card = /^\/agents\/(\d+)\/\.well-known\/agent-card\.json$/.exec(req.url ?? '');
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const answer = () => {
        if (card) {
          const body = cardOf(state.origin, Number(card[1]));
          res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        } else if (req.method === 'POST' && /^\/agents\/\d+\/a2a\//.test(req.url ?? '')) {
          state.probes++;
          let id = null;
          try {
            id = JSON.parse(Buffer.concat(chunks).toString('utf8')).id ?? null;
          } catch {
            // Not JSON: answered with id null, as JSON-RPC says.
          }
          const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: 'Task not found' } });
          res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        } else res.writeHead(404).end();
      };
      if (state.latencyMs > 0) setTimeout(answer, state.latencyMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((ok) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, ok));
  server.unref();
  state.origin = `http://127.0.0.1:${server.address().port}`;
  return state;
}

/** a2a.json for agents 0..N-1 (JSON-RPC only), locked by the real CLI at latency 0 (probing, as lock does by default). */
async function lockedFleet(server) {
  const dir = mkdtempSync(join(tmpdir(), `a2a-bench-probe-${N}-`));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const agents = Object.fromEntries(
    Array.from({ length: N }, (_, i) => [
      `agent-${i}`,
      { card: `${server.origin}/agents/${i}`, skills: ['market-size'] },
    ]),
  );
  const profile = { ...PROFILE, bindings: ['JSONRPC'] };
  writeFileSync(join(dir, 'a2a.json'), `${JSON.stringify({ profile, agents }, null, 2)}\n`);
  const run = await runNode([bin, 'lock', '--concurrency', '64'], { cwd: dir });
  if (run.code !== 0) throw new Error(`a2a lock failed (exit ${run.code}): ${run.stderr.slice(0, 500)}`);
  return dir;
}

/** The distinct interfaces each agent's plans and fallbacks lock (the same for every agent here). */
function interfacesPerAgent(dir) {
  const lock = JSON.parse(readFileSync(join(dir, 'a2a.lock.json'), 'utf8'));
  const entry = lock.agents['agent-0'];
  const keys = new Set();
  for (const plan of Object.values(entry.plans)) {
    keys.add(`${plan.protocolBinding} ${plan.protocolVersion} ${plan.url}`);
    for (const f of plan.fallbacks?.interfaces ?? []) keys.add(`${f.protocolBinding} ${f.protocolVersion} ${f.url}`);
  }
  return keys.size;
}

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

export async function run() {
  const server = await startServer();
  const dir = await lockedFleet(server);
  const k = interfacesPerAgent(dir);
  server.latencyMs = LATENCY_MS;
  const rows = [];
  for (const c of CONCURRENCY) {
    // As the verify rows at C=32: a few 50 ms waves, where one slow moment shows, so the median of 3 runs.
    const runs = [];
    for (let i = 0; i < (c === 32 ? 3 : 1); i++) {
      server.probes = 0;
      const r = await runNode([bin, 'verify', '--probe', '--concurrency', String(c)], { cwd: dir, probe: true });
      if (r.code !== 0) throw new Error(`a2a verify --probe failed (exit ${r.code}): ${r.stderr.slice(0, 500)}`);
      if (server.probes !== N * k) throw new Error(`a2a verify --probe sent ${server.probes} probes, not ${N * k}`);
      runs.push(r.probe.networkMs);
    }
    const networkMs = median(runs);
    const bound = Math.ceil(N / c) * (1 + k) * LATENCY_MS;
    // Control: the same fleet without --probe, against its own bound (the verify rows' rule), run after.
    const plain = [];
    for (let i = 0; i < runs.length; i++) {
      const r = await runNode([bin, 'verify', '--concurrency', String(c)], { cwd: dir, probe: true });
      if (r.code !== 0) throw new Error(`a2a verify failed (exit ${r.code}): ${r.stderr.slice(0, 500)}`);
      plain.push(r.probe.networkMs);
    }
    const plainBound = Math.ceil(N / c) * LATENCY_MS;
    rows.push(
      row(
        `verify --probe N=${N} --concurrency ${c}: first request to exit`,
        networkMs / 1000,
        's',
        `ceil(N/C)·(1+${k})·50 ms = ${s(bound)}`,
        networkMs / bound,
        '≤ 1.3×',
      ),
      row(
        `verify N=${N} --concurrency ${c} (the same fleet, no --probe)`,
        median(plain) / 1000,
        's',
        `ceil(N/C)·50 ms = ${s(plainBound)}`,
        median(plain) / plainBound,
        'none: control, the same pacing without probes',
      ),
    );
  }
  return rows;
}
