/**
 * Benchmark: median SendMessage latency through `a2a-lock/runtime` `createClient()` vs the bare
 * `@a2a-js/sdk` client, against the same real SDK server on 127.0.0.1 (JSON-RPC 1.0, echo agent).
 * In each of PROCESSES fresh `node` processes, calls alternate between the two clients so machine
 * noise hits both alike; the row is the process whose ratio is the median (one process's ratio
 * moves by about a point from run to run). Imports the build (`npm run build` first).
 * Goal: ≤ 1.05× the bare client.
 *
 *   node -e "import('./bench/runtime.js').then(m=>m.run()).then(console.log)"
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { loadLock } from '../dist/runtime/index.js';
import { lockedEchoAgent } from './lib/echo.js';
import { runNode } from './lib/fleet.js';

const WARMUP = 200;
const SAMPLES = 1500;
const PROCESSES = 3;

function message() {
  return {
    message: {
      messageId: randomUUID(),
      role: 1,
      parts: [
        {
          content: { $case: 'text', value: 'size the EU heat-pump market' },
          mediaType: '',
          filename: '',
          metadata: undefined,
        },
      ],
      contextId: '',
      taskId: '',
      extensions: [],
      referenceTaskIds: [],
      metadata: undefined,
    },
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * One process's measurement: the median latency of each client (ms) over SAMPLES alternated calls.
 * @returns {Promise<{ ours: number, bare: number }>}
 */
export async function measure() {
  // No security requirement, so both clients send the same bytes apart from what the plan adds.
  const { agent, lockfile, close } = await lockedEchoAgent();
  try {
    const lock = await loadLock({ lockfile });
    const ours = await lock.agent('research', 'market-size').createClient();
    // The bare client asks for the same output modes, so both send the same request.
    const bare = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        clientConfig: { acceptedOutputModes: ['application/json'] },
      }),
    ).createFromUrl(agent.origin);

    for (let i = 0; i < WARMUP; i++) {
      await bare.sendMessage(message());
      await ours.sendMessage(message());
    }
    const bareMs = [];
    const oursMs = [];
    for (let i = 0; i < SAMPLES; i++) {
      const first = i % 2 === 0 ? [bare, bareMs, ours, oursMs] : [ours, oursMs, bare, bareMs];
      for (const [client, out] of [first.slice(0, 2), first.slice(2)]) {
        const m = message();
        const t = performance.now();
        await client.sendMessage(m);
        out.push(performance.now() - t);
      }
    }
    return { ours: median(oursMs), bare: median(bareMs) };
  } finally {
    await close();
  }
}

/** {@link measure} in a fresh node process. */
async function measureInChild() {
  const code = `const m = await import(${JSON.stringify(import.meta.url)}); console.log(JSON.stringify(await m.measure())); process.exit(0);`;
  const child = await runNode(['--input-type=module', '-e', code]);
  if (child.code !== 0) throw new Error(`bench child failed (exit ${child.code}): ${child.stderr.slice(0, 500)}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1));
}

/** @returns {Promise<Array<{ name: string, value: number, unit: string, baseline: string, ratio: number, goal: string }>>} */
export async function run() {
  const runs = [];
  for (let i = 0; i < PROCESSES; i++) runs.push(await measureInChild());
  const ratios = runs.map((r) => r.ours / r.bare);
  const mid = runs[ratios.indexOf(median(ratios))];
  return [
    {
      name: 'SendMessage median latency via createClient()',
      value: Number(mid.ours.toFixed(3)),
      unit: 'ms',
      baseline: `bare SDK client (${mid.bare.toFixed(3)} ms); ratio per process ${ratios.map((r) => r.toFixed(3)).join(', ')}`,
      ratio: Number((mid.ours / mid.bare).toFixed(3)),
      goal: '≤ 1.05×',
    },
  ];
}
