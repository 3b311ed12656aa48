/**
 * The Python test peers (issue 23) and the Python package `a2a_lock` (issue 35): a pinned virtual
 * environment with the reference SDK `a2a-sdk` and Google ADK (test/python/requirements.txt), the
 * package's dev tools and extras (python/requirements-dev.txt: pytest, ruff, mypy, botocore) and
 * `./python` itself (editable, so its sources are the checkout's), and the small servers of
 * test/python/ started on 127.0.0.1 with random ports.
 *
 * {@link ensurePythonEnv} makes `.cache/python-<first 16 hex of sha256(both requirement files and
 * python/pyproject.toml)>` once (`python3 -m venv`, `pip install -r … -r …`, then `pip install
 * --no-deps --no-build-isolation -e ./python`), marks it ready with `.ready`, and reuses it until one of
 * those files changes. A lock directory (mkdir is atomic) keeps two processes from building it at
 * once. The e2e project's global set-up (test/e2e/python-setup.ts) calls it once per run and hands
 * the result to the test files; where python3 (3.10+) or the package registry is missing, the
 * Python tests are skipped with one line saying why, unless `A2A_LOCK_REQUIRE_PYTHON=1` (set by
 * `.ci/run`), which makes that a failure.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PYTHON_DIR = join(ROOT, 'test', 'python');
const REQUIREMENTS = join(PYTHON_DIR, 'requirements.txt');
/** The Python package of issue 35, its pinned dev tools and its project file (part of the env hash). */
export const PACKAGE_DIR = join(ROOT, 'python');
const DEV_REQUIREMENTS = join(PACKAGE_DIR, 'requirements-dev.txt');
const PYPROJECT = join(PACKAGE_DIR, 'pyproject.toml');

/** The environment the Python tests run in, or why there is none. */
export type PythonEnv =
  | { ok: true; python: string; dir: string; setupMs: number | null }
  | { ok: false; reason: string };

function run(command: string, args: string[], timeoutMs: number): { ok: boolean; out: string } {
  const r = spawnSync(command, args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
  });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/** The last non-empty line of a tool's output, for a one-line reason. */
function lastLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .pop()
      ?.trim()
      .slice(0, 200) ?? '(no output)'
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * The pinned environment: reused when ready, else created (under a lock; a stale lock older than
 * 10 minutes is taken over). Never throws: a missing python3, an old one, or a failed install is
 * `{ ok: false, reason }`.
 */
export async function ensurePythonEnv(): Promise<PythonEnv> {
  const digest = createHash('sha256');
  for (const file of [REQUIREMENTS, DEV_REQUIREMENTS, PYPROJECT]) digest.update(readFileSync(file)).update('\0');
  const hash = digest.digest('hex').slice(0, 16);
  const dir = join(ROOT, '.cache', `python-${hash}`);
  const python = join(dir, 'bin', 'python');
  if (existsSync(join(dir, '.ready'))) return { ok: true, python, dir, setupMs: null };

  const base = process.env.A2A_LOCK_PYTHON ?? 'python3';
  const probe = run(base, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], 10_000);
  if (!probe.ok) return { ok: false, reason: `no ${base} on PATH (${lastLine(probe.out)})` };
  const [major, minor] = probe.out.trim().split('.').map(Number);
  if (major !== 3 || minor! < 10)
    return { ok: false, reason: `${base} is ${probe.out.trim()}; a2a-sdk needs Python 3.10+` };

  const lock = `${dir}.lock`;
  mkdirSync(join(ROOT, '.cache'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(join(dir, '.ready'))) return { ok: true, python, dir, setupMs: null };
      try {
        if (Date.now() - statSync(lock).mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        // gone meanwhile: try again
      }
      await sleep(250);
    }
  }
  try {
    if (existsSync(join(dir, '.ready'))) return { ok: true, python, dir, setupMs: null };
    const started = Date.now();
    rmSync(dir, { recursive: true, force: true });
    const venv = run(base, ['-m', 'venv', dir], 120_000);
    if (!venv.ok) return { ok: false, reason: `${base} -m venv failed (${lastLine(venv.out)})` };
    const pipArgs = ['-m', 'pip', 'install', '--retries', '1', '--timeout', '20'];
    const pip = run(python, [...pipArgs, '-r', REQUIREMENTS, '-r', DEV_REQUIREMENTS], 600_000);
    if (!pip.ok) {
      rmSync(dir, { recursive: true, force: true });
      return {
        ok: false,
        reason: `pip install -r test/python/requirements.txt -r python/requirements-dev.txt failed, no package registry? (${lastLine(pip.out)})`,
      };
    }
    // Every dependency is pinned above: the package itself adds none (and is the checkout's, editable).
    const own = run(python, [...pipArgs, '--no-deps', '--no-build-isolation', '-e', PACKAGE_DIR], 120_000);
    if (!own.ok) {
      rmSync(dir, { recursive: true, force: true });
      return { ok: false, reason: `pip install -e ./python failed (${lastLine(own.out)})` };
    }
    const setupMs = Date.now() - started;
    writeFileSync(join(dir, '.ready'), `${setupMs}\n`);
    return { ok: true, python, dir, setupMs };
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** A running Python server of test/python/. */
export interface PythonServer {
  origin: string;
  port: number;
  /** The gRPC port, when the server listens for gRPC. */
  grpcPort: number | null;
  /** Everything the ready line said (a server may name more ports). */
  ready: Record<string, unknown>;
  /** What the server printed on stderr so far (for assertion messages). */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Start `test/python/<script>` with `args` under the environment's python; resolves when it prints
 * its ready line (`{"port": N, "grpcPort": M}`), rejects (with its stderr) when it exits first or
 * after `timeoutMs`.
 */
export function startPythonServer(
  env: Extract<PythonEnv, { ok: true }>,
  script: string,
  args: string[],
  timeoutMs = 30_000,
): Promise<PythonServer> {
  const child: ChildProcess = spawn(env.python, [join(PYTHON_DIR, script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      // This checkout's a2a_lock first, whichever checkout the environment's editable install names.
      PYTHONPATH: join(PACKAGE_DIR, 'src'),
      PYTHONUNBUFFERED: '1',
      PYTHONDONTWRITEBYTECODE: '1',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d.slice(0, 100_000)));
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void close();
      reject(new Error(`${script} did not start within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const line = stdout.split('\n')[0];
      if (!stdout.includes('\n') || line === undefined) return;
      clearTimeout(timer);
      try {
        const ready = JSON.parse(line) as { port: number; grpcPort: number | null };
        resolve({
          origin: `http://127.0.0.1:${ready.port}`,
          port: ready.port,
          grpcPort: ready.grpcPort,
          ready,
          stderr: () => stderr,
          close,
        });
      } catch {
        void close();
        reject(new Error(`${script} printed no ready line: ${line}\n${stderr}`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code}) before it was ready:\n${stderr}`));
    });
  });
}
