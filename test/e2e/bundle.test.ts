/**
 * The build for start-up speed (issue 6): the bundled executable with its license notices, and
 * the card fetcher loading only the undici modules it uses (not undici's package root).
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from './helpers.js';

const exec = promisify(execFile);

describe.concurrent('the built CLI', () => {
  it('dist/a2a.js is the bundle: a few chunks, the license of every package copied into it', async () => {
    const chunks = await readdir(join(ROOT, 'dist', 'chunks'));
    expect(chunks.length).toBeGreaterThan(5);
    // Lazy chunks, one per command and per shared piece (rolldown splits what two lazy chunks share):
    // fewer than two modules of src/ per chunk, never one per module.
    const modules = (await readdir(join(ROOT, 'src'), { recursive: true })).filter((f) => f.endsWith('.ts')).length;
    expect(chunks.length).toBeLessThan(modules / 2);
    // Nothing is imported from node_modules at run time: only Node's built-in modules and other chunks.
    for (const file of [BIN, ...chunks.map((c) => join(ROOT, 'dist', 'chunks', c))]) {
      const code = await readFile(file, 'utf8');
      const imports = [...code.matchAll(/^import\s[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
      expect(
        imports.filter(
          (s) => !s.startsWith('node:') && !builtinModules.includes(s) && !s.startsWith('./') && !s.startsWith('../'),
        ),
      ).toEqual([]);
    }
    const licenses = await readFile(join(ROOT, 'dist', 'THIRD-PARTY-LICENSES.md'), 'utf8');
    for (const name of ['yargs', 'zod', 'undici', 'semver', 'kleur', 'jose', 'emoji-regex']) {
      expect(licenses).toMatch(new RegExp(`^## ${name} \\d+\\.\\d+\\.\\d+ \\(`, 'm'));
    }
    // Every notice a license asks to be kept is there (emoji-regex names its file LICENSE-MIT.txt).
    expect(licenses).not.toMatch(/no license file; package\.json says (MIT|ISC|BSD|Apache)/);
  });

  it('the bundle and the unbundled CLI print the same help, its widths measured over non-ASCII text', async () => {
    const help = (file: string) =>
      exec(process.execPath, [file, 'diff', '--help'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } }).then(
        (r) => r.stdout,
      );
    const [bundled, plain] = await Promise.all([help(BIN), help(join(ROOT, 'dist', 'bin.js'))]);
    expect(bundled).toMatch(/[^\x00-\x7f]/);
    expect(bundled).toBe(plain);
  });

  it('the bundle and the unbundled CLI print the same English messages under any LANG', async () => {
    const run = (file: string) =>
      exec(process.execPath, [file, 'verify', '--bogus'], {
        cwd: ROOT,
        env: { ...process.env, LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8', NO_COLOR: '1' },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
    const [bundled, plain] = await Promise.all([run(BIN), run(join(ROOT, 'dist', 'bin.js'))]);
    expect(bundled).toEqual({ code: 2, stderr: expect.stringContaining('unknown option --bogus') });
    expect(plain).toEqual(bundled);
  });

  it("the card fetcher loads undici's dispatcher modules, not its package root, and its dispatchers have request and connect", async () => {
    const probe = [
      "import { createRequire } from 'node:module';",
      `const fetch = await import(${JSON.stringify(join(ROOT, 'dist', 'http', 'card.js'))});`,
      `const { getDefaultDispatcher } = await import(${JSON.stringify(join(ROOT, 'dist', 'http', 'dispatcher.js'))});`,
      'const dispatcher = getDefaultDispatcher(2);',
      "const loaded = Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('/undici/'));",
      "console.log(JSON.stringify({ root: loaded.some((p) => p.endsWith('/undici/index.js')), fetchApi: loaded.some((p) => p.includes('/lib/web/fetch/')), request: typeof dispatcher.request, connect: typeof dispatcher.connect }));",
      'await fetch.closeDefaultDispatcher();',
    ].join('\n');
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', probe], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual({ root: false, fetchApi: false, request: 'function', connect: 'function' });
  });

  it('nothing undici is loaded until a card is fetched: not by verify --offline, the library or the runtime', async () => {
    const modules = [['commands', 'verify.js'], ['index.js'], ['runtime', 'index.js']].map((parts) =>
      join(ROOT, 'dist', ...parts),
    );
    const probe = [
      "import { createRequire } from 'node:module';",
      `for (const file of ${JSON.stringify(modules)}) await import(file);`,
      "console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('/undici/'))));",
    ].join('\n');
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', probe], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual([]);
  });
});
