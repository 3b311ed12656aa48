// Beside section 1: `a2a verify --probe` of N=200 agents on one local server that answers each card
// and each probe after 50 ms. The probe is one more round trip per locked interface: the bound is
// ceil(N/C)·(1 + interfaces per agent)·50 ms, the same pacing rule as the verify rows.
//
// The server speaks as much A2A as a probe needs and no more: the card (the design document's worked
// example, re-addressed, JSON-RPC interfaces only) and, at each JSON-RPC interface, the TaskNotFound
// error (-32001) a served interface gives a GetTask for a task that does not exist.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bin, lockedFleet, median, PROFILE, row, runNode, startFleetServer, workedExample } from './lib/fleet.js';

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

/** The POSTs the server answered at an interface (the probes), counted per run. */
const answered = { probes: 0 };

/** At each JSON-RPC interface, the TaskNotFound error (-32001) a served interface gives for a task that does not exist. */
function taskNotFound(req, body, res) {
  if (req.method !== 'POST' || !/^\/agents\/\d+\/a2a\//.test(req.url ?? '')) {
    res.writeHead(404).end();
    return;
  }
  answered.probes++;
  let id = null;
  try {
    id = JSON.parse(body.toString('utf8')).id ?? null;
  } catch {
    // Not JSON: answered with id null, as JSON-RPC says.
  }
  const text = JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: 'Task not found' } });
  res.writeHead(200, { 'content-type': 'application/json' }).end(text);
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
  const server = await startFleetServer({ card: cardOf, other: taskNotFound });
  // JSON-RPC only, probing as lock does by default.
  const dir = await lockedFleet(server, N, { ...PROFILE, bindings: ['JSONRPC'] });
  const k = interfacesPerAgent(dir);
  server.latencyMs = LATENCY_MS;
  const rows = [];
  for (const c of CONCURRENCY) {
    // As the verify rows at C=32: a few 50 ms waves, where one slow moment shows, so the median of 3 runs.
    const runs = [];
    for (let i = 0; i < (c === 32 ? 3 : 1); i++) {
      answered.probes = 0;
      const r = await runNode([bin, 'verify', '--probe', '--concurrency', String(c)], { cwd: dir, probe: true });
      if (r.code !== 0) throw new Error(`a2a verify --probe failed (exit ${r.code}): ${r.stderr.slice(0, 500)}`);
      if (answered.probes !== N * k) throw new Error(`a2a verify --probe sent ${answered.probes} probes, not ${N * k}`);
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
