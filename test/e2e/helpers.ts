/**
 * Shared helpers for the end-to-end suite: run the BUILT CLI (dist/cli/main.js) in a fresh temp
 * directory (in-process by default, or spawned as `node dist/a2a.js ...`; see {@link runCli}), write manifests, read lockfile bytes, and start the servers the tests talk to
 * (real `@a2a-js/sdk` agents through test/helpers/agents.ts, plus tiny node:http servers for
 * HTTP-layer faults the SDK cannot produce).
 *
 * Every resource (agent, http server, temp dir) is created through {@link resources}, which
 * closes/removes everything when the test finishes (tests within a file run concurrently).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { type StartAgentOptions, type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';
import { type HttpServer, startHttp } from '../helpers/http.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The executable the package's `bin` names: the bundle of dist/bin.js (scripts/bundle.js). */
export const BIN = join(ROOT, 'dist', 'a2a.js');
export const DIST_MAIN = join(ROOT, 'dist', 'cli', 'main.js');

if (!existsSync(DIST_MAIN)) {
  throw new Error(`e2e: ${DIST_MAIN} is missing. Build first: npx tsc -p tsconfig.build.json (npm test does this).`);
}

export { sampleCard };

export interface CliResult {
  /** Exit code; null only when killed by a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time of the process in ms. */
  ms: number;
}

export interface RunOptions {
  cwd: string;
  /** Extra environment (on top of PATH, HOME and NO_COLOR=1; nothing else is inherited). */
  env?: Record<string, string>;
  /** Kill the process after this long (default 15 s). Implies `spawn`. */
  killAfterMs?: number;
  /** Spawn `node dist/a2a.js` even when the run could be in-process. */
  spawn?: boolean;
}

type Main = (
  args: string[],
  io: { cwd: string; env: NodeJS.ProcessEnv; stdout(text: string): void; stderr(text: string): void },
  about?: unknown,
) => Promise<number>;
let inProcess: Promise<Main> | undefined;

/**
 * Runs that must be a real process: yargs prints --help and --version to the process itself;
 * colour (kleur decides once per process) and proxies (read from the process environment when
 * the connection pool is created) are per process.
 */
function needsProcess(args: string[], options: RunOptions): boolean {
  if (options.spawn || options.killAfterMs !== undefined) return true;
  if (args.some((a) => ['--help', '-h', 'help', '--version', '-V'].includes(a))) return true;
  return Object.keys(options.env ?? {}).some(
    (k) =>
      /^(FORCE_COLOR|NO_COLOR|TERM|https?_proxy|no_proxy)$/i.test(k) && !(k === 'NO_COLOR' && options.env![k] === '1'),
  );
}

/**
 * Run the CLI with `args` in `options.cwd` and collect its output. Never rejects for a non-zero
 * exit. In-process (dist/cli/main.js with its own cwd, environment and output; the same code the
 * binary runs, without a Node start-up per call) unless {@link needsProcess} says a real process
 * is needed, which spawns `node dist/a2a.js ...args`.
 */
export async function runCli(args: string[], options: RunOptions): Promise<CliResult> {
  if (needsProcess(args, options)) return spawnCli(args, options);
  const env: Record<string, string> = { NO_COLOR: '1', ...options.env };
  inProcess ??= Promise.all([import(DIST_MAIN), import(join(ROOT, 'dist', 'version.js'))]).then(
    ([m, v]: [{ main: Main }, { pluginInfo(): unknown }]) =>
      (args, io) =>
        m.main(args, io, v.pluginInfo()),
  );
  const main = await inProcess;
  let stdout = '';
  let stderr = '';
  const started = Date.now();
  const code = await main(args, {
    cwd: options.cwd,
    env,
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr, ms: Date.now() - started };
}

/** Spawn `node dist/a2a.js ...args` and collect its output. Never rejects for a non-zero exit. */
export function spawnCli(args: string[], options: RunOptions): Promise<CliResult> {
  const env: Record<string, string> = { NO_COLOR: '1', ...options.env };
  for (const key of ['PATH', 'HOME', 'SYSTEMROOT', 'TMPDIR']) {
    const value = process.env[key];
    if (value !== undefined && env[key] === undefined) env[key] = value;
  }
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 15_000);
    child.on('error', (error) => {
      clearTimeout(killer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** Both output streams, for "appears nowhere" assertions. */
export function allOutput(r: CliResult): string {
  return `${r.stdout}\n${r.stderr}`;
}

/** Parse the single JSON document a `--json` run prints on stdout. */
export function jsonOf<T = any>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${r.code}):\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}

/** A readable summary for assertion messages. */
export function show(r: CliResult): string {
  return `exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
}

/** A stack-trace frame in the output (only `--verbose` prints one). */
export const STACK = /\n\s+at .+:\d+:\d+/;

/** Per-test timeout for tests that run several CLI stages one after another (a loaded 2-CPU box needs more than the default 60 s). */
export const SLOW = 120_000;

/** Neither stream holds a stack trace or an internal error. */
export function noStack(r: CliResult): void {
  expect(allOutput(r), show(r)).not.toMatch(STACK);
  expect(allOutput(r), show(r)).not.toMatch(/internal error|"internal"/);
}

/** Exactly one line on stderr, containing every needle; no stack trace, no internal error. */
export function expectOneLineError(r: CliResult, ...needles: Array<string | RegExp>): void {
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, show(r)).toHaveLength(1);
  for (const n of needles) expect(lines[0], show(r)).toMatch(n);
  noStack(r);
}

/** Stdout is exactly one JSON document (2-space, nothing before or after it) and stderr is empty; returns the document. */
export function oneJsonDocument(r: CliResult): any {
  const doc = jsonOf(r);
  expect(r.stdout, show(r)).toBe(`${JSON.stringify(doc, null, 2)}\n`);
  expect(r.stderr, show(r)).toBe('');
  return doc;
}

// ------------------------------------------------------------------------------------------------
// Secrets

/** A request as the test servers record it. */
export interface SeenRequest {
  method?: string;
  path: string;
  headers: Record<string, unknown>;
}

export { expectSecretContained, type SecretPlaces, secretForms } from '../helpers/secrets.js';

// ------------------------------------------------------------------------------------------------
// Manifests and lockfiles

/**
 * The example profile. Spelled out rather than derived from DEFAULT_PROFILE
 * (src/manifest/schema.ts): it asks for the citations extension, which the default does not.
 */
export const PROFILE = {
  bindings: ['JSONRPC', 'HTTP+JSON'],
  versions: ['1.0', '0.3'],
  accepts: ['application/json', 'text/plain'],
  sends: ['text/plain'],
  streaming: true,
  pushEndpoint: null,
  extensions: ['https://example.com/ext/citations/v1'],
};

export interface ManifestAgent {
  card: string;
  skills: string[];
  credentials?: Record<string, { env: string }>;
  version?: string;
  profile?: Record<string, unknown>;
}

export interface Manifest {
  profile: Record<string, unknown>;
  agents: Record<string, ManifestAgent>;
  [key: string]: unknown;
}

/** A manifest with {@link PROFILE} and the given agents. */
export function manifest(agents: Record<string, ManifestAgent>, profile: Record<string, unknown> = PROFILE): Manifest {
  return { profile: { ...profile }, agents };
}

/** A manifest agent entry for the sample card's `market-size` skill with a bearer credential. */
export function research(card: string, extra: Partial<ManifestAgent> = {}): ManifestAgent {
  return { card, skills: ['market-size'], credentials: { bearer: { env: 'RESEARCH_TOKEN' } }, ...extra };
}

export async function writeManifest(dir: string, value: unknown): Promise<void> {
  await writeFile(join(dir, 'a2a.json'), typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`);
}

export async function readManifestBytes(dir: string): Promise<Buffer> {
  return readFile(join(dir, 'a2a.json'));
}

/** The lockfile's bytes, or undefined when there is none. */
export async function readLockBytes(dir: string): Promise<Buffer | undefined> {
  try {
    return await readFile(join(dir, 'a2a.lock.json'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * `verify --strict --json` twice in `dir`: each exits 0 with `agent`'s status `ok`, and the
 * lockfile's bytes are the same after both as before.
 */
export async function verifyStrictTwice(dir: string, agent: string, env: Record<string, string> = {}): Promise<void> {
  const before = await readLockBytes(dir);
  for (const run of [1, 2]) {
    const strict = await runCli(['verify', '--strict', '--json'], { cwd: dir, env });
    expect(strict.code, `run ${run}: ${show(strict)}`).toBe(0);
    expect(jsonOf(strict).agents[agent].status).toBe('ok');
  }
  expect(await readLockBytes(dir)).toEqual(before);
}

/** The lockfile parsed (throws when absent). */
export async function readLock(dir: string): Promise<any> {
  const bytes = await readLockBytes(dir);
  if (!bytes) throw new Error(`${dir}/a2a.lock.json does not exist`);
  return JSON.parse(bytes.toString('utf8'));
}

export async function writeLockBytes(dir: string, bytes: Buffer | string): Promise<void> {
  await writeFile(join(dir, 'a2a.lock.json'), bytes);
}

export function lockPath(dir: string): string {
  return join(dir, 'a2a.lock.json');
}

// ------------------------------------------------------------------------------------------------
// Servers

export { type HttpServer, startHttp } from '../helpers/http.js';

/** Handlers for {@link startHttp}. */
export const handlers = {
  json(body: unknown, status = 200, headers: Record<string, string> = {}): http.RequestListener {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return (_req, res) => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(text);
    };
  },
  status(status: number, headers: Record<string, string> = {}): http.RequestListener {
    return (_req, res) => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(JSON.stringify({ error: http.STATUS_CODES[status] ?? 'error' }));
    };
  },
  html(): http.RequestListener {
    return (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body>Agent</body></html>');
    };
  },
  /** Accept the request and never answer (the socket is destroyed on close()). */
  hang(): http.RequestListener {
    return () => undefined;
  },
  /** Destroy the connection without any response. */
  reset(): http.RequestListener {
    return (req) => req.socket.destroy();
  },
};

/** A TCP port on 127.0.0.1 with nothing listening (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `onTestFinished` from the test context (works for concurrent tests, unlike a file-level afterEach). */
export type OnFinished = (fn: () => Promise<void>) => void;

/**
 * Per-test resources: call as `resources(onTestFinished)` with the test context's hook. Every
 * agent, http server and temp dir it creates is closed/removed when that test finishes, so the
 * tests of a file can run concurrently.
 */
export function resources(onFinished: OnFinished) {
  const agents: StartedAgent[] = [];
  const servers: HttpServer[] = [];
  const dirs: string[] = [];
  onFinished(async () => {
    await Promise.all([...agents.splice(0).map((a) => a.close()), ...servers.splice(0).map((s) => s.close())]);
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });
  const api = {
    /** A real SDK agent on 127.0.0.1. */
    async agent(opts: StartAgentOptions): Promise<StartedAgent> {
      const a = await startAgent(opts);
      agents.push(a);
      return a;
    },
    /** A real SDK agent serving the sample card (1.0; `legacy` adds a JSONRPC 0.3 interface and enables compat). */
    async sampleAgent(
      opts: { legacy?: boolean; bearerToken?: string; serveLegacyPathOnly?: boolean } = {},
    ): Promise<StartedAgent> {
      return api.agent({
        card: (origin) => sampleCard(origin, {}, { legacy: Boolean(opts.legacy) }),
        ...(opts.legacy ? { legacyCompat: true } : {}),
        ...(opts.bearerToken ? { bearerToken: opts.bearerToken } : {}),
        ...(opts.serveLegacyPathOnly ? { serveLegacyPathOnly: true } : {}),
      });
    },
    async http(handler: http.RequestListener): Promise<HttpServer> {
      const s = await startHttp(handler);
      servers.push(s);
      return s;
    },
    /** A fresh temp directory, with `a2a.json` when a manifest is given. */
    async dir(manifestValue?: unknown): Promise<string> {
      const d = await tempDir();
      dirs.push(d);
      if (manifestValue !== undefined) await writeManifest(d, manifestValue);
      return d;
    },
    /**
     * A project locked: a fresh directory with `a2a.json` = `manifestValue`, where `a2a lock` (with
     * `env`; `args` instead, e.g. `['lock', '--no-probe']`) exits 0, or the test fails showing the
     * run. The arrange step most e2e tests share.
     */
    async locked(
      manifestValue: unknown,
      env?: Record<string, string>,
      args: string[] = ['lock'],
    ): Promise<{ dir: string; lock: CliResult }> {
      const dir = await api.dir(manifestValue);
      const lock = await runCli(args, { cwd: dir, ...(env ? { env } : {}) });
      expect(lock.code, show(lock)).toBe(0);
      return { dir, lock };
    },
  };
  return api;
}

/**
 * A git repository whose `main` has one commit: `a2a.json` with `research` on a real SDK agent
 * (the sample card) and its lockfile, as `a2a lock` wrote it. Closed and removed when the test ends.
 */
export async function lockedRepository(onFinished: OnFinished) {
  const res = resources(onFinished);
  const agent = await res.sampleAgent();
  const dir = await res.dir(manifest({ research: research(agent.origin) }));
  git(dir, 'init', '-q', '-b', 'main');
  const lock = await runCli(['lock'], { cwd: dir });
  expect(lock.code, show(lock)).toBe(0);
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'lock');
  return { res, agent, dir };
}

/** `git` in `dir`, with an author, never prompting; its output trimmed. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
      GIT_TERMINAL_PROMPT: '0',
    },
  }).trim();
}

/** A fresh temp directory (the caller removes it). */
export function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'a2a-e2e-'));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Card requests an agent (or http server) received. */
export function cardRequests<T extends { path: string }>(requests: T[]): T[] {
  return requests.filter((r) => r.path.startsWith('/.well-known/'));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A project locked against a real SDK agent named `research` (its requests recorded): the directory and the agent. */
export async function lockedProject(onTestFinished: OnFinished) {
  const res = resources(onTestFinished);
  const agent = await res.sampleAgent();
  const dir = await res.dir(manifest({ research: research(agent.origin) }));
  const locked = await runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: 't' } });
  expect(locked.code, show(locked)).toBe(0);
  return { dir, agent };
}
