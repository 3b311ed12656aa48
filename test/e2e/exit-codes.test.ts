/**
 * The exit-code table end to end, and that no failure touches the lockfile:
 * 0 ok · 1 drift/refusal/out of date · 2 usage or invalid input · 3 unreachable · 4 auth refused ·
 * 5 timeout. HTTP-layer faults come from tiny node:http servers (the SDK cannot produce them).
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedAgent, startAgent } from '../helpers/agents.js';
import {
  allOutput,
  type CliResult,
  closedPort,
  expectOneLineError,
  type HttpServer,
  handlers,
  jsonOf,
  manifest,
  PROFILE,
  readLockBytes,
  removeDir,
  research,
  resources,
  runCli,
  STACK,
  sampleCard,
  show,
  startHttp,
  tempDir,
  writeLockBytes,
  writeManifest,
} from './helpers.js';

// Shared by the whole file (tests run concurrently): one real agent, and one node:http server
// standing in for several "flaky" agents, one per path prefix /f/<name>, each serving a valid card
// until its test switches it to a fault. All of them are locked once; every test starts from
// these bytes in its own directory.
let good: StartedAgent;
let flaky: HttpServer;
let shared: string;
let baseline: Buffer;
let baseManifest: ReturnType<typeof manifest>;
const modes = new Map<string, http.RequestListener>();

interface Fault {
  name: string;
  handler: () => http.RequestListener;
  code: number;
  error: string;
  args?: string[];
  /** Also check `verify` and `update` of a locked agent that starts failing this way (its flaky id). */
  flaky?: string;
  /** What the message must also say. */
  detail?: RegExp;
}

const faults: Fault[] = [
  {
    name: '401 on the card',
    handler: () => handlers.status(401, { 'WWW-Authenticate': 'Bearer' }),
    code: 4,
    error: 'auth-refused',
    flaky: 'f401',
  },
  { name: '403 on the card', handler: () => handlers.status(403), code: 4, error: 'auth-refused' },
  {
    name: 'a server that never answers (--timeout 300)',
    handler: handlers.hang,
    code: 5,
    error: 'timeout',
    args: ['--timeout', '300'],
    flaky: 'fhang',
    detail: /300 ms/,
  },
  {
    name: 'a card served as text/html',
    handler: handlers.html,
    code: 1,
    error: 'card-invalid',
    flaky: 'fhtml',
    detail: /served text\/html, not JSON/,
  },
  {
    name: 'invalid JSON',
    handler: () => handlers.json('{"name": "x", '),
    code: 1,
    error: 'card-invalid',
    detail: /invalid JSON/,
  },
  {
    name: 'JSON that is not an agent card',
    handler: () => handlers.json({ hello: 'world' }),
    code: 1,
    error: 'card-invalid',
    detail: /agent-card\.json \$\.\w+/,
  },
  { name: '500 on the card', handler: () => handlers.status(500), code: 3, error: 'unreachable' },
  { name: '404 on both well-known paths', handler: () => handlers.status(404), code: 3, error: 'unreachable' },
  { name: 'connection reset', handler: handlers.reset, code: 3, error: 'unreachable', flaky: 'freset' },
];
const FLAKY = faults.flatMap((f) => (f.flaky ? [f.flaky] : []));

beforeAll(async () => {
  good = await startAgent({ card: (origin) => sampleCard(origin) });
  flaky = await startHttp((req, res) => {
    const id = /^\/f\/([^/]+)\//.exec(req.url ?? '')?.[1] ?? '';
    (modes.get(id) ?? handlers.status(404))(req, res);
  });
  const valid = handlers.json(sampleCard(flaky.origin), 200, { 'Cache-Control': 'public, max-age=3600' });
  for (const id of FLAKY) modes.set(id, valid);
  baseManifest = manifest({
    good: research(good.origin),
    ...Object.fromEntries(FLAKY.map((id) => [id, research(`${flaky.origin}/f/${id}`)])),
  });
  shared = await tempDir();
  await writeManifest(shared, baseManifest);
  const r = await runCli(['lock'], { cwd: shared });
  if (r.code !== 0) throw new Error(`baseline lock failed\n${show(r)}`);
  baseline = (await readLockBytes(shared))!;
});

afterAll(async () => {
  await Promise.all([good?.close(), flaky?.close(), shared ? removeDir(shared) : undefined]);
});

/** A fresh project holding the baseline manifest (or `m`) and the baseline lockfile. */
async function project(res: ReturnType<typeof resources>, m: unknown = baseManifest): Promise<string> {
  const dir = await res.dir(m);
  await writeLockBytes(dir, baseline);
  return dir;
}

describe.concurrent('HTTP faults map to exit codes; the lockfile never changes', () => {
  it.for(faults)('$name → exit $code ($error)', async (fault, { onTestFinished }) => {
    const res = resources(onTestFinished);
    const args = fault.args ?? [];
    // `lock` of a new agent served by a faulty server.
    const bad = await res.http(fault.handler());
    const runs: Array<Promise<[string, string, CliResult]>> = [];
    const lockDir = await project(res, manifest({ ...baseManifest.agents, bad: research(bad.origin) }));
    runs.push(runCli(['lock', ...args], { cwd: lockDir }).then((r) => ['lock', lockDir, r]));
    if (fault.flaky) {
      // `verify` / `update` of a locked agent that now fails.
      modes.set(fault.flaky, fault.handler());
      const verifyDir = await project(res);
      const updateDir = await project(res);
      runs.push(runCli(['verify', fault.flaky, ...args], { cwd: verifyDir }).then((r) => ['verify', verifyDir, r]));
      runs.push(runCli(['update', fault.flaky, ...args], { cwd: updateDir }).then((r) => ['update', updateDir, r]));
    }
    const results = await Promise.all(runs);
    for (const [command, dir, r] of results) {
      expect(r.code, `${command}: ${show(r)}`).toBe(fault.code);
      expect(r.stdout, `${command}: ${show(r)}`).toContain(fault.error);
      expect(r.stdout, command).toContain(command === 'lock' ? 'bad: ' : `${fault.flaky}: `);
      if (fault.detail) expect(r.stdout, command).toMatch(fault.detail);
      expect(allOutput(r)).not.toMatch(STACK);
      expect(await readLockBytes(dir), `${command} changed the lockfile`).toEqual(baseline);
    }
    if (args.includes('--timeout')) for (const [, , r] of results) expect(r.ms).toBeLessThan(5000);
    expect(bad.requests.length).toBeGreaterThan(0);
  });

  it('connection refused (closed port) → exit 3, lockfile untouched', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const port = await closedPort();
    const dir = await project(res, manifest({ ...baseManifest.agents, gone: research(`http://127.0.0.1:${port}`) }));
    const [lock, plan] = await Promise.all([
      runCli(['lock'], { cwd: dir }),
      runCli(['plan', `http://127.0.0.1:${port}`, '--skill', 'market-size'], { cwd: dir }),
    ]);
    expect(lock.code, show(lock)).toBe(3);
    expect(lock.stdout).toMatch(/gone: unreachable: .*connection refused/);
    expect(plan.code, show(plan)).toBe(3);
    expectOneLineError(plan, /unreachable/, new RegExp(`127\\.0\\.0\\.1:${port}`));
    expect(await readLockBytes(dir)).toEqual(baseline);
  });
});

describe.concurrent('invalid input → exit 2 with one line naming the file and JSON path', () => {
  it('a profile that accepts anything (*/*) is an invalid manifest for every command', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const bad = { ...baseManifest, profile: { ...PROFILE, accepts: ['*/*'] } };
    const dir = await project(res, bad);
    const results = await Promise.all(
      [['lock'], ['verify', '--offline'], ['install']].map((a) => runCli(a, { cwd: dir })),
    );
    for (const r of results) {
      expect(r.code, show(r)).toBe(2);
      expectOneLineError(r, /manifest-invalid/, /a2a\.json \$\.profile\.accepts\[0\]/, /wildcard/);
    }
    expect(await readLockBytes(dir)).toEqual(baseline);
  });

  it('type/* in an agent profile override, an empty accepts list, and broken JSON name their place', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const typeWildcard = await project(res, {
      ...baseManifest,
      agents: { ...baseManifest.agents, good: research(good.origin, { profile: { accepts: ['text/*'] } }) },
    });
    const empty = await project(res, { ...baseManifest, profile: { ...PROFILE, accepts: [] } });
    const broken = await project(res);
    await writeManifest(broken, '{\n  "profile": {\n    "bindings": ["JSONRPC"],\n  }\n}\n');
    const [a, b, c, verbose] = await Promise.all([
      runCli(['lock'], { cwd: typeWildcard }),
      runCli(['lock'], { cwd: empty }),
      runCli(['lock'], { cwd: broken }),
      runCli(['lock', '--verbose'], { cwd: empty }),
    ]);
    expect(a.code, show(a)).toBe(2);
    expectOneLineError(a, /a2a\.json \$\.agents\.good\.profile\.accepts\[0\]/);
    expect(b.code, show(b)).toBe(2);
    expectOneLineError(b, /a2a\.json \$\.profile\.accepts/);
    expect(c.code, show(c)).toBe(2);
    expectOneLineError(c, /a2a\.json/, /invalid JSON at line \d+ column \d+/);
    // --verbose adds the stack trace.
    expect(verbose.code).toBe(2);
    expect(verbose.stderr).toMatch(STACK);
    for (const dir of [typeWildcard, empty, broken]) expect(await readLockBytes(dir)).toEqual(baseline);
  });

  it('a corrupt lockfile fails verify and install with exit 2 naming it', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir(baseManifest);
    await writeLockBytes(dir, '{"lockfileVersion": 1, "settings": {}, "agents": {"good": {"card": 7}}}\n');
    const [verify, install] = await Promise.all([runCli(['verify'], { cwd: dir }), runCli(['install'], { cwd: dir })]);
    for (const r of [verify, install]) {
      expect(r.code, show(r)).toBe(2);
      expectOneLineError(r, /lockfile-invalid/, /a2a\.lock\.json \$\.agents\.good\.card/);
    }
  });
});

describe.concurrent('usage errors → exit 2, lockfile untouched', () => {
  it.for(
    [
      ['frobnicate'],
      ['plan', 'card.json'],
      ['lock', '--timeout', 'abc'],
      ['verify', 'nobody'],
      ['update', 'nobody'],
      ['lock', '--no-such-flag'],
      // An option without its value is an error, not the default (CI: `--manifest $UNSET`).
      ['verify', '--manifest'],
      ['verify', '--timeout'],
      ['verify', '--offline', '--concurrency'],
    ].map((args) => ({ args, label: JSON.stringify(args) })),
  )('a2a $label', async ({ args }, { onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await project(res);
    const r = await runCli(args, { cwd: dir });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toMatch(/usage/);
    expect(allOutput(r)).not.toMatch(STACK);
    expect(await readLockBytes(dir)).toEqual(baseline);
  });

  it('an option without its value is named: --manifest needs a value', async ({ onTestFinished }) => {
    const r = await runCli(['verify', '--manifest'], { cwd: await project(resources(onTestFinished)) });
    expect(r.stderr).toMatch(/^error usage: --manifest needs a value$/m);
  });

  it('--json errors are one JSON document with code and message', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const r = await runCli(['verify', 'nobody', '--json'], { cwd: await project(res) });
    expect(r.code).toBe(2);
    expect(jsonOf(r)).toEqual({
      error: expect.objectContaining({ code: 'usage', message: expect.stringContaining('nobody') }),
    });
  });
});
