/**
 * Benchmark: the Python runtime loader (`a2a_lock`, python/) against the bare `a2a-sdk` 1.3 client,
 * in the same run, against the bench's echo agent (bench/lib/echo.js: an `@a2a-js/sdk` agent on
 * 127.0.0.1 answering in well under a millisecond, so the loader's overhead is not hidden). Runs
 * in the pinned Python environment `npm test` makes (test/helpers/python.ts; run `npm test` once
 * first) or `A2A_LOCK_BENCH_PYTHON`; without either the section prints why and returns no rows.
 *
 * - first `send_message` in a fresh process through `create_client()` (import, `load_lock`, agent,
 *   client, send) vs the bare client's first (import, `create_client(url)` with its card fetch,
 *   send): wall time of the whole process, median of ROUNDS interleaved (goal ≤ 1.2×);
 * - median `send_message` latency, `create_client()` vs the bare client, calls alternated in one
 *   process (the process of median ratio of PROCESSES); the control row: two bare clients the same
 *   way (what 1.00× looks like on this machine) (goal ≤ 1.06×);
 * - `load_lock` of a 1000-agent lockfile vs reading the file, `json.loads` and SHA-256 of it, in
 *   the same fresh process, median of ROUNDS (goal ≤ 3×).
 *
 *   node scripts/bench.js python      # this section only (prints, does not write BENCHMARKS.md)
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lockedEchoAgent } from './lib/echo.js';
import { fleet, median, root, row, runTimed } from './lib/fleet.js';

const ROUNDS = 11;
const PROCESSES = 3;
const SCRIPT = join(root, 'bench', 'lib', 'python_bench.py');

/**
 * The pinned environment's python, as test/helpers/python.ts names it (same files, same hash), or
 * `A2A_LOCK_BENCH_PYTHON` (a python with `./python[sdk]` installed).
 */
function pythonEnv() {
  if (process.env.A2A_LOCK_BENCH_PYTHON) return process.env.A2A_LOCK_BENCH_PYTHON;
  const digest = createHash('sha256');
  for (const file of ['test/python/requirements.txt', 'python/requirements-dev.txt', 'python/pyproject.toml'])
    digest.update(readFileSync(join(root, file))).update('\0');
  const dir = join(root, '.cache', `python-${digest.digest('hex').slice(0, 16)}`);
  return existsSync(join(dir, '.ready')) ? join(dir, 'bin', 'python') : undefined;
}

/** Run one measurement; its JSON line and the process's wall time (ms, spawn to exit). */
async function measure(python, what, args) {
  const run = await runTimed(python, [SCRIPT, what, JSON.stringify(args)], {
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  if (run.code !== 0) throw new Error(`python_bench ${what} failed (exit ${run.code}): ${run.stderr.slice(-800)}`);
  return { wallMs: run.wallMs, result: JSON.parse(run.stdout.trim().split('\n').at(-1)) };
}

/** Each row as it is measured (stderr), so a long run shows its progress. */
function progress(r) {
  console.error(`  ${r.name}: ${r.value.toFixed(3)} ${r.unit} (${r.baseline}) ${r.ratio.toFixed(3)}× goal ${r.goal}`);
  return r;
}

export async function run() {
  const python = pythonEnv();
  if (!python) {
    console.error('python.js: no pinned Python environment in .cache/ (run npm test once); no Python rows');
    return [];
  }
  const rows = [];
  const echo = await lockedEchoAgent();
  try {
    const args = { lockfile: echo.lockfile, origin: echo.agent.origin };
    // 1. The first send_message in a fresh process.
    const first = { ours: [], bare: [] };
    for (let i = 0; i < ROUNDS; i++) {
      first.ours.push((await measure(python, 'first-ours', args)).wallMs);
      first.bare.push((await measure(python, 'first-bare', args)).wallMs);
    }
    const [ours, bare] = [median(first.ours), median(first.bare)];
    rows.push(
      progress(
        row(
          'Python: first send_message via create_client(), fresh process',
          ours,
          'ms',
          `bare a2a-sdk client's first: ${bare.toFixed(1)} ms`,
          ours / bare,
          '≤ 1.2×',
        ),
      ),
    );

    // 2. Median latency, and the bare-against-bare control.
    for (const control of [false, true]) {
      const runs = [];
      for (let i = 0; i < PROCESSES; i++)
        runs.push((await measure(python, 'latency', { ...args, warmup: 60, samples: 600, control })).result);
      const ratios = runs.map((r) => r.ours / r.bare);
      const mid = runs[ratios.indexOf(median(ratios))];
      rows.push(
        progress(
          row(
            control
              ? 'Python: send_message median latency, bare vs bare (control)'
              : 'Python: send_message median latency via create_client()',
            Number(mid.ours.toFixed(3)),
            'ms',
            `bare a2a-sdk client (${mid.bare.toFixed(3)} ms); ratio per process ${ratios.map((r) => r.toFixed(3)).join(', ')}`,
            Number((mid.ours / mid.bare).toFixed(3)),
            '≤ 1.06×',
          ),
        ),
      );
    }
  } finally {
    await echo.close();
  }

  // 3. load_lock of 1000 agents.
  const { dir } = await fleet(1000);
  const loads = { ours: [], parse: [] };
  for (let i = 0; i < ROUNDS; i++) {
    const { result } = await measure(python, 'load', { lockfile: join(dir, 'a2a.lock.json') });
    loads.ours.push(result.ours);
    loads.parse.push(result.parse);
  }
  const [loaded, parsed] = [median(loads.ours), median(loads.parse)];
  rows.push(
    progress(
      row(
        'Python: load_lock, 1000 agents',
        loaded,
        'ms',
        `read + json.loads + sha256 of the file: ${parsed.toFixed(1)} ms`,
        loaded / parsed,
        '≤ 3×',
      ),
    ),
  );
  return rows;
}
