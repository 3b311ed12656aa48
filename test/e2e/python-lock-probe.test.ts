/**
 * The wire probe at lock time (issue 37) against the Python reference SDK: a2a-sdk 1.3.0 agents
 * (test/python/sdk_agent.py) serving JSON-RPC, HTTP+JSON and gRPC, with the 0.3 compatibility layer;
 * one behind a bearer token, `auth-required` without the credential and `served` with it.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PythonServer, startPythonServer } from '../helpers/python.js';
import { jsonOf, readLock, resources, runCli, SLOW, show } from './helpers.js';

const py = inject('python');
const TOKEN = 'py-probe-T0ken-0123456789';
const PROFILE = {
  bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'],
  versions: ['1.0', '0.3'],
  accepts: ['text/plain'],
  sends: ['text/plain'],
  streaming: true,
};

describe.skipIf(!py.ok)('a2a lock probes a2a-sdk 1.3.0 (Python) agents', () => {
  let open: PythonServer;
  let locked: PythonServer;
  beforeAll(async () => {
    if (!py.ok) return;
    [open, locked] = await Promise.all([
      startPythonServer(py, 'sdk_agent.py', [
        JSON.stringify({ bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'], compat: true }),
      ]),
      startPythonServer(py, 'sdk_agent.py', [
        JSON.stringify({ bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'], token: TOKEN }),
      ]),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([open?.close(), locked?.close()]);
  });

  it('served: JSON-RPC, HTTP+JSON and gRPC 1.0, and JSON-RPC and HTTP+JSON 0.3 (the compatibility layer)', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const dir = await resources(onTestFinished).dir({
      profile: PROFILE,
      agents: { py: { card: open.origin, skills: ['market-size'] } },
    });
    const lock = await runCli(['lock', '--strict', '--json'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    const probe = (await readLock(dir)).agents.py.probe as Record<string, string>;
    const grpc = `127.0.0.1:${open.grpcPort}`;
    expect(probe).toMatchObject({
      [`JSONRPC 1.0 ${open.origin}/a2a/jsonrpc`]: 'served',
      [`HTTP+JSON 1.0 ${open.origin}/a2a/rest`]: 'served',
      [`GRPC 1.0 ${grpc}`]: 'served',
      [`JSONRPC 0.3 ${open.origin}/a2a/jsonrpc`]: 'served',
      [`HTTP+JSON 0.3 ${open.origin}/a2a/rest`]: 'served',
    });
    expect(Object.values(probe).every((kind) => kind === 'served')).toBe(true);
    // Only the card's own warnings (interface-version-missing: a2a-sdk leaves protocolVersion unset).
    const codes = (jsonOf(lock).warnings ?? []).map((w: { code: string }) => w.code);
    expect(codes.filter((c: string) => c.startsWith('interface-') && c !== 'interface-version-missing')).toEqual([]);
  });

  it('behind a bearer token: auth-required without the credential, served with it', { timeout: SLOW }, async ({
    onTestFinished,
  }) => {
    const dir = await resources(onTestFinished).dir({
      profile: PROFILE,
      agents: { py: { card: locked.origin, skills: ['market-size'], credentials: { bearer: { env: 'PY_TOKEN' } } } },
    });
    const without = await runCli(['lock', '--json'], { cwd: dir });
    expect(without.code, show(without)).toBe(0);
    const kinds = (await readLock(dir)).agents.py.probe as Record<string, string>;
    expect(Object.keys(kinds).length).toBeGreaterThanOrEqual(3);
    expect(new Set(Object.values(kinds))).toEqual(new Set(['auth-required']));
    expect(jsonOf(without).warnings.map((w: { code: string }) => w.code)).toContain('interface-auth-required');

    const withToken = await runCli(['update', '--strict', '--json'], { cwd: dir, env: { PY_TOKEN: TOKEN } });
    expect(withToken.code, show(withToken)).toBe(0);
    const served = (await readLock(dir)).agents.py.probe as Record<string, string>;
    expect(Object.keys(served)).toEqual(Object.keys(kinds));
    expect(new Set(Object.values(served))).toEqual(new Set(['served']));
  });
});
