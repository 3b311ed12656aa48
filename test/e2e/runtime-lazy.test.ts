/**
 * The built runtime's lazy load (dist/): `loadLock` loads no schema, card or negotiation module
 * (zod, card/normalize, negotiate, lock/schema), and the first `lock.agent()` then loads them
 * synchronously and refuses a tampered entry, as the sources do under the test runner (where
 * `loadLock` imports them instead: test/runtime/lazy-checks.test.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, sampleCard } from './helpers.js';

const exec = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-lazy-e2e-'));
  // A lockfile written by the CLI from a card file (no network), two agents.
  const card = sampleCard('https://agent.example', { securitySchemes: {}, securityRequirements: [] });
  await writeFile(join(dir, 'card.json'), JSON.stringify(card));
  const profile = {
    bindings: ['JSONRPC'],
    versions: ['1.0'],
    accepts: ['application/json'],
    sends: ['text/plain'],
    streaming: true,
    extensions: [],
  };
  await writeFile(
    join(dir, 'a2a.json'),
    JSON.stringify({
      profile,
      agents: {
        a: { card: './card.json', skills: ['market-size'] },
        b: { card: './card.json', skills: ['market-size'] },
      },
    }),
  );
  await exec(process.execPath, [join(ROOT, 'dist', 'a2a.js'), 'lock'], { cwd: dir });
  const lock = JSON.parse(await readFile(join(dir, 'a2a.lock.json'), 'utf8'));
  lock.agents.b.snapshot.name = 'Someone Else';
  await writeFile(join(dir, 'tampered.lock.json'), JSON.stringify(lock));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the built runtime, lazy', () => {
  it('loadLock loads no zod, card, negotiation or lockfile-schema module; the first lock.agent() checks the entry and refuses a tampered one', async () => {
    const log = join(dir, 'loaded.txt');
    const hooks = `import { appendFileSync } from 'node:fs'; export async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }`;
    const probe = [
      "import { register } from 'node:module';",
      "import { readFileSync, writeFileSync } from 'node:fs';",
      `writeFileSync(${JSON.stringify(log)}, '');`,
      `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}));`,
      `const runtime = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'runtime', 'index.js')).href)});`,
      `const lock = await runtime.loadLock({ lockfile: ${JSON.stringify(join(dir, 'tampered.lock.json'))}, manifest: ${JSON.stringify(join(dir, 'a2a.json'))} });`,
      `const atLoad = readFileSync(${JSON.stringify(log)}, 'utf8').split('\\n').filter(Boolean);`,
      "let refused; try { lock.agent('b', 'market-size'); } catch (e) { refused = { code: e.code, message: e.message, typed: e instanceof runtime.A2aLockError }; }",
      "const a = lock.agent('a', 'market-size');",
      'console.log(JSON.stringify({ atLoad, refused, plan: a.plan.url, card: a.card.name }));',
    ].join('\n');
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', probe], { cwd: ROOT });
    const result = JSON.parse(stdout) as {
      atLoad: string[];
      refused: { code: string; message: string; typed: boolean };
      plan: string;
      card: string;
    };
    // The runtime is one bundled file (scripts/bundle.js), sharing errors.js with the checks.
    const ours = result.atLoad.filter((u) => u.includes('/dist/')).map((u) => u.slice(u.indexOf('/dist/') + 1));
    expect(ours.sort()).toEqual(['dist/errors.js', 'dist/runtime/index.js']);
    const heavy = result.atLoad.filter((u) =>
      /\/node_modules\/zod\/|\/dist\/card\/normalize\.js|\/dist\/negotiate\/negotiate\.js|\/dist\/lock\/schema\.js|\/dist\/runtime\/checks\.js|\/dist\/manifest\//.test(
        u,
      ),
    );
    expect(heavy).toEqual([]);
    // The checks' error is an instance of the runtime's exported class (one errors.js for both bundles).
    expect(result.refused).toMatchObject({
      code: 'lockfile-invalid',
      message: expect.stringMatching(/agents\.b: snapshot does not match its integrity/),
      typed: true,
    });
    expect(result).toMatchObject({ plan: 'https://agent.example/a2a/jsonrpc', card: expect.any(String) });
  });

  it("the first lock.agent() compiles no zod fast parser, and leaves the application's zod JIT setting as it was", async () => {
    const runtime = JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'runtime', 'index.js')).href);
    // The checks' schemas (zod/mini: no JIT object parsers) compile nothing (`new Function`, counted).
    const agentOnce = [
      `const lock = await (await import(${runtime})).loadLock({ lockfile: ${JSON.stringify(join(dir, 'a2a.lock.json'))} });`,
      'let compiled = 0; const F = globalThis.Function;',
      'globalThis.Function = new Proxy(F, { construct: (t, a) => (compiled++, Reflect.construct(t, a)) });',
      "lock.agent('a', 'market-size');",
      'globalThis.Function = F; console.error(compiled);',
    ];
    // zod keeps it on globalThis: set by the application before, or never set (zod loaded after).
    const probes = {
      setBefore: [
        "const { z } = await import('zod');",
        'z.config({ jitless: false });',
        ...agentOnce,
        'console.log(JSON.stringify(z.config()));',
      ],
      neverSet: [...agentOnce, "const { z } = await import('zod');", 'console.log(JSON.stringify(z.config()));'],
    };
    const seen: Record<string, Record<string, unknown>> = {};
    for (const [name, lines] of Object.entries(probes)) {
      const { stdout, stderr } = await exec(process.execPath, ['--input-type=module', '-e', lines.join('\n')], {
        cwd: ROOT,
      });
      seen[name] = JSON.parse(stdout);
      expect(stderr.trim(), name).toBe('0');
    }
    expect(seen.setBefore).toMatchObject({ jitless: false });
    expect(Object.hasOwn(seen.neverSet!, 'jitless')).toBe(false);
  });
});
