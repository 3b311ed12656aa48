/**
 * Issue 35: the Python package `a2a_lock` (python/) is checked inside `npm test`, in the pinned
 * environment of test/helpers/python.ts (test/python/requirements.txt + python/requirements-dev.txt,
 * `./python` installed editable): `ruff check`, `ruff format --check`, `mypy --strict` on its
 * sources, and its pytest suite (against real a2a-sdk 1.3 servers, the JS SDK agents and the built
 * CLI's lockfiles). Each fails with the tool's own output. Skipped only where the Python
 * environment is (see test/e2e/python-setup.ts; `.ci/run` makes that a failure).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { PACKAGE_DIR } from '../helpers/python.js';

const py = inject('python');

/** Run `python -m <args>` in python/; resolves with the exit code and everything it printed. */
function tool(python: string, args: string[], timeoutMs: number): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      python,
      ['-m', ...args],
      {
        cwd: PACKAGE_DIR,
        timeout: timeoutMs,
        maxBuffer: 16 * 1024 * 1024,
        // PYTHONPATH: this checkout's sources first, whichever checkout the editable install names.
        env: {
          ...process.env,
          PYTHONPATH: join(PACKAGE_DIR, 'src'),
          PYTHONDONTWRITEBYTECODE: '1',
          PIP_DISABLE_PIP_VERSION_CHECK: '1',
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        const killed = error?.killed ? `\n(stopped after ${timeoutMs} ms)` : '';
        resolve({ code, out: `${stdout}${stderr}${killed}` });
      },
    );
  });
}

describe.skipIf(!py.ok)('the Python package a2a_lock (python/)', () => {
  const python = py.ok ? py.python : '';

  it('ruff check and ruff format --check pass', { timeout: 60_000 }, async () => {
    const lint = await tool(python, ['ruff', 'check', '--no-cache', 'src', 'tests'], 50_000);
    expect(lint.code, lint.out).toBe(0);
    const format = await tool(python, ['ruff', 'format', '--check', '--no-cache', 'src', 'tests'], 50_000);
    expect(format.code, format.out).toBe(0);
  });

  it('mypy --strict python/src passes', { timeout: 300_000 }, async () => {
    const cache = join(py.ok ? py.dir : '', 'mypy-cache');
    const typed = await tool(python, ['mypy', '--strict', '--cache-dir', cache, 'src'], 290_000);
    expect(typed.code, typed.out).toBe(0);
  });

  // Generous limits: on a loaded 2-core machine the suite's real servers and CLI runs take minutes.
  it('pytest python/tests passes', { timeout: 600_000 }, async () => {
    const tests = await tool(python, ['pytest', 'tests', '-q', '-p', 'no:cacheprovider'], 590_000);
    expect(tests.code, tests.out).toBe(0);
  });
});
