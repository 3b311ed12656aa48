// Sections 1 and 5: `a2a verify` of N agents on one local server answering each card after 50 ms.
import { join } from 'node:path';
import { bin, fleet, median, root, row, runNode } from './lib/fleet.js';

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

/** Our whole process (no probe preloaded, like the baseline), wall time from spawn to exit. */
async function ourWall(dir) {
  const r = await runNode([bin, 'verify'], { cwd: dir });
  if (r.code !== 0) throw new Error(`a2a verify failed (exit ${r.code}): ${r.stderr.slice(0, 500)}`);
  return r.wallMs;
}

/** Runs of the side-by-side rows, interleaved (ours, baseline, ours, ...), compared by medians. */
const RUNS = 5;

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

export async function run() {
  const rows = [];
  for (const n of [200, 1000]) {
    const { server, dir } = await fleet(n);
    server.latencyMs = LATENCY_MS;
    for (const c of [8, 32]) {
      // At C=32 the bound is a few 50 ms waves, where one slow moment shows: median of 3 runs.
      const runs = [];
      for (let i = 0; i < (c === 32 ? 3 : 1); i++)
        runs.push((await verify(dir, ['--concurrency', String(c)])).probe.networkMs);
      const networkMs = median(runs);
      const bound = Math.ceil(n / c) * LATENCY_MS;
      rows.push(
        row(
          `verify N=${n} --concurrency ${c}: first request to exit`,
          networkMs / 1000,
          's',
          `ceil(N/C)·50 ms = ${s(bound)}`,
          networkMs / bound,
          '≤ 1.3×',
        ),
      );
    }
    // Whole processes, side by side: medians of RUNS interleaved runs each.
    const oursMs = [];
    const allMs = [];
    for (let i = 0; i < RUNS; i++) {
      oursMs.push(await ourWall(dir));
      allMs.push(await baseline('all', server, n));
    }
    const ours = median(oursMs);
    const all = median(allMs);
    rows.push(
      row(
        `verify N=${n} (defaults), whole process`,
        ours / 1000,
        's',
        `SDK resolver, Promise.all: ${s(all)}`,
        ours / all,
        '≤ 2×',
      ),
    );
    if (n === 200) {
      // The sequential baseline takes N·50 ms and more (one run); it is run at N=200 only.
      const sequential = await baseline('sequential', server, n);
      rows.push(
        row(
          `verify N=${n} (defaults) speed-up`,
          ours / 1000,
          's',
          `SDK resolver, one after another: ${s(sequential)}`,
          sequential / ours,
          '≥ 20×',
        ),
      );
    } else {
      const probed = await verify(dir);
      rows.push(
        row(
          `verify N=${n} (defaults): peak RSS`,
          probed.probe.maxRssBytes / 2 ** 20,
          'MB',
          'budget 200 MB',
          probed.probe.maxRssBytes / (200 * 2 ** 20),
          '≤ 1×',
        ),
      );
    }
    server.latencyMs = 0;
  }
  return rows;
}
