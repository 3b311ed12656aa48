/**
 * Issue 23, point 6: a Google ADK 2.13.0 agent served by `to_a2a()` (test/python/adk_agent.py; an
 * LlmAgent with a fake model, no network, no API key), started once for the file.
 *
 * - `to_a2a(agent, host="127.0.0.1", port=N)`: its card as served (pure A2A 1.0, one JSONRPC
 *   interface at the root, `protocolVersion` per interface) locks, verifies, and a message goes
 *   through `createClient()` (ADK answers with a completed Task whose artifact holds the text);
 * - `to_a2a(agent, host="0.0.0.0", port=M)`: the card advertises its bind address; the refusal names
 *   that address and `rebaseInterfaces`, with which (issue 24) it locks at the card's origin and a
 *   message goes through the rebased URL.
 */
import { join } from 'node:path';
import { SendMessageRequest } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadLock } from '../../src/runtime/index.js';
import { type PythonServer, startPythonServer } from '../helpers/python.js';
import { allOutput, readLock, readLockBytes, resources, runCli, SLOW, show, verifyStrictTwice } from './helpers.js';

const py = inject('python');
const PROFILE = {
  bindings: ['JSONRPC', 'HTTP+JSON'],
  versions: ['1.0', '0.3'],
  accepts: ['text/plain'],
  sends: ['text/plain'],
  streaming: true,
};
const message = (text: string) =>
  SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });

describe.skipIf(!py.ok)('Google ADK 2.13.0 to_a2a() as a peer', () => {
  let adk: PythonServer;
  let bindOrigin: string;

  beforeAll(async () => {
    if (!py.ok) return;
    adk = await startPythonServer(py, 'adk_agent.py', ['{}'], 60_000);
    bindOrigin = `http://127.0.0.1:${adk.ready.bindPort as number}`;
  }, 90_000);
  afterAll(async () => {
    await adk?.close();
  });

  it('its card as served locks (JSONRPC 1.0 at the root), verify --strict passes twice, and a message goes through createClient()', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const served = await (await fetch(`${adk.origin}/.well-known/agent-card.json`)).json();
    expect(served).toMatchObject({
      name: 'research_agent',
      supportedInterfaces: [{ url: adk.origin, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      skills: [{ id: 'research_agent' }],
    });
    expect(served).not.toHaveProperty('url');

    const res = resources(onTestFinished);
    const dir = await res.dir({ profile: PROFILE, agents: { adk: { card: adk.origin, skills: ['research_agent'] } } });
    const lock = await runCli(['lock', '--json'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    expect((await readLock(dir)).agents.adk.plans.research_agent).toMatchObject({
      url: adk.origin,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      delivery: 'stream',
    });
    await verifyStrictTwice(dir, 'adk');

    const client = await (await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: {} }))
      .agent('adk', 'research_agent')
      .createClient();
    expect(JSON.stringify(await client.sendMessage(message('hello adk')))).toContain('echo: hello adk');
  });

  it('to_a2a(host="0.0.0.0"): the card advertises the bind address; the refusal names it and rebaseInterfaces, with which it locks at the card\'s origin and answers there', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const port = adk.ready.bindPort as number;
    const served = await (await fetch(`${bindOrigin}/.well-known/agent-card.json`)).json();
    expect(served.supportedInterfaces).toEqual([
      { url: `http://0.0.0.0:${port}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ]);
    const res = resources(onTestFinished);
    const dir = await res.dir({ profile: PROFILE, agents: { adk: { card: bindOrigin, skills: ['research_agent'] } } });
    const lock = await runCli(['lock'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(1);
    expect(allOutput(lock)).toContain(`http://0.0.0.0:${port}`);
    expect(allOutput(lock)).toMatch(/interface-host-unspecified/);
    expect(allOutput(lock)).toContain('"rebaseInterfaces": true');
    expect(await readLockBytes(dir)).toBeUndefined();

    const rebased = await res.dir({
      profile: PROFILE,
      agents: { adk: { card: bindOrigin, skills: ['research_agent'], rebaseInterfaces: true } },
    });
    const locked = await runCli(['lock'], { cwd: rebased });
    expect(locked.code, show(locked)).toBe(0);
    const entry = (await readLock(rebased)).agents.adk;
    expect(entry.plans.research_agent.url).toBe(`${bindOrigin}/`);
    expect(entry.snapshot.supportedInterfaces[0].url).toBe(`http://0.0.0.0:${port}`);
    const why = await runCli(['why', 'adk'], { cwd: rebased });
    expect(why.stdout).toContain(`rebased from http://0.0.0.0:${port} (rebaseInterfaces)`);
    await verifyStrictTwice(rebased, 'adk');
    const client = await (await loadLock({ lockfile: join(rebased, 'a2a.lock.json'), env: {} }))
      .agent('adk', 'research_agent')
      .createClient();
    expect(JSON.stringify(await client.sendMessage(message('hello rebased')))).toContain('echo: hello rebased');
  });
});
