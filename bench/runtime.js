/**
 * Benchmark: median SendMessage latency through `a2a-lock/runtime` `createClient()` vs the bare
 * `@a2a-js/sdk` client, against the same real SDK server on 127.0.0.1 (JSON-RPC 1.0, echo agent).
 * In each of PROCESSES fresh `node` processes, calls rotate between three clients (ours, the bare
 * client, and a second bare client built the same way) so machine noise hits them alike; the rows
 * are the process whose ratio is the median (one process's ratio moves by about a point from run to
 * run). Imports the build (`npm run build` first).
 * Goal: ≤ 1.06× the bare client. The control row, the second bare client against the first,
 * measured the same way, shows how far the ratio moves with nothing to measure.
 *
 *   node -e "import('./bench/runtime.js').then(m=>m.run()).then(console.log)"
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { loadLock } from '../dist/runtime/index.js';
import { lockedEchoAgent } from './lib/echo.js';
import { median, runNode } from './lib/fleet.js';

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

/**
 * One process's measurement: the median latency of each client (ms) over SAMPLES rotated rounds.
 * @returns {Promise<{ ours: number, bare: number, control: number }>}
 */
export async function measure() {
  // No security requirement, so both clients send the same bytes apart from what the plan adds.
  const { agent, lockfile, close } = await lockedEchoAgent();
  try {
    const lock = await loadLock({ lockfile });
    const ours = await lock.agent('research', 'market-size').createClient();
    // The bare clients ask for the same output modes, so all three send the same request.
    const bareClient = () =>
      new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          clientConfig: { acceptedOutputModes: ['application/json'] },
        }),
      ).createFromUrl(agent.origin);
    const clients = [
      { client: ours, ms: [] },
      { client: await bareClient(), ms: [] },
      { client: await bareClient(), ms: [] },
    ];

    for (let i = 0; i < WARMUP; i++) for (const { client } of clients) await client.sendMessage(message());
    for (let i = 0; i < SAMPLES; i++) {
      // Each client takes each place in the round equally often.
      for (let k = 0; k < clients.length; k++) {
        const { client, ms } = clients[(i + k) % clients.length];
        const m = message();
        const t = performance.now();
        await client.sendMessage(m);
        ms.push(performance.now() - t);
      }
    }
    const [o, bare, control] = clients.map((c) => median(c.ms));
    return { ours: o, bare, control };
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
  const controls = runs.map((r) => r.control / r.bare);
  const mid = runs[ratios.indexOf(median(ratios))];
  return [
    {
      name: 'SendMessage median latency via createClient()',
      value: Number(mid.ours.toFixed(3)),
      unit: 'ms',
      baseline: `bare SDK client (${mid.bare.toFixed(3)} ms); ratio per process ${ratios.map((r) => r.toFixed(3)).join(', ')}`,
      ratio: Number((mid.ours / mid.bare).toFixed(3)),
      goal: '≤ 1.06×',
    },
    {
      name: 'control: SendMessage median latency, a second bare SDK client',
      value: Number(mid.control.toFixed(3)),
      unit: 'ms',
      baseline: `the bare SDK client above (${mid.bare.toFixed(3)} ms); ratio per process ${controls.map((r) => r.toFixed(3)).join(', ')}`,
      ratio: Number((mid.control / mid.bare).toFixed(3)),
      goal: 'none: the noise of the row above',
    },
  ];
}
