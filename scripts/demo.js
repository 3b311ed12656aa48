#!/usr/bin/env node
// `npm run demo`: the whole a2a-lock flow against real @a2a-js/sdk agents on 127.0.0.1.
//
// 1. starts two sample agents (an A2A 1.0 research agent with bearer auth, and a 1.0 agent with
//    v0.3 compatibility that this client talks to at 0.3),
// 2. writes a2a.json in a temp directory and runs `a2a lock`,
// 3. `a2a verify` (exit 0),
// 4. the research agent's operator removes application/json from the skill: `a2a verify` refuses
//    the drift (exit 1) and shows the diff,
// 5. `a2a update research-agent` accepts it and prints the card and plan diff,
// 6. `a2a verify` (exit 0),
// 7. `a2a diff`: the review of the update against the lockfile committed in step 2 (git).
// `--write-example` copies the lockfile from step 2 to a2a.lock.json.example.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleCard, startAgent } from './agents.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'dist', 'a2a.js');
const writeExample = process.argv.includes('--write-example');
const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${s}\x1b[22m` : s);

/** Listen on a fixed port when it is free (reproducible lockfile), else on a random one. */
async function start(opts, port) {
  try {
    return await startAgent({ ...opts, port });
  } catch {
    return startAgent(opts);
  }
}

const research = await start({ card: (origin) => sampleCard(origin), bearerToken: 'demo-token' }, 41241);
const legacy = await start(
  {
    legacyCompat: true,
    card: (origin) =>
      sampleCard(
        origin,
        {
          name: 'Currency Agent',
          version: '1.3.0',
          description: 'Converts currencies (speaks A2A 1.0 and 0.3).',
          securitySchemes: undefined,
          securityRequirements: undefined,
          capabilities: { streaming: false, pushNotifications: false },
          skills: [
            {
              id: 'convert',
              name: 'Convert',
              description: 'Convert an amount',
              tags: ['fx'],
              outputModes: ['application/json', 'text/plain'],
            },
          ],
        },
        { legacy: true },
      ),
  },
  41242,
);

const dir = mkdtempSync(join(tmpdir(), 'a2a-lock-demo-'));
const manifest = {
  profile: {
    bindings: ['JSONRPC', 'HTTP+JSON'],
    versions: ['1.0', '0.3'],
    accepts: ['application/json', 'text/plain'],
    sends: ['text/plain'],
    streaming: true,
    pushEndpoint: null,
    extensions: ['https://example.com/ext/citations/v1'],
  },
  agents: {
    'research-agent': {
      card: research.origin,
      skills: ['market-size'],
      credentials: { bearer: { env: 'RESEARCH_TOKEN' } },
      version: '^2.4.0',
    },
    'currency-agent': {
      card: `${legacy.origin}/.well-known/agent-card.json`,
      skills: ['convert'],
      profile: { versions: ['0.3'] },
    },
  },
};
writeFileSync(join(dir, 'a2a.json'), `${JSON.stringify(manifest, null, 2)}\n`);

/** git in the demo project, with a fixed identity (no global config needed). */
function git(...args) {
  const id = {
    GIT_AUTHOR_NAME: 'demo',
    GIT_AUTHOR_EMAIL: 'demo@example.com',
    GIT_COMMITTER_NAME: 'demo',
    GIT_COMMITTER_EMAIL: 'demo@example.com',
  };
  execFileSync('git', args, { cwd: dir, env: { ...process.env, ...id }, stdio: 'ignore' });
}

let failed = false;
/** Run the CLI as a child process (async: the agents live in this process and must keep serving). */
async function a2a(args, expected) {
  console.log(`\n${bold(`$ a2a ${args.join(' ')}`)}`);
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: dir,
    env: { ...process.env, RESEARCH_TOKEN: 'demo-token' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const status = await new Promise((done) => child.on('close', done));
  console.log(`(exit ${status}${status === expected ? '' : `, expected ${expected}`})`);
  if (status !== expected) failed = true;
}

try {
  console.log(`agents: research-agent at ${research.origin}, currency-agent at ${legacy.origin}`);
  console.log(`project: ${dir}`);
  await a2a(['lock'], 0);
  const lockText = readFileSync(join(dir, 'a2a.lock.json'), 'utf8');
  const locked = JSON.parse(lockText);
  console.log(
    `\nlocked plans:\n${JSON.stringify(Object.fromEntries(Object.entries(locked.agents).map(([n, e]) => [n, e.plans])), null, 2)}`,
  );
  if (writeExample) {
    copyFileSync(join(dir, 'a2a.lock.json'), join(root, 'a2a.lock.json.example'));
    console.log('wrote a2a.lock.json.example');
  }
  await a2a(['verify'], 0);
  // The project is a git repository: the lockfile is committed, so `a2a diff` reviews the update.
  git('init', '-q');
  git('add', 'a2a.json', 'a2a.lock.json');
  git('commit', '-q', '-m', 'lock');

  console.log(`\n${bold('# the research agent stops offering application/json for market-size')}`);
  const card = sampleCard(research.origin);
  card.skills[0].outputModes = ['application/pdf', 'text/plain'];
  card.description = 'Produces sourced market sizing reports (PDF edition).';
  research.setCard(card);
  await a2a(['verify'], 1);
  await a2a(['update', 'research-agent'], 0);
  await a2a(['verify'], 0);
  console.log(`\n${bold('# review the update: the committed lockfile (HEAD) → the working tree')}`);
  await a2a(['diff'], 0);
} finally {
  await research.close();
  await legacy.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  failed
    ? '\ndemo FAILED: an exit code was not the expected one'
    : '\ndemo ok: drift refused, update reviewed, verify green',
);
process.exitCode = failed ? 1 : 0;
