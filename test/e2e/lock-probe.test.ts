/**
 * The wire probe at lock time (issue 37): `a2a lock`, `add` and `update` send each locked interface
 * one GetTask for a task that cannot exist and record what answered (the kind only) in the
 * lockfile's `probe`; a `not-served` interface is the warning `interface-not-served`, and under
 * `--strict` a refusal (exit 6) with nothing written; `--no-probe` sends nothing. Against real peers
 * on 127.0.0.1: the JS SDK agents (JSON-RPC, HTTP+JSON, gRPC) and servers that lie
 * (test/helpers/lying-servers.ts).
 */
import { describe, expect, it } from 'vitest';
import { type Lie, startLyingServer } from '../helpers/lying-servers.js';
import { CLIENT_SECRET, startOAuthAgent, TOKEN_BODY_MARKER, TOKEN_FAILURES } from '../helpers/oauth-agent.js';
import {
  jsonOf,
  manifest,
  readLock,
  readLockBytes,
  research,
  resources,
  runCli,
  sampleCard,
  show,
  writeLockBytes,
} from './helpers.js';

const TOKEN = 'lock-probe-token-0123456789';
const ANY_BINDING = { bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'], versions: ['1.0', '0.3'] };
/** Probe requests an agent received (the probe's task ids). */
const probes = (requests: Array<{ path: string }>) =>
  requests.filter((r) => /a2a-lock-probe-|GetTask|jsonrpc$/.test(r.path));

describe.concurrent('a2a lock probes each locked interface', () => {
  it('served: JSON-RPC, HTTP+JSON and gRPC of the JS SDK, with the credential the plan sends', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({
      grpc: true,
      bearerToken: TOKEN,
      card: (origin, { grpcUrl }) => {
        const card = sampleCard(origin);
        return {
          ...card,
          supportedInterfaces: [
            ...card.supportedInterfaces,
            { url: grpcUrl!, protocolBinding: 'GRPC', protocolVersion: '1.0' },
          ],
        };
      },
    });
    const dir = await res.dir(manifest({ research: research(agent.origin, { profile: ANY_BINDING }) }));
    const lock = await runCli(['lock', '--json'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } });
    expect(lock.code, show(lock)).toBe(0);
    expect(jsonOf(lock).warnings ?? []).toEqual([]);
    expect((await readLock(dir)).agents.research.probe).toEqual({
      [`GRPC 1.0 ${agent.grpcUrl}`]: 'served',
      [`HTTP+JSON 1.0 ${agent.restUrl}`]: 'served',
      [`JSONRPC 1.0 ${agent.jsonRpcUrl}`]: 'served',
    });
    const sent = agent.requests.filter((r) => r.path !== '/.well-known/agent-card.json');
    expect(sent.map((r) => `${r.method} ${r.path.replace(/a2a-lock-probe-[0-9a-f-]+/, '<id>')}`).sort()).toEqual([
      'GET /a2a/rest/tasks/<id>',
      'GRPC /lf.a2a.v1.A2AService/GetTask',
      'POST /a2a/jsonrpc',
    ]);
    for (const r of sent) {
      expect(r.headers['a2a-version']).toBe('1.0');
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
    }

    // Locking again keeps the entry without network: no probe, the same bytes.
    const bytes = await readLockBytes(dir);
    const count = agent.requests.length;
    const again = await runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } });
    expect(again.code, show(again)).toBe(0);
    expect(agent.requests.length).toBe(count);
    expect(await readLockBytes(dir)).toEqual(bytes);
  });

  it('auth-required without the credential: recorded and said (alive, not proven)', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent({ bearerToken: TOKEN });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const lock = await runCli(['lock', '--json'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    expect((await readLock(dir)).agents.research.probe).toEqual({
      [`HTTP+JSON 1.0 ${agent.restUrl}`]: 'auth-required',
      [`JSONRPC 1.0 ${agent.jsonRpcUrl}`]: 'auth-required',
    });
    const warnings = jsonOf(lock).warnings.filter((w: { code: string }) => w.code === 'interface-auth-required');
    expect(warnings).toEqual([
      {
        code: 'interface-auth-required',
        agent: 'research',
        message: `JSONRPC 1.0 at ${agent.jsonRpcUrl} answered its probe with an authentication refusal (answered: HTTP 401 application/json): alive, not proven to serve A2A; locked as auth-required`,
      },
      expect.objectContaining({ code: 'interface-auth-required', agent: 'research' }),
    ]);
    for (const r of agent.requests) expect(r.headers.authorization).toBeUndefined();
  });

  it('a credential no header can carry (a bearer holding €): the probe is not sent, interface-not-probed in the tool’s words, nothing recorded, never not-served; verify --probe: unchecked', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent({ bearerToken: TOKEN });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const env = { RESEARCH_TOKEN: `${TOKEN}-\u00e9\u20ac-unsendable` };
    const strictDir = await res.dir(manifest({ research: research(agent.origin) }));
    const [lock, strict] = await Promise.all([
      runCli(['lock', '--json'], { cwd: dir, env }),
      runCli(['lock', '--strict'], { cwd: strictDir, env }),
    ]);
    expect(lock.code, show(lock)).toBe(0);
    expect(strict.code, show(strict)).toBe(0);
    const warnings = jsonOf(lock).warnings as Array<{ code: string; message: string }>;
    expect(warnings.map((w) => w.code)).toEqual(['interface-not-probed', 'interface-not-probed']);
    expect(warnings[0]!.message).toBe(
      `JSONRPC 1.0 at ${agent.jsonRpcUrl} was not probed: its probe was not sent, as the run refused the request before it left: usage: the value of the Authorization header contains a character a header cannot carry (beyond Latin-1; RFC 9110 field-value); nothing is recorded for it (a kind recorded before is kept)`,
    );
    expect((await readLock(dir)).agents.research.probe).toBeUndefined();
    expect((await readLock(strictDir)).agents.research.probe).toBeUndefined();

    const verify = await runCli(['verify', '--probe', '--json'], { cwd: dir, env });
    expect(verify.code, show(verify)).toBe(0);
    expect(jsonOf(verify).agents.research).toMatchObject({ status: 'unchecked', reason: 'interface-not-probed' });
    // Nothing but the card was asked: the credential never went on the wire.
    expect(agent.requests.filter((r) => !r.path.includes('.well-known'))).toEqual([]);
    for (const out of [lock, strict, verify]) {
      expect(out.stdout + out.stderr).not.toContain('interface-not-served');
      expect(out.stdout + out.stderr).not.toContain(TOKEN);
    }
  });

  it('--no-probe: nothing sent to the interfaces, no probe recorded', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const lock = await runCli(['lock', '--no-probe'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } });
    expect(lock.code, show(lock)).toBe(0);
    expect((await readLock(dir)).agents.research.probe).toBeUndefined();
    expect(agent.requests.map((r) => r.path)).toEqual(['/.well-known/agent-card.json']);
  });
});

describe.concurrent('servers that lie: not-served, a warning; under --strict a refusal with nothing written', () => {
  const cases: Array<[Lie, string, RegExp]> = [
    ['html-404', '1.0', /answered: HTTP 404 text\/html, not a JSON object \(\d+ characters\)/],
    ['non-a2a-500', '0.3', /answered: HTTP 500 application\/json, not a JSON-RPC 2\.0 answer/],
    ['grpc-unimplemented', '1.0', /answered: gRPC 12 UNIMPLEMENTED/],
  ];
  it.for(cases)('%s (%s)', async ([lie, version, answered], { onTestFinished }) => {
    const res = resources(onTestFinished);
    const liar = await startLyingServer(lie, version);
    onTestFinished(() => liar.close());
    const agent = { card: liar.origin, skills: ['market-size'], profile: { ...ANY_BINDING, versions: [version] } };
    const dir = await res.dir(manifest({ liar: agent }));
    const key = `${liar.binding} ${version} ${liar.interfaceUrl}`;

    // --strict: exit 6, the agent an error naming the interface and what answered, nothing written.
    const strict = await runCli(['lock', '--strict', '--json'], { cwd: dir });
    expect(strict.code, show(strict)).toBe(6);
    const failed = jsonOf(strict);
    expect(failed.written).toBe(false);
    expect(failed.agents.liar.status).toBe('error');
    expect(failed.agents.liar.error.code).toBe('interface-not-served');
    expect(failed.agents.liar.error.message).toContain(`${liar.binding} ${version} at ${liar.interfaceUrl}`);
    expect(failed.agents.liar.error.message).toMatch(answered);
    expect(await readLockBytes(dir)).toBeUndefined();
    const human = await runCli(['lock', '--strict'], { cwd: dir });
    expect(human.code, show(human)).toBe(6);
    expect(human.stdout).toContain(
      `✗ liar: interface-not-served: a locked interface is not served: ${liar.binding} ${version} at ${liar.interfaceUrl}`,
    );
    expect(human.stdout).toMatch(/a2a\.lock\.json not written/);

    // An existing lockfile stays byte-for-byte as it was.
    const previous = '{"lockfileVersion":1,"settings":{},"agents":{}}\n';
    await writeLockBytes(dir, previous);
    expect((await runCli(['lock', '--strict'], { cwd: dir })).code).toBe(6);
    expect((await readLockBytes(dir))!.toString('utf8')).toBe(previous);

    // Without --strict: locked, with the warning and the kind recorded.
    const lock = await runCli(['lock', '--json'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    const warning = jsonOf(lock).warnings.find((w: { code: string }) => w.code === 'interface-not-served');
    expect(warning.agent).toBe('liar');
    expect(warning.message).toContain(`${liar.binding} ${version} at ${liar.interfaceUrl} is not served`);
    expect(warning.message).toMatch(answered);
    expect((await readLock(dir)).agents.liar.probe).toEqual({ [key]: 'not-served' });
    if (liar.binding === 'JSONRPC') {
      const posts = liar.requests.filter((r) => r.method === 'POST');
      expect(posts).toHaveLength(4); // one per lock run, never retried
      for (const r of posts) expect(r.headers['a2a-version']).toBe(version);
    }
  });
});

describe.concurrent('a valid TaskNotFound larger than the read bound is served, at lock and at verify --probe', () => {
  const sizes: Array<[string, number, RegExp]> = [
    ['20 KiB (read whole)', 20_000, /^HTTP 200 application\/json, JSON-RPC -32001 TaskNotFound$/],
    [
      '200 KiB (read in part)',
      200_000,
      /^HTTP 200 application\/json \(larger than 64 KiB, read in part\), JSON-RPC -32001 TaskNotFound$/,
    ],
  ];
  it.for(sizes)('error.data of %s', async ([, bytes, answered], { onTestFinished }) => {
    const res = resources(onTestFinished);
    const server = await startLyingServer('large-task-not-found', '1.0', bytes);
    onTestFinished(() => server.close());
    const dir = await res.dir(
      manifest({ big: { card: server.origin, skills: ['market-size'], profile: ANY_BINDING } }),
    );
    const lock = await runCli(['lock', '--strict', '--json'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    expect(jsonOf(lock).warnings ?? []).toEqual([]);
    expect((await readLock(dir)).agents.big.probe).toEqual({ [`JSONRPC 1.0 ${server.interfaceUrl}`]: 'served' });
    const verify = await runCli(['verify', '--probe', '--strict', '--json'], { cwd: dir });
    expect(verify.code, show(verify)).toBe(0);
    const [probe] = jsonOf(verify).agents.big.probes;
    expect(probe).toMatchObject({ recorded: 'served', kind: 'served', answered: expect.stringMatching(answered) });
    expect(JSON.stringify(jsonOf(verify))).not.toContain('xxxxxxxx');
  });
});

describe.concurrent('add and update probe too', () => {
  it('a2a add: the new agent is probed; --strict refuses a lying one and writes neither file', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const liar = await startLyingServer('html-404');
    onTestFinished(() => liar.close());
    const dir = await res.dir(manifest({}));
    const env = { RESEARCH_TOKEN: TOKEN };
    const added = await runCli(
      ['add', 'research', agent.origin, '--skill', 'market-size', '--credential', 'bearer=RESEARCH_TOKEN'],
      { cwd: dir, env },
    );
    expect(added.code, show(added)).toBe(0);
    expect(Object.values((await readLock(dir)).agents.research.probe)).toEqual(['served', 'served']);
    const bytes = await readLockBytes(dir);
    const refused = await runCli(['add', 'liar', liar.origin, '--skill', 'market-size', '--strict'], { cwd: dir, env });
    expect(refused.code, show(refused)).toBe(6);
    expect(await readLockBytes(dir)).toEqual(bytes);
    expect((await readLock(dir)).agents.liar).toBeUndefined();
  });

  it('a2a update re-probes; --no-probe sends nothing and keeps the kinds recorded (no new evidence)', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const { dir } = await res.locked(manifest({ research: research(agent.origin) }), { RESEARCH_TOKEN: TOKEN });
    expect(Object.values((await readLock(dir)).agents.research.probe)).toEqual(['served', 'served']);
    const probed = probes(agent.requests).length;
    const bytes = await readLockBytes(dir);
    const update = await runCli(['update', '--no-probe'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } });
    expect(update.code, show(update)).toBe(0);
    expect(probes(agent.requests).length).toBe(probed);
    expect(await readLockBytes(dir)).toEqual(bytes);
    const again = await runCli(['update'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } });
    expect(again.code, show(again)).toBe(0);
    expect(probes(agent.requests).length).toBe(probed + 2);
    expect(Object.values((await readLock(dir)).agents.research.probe)).toEqual(['served', 'served']);
  });
});

describe.concurrent('a probe that could not be sent (its OAuth token could not be obtained) records nothing', () => {
  it.for(TOKEN_FAILURES)(
    'token endpoint %s: interface-not-probed, the kinds recorded before kept, never not-served',
    async ([mode, words], { onTestFinished }) => {
      const res = resources(onTestFinished);
      const { agent, state, entry, env } = await startOAuthAgent(res);
      const { dir } = await res.locked(manifest({ research: entry }), env);
      const served = {
        [`HTTP+JSON 1.0 ${agent.restUrl}`]: 'served',
        [`JSONRPC 1.0 ${agent.jsonRpcUrl}`]: 'served',
      };
      expect((await readLock(dir)).agents.research.probe).toEqual(served);
      const bytes = await readLockBytes(dir);

      state.mode = mode;
      agent.requests.length = 0;
      const timeout = ['--timeout', '1500'];
      const [update, strict] = await Promise.all([
        runCli(['update', '--json', ...timeout], { cwd: dir, env }),
        runCli(['update', '--strict', ...timeout], { cwd: dir, env }),
      ]);
      expect(update.code, show(update)).toBe(0);
      expect(strict.code, show(strict)).toBe(0);
      const warnings = jsonOf(update).warnings as Array<{ code: string; message: string }>;
      expect(warnings.map((w) => w.code)).toEqual(['interface-not-probed', 'interface-not-probed']);
      expect(warnings[0]!.message).toBe(
        `JSONRPC 1.0 at ${agent.jsonRpcUrl} was not probed: its probe was not sent, as the credential for scheme "oauth" could not be obtained: ${words}; nothing is recorded for it (a kind recorded before is kept)`,
      );
      expect(strict.stdout + strict.stderr).toContain('interface-not-probed');
      // Never asked: no GetTask reached the agent, and the lockfile keeps what the last probe found.
      expect(agent.requests.filter((r) => !r.path.includes('.well-known'))).toEqual([]);
      expect(await readLockBytes(dir)).toEqual(bytes);
      for (const out of [update, strict]) {
        expect(out.stdout + out.stderr).not.toContain(TOKEN_BODY_MARKER);
        expect(out.stdout + out.stderr).not.toContain(CLIENT_SECRET);
        expect(out.stdout + out.stderr).not.toContain('interface-not-served');
      }

      // A first lock with the token endpoint failing: written (also under --strict), with no probe record.
      const fresh = await res.dir(manifest({ research: entry }));
      const first = await runCli(['lock', '--strict', ...timeout], { cwd: fresh, env });
      expect(first.code, show(first)).toBe(0);
      expect((await readLock(fresh)).agents.research.probe).toBeUndefined();
      expect(first.stdout + first.stderr).not.toContain(TOKEN_BODY_MARKER);
    },
  );
});
