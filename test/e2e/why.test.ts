/**
 * `a2a why <agent> [skill]`: offline, from the locked snapshot, how each locked plan was chosen
 * (skill, version, interface, security, media, delivery, extensions); an unknown agent or skill is
 * a usage error listing the locked ones (exit 2); a hand-edited plan is exit 1 with the difference
 * between the locked and the freshly negotiated value.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { jsonOf, resources, runCli, show } from './helpers.js';

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
});
