/**
 * Hints that lead somewhere (issue 36): every refusal names the command that resolves it, `update`
 * gives the hint `verify` gives, and following the hints verifies. `a2a remove <agent> --skill`,
 * `a2a update <agent> --credential`, and a refused `add` that says how to retry with the flag.
 * Real SDK agents on 127.0.0.1; the built CLI.
 */
import { describe, expect, it } from 'vitest';
import {
  expectOneLineError,
  jsonOf,
  manifest,
  readLock,
  readLockBytes,
  readManifestBytes,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
} from './helpers.js';

const PROFILE = { bindings: ['JSONRPC'], versions: ['1.0'], accepts: ['application/json'] };

describe.concurrent('hints that lead somewhere', () => {
  it(
    'a skill the card dropped and a scheme it now requires: verify and update give the same hints, and following them verifies',
    async ({ onTestFinished }) => {
      const res = resources(onTestFinished);
      const agent = await res.agent({
        card: (o) => {
          const c = sampleCard(o);
          c.skills.push({ ...c.skills[0]!, id: 'brief', name: 'Brief' });
          return c;
        },
      });
      const { dir } = await res.locked(
        manifest(
          {
            research: {
              card: agent.origin,
              skills: ['market-size', 'brief'],
              credentials: { bearer: { env: 'RESEARCH_TOKEN' } },
            },
          },
          PROFILE,
        ),
      );
      const card = sampleCard(agent.origin);
      card.securitySchemes!.apikey = { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } };
      card.securityRequirements = [{ schemes: { bearer: { list: [] }, apikey: { list: [] } } }];
      agent.setCard(card);

      const removeHint = 'remove the skill from a2a.json: a2a remove research --skill brief';
      const credentialHint = /^a2a update research --credential apikey=<ENV> /;
      const [verify, verifyText, update, updateText, outdated] = await Promise.all([
        runCli(['verify', '--json'], { cwd: dir }),
        runCli(['verify'], { cwd: dir }),
        runCli(['update', 'research', '--json'], { cwd: dir }),
        runCli(['update', 'research'], { cwd: dir }),
        runCli(['outdated', '--json'], { cwd: dir }),
      ]);
      expect(verify.code, show(verify)).toBe(1);
      const drift = jsonOf(verify).agents.research.drift as Array<{ skill: string; hint?: string }>;
      const verifyHints = Object.fromEntries(drift.map((d) => [d.skill, d.hint]));
      expect(verifyHints.brief).toBe(removeHint);
      expect(verifyHints['market-size']).toMatch(credentialHint);
      // Neither refusal is resolved by a2a update: verify does not send the user there.
      expect(verifyText.stdout, show(verifyText)).not.toContain('run: a2a update research');
      expect(verifyText.stdout).toContain(`hint: ${removeHint}`);

      expect(update.code, show(update)).toBe(1);
      const refusals = jsonOf(update).agents.research.refusals;
      expect(refusals.brief.hint).toBe(verifyHints.brief);
      expect(refusals['market-size'].hint).toBe(verifyHints['market-size']);
      expect(jsonOf(outdated).agents.research.refusals, show(outdated)).toEqual(refusals);
      expect(updateText.stdout).toContain(`hint: ${removeHint}`);
      expect(updateText.stdout).toContain(`hint: ${verifyHints['market-size']}`);

      // Following the hints: the skill goes from both files, the credential is named, and it verifies.
      const removed = await runCli(['remove', 'research', '--skill', 'brief'], { cwd: dir });
      expect(removed.code, show(removed)).toBe(0);
      expect(removed.stdout).toContain('- research › brief removed');
      expect(JSON.parse((await readManifestBytes(dir)).toString()).agents.research.skills).toEqual(['market-size']);
      expect(Object.keys((await readLock(dir)).agents.research.plans)).toEqual(['market-size']);
      const offline = await runCli(['verify', '--offline'], { cwd: dir });
      expect(offline.code, show(offline)).toBe(0);

      const updated = await runCli(['update', 'research', '--credential', 'apikey=RESEARCH_KEY'], { cwd: dir });
      expect(updated.code, show(updated)).toBe(0);
      expect(JSON.parse((await readManifestBytes(dir)).toString()).agents.research.credentials).toEqual({
        bearer: { env: 'RESEARCH_TOKEN' },
        apikey: { env: 'RESEARCH_KEY' },
      });
      expect((await readLock(dir)).agents.research.plans['market-size'].security).toEqual({ bearer: [], apikey: [] });
      const verified = await runCli(['verify', '--strict'], { cwd: dir });
      expect(verified.code, show(verified)).toBe(0);
    },
    SLOW,
  );

  it('remove --skill: a skill the agent lacks, its last skill, or two agents is exit 2 with one line; nothing written', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const entry = { card: agent.origin, skills: ['market-size'], credentials: { bearer: { env: 'RESEARCH_TOKEN' } } };
    const { dir } = await res.locked(manifest({ research: entry, other: entry }));
    const before = [await readManifestBytes(dir), await readLockBytes(dir)];
    const [absent, last, two] = await Promise.all([
      runCli(['remove', 'research', '--skill', 'nope'], { cwd: dir }),
      runCli(['remove', 'research', '--skill', 'market-size'], { cwd: dir }),
      runCli(['remove', 'research', 'other', '--skill', 'market-size'], { cwd: dir }),
    ]);
    expectOneLineError(absent, /research does not list skill "nope" \(its skills: "market-size"\)/);
    expectOneLineError(last, /research would list no skill/, /a2a remove research\)/);
    expectOneLineError(two, /--skill needs exactly one agent/);
    for (const r of [absent, last, two]) expect(r.code, show(r)).toBe(2);
    expect([await readManifestBytes(dir), await readLockBytes(dir)]).toEqual(before);
  });

  it('a refused add of a card advertising its bind address says how to retry with --rebase-interfaces; the retry locks it', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({
      card: (o) => sampleCard(o.replace('127.0.0.1', '0.0.0.0'), { securitySchemes: {}, securityRequirements: [] }),
    });
    const dir = await res.dir(manifest({}, PROFILE));
    const refused = await runCli(['add', 'hosted', agent.origin, '--skill', 'market-size', '--json'], { cwd: dir });
    expect(refused.code, show(refused)).toBe(1);
    const hint: string = jsonOf(refused).agents.hosted.refusals['market-size'].hint;
    const retry = `a2a add hosted ${agent.origin} --skill market-size --rebase-interfaces`;
    expect(hint).toBe(
      `${retry} (docs/guide/hosted-agents.md#a-card-that-advertises-its-bind-address-rebaseinterfaces)`,
    );
    const again = await runCli([...retry.split(' ').slice(1)], { cwd: dir });
    expect(again.code, show(again)).toBe(0);
    expect(JSON.parse((await readManifestBytes(dir)).toString()).agents.hosted.rebaseInterfaces).toBe(true);
    expect((await readLock(dir)).agents.hosted.plans['market-size'].url).toBe(`${agent.origin}/a2a/jsonrpc`);
  });
});
