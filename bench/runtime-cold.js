/**
 * Benchmark: the runtime loader's cold start, each figure measured in fresh `node` processes,
 * interleaved with its baseline so machine load hits both alike (median of ROUNDS). Imports the
 * build (`npm run build` first).
 *
 * - `import('a2a-lock/runtime')` vs `import('@a2a-js/sdk/client')`: the time of the import alone,
 *   measured inside the child (goal ≤ 1.5×).
 * - `loadLock` of a 1000-agent lockfile (lazy, the default; modules it loads included) vs reading,
 *   `JSON.parse` and SHA-256 of the same file, inside the child (goal ≤ 3×).
 * - the first SendMessage through `createClient()` (import, loadLock, agent, createClient, send)
 *   vs the bare SDK client's first (import, ClientFactory.createFromUrl with its card fetch, send),
 *   against the same real SDK server: time from process start to the answer (goal ≤ 1.25×: the
 *   formats' zod schemas are built on this first request).
 *
 *   node -e "import('./bench/runtime-cold.js').then(m=>m.run()).then(console.log)"
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lockedEchoAgent } from './lib/echo.js';
import { fleet, median, root, row, runNode } from './lib/fleet.js';

const ROUNDS = 11;
const runtimeUrl = pathToFileURL(join(root, 'dist', 'runtime', 'index.js')).href;

/** Run `code` as an ES module in a fresh node (cwd: the repository); its stdout as a number (ms). */
async function child(code) {
  const run = await runNode(['--input-type=module', '-e', code]);
  const ms = Number(run.stdout.trim().split('\n').at(-1));
  if (run.code !== 0 || !Number.isFinite(ms))
    throw new Error(`bench child failed (exit ${run.code}): ${run.stderr.slice(0, 500)}`);
  return ms;
}

/** Median ms of each snippet over ROUNDS interleaved fresh processes. */
async function medians(snippets) {
  const times = Object.fromEntries(Object.keys(snippets).map((k) => [k, []]));
  for (let i = 0; i < ROUNDS; i++) for (const [k, code] of Object.entries(snippets)) times[k].push(await child(code));
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

export async function run() {
  const rows = [];
  // 1. The import alone.
  const imports = await medians({
    ours: `const t = performance.now(); await import(${JSON.stringify(runtimeUrl)}); console.log(performance.now() - t);`,
    sdk: `const t = performance.now(); await import('@a2a-js/sdk/client'); console.log(performance.now() - t);`,
  });
  rows.push(
    row(
      "import('a2a-lock/runtime')",
      imports.ours,
      'ms',
      `import('@a2a-js/sdk/client'): ${imports.sdk.toFixed(1)} ms`,
      imports.ours / imports.sdk,
      '≤ 1.5×',
    ),
  );

  // 2. loadLock of 1000 agents.
  const { dir } = await fleet(1000);
  const lockfile = join(dir, 'a2a.lock.json');
  const load = await medians({
    ours: `const { loadLock } = await import(${JSON.stringify(runtimeUrl)}); const t = performance.now(); await loadLock({ lockfile: ${JSON.stringify(lockfile)} }); console.log(performance.now() - t);`,
    parse: `const { readFile } = await import('node:fs/promises'); const { createHash } = await import('node:crypto'); const t = performance.now(); const text = await readFile(${JSON.stringify(lockfile)}, 'utf8'); JSON.parse(text); createHash('sha256').update(text).digest('base64'); console.log(performance.now() - t);`,
  });
  rows.push(
    row(
      'loadLock, 1000 agents (lazy)',
      load.ours,
      'ms',
      `read + JSON.parse + sha256 of the file: ${load.parse.toFixed(1)} ms`,
      load.ours / load.parse,
      '≤ 3×',
    ),
  );

  // 3. The first request in a fresh process.
  const echo = await lockedEchoAgent();
  try {
    const request = `SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'size the EU heat-pump market' }] } })`;
    const first = await medians({
      ours: `const { loadLock } = await import(${JSON.stringify(runtimeUrl)}); const { SendMessageRequest } = await import('@a2a-js/sdk'); const lock = await loadLock({ lockfile: ${JSON.stringify(echo.lockfile)} }); const client = await lock.agent('research', 'market-size').createClient(); await client.sendMessage(${request}); console.log(performance.now());`,
      bare: `const { ClientFactory, ClientFactoryOptions } = await import('@a2a-js/sdk/client'); const { SendMessageRequest } = await import('@a2a-js/sdk'); const client = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { clientConfig: { acceptedOutputModes: ['application/json'] } })).createFromUrl(${JSON.stringify(echo.agent.origin)}); await client.sendMessage(${request}); console.log(performance.now());`,
    });
    rows.push(
      row(
        'first SendMessage via createClient(), fresh process',
        first.ours,
        'ms',
        `bare SDK client's first: ${first.bare.toFixed(1)} ms`,
        first.ours / first.bare,
        '≤ 1.25×',
      ),
    );
  } finally {
    await echo.close();
  }
  return rows;
}
