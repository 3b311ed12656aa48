/**
 * The published package: `npm pack` ships bin, dist, schemas, README and LICENSE only, and the
 * packed tarball installed into a fresh project gives a working `npx a2a`, a typed package root, both
 * entries loaded by `require()` from CommonJS, and declarations that compile with `skipLibCheck: false`
 * without the gRPC peers.
 * One pack and one install (dependencies come from the npm cache, else the registry). dist is
 * built by `npm test` first; the pack skips `prepack` so it never rebuilds dist under the other
 * e2e files.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT, resources } from './helpers.js';

const exec = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const quiet = ['--no-audit', '--no-fund', '--loglevel=error'];

describe('the packed package', () => {
  it('ships dist (with the executable), schemas, README and LICENSE only; installs into a project; npx a2a --version and the typed root import work', {
    timeout: 180_000,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default;

    // One real pack; its --json report lists the files, as `npm pack --dry-run` would.
    const out = await res.dir();
    const packed = await exec(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', out, ...quiet], {
      cwd: ROOT,
    });
    const [report] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = report!.files.map((f) => f.path);
    const outside = files.filter(
      (f) =>
        !/^(dist\/.+\.(js|d\.ts)|dist\/THIRD-PARTY-LICENSES\.md|schemas\/[^/]+\.schema\.json|README\.md|LICENSE|package\.json)$/.test(
          f,
        ),
    );
    expect(outside).toEqual([]);
    for (const f of [
      'dist/a2a.js',
      'dist/THIRD-PARTY-LICENSES.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/main.js',
      'schemas/a2a.schema.json',
      'schemas/a2a-lock.schema.json',
      'README.md',
      'LICENSE',
    ]) {
      expect(files).toContain(f);
    }

    const tarball = join(out, report!.filename);
    const project = join(out, 'project');
    await mkdir(project);
    await exec(npm, ['init', '-y', ...quiet], { cwd: project });
    await exec(npm, ['install', tarball, '--prefer-offline', ...quiet], { cwd: project });

    const cli = await exec('npx', ['--no-install', 'a2a', '--version'], { cwd: project });
    expect(cli.stdout.trim()).toBe(version);
    // A command through the bundle's chunks (yargs, zod, the command module): no lockfile yet is exit 2.
    const verify = await exec('npx', ['--no-install', 'a2a', 'verify', '--offline', '--json'], { cwd: project }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(verify.code).toBe(2);
    expect(JSON.parse(verify.stdout).error.code).toBeTypeOf('string');

    // The package root from an ES module consumer: functions, error classes and refusal codes.
    const probe = [
      "import * as lock from 'a2a-lock';",
      "const names = ['negotiate', 'normalizeCard', 'readLockfile', 'verifyLockfile', 'explainNegotiation', 'A2aLockError', 'UsageError', 'InvalidInputError', 'FetchError', 'OutOfDateError'];",
      // The runtime entry loads without the optional @a2a-js/sdk peer (not installed here).
      "const runtime = await import('a2a-lock/runtime');",
      // createClient() without it: a usage error naming the package to install.
      `const locked = await runtime.loadLock({ lockfile: ${JSON.stringify(join(ROOT, 'a2a.lock.json.example'))} });`,
      "const sdk = await locked.agent('research-agent', 'market-size').createClient().then(() => null, (e) => ({ code: e.code, hint: e.hint }));",
      "console.log(JSON.stringify({ missing: names.filter((n) => typeof lock[n] !== 'function'), refusals: Object.values(lock.RefusalCode), errors: Object.values(lock.ErrorCode).length, runtime: typeof runtime.loadLock, sdk }));",
    ].join('\n');
    await writeFile(join(project, 'probe.mjs'), probe);
    const root = JSON.parse((await exec(process.execPath, ['probe.mjs'], { cwd: project })).stdout);
    expect(root.missing).toEqual([]);
    expect(root.refusals).toContain('no-common-interface');
    expect(root.errors).toBeGreaterThan(10);
    expect(root.runtime).toBe('function');
    expect(root.sdk).toEqual({ code: 'usage', hint: 'npm install @a2a-js/sdk' });

    // And typed: a TypeScript consumer compiles against the shipped declarations (no `any` fallback).
    await writeFile(
      join(project, 'consumer.ts'),
      [
        "import { negotiate, RefusalCode, verifyLockfile, type Plan, type VerifyResult } from 'a2a-lock';",
        "import { loadLock } from 'a2a-lock/runtime';",
        'export const load: typeof loadLock = loadLock;',
        'const code: RefusalCode = RefusalCode.NoCommonInterface;',
        'const check: (o?: { offline?: boolean }) => Promise<VerifyResult> = verifyLockfile;',
        "export const used: [typeof negotiate, string, typeof check, Plan['delivery']] = [negotiate, code, check, 'poll'];",
        "// @ts-expect-error a plan's delivery is one of stream, push, poll",
        "export const wrong: Plan['delivery'] = 'fax';",
      ].join('\n'),
    );
    const tsc = (...args: string[]) =>
      exec(
        process.execPath,
        [
          join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
          '--noEmit',
          '--strict',
          ...args,
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          '--types',
          'node',
          '--typeRoots',
          join(ROOT, 'node_modules', '@types'),
          'consumer.ts',
        ],
        { cwd: project },
      );
    await tsc('--skipLibCheck');

    // A CommonJS project (Node >= 20.19: require() of the ES module package): both entries load and work.
    await writeFile(
      join(project, 'probe.cjs'),
      [
        "const lock = require('a2a-lock');",
        "const runtime = require('a2a-lock/runtime');",
        `runtime.loadLock({ lockfile: ${JSON.stringify(join(ROOT, 'a2a.lock.json.example'))} }).then((l) => console.log(JSON.stringify({ negotiate: typeof lock.negotiate, usage: new lock.UsageError('x').code, delivery: l.agent('research-agent', 'market-size').plan.delivery })));`,
      ].join('\n'),
    );
    expect(JSON.parse((await exec(process.execPath, ['probe.cjs'], { cwd: project })).stdout)).toEqual({
      negotiate: 'function',
      usage: 'usage',
      delivery: 'stream',
    });

    // The declarations with skipLibCheck off, in a project with the SDK but neither @grpc/grpc-js nor
    // @bufbuild/protobuf (optional peers a gRPC plan alone needs): every .d.ts reached must compile.
    await exec(npm, ['install', '@a2a-js/sdk@1.3.0', '--prefer-offline', ...quiet], { cwd: project });
    const installed = await exec(npm, ['ls', '--all', '--parseable'], { cwd: project }).then(
      (r) => r.stdout,
      (e: { stdout: string }) => e.stdout,
    );
    expect(installed).not.toMatch(/@grpc[\\/]grpc-js|@bufbuild[\\/]protobuf/);
    await writeFile(
      join(project, 'consumer.ts'),
      [
        "import { negotiate, type Plan } from 'a2a-lock';",
        "import { loadLock, type LoadLockOptions, type LockedClient } from 'a2a-lock/runtime';",
        "export const options: LoadLockOptions = { credentials: { 'research-agent': { bearer: async ({ scopes }) => scopes.join(' ') } } };",
        "export const used: [typeof negotiate, typeof loadLock, Plan['delivery'], LockedClient | undefined] = [negotiate, loadLock, 'poll', undefined];",
      ].join('\n'),
    );
    await tsc('--skipLibCheck', 'false');
  });
});
