/**
 * `a2a why <agent> [skill]`: offline, from the locked snapshot, how each locked plan was chosen
 * (skill, version, interface, security, media, delivery, extensions); an unknown agent or skill is
 * a usage error listing the locked ones (exit 2); a hand-edited plan is exit 1 with the difference
 * between the locked and the freshly negotiated value.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { jsonOf, manifest, research, resources, runCli, show } from './helpers.js';

describe.concurrent('a2a why', () => {
  it('why: unknown agent or skill is usage (exit 2); a hand-edited plan is exit 1 with the difference', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    const lock = JSON.parse(await readFile('a2a.lock.json.example', 'utf8'));
    lock.agents['research-agent'].plans['market-size'].delivery = 'poll';
    await writeFile(`${dir}/a2a.lock.json`, JSON.stringify(lock));
    const [edited, unknownAgent, unknownSkill] = await Promise.all([
      runCli(['why', 'research-agent', '--json'], { cwd: dir }),
      runCli(['why', 'reserch-agent'], { cwd: dir }),
      runCli(['why', 'currency-agent', 'market-size'], { cwd: dir }),
    ]);
    expect(edited.code, show(edited)).toBe(1);
    const doc = jsonOf(edited);
    expect(doc.ok).toBe(false);
    expect(doc.skills['market-size'].matchesLock).toBe(false);
    expect(doc.skills['market-size'].differences).toEqual([
      { skill: 'market-size', field: 'delivery', locked: 'poll', fresh: 'stream' },
    ]);
    expect(doc.skills['market-size'].steps.map((s: { step: string }) => s.step)).toEqual([
      'skill',
      'version',
      'interface',
      'security',
      'media',
      'delivery',
      'extensions',
    ]);
    expect(unknownAgent.code, show(unknownAgent)).toBe(2);
    expect(unknownAgent.stderr).toContain(
      'unknown agent "reserch-agent" (locked agents: currency-agent, research-agent)',
    );
    expect(unknownSkill.code, show(unknownSkill)).toBe(2);
    expect(unknownSkill.stderr).toContain(
      'agent "currency-agent" has no locked skill "market-size" (locked skills: convert)',
    );
  });

  it('why shows what the wire probe found at each locked interface (issue 37): served when locked against a real agent, not probed from an older lockfile', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const { dir } = await res.locked(manifest({ research: research(agent.origin) }), { RESEARCH_TOKEN: 't' });
    const old = await res.dir();
    await writeFile(`${old}/a2a.lock.json`, await readFile('a2a.lock.json.example'));
    const [json, text, unprobed] = await Promise.all([
      runCli(['why', 'research', '--json'], { cwd: dir }),
      runCli(['why', 'research'], { cwd: dir }),
      runCli(['why', 'research-agent'], { cwd: old }),
    ]);
    expect(json.code, show(json)).toBe(0);
    expect(jsonOf(json).interfaces).toEqual([
      { url: `${agent.origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', probe: 'served' },
      { url: `${agent.origin}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', probe: 'served' },
    ]);
    expect(text.stdout).toContain('research › interfaces (wire probe when locked)');
    expect(text.stdout).toContain(`✓ JSONRPC 1.0 ${agent.origin}/a2a/jsonrpc: served`);
    expect(unprobed.code, show(unprobed)).toBe(0);
    expect(unprobed.stdout).toContain(
      '? JSONRPC 1.0 http://127.0.0.1:41241/a2a/jsonrpc: not probed (a2a update, or verify --probe, probes it)',
    );
    expect(unprobed.stdout).toContain('? HTTP+JSON 1.0 http://127.0.0.1:41241/a2a/rest: not probed');
  });
});
