// Sections 1 and 5: `a2a verify` of N agents on one local server answering each card after 50 ms.
import { join } from 'node:path';
import { bin, fleet, root, row, runNode } from './lib/fleet.js';

const LATENCY_MS = 50;
const sdk = join(root, 'bench', 'lib', 'sdk-resolve.js');

async function verify(dir, extra = []) {
  const r = await runNode([bin, 'verify', ...extra], { cwd: dir, probe: true });
  if (r.code !== 0) throw new Error(`a2a verify ${extra.join(' ')} failed (exit ${r.code}): ${r.stderr.slice(0, 500)}`);
  return r;
}

async function baseline(mode, server, n) {
  const r = await runNode([sdk, mode, server.origin, String(n)]);
  if (r.code !== 0) throw new Error(`SDK ${mode} baseline failed: ${r.stderr.slice(0, 500)}`);
  return r.wallMs;
}

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

export async function run() {
  const rows = [];
  for (const n of [200, 1000]) {
    const { server, dir } = await fleet(n);
    server.latencyMs = LATENCY_MS;
    for (const c of [8, 32]) {
      const r = await verify(dir, ['--concurrency', String(c)]);
      const bound = Math.ceil(n / c) * LATENCY_MS;
      rows.push(row(`verify N=${n} --concurrency ${c}: first request to exit`, r.probe.networkMs / 1000, 's', `ceil(N/C)·50 ms = ${s(bound)}`, r.probe.networkMs / bound, '≤ 1.3×'));
    }
    // Whole processes, side by side.
    const ours = await verify(dir);
    const all = await baseline('all', server, n);
    rows.push(row(`verify N=${n} (defaults), whole process`, ours.wallMs / 1000, 's', `SDK resolver, Promise.all: ${s(all)}`, ours.wallMs / all, '≤ 2×'));
    if (n === 200) {
      // The sequential baseline takes N·50 ms and more; it is run at N=200 only.
      const sequential = await baseline('sequential', server, n);
      rows.push(row(`verify N=${n} (defaults) speed-up`, ours.wallMs / 1000, 's', `SDK resolver, one after another: ${s(sequential)}`, sequential / ours.wallMs, '≥ 20×'));
    } else {
      rows.push(row(`verify N=${n} (defaults): peak RSS`, ours.probe.maxRssBytes / 2 ** 20, 'MB', 'budget 200 MB', ours.probe.maxRssBytes / (200 * 2 ** 20), '≤ 1×'));
    }
    server.latencyMs = 0;
  }
  return rows;
}
