/**
 * Issue 37, part B: `a2a verify --probe` end to end, the built CLI against real `@a2a-js/sdk` agents
 * on 127.0.0.1 (JSON-RPC, HTTP+JSON, gRPC). A lock made while every interface is served; then the
 * interface stops being served while its card stays the same (the JSON-RPC path answering an HTML
 * 404 or a non-A2A 500: a node:http handler put in front of the SDK's route) → `interface-not-served`
 * (exit 6) in the text, `--json`, the job summary and SARIF. Without `--probe` nothing but the card
 * is requested.
 */

import { readFile, writeFile } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { grpcFirstCard, JSONRPC_PATH } from '../helpers/agents.js';
import { type Lie, startLyingServer } from '../helpers/lying-servers.js';
import {
  ACCESS_TOKEN,
  CLIENT_SECRET,
  startOAuthAgent,
  TOKEN_BODY_MARKER,
  TOKEN_FAILURES,
  UNSENDABLE_TOKEN,
} from '../helpers/oauth-agent.js';
import { sarifErrors } from '../helpers/sarif.js';
import {
  type CliResult,
  git,
  jsonOf,
  manifest,
  PROFILE,
  readLock,
  research,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
} from './helpers.js';

const TOKEN = 'probe-T0ken-37bb';

/**
 * `verify --probe` (`--json`, text, `--strict`) of the research agent whose two locked served interfaces got no
 * probe: unchecked interface-not-probed with `unchecked` as its words, exit 0 (1 under --strict).
 */
function expectNotProbed(runs: Record<'json' | 'text' | 'strict', CliResult>, unchecked: string): void {
  const { json, text, strict } = runs;
  expect(json.code, show(json)).toBe(0);
  const report = jsonOf(json).agents.research;
  expect(report).toMatchObject({ status: 'unchecked', reason: 'interface-not-probed' });
  expect(report.unchecked).toBe(unchecked);
  expect(report.probes.map((p: { kind: string; recorded: string }) => [p.recorded, p.kind])).toEqual([
    ['served', 'not-probed'],
    ['served', 'not-probed'],
  ]);
  expect(text.code, show(text)).toBe(0);
  expect(text.stdout).toContain('! research: unchecked (interface-not-probed): no probe sent to JSONRPC 1.0 at');
  expect(strict.code, show(strict)).toBe(1);
}

/** An HTML 404, as a web framework answers a path it has no route for. */
const html404: RequestListener = (_req, res) => {
  res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Not Found</title>');
};

/** A non-A2A 500: the framework's own JSON error format. */
const plain500: RequestListener = (_req, res) => {
  res.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"Internal Server Error"}');
};

describe.concurrent('a2a verify --probe (issue 37)', { timeout: SLOW }, () => {
  it('passes against the JS SDK agent over gRPC, JSON-RPC and HTTP+JSON: one GetTask per locked interface, each served', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({
      grpc: true,
      card: grpcFirstCard(),
    });
    const env = { RESEARCH_TOKEN: TOKEN };
    const { dir } = await res.locked(
      manifest({ research: research(agent.origin) }, { ...PROFILE, bindings: ['GRPC', 'JSONRPC', 'HTTP+JSON'] }),
      env,
    );
    agent.requests.length = 0;
    const verified = await runCli(['verify', '--probe', '--json'], { cwd: dir, env });
    expect(verified.code, show(verified)).toBe(0);
    const report = jsonOf(verified).agents.research;
    expect(report.status).toBe('ok');
    expect(
      report.probes.map((p: { protocolBinding: string; kind: string; recorded?: string }) => [
        p.protocolBinding,
        p.kind,
        p.recorded,
      ]),
    ).toEqual([
      ['GRPC', 'served', 'served'],
      ['JSONRPC', 'served', 'served'],
      ['HTTP+JSON', 'served', 'served'],
    ]);
    // One request per interface, with the credential the plan sends.
    const probes = agent.requests.filter((r) => !r.path.includes('.well-known'));
    expect(probes.map((r) => `${r.method} ${r.path.replace(/a2a-lock-probe-[0-9a-f-]{36}/, '<id>')}`).sort()).toEqual([
      'GET /a2a/rest/tasks/<id>',
      'GRPC /lf.a2a.v1.A2AService/GetTask',
      `POST ${JSONRPC_PATH}`,
    ]);
    for (const r of probes) expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('a lockfile written with --no-probe records no outcome: verify --probe probes each interface and says so', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const env = { RESEARCH_TOKEN: TOKEN };
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const lock = await runCli(['lock', '--no-probe'], { cwd: dir, env });
    expect(lock.code, show(lock)).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'a2a.lock.json'), 'utf8')).agents.research.probe).toBeUndefined();
    const [text, json] = await Promise.all([
      runCli(['verify', '--probe', '--strict'], { cwd: dir, env }),
      runCli(['verify', '--probe', '--json'], { cwd: dir, env }),
    ]);
    expect(text.code, show(text)).toBe(0);
    expect(text.stdout).toContain(
      `    probe JSONRPC 1.0 ${agent.origin}${JSONRPC_PATH}: served (HTTP 200 application/json, JSON-RPC -32001 TaskNotFound`,
    );
    expect(text.stdout).toContain('; the lockfile records no outcome for it');
    expect(
      jsonOf(json).agents.research.probes.map((p: { kind: string; recorded?: string }) => [p.recorded, p.kind]),
    ).toEqual([
      [undefined, 'served'],
      [undefined, 'served'],
    ]);
  });

  it('without --probe nothing but the card is requested (a recorder sees no GetTask)', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const env = { RESEARCH_TOKEN: TOKEN };
    const { dir } = await res.locked(manifest({ research: research(agent.origin) }), env);
    agent.requests.length = 0;
    const verified = await runCli(['verify'], { cwd: dir, env });
    expect(verified.code, show(verified)).toBe(0);
    expect(agent.requests.length).toBeGreaterThan(0);
    expect(agent.requests.filter((r) => !r.path.includes('.well-known'))).toEqual([]);
  });

  it('under the review gate a credential the base lockfile does not route is not sent: the probe goes without, auth-required, unchecked (fails under --strict); with the route, served', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent({ bearerToken: TOKEN });
    const env = { RESEARCH_TOKEN: TOKEN };
    const dir = await res.dir();
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'before the agent');
    git(dir, 'checkout', '-q', '-b', 'pr');
    await writeFile(join(dir, 'a2a.json'), JSON.stringify(manifest({ research: research(agent.origin) })));
    const lock = await runCli(['lock'], { cwd: dir, env });
    expect(lock.code, show(lock)).toBe(0);
    git(dir, 'add', 'a2a.json', 'a2a.lock.json');
    git(dir, 'commit', '-q', '-m', 'add research');
    agent.requests.length = 0;
    const [gated, strict] = await Promise.all([
      runCli(['verify', '--probe', '--base', 'main', '--json'], { cwd: dir, env }),
      runCli(['verify', '--probe', '--base', 'main', '--strict'], { cwd: dir, env }),
    ]);
    expect(gated.code, show(gated)).toBe(0);
    const report = jsonOf(gated).agents.research;
    // The agent is new on this branch: its credential route is the pull request's own, so none is sent.
    expect(report.status).toBe('unchecked');
    expect(report.probes.map((p: { kind: string }) => p.kind)).toEqual(['auth-required', 'auth-required']);
    const probes = agent.requests.filter((r) => !r.path.includes('.well-known'));
    expect(probes.length).toBe(4);
    for (const r of probes) expect(r.headers.authorization).toBeUndefined();
    expect(strict.code, show(strict)).toBe(1);
    // Merged (the base now routes it): the probe carries the plan's credential.
    git(dir, 'update-ref', 'refs/heads/main', 'pr');
    const merged = await runCli(['verify', '--probe', '--base', 'main', '--json', '--strict'], { cwd: dir, env });
    expect(merged.code, show(merged)).toBe(0);
    expect(jsonOf(merged).agents.research.probes.map((p: { kind: string }) => p.kind)).toEqual(['served', 'served']);
  });

  for (const [lie, handler, answered] of [
    ['an HTML 404', html404, /HTTP 404 text\/html/],
    ['a non-A2A 500', plain500, /HTTP 500 application\/json/],
  ] as const)
    it(`a lock made while served, then the JSON-RPC path answering ${lie}: interface-not-served, exit 6, in text, --json, the job summary and SARIF`, async ({
      onTestFinished,
    }) => {
      const res = resources(onTestFinished);
      const agent = await res.sampleAgent();
      const env = { RESEARCH_TOKEN: TOKEN };
      const { dir } = await res.locked(manifest({ research: research(agent.origin) }), env);
      const lock = JSON.parse(await readFile(join(dir, 'a2a.lock.json'), 'utf8'));
      expect(Object.values(lock.agents.research.probe)).toEqual(['served', 'served']);
      // The card stays the same; the server behind the JSON-RPC path is another one now.
      agent.serve(JSONRPC_PATH, handler);
      const summary = join(dir, 'summary.md');
      const [text, json, sarif, plain] = await Promise.all([
        runCli(['verify', '--probe'], { cwd: dir, env: { ...env, GITHUB_STEP_SUMMARY: summary } }),
        runCli(['verify', '--probe', '--json'], { cwd: dir, env }),
        runCli(['verify', '--probe', '--format', 'sarif'], { cwd: dir, env }),
        runCli(['verify'], { cwd: dir, env }),
      ]);
      const url = `${agent.origin}${JSONRPC_PATH}`;
      expect(text.code, show(text)).toBe(6);
      expect(text.stdout).toContain(`✗ research: interface-not-served: research: JSONRPC 1.0 at ${url} is not served`);
      expect(text.stdout).toMatch(answered);
      expect(text.stdout).toContain('the lockfile records it served');
      expect(text.stdout).toContain('verify failed (exit 6): 1 interface-not-served');
      expect(json.code, show(json)).toBe(6);
      const report = jsonOf(json).agents.research;
      expect(report).toMatchObject({ status: 'error', exitCode: 6, error: { code: 'interface-not-served' } });
      expect(report.probes.find((p: { url: string }) => p.url === url)).toMatchObject({
        kind: 'not-served',
        recorded: 'served',
        answered: expect.stringMatching(answered),
      });
      expect(JSON.stringify(jsonOf(json))).not.toContain(TOKEN);
      const markdown = await readFile(summary, 'utf8');
      expect(markdown).toContain('❌ verify failed (exit 6)');
      expect(markdown).toMatch(/\| research \| ❌ error \| interface\\?-not\\?-served: /);
      expect(sarif.code, show(sarif)).toBe(6);
      const log = jsonOf(sarif);
      expect(sarifErrors(log)).toEqual([]);
      const results = log.runs[0].results as Array<{ ruleId: string; level: string }>;
      expect(results.map((r) => [r.ruleId, r.level])).toEqual([['interface-not-served', 'error']]);
      // Without --probe the card alone is checked: it has not changed.
      expect(plain.code, show(plain)).toBe(0);
    });

  it('a lock made while served over gRPC, then the gRPC server replaced by one without the A2A service (the card the same): interface-not-served, exit 6', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({
      grpc: true,
      card: (origin, { grpcUrl }) => ({
        ...sampleCard(origin),
        supportedInterfaces: [{ url: grpcUrl!, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
      }),
    });
    const env = { RESEARCH_TOKEN: TOKEN };
    const { dir } = await res.locked(
      manifest({ research: research(agent.origin) }, { ...PROFILE, bindings: ['GRPC'], versions: ['1.0'] }),
      env,
    );
    const lock = JSON.parse(await readFile(join(dir, 'a2a.lock.json'), 'utf8'));
    expect(lock.agents.research.probe).toEqual({ [`GRPC 1.0 ${agent.grpcUrl}`]: 'served' });
    // The same card from the same origin; at the gRPC address a grpc-js server with no service.
    const card = await (await fetch(agent.cardUrl)).json();
    const port = Number(new URL(agent.origin).port);
    await agent.close();
    await res.agent({ card, port });
    const grpc = await import('@grpc/grpc-js');
    const server = new grpc.Server();
    await new Promise<number>((ok, fail) =>
      server.bindAsync(agent.grpcUrl!, grpc.ServerCredentials.createInsecure(), (e, p) => (e ? fail(e) : ok(p))),
    );
    onTestFinished(() => new Promise<void>((ok) => server.tryShutdown(() => ok())));
    const [text, json, plain] = await Promise.all([
      runCli(['verify', '--probe'], { cwd: dir, env }),
      runCli(['verify', '--probe', '--json'], { cwd: dir, env }),
      runCli(['verify'], { cwd: dir, env }),
    ]);
    expect(text.code, show(text)).toBe(6);
    expect(text.stdout).toContain(
      `research: GRPC 1.0 at ${agent.grpcUrl} is not served (answered: gRPC 12 UNIMPLEMENTED`,
    );
    expect(jsonOf(json).agents.research).toMatchObject({
      status: 'error',
      exitCode: 6,
      error: { code: 'interface-not-served' },
      probes: [{ protocolBinding: 'GRPC', recorded: 'served', kind: 'not-served' }],
    });
    expect(plain.code, show(plain)).toBe(0);
  });

  for (const lie of ['html-404', 'non-a2a-500', 'grpc-unimplemented'] as Lie[])
    it(`a lockfile that records the ${lie} interface not-served (lock warned): verify --probe warns and passes; under --strict it fails, exit 6`, async ({
      onTestFinished,
    }) => {
      const res = resources(onTestFinished);
      const liar = await startLyingServer(lie);
      onTestFinished(() => liar.close());
      const { dir } = await res.locked(
        manifest(
          { liar: { card: liar.origin, skills: ['market-size'] } },
          { ...PROFILE, bindings: ['JSONRPC', 'GRPC'], versions: ['1.0'] },
        ),
      );
      const lock = JSON.parse(await readFile(join(dir, 'a2a.lock.json'), 'utf8'));
      expect(lock.agents.liar.probe).toEqual({ [`${liar.binding} 1.0 ${liar.interfaceUrl}`]: 'not-served' });
      const [warned, strict] = await Promise.all([
        runCli(['verify', '--probe', '--json'], { cwd: dir }),
        runCli(['verify', '--probe', '--strict'], { cwd: dir }),
      ]);
      expect(warned.code, show(warned)).toBe(0);
      expect(jsonOf(warned).warnings).toEqual([
        expect.objectContaining({ code: 'interface-not-served', agent: 'liar' }),
      ]);
      expect(strict.code, show(strict)).toBe(6);
      expect(strict.stdout).toContain(
        `✗ liar: interface-not-served: liar: ${liar.binding} 1.0 at ${liar.interfaceUrl} is not served`,
      );
      expect(strict.stdout).toContain('the lockfile records it not-served');
    });

  it.for(TOKEN_FAILURES.filter(([mode]) => mode !== 'hangs'))(
    'a locked served interface whose probe cannot be sent (the OAuth token endpoint %s): unchecked interface-not-probed, exit 0 (1 under --strict), never interface-not-served',
    async ([mode, words], { onTestFinished }) => {
      const res = resources(onTestFinished);
      const { agent, state, entry, env } = await startOAuthAgent(res);
      const { dir } = await res.locked(manifest({ research: entry }), env);
      const lock = JSON.parse(await readFile(join(dir, 'a2a.lock.json'), 'utf8'));
      expect(Object.values(lock.agents.research.probe)).toEqual(['served', 'served']);
      state.mode = mode;
      agent.requests.length = 0;
      const [json, text, strict, sarif] = await Promise.all([
        runCli(['verify', '--probe', '--json'], { cwd: dir, env }),
        runCli(['verify', '--probe'], { cwd: dir, env }),
        runCli(['verify', '--probe', '--strict'], { cwd: dir, env }),
        runCli(['verify', '--probe', '--strict', '--format', 'sarif'], { cwd: dir, env }),
      ]);
      expectNotProbed(
        { json, text, strict },
        `no probe sent to JSONRPC 1.0 at ${agent.jsonRpcUrl}, HTTP+JSON 1.0 at ${agent.restUrl} (the credential for scheme "oauth" could not be obtained: ${words})`,
      );
      expect(sarif.code, show(sarif)).toBe(1);
      const log = jsonOf(sarif);
      expect(sarifErrors(log)).toEqual([]);
      expect(log.runs[0].results.map((r: { ruleId: string; level: string }) => [r.ruleId, r.level])).toEqual([
        ['interface-not-probed', 'error'],
      ]);
      // Nothing was asked of the agent but its card.
      expect(agent.requests.filter((r) => !r.path.includes('.well-known'))).toEqual([]);
      for (const out of [json, text, strict, sarif]) {
        const all = out.stdout + out.stderr;
        // (the SARIF log lists every rule, interface-not-served among them: its results are above)
        if (out !== sarif) expect(all).not.toContain('interface-not-served');
        expect(all).not.toContain(TOKEN_BODY_MARKER);
        expect(all).not.toContain(CLIENT_SECRET);
      }
    },
  );

  it('a locked served interface whose OAuth access token no header can carry (U+2028): the probe is not sent, unchecked interface-not-probed in the tool’s words, exit 0 (1 under --strict), never interface-not-served', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { agent, state, entry, env } = await startOAuthAgent(res);
    const { dir } = await res.locked(manifest({ research: entry }), env);
    expect(Object.values((await readLock(dir)).agents.research.probe)).toEqual(['served', 'served']);
    state.mode = 'unsendable';
    agent.requests.length = 0;
    const [json, text, strict] = await Promise.all([
      runCli(['verify', '--probe', '--json'], { cwd: dir, env }),
      runCli(['verify', '--probe'], { cwd: dir, env }),
      runCli(['verify', '--probe', '--strict'], { cwd: dir, env }),
    ]);
    expectNotProbed(
      { json, text, strict },
      `no probe sent to JSONRPC 1.0 at ${agent.jsonRpcUrl}, HTTP+JSON 1.0 at ${agent.restUrl} (the run refused the request before it left: usage: the value of the Authorization header contains a character a header cannot carry (beyond Latin-1; RFC 9110 field-value))`,
    );
    // Nothing left for the agent but the card requests: the token never went on the wire.
    expect(agent.requests.filter((r) => !r.path.includes('.well-known'))).toEqual([]);
    for (const out of [json, text, strict]) {
      const all = out.stdout + out.stderr;
      expect(all).not.toContain('interface-not-served');
      expect(all).not.toContain(ACCESS_TOKEN);
      expect(all).not.toContain(UNSENDABLE_TOKEN.slice(-12));
      expect(all).not.toContain(CLIENT_SECRET);
    }
  });
});
