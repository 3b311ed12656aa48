/**
 * A card's warnings are said once, when the card is locked, not on every run (docs/reference/warnings.md,
 * "When a warning is said"): a real a2a-sdk 1.3.0 (Python) agent leaves `protocolVersion` out of every
 * interface (`interface-version-missing`), and one with an extended card is read again by every
 * `verify`. `lock` says each such warning; `verify`, `outdated`, `update` and their `--json`
 * documents do not say them again while the served cards are the locked ones.
 */
import { describe, expect, inject, it } from 'vitest';
import { startPythonServer } from '../helpers/python.js';
import { jsonOf, resources, runCli, SLOW, show } from './helpers.js';

const py = inject('python');
const TOKEN = 'py-warnings-T0ken';
const PROFILE = {
  bindings: ['JSONRPC', 'HTTP+JSON'],
  versions: ['1.0'],
  accepts: ['text/plain'],
  sends: ['text/plain'],
  streaming: true,
};

describe.skipIf(!py.ok)('a2a-sdk (Python) warnings are said once', () => {
  it('an a2a-sdk agent with an extended card (no interface protocolVersion): lock says interface-version-missing per interface; verify, outdated, update (text and --json) do not repeat it', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    if (!py.ok) return;
    const server = await startPythonServer(py, 'sdk_agent.py', [
      JSON.stringify({ token: TOKEN, extended: true, bindings: ['JSONRPC', 'HTTP+JSON'] }),
    ]);
    onTestFinished(() => server.close());
    const served = await (await fetch(`${server.origin}/.well-known/agent-card.json`)).json();
    expect(served.supportedInterfaces.map((i: object) => 'protocolVersion' in i)).toEqual([false, false]);
    const res = resources(onTestFinished);
    const dir = await res.dir({
      profile: PROFILE,
      agents: { py: { card: server.origin, skills: ['market-size'], credentials: { bearer: { env: 'PY_TOKEN' } } } },
    });
    const env = { PY_TOKEN: TOKEN };
    const missing = (warnings: Array<{ code: string; path?: string }>) =>
      warnings.filter((w) => w.code === 'interface-version-missing').map((w) => w.path);

    const lock = await runCli(['lock', '--json'], { cwd: dir, env });
    expect(lock.code, show(lock)).toBe(0);
    // The public card's two interfaces and the extended card's two.
    expect(missing(jsonOf(lock).warnings)).toEqual([
      '$.supportedInterfaces[0].protocolVersion',
      '$.supportedInterfaces[1].protocolVersion',
      '$.supportedInterfaces[0].protocolVersion',
      '$.supportedInterfaces[1].protocolVersion',
    ]);

    for (const args of [['verify'], ['verify', '--strict'], ['outdated'], ['update']]) {
      const text = await runCli(args, { cwd: dir, env });
      expect(text.code, show(text)).toBe(0);
      expect(text.stderr, args.join(' ')).not.toContain('interface-version-missing');
      const json = await runCli([...args, '--json'], { cwd: dir, env });
      expect(json.code, show(json)).toBe(0);
      expect(missing(jsonOf(json).warnings), args.join(' ')).toEqual([]);
    }
  });
});
