/**
 * Issue 37, part B: `a2a verify --probe` against the Python reference SDK `a2a-sdk` 1.3.0
 * (test/python/sdk_agent.py): JSON-RPC, HTTP+JSON and gRPC, one agent open and one behind a bearer
 * token. Every locked interface answers its GetTask for an unknown task in A2A (`served`); the
 * authenticated agent probed without its credential answers an authentication refusal, which never
 * passes as `served`: `unchecked` (`interface-auth-required`), a failure under `--strict`.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PythonServer, startPythonServer } from '../helpers/python.js';
import { jsonOf, resources, runCli, SLOW, show } from './helpers.js';

const py = inject('python');
const TOKEN = 'py-probe-T0ken-37';
const ENV = { PY_TOKEN: TOKEN };
const PROFILE = {
  bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'],
  versions: ['1.0'],
  accepts: ['text/plain'],
  sends: ['text/plain'],
  streaming: true,
};
const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

interface Probe {
  protocolBinding: string;
  kind: string;
  recorded?: string;
  answered?: string;
}
const kinds = (probes: Probe[]) => probes.map((p) => [p.protocolBinding, p.recorded, p.kind]);

describe.skipIf(!py.ok)('a2a verify --probe against a2a-sdk 1.3.0 (Python)', () => {
  let open: PythonServer;
  let authed: PythonServer;

  beforeAll(async () => {
    if (!py.ok) return;
    [open, authed] = await Promise.all([
      startPythonServer(py, 'sdk_agent.py', [JSON.stringify({ bindings: BINDINGS, versionField: true })]),
      startPythonServer(py, 'sdk_agent.py', [JSON.stringify({ bindings: BINDINGS, versionField: true, token: TOKEN })]),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([open?.close(), authed?.close()]);
  });

  it('every interface of both agents served (the authenticated one probed with its bearer); without the credential auth-required: unchecked, exit 1 under --strict', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const { dir } = await res.locked(
      {
        profile: PROFILE,
        agents: {
          open: { card: open.origin, skills: ['market-size'] },
          authed: { card: authed.origin, skills: ['market-size'], credentials: { bearer: { env: 'PY_TOKEN' } } },
        },
      },
      ENV,
    );
    const verified = await runCli(['verify', '--probe', '--strict', '--json'], { cwd: dir, env: ENV });
    expect(verified.code, show(verified)).toBe(0);
    const doc = jsonOf(verified);
    for (const name of ['open', 'authed']) {
      expect(doc.agents[name].status, name).toBe('ok');
      expect(kinds(doc.agents[name].probes), name).toEqual(BINDINGS.map((b) => [b, 'served', 'served']));
    }

    const [bare, strict] = await Promise.all([
      runCli(['verify', '--probe', '--json'], { cwd: dir }),
      runCli(['verify', '--probe', '--strict'], { cwd: dir }),
    ]);
    expect(bare.code, show(bare)).toBe(0);
    const report = jsonOf(bare).agents.authed;
    expect(report).toMatchObject({ status: 'unchecked', reason: 'interface-auth-required', exitCode: 0 });
    expect(kinds(report.probes)).toEqual(BINDINGS.map((b) => [b, 'served', 'auth-required']));
    expect(report.unchecked).toContain('not proven served');
    expect(jsonOf(bare).agents.open.status).toBe('ok');
    expect(strict.code, show(strict)).toBe(1);
    expect(strict.stdout).toContain('✗ authed: unchecked (interface-auth-required): not proven served');
    expect(strict.stdout).toContain('verify failed (exit 1): 1 ok · 1 unchecked');
  });
});
