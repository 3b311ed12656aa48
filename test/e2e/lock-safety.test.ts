/**
 * `a2a lock` never moves a locked plan silently, whatever path leads to a re-resolution: a skill
 * added to the manifest while the agent's card drifted, a changed profile (re-resolved, with the
 * plan diff printed), a git merge conflict with two valid sides, a clean merge that leaves plans
 * inconsistent with their snapshot, `a2a add` on a locked agent, a respelled card URL. An invalid
 * lockfile is never replaced (exit 2 with a hint, bytes kept); merge-conflict markers are
 * re-resolved from the manifest. And "could not check" is never reported as drift (a JWKS host
 * that is down), nor a directory as a crash.
 */

import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newKey, signedAgent } from '../helpers/signed-agent.js';
import {
  cardRequests,
  expectOneLineError,
  manifest,
  noStack,
  oneJsonDocument,
  PROFILE,
  readLock,
  readLockBytes,
  readManifestBytes,
  research,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
  writeLockBytes,
  writeManifest,
} from './helpers.js';

/** The sample card whose market-size skill outputs `outputs`. */
function cardWith(origin: string, outputs: string[]) {
  const card = sampleCard(origin);
  card.skills = [{ ...card.skills[0]!, outputModes: outputs }];
  return card;
}

describe.concurrent('no silent plan moves through a merge, a2a add or a respelled card URL', () => {
  it('merge conflict with two valid sides that differ: the agent is re-checked against our plans; card drift is refused (exit 1)', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (o) => cardWith(o, ['application/json', 'application/pdf']) });
    const other = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const ours = (await readLockBytes(dir))!.toString();

    // Their branch added another agent, and its research entry differs (an older description).
    const theirDir = await res.dir(manifest({ research: research(agent.origin), other: research(other.origin) }));
    expect((await runCli(['lock'], { cwd: theirDir })).code).toBe(0);
    const theirsLock = JSON.parse((await readLockBytes(theirDir))!.toString());
    theirsLock.agents.research.snapshot.description = 'their side';
    const { integrityOf } = await import('../../src/canonical.js');
    theirsLock.agents.research.integrity = integrityOf(theirsLock.agents.research.snapshot);
    const { serializeLockfile } = await import('../../src/lock/format.js');
    const theirs = serializeLockfile(theirsLock);
    await writeLockBytes(dir, `<<<<<<< HEAD\n${ours}=======\n${theirs}>>>>>>> theirs\n`);
    await writeManifest(dir, manifest({ research: research(agent.origin), other: research(other.origin) }));

    // Meanwhile the agent dropped the locked output mode.
    agent.setCard(cardWith(agent.origin, ['text/plain']));
    const before = await readLockBytes(dir);
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stderr).toMatch(/lockfile-merge-conflict: .*re-checked research/);
    expect(r.stdout).toMatch(/research: beyond the lockfile/);
    expect(r.stdout).toMatch(/run: a2a update research/);
    expect(await readLockBytes(dir)).toEqual(before);

    // With the card back, the merge completes: both agents, ours plans, no markers.
    agent.setCard(cardWith(agent.origin, ['application/json', 'application/pdf']));
    const ok = await runCli(['lock'], { cwd: dir });
    expect(ok.code, show(ok)).toBe(0);
    const merged = await readLock(dir);
    expect(Object.keys(merged.agents).sort()).toEqual(['other', 'research']);
    expect(merged.agents.research.plans['market-size'].acceptedOutputModes).toEqual(['application/json']);
    expect((await runCli(['verify'], { cwd: dir })).code).toBe(0);
  });

  it('a clean merge (skill added on one side, streaming off on the other): verify says run a2a lock, and lock re-plans from the snapshot offline with a diff', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({
      card: (o) => ({
        ...sampleCard(o),
        skills: [
          ...sampleCard(o).skills,
          { id: 'summarize', name: 'S', description: 'd', tags: [], outputModes: ['application/json'] },
        ],
      }),
    });
    const dir = await res.dir(manifest({ research: research(agent.origin, { skills: ['market-size', 'summarize'] }) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    // The other branch turned streaming off for this agent; git merged the settings line cleanly.
    await writeManifest(
      dir,
      manifest({
        research: research(agent.origin, { skills: ['market-size', 'summarize'], profile: { streaming: false } }),
      }),
    );
    const lock = await readLock(dir);
    lock.settings.research.streaming = false;
    lock.agents.research.plans['market-size'].delivery = 'poll';
    const { serializeLockfile } = await import('../../src/lock/format.js');
    await writeLockBytes(dir, serializeLockfile(lock));

    const verify = await runCli(['verify', '--offline'], { cwd: dir });
    expect(verify.code, show(verify)).toBe(1);
    expect(verify.stdout).toMatch(/summarize.*delivery/);
    await agent.close(); // the repair needs no network
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toMatch(/plan summarize › delivery: "stream" → "poll"/);
    expect((await runCli(['verify', '--offline'], { cwd: dir })).code).toBe(0);
  });

  it('a2a add on a locked agent keeps its other fields and does not accept card drift', { timeout: SLOW }, async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({
      card: (o) => ({
        ...cardWith(o, ['application/json']),
        skills: [
          ...cardWith(o, ['application/json']).skills,
          { id: 'summarize', name: 'S', description: 'd', tags: [], outputModes: ['application/json', 'text/plain'] },
        ],
      }),
    });
    const dir = await res.dir(manifest({ research: research(agent.origin, { profile: { streaming: false } }) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readLockBytes(dir);
    const card = sampleCard(agent.origin);
    const unchanged = await readFile(join(dir, 'a2a.json'), 'utf8');
    agent.setCard({
      ...card,
      skills: [
        { ...card.skills[0]!, outputModes: ['text/plain'] },
        { id: 'summarize', name: 'S', description: 'd', tags: [], outputModes: ['application/json'] },
      ],
    });
    const r = await runCli(
      ['add', 'research', agent.origin, '--skill', 'summarize', '--credential', 'bearer=RESEARCH_TOKEN'],
      { cwd: dir },
    );
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toMatch(/run: a2a update research/);
    expect(await readLockBytes(dir)).toEqual(before);
    expect(await readFile(join(dir, 'a2a.json'), 'utf8')).toBe(unchanged);

    // Without drift, add merges into the entry: the profile override stays, the skill is added.
    agent.setCard({
      ...card,
      skills: [
        { ...card.skills[0]!, outputModes: ['application/json'] },
        { id: 'summarize', name: 'S', description: 'd', tags: [], outputModes: ['application/json'] },
      ],
    });
    const ok = await runCli(['add', 'research', agent.origin, '--skill', 'summarize'], { cwd: dir });
    expect(ok.code, show(ok)).toBe(0);
    const written = JSON.parse(await readFile(join(dir, 'a2a.json'), 'utf8'));
    expect(written.agents.research).toMatchObject({
      skills: ['market-size', 'summarize'],
      profile: { streaming: false },
      credentials: { bearer: { env: 'RESEARCH_TOKEN' } },
    });
    expect((await readLock(dir)).agents.research.plans['market-size'].delivery).toBe('poll');
    // Adding what is already there changes nothing and says so.
    const again = await runCli(['add', 'research', agent.origin, '--skill', 'summarize'], { cwd: dir });
    expect(again.code, show(again)).toBe(0);
    expect(again.stdout).toMatch(/a2a\.json is up to date/);
    expect(again.stdout).not.toMatch(/wrote/);
  });

  it('the card URL respelled in a2a.json (the same card): plans stay locked; drift is refused', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (o) => cardWith(o, ['application/json']) });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    agent.setCard(cardWith(agent.origin, ['text/plain']));
    await writeManifest(
      dir,
      manifest({ research: research(`${agent.origin}/.well-known/agent-card.json`, { version: '^2.0.0' }) }),
    );
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toMatch(/market-size › acceptedOutputModes/);
  });
});

describe.concurrent('a skill added or the profile changed', () => {
  /** The sample card with a second skill, `competitors`, and market-size's output modes as given. */
  function twoSkillCard(origin: string, marketSizeOutputs: string[]) {
    const card = sampleCard(origin);
    card.skills = [
      { ...card.skills[0]!, outputModes: marketSizeOutputs },
      {
        id: 'competitors',
        name: 'Competitors',
        description: 'Lists competitors.',
        tags: ['market'],
        outputModes: ['application/json'],
      },
    ];
    return card;
  }

  it('a skill added while the agent dropped a locked output mode: exit 1 naming the drift and a2a update; then update shows the diff', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (origin) => twoSkillCard(origin, ['application/json', 'application/pdf']) });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const cli = (...args: string[]) => runCli(args, { cwd: dir });
    expect((await cli('lock')).code).toBe(0);
    expect((await readLock(dir)).agents.research.plans['market-size'].acceptedOutputModes).toEqual([
      'application/json',
    ]);
    const before = await readLockBytes(dir);

    // The agent drops application/json for market-size; the user adds a second skill to the manifest.
    agent.setCard(twoSkillCard(agent.origin, ['text/plain', 'application/pdf']));
    await writeManifest(
      dir,
      manifest({ research: research(agent.origin, { skills: ['market-size', 'competitors'] }) }),
    );

    const [human, json] = await Promise.all([cli('lock'), cli('lock', '--json')]);
    expect(human.code, show(human)).toBe(1);
    expect(human.stdout).toMatch(/✗ research: beyond the lockfile/);
    expect(human.stdout).toContain('market-size › acceptedOutputModes:\n      - application/json\n      + text/plain');
    expect(human.stdout).toMatch(/run: a2a update research\b/);
    expect(human.stdout).toMatch(/a2a\.lock\.json not written/);
    expect(human.stdout).not.toMatch(/competitors ›/);
    noStack(human);
    expect(json.code, show(json)).toBe(1);
    const doc = oneJsonDocument(json);
    expect(doc).toMatchObject({ ok: false, written: false });
    expect(doc.agents.research.status).toBe('drift');
    expect(doc.agents.research.drift).toContainEqual({
      skill: 'market-size',
      field: 'acceptedOutputModes',
      locked: ['application/json'],
      fresh: ['text/plain'],
    });
    expect(await readLockBytes(dir)).toEqual(before);

    // a2a update accepts it and prints the card and plan diff.
    const update = await cli('update', 'research');
    expect(update.code, show(update)).toBe(0);
    expect(update.stdout).toMatch(/~ research updated/);
    expect(update.stdout).toContain('- $.skills["market-size"].outputModes: "application/json" structural');
    expect(update.stdout).toContain(
      'plan market-size › acceptedOutputModes:\n      - application/json\n      + text/plain',
    );
    expect(update.stdout).toMatch(/\+ plan competitors: .*accepts application\/json\)/);
    const after = await readLock(dir);
    expect(after.agents.research.plans['market-size'].acceptedOutputModes).toEqual(['text/plain']);
    expect(Object.keys(after.agents.research.plans).sort()).toEqual(['competitors', 'market-size']);
    const verify = await cli('verify');
    expect(verify.code, show(verify)).toBe(0);
  });

  it('a skill added while the locked plan still holds: lock adds it and keeps the locked plan byte for byte', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (origin) => twoSkillCard(origin, ['application/json', 'application/pdf']) });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const locked = (await readLock(dir)).agents.research.plans['market-size'];
    await writeManifest(
      dir,
      manifest({ research: research(agent.origin, { skills: ['market-size', 'competitors'] }) }),
    );
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toMatch(/~ research updated/);
    expect(r.stdout).toMatch(
      /\+ plan competitors: http:\/\/127\.0\.0\.1:\d+\/a2a\/jsonrpc \(JSONRPC 1\.0, stream, accepts application\/json\)/,
    );
    expect(r.stdout).not.toMatch(/plan market-size/);
    const after = (await readLock(dir)).agents.research.plans;
    expect(after['market-size']).toEqual(locked);
    expect(after.competitors.acceptedOutputModes).toEqual(['application/json']);
  });

  it('a changed profile (accepts order) re-resolves and prints the plan diff, exit 0', { timeout: SLOW }, async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const profile = (accepts: string[]) => ({ ...PROFILE, accepts });
    const dir = await res.dir(
      manifest({ research: research(agent.origin) }, profile(['application/json', 'application/pdf'])),
    );
    const cli = (...args: string[]) => runCli(args, { cwd: dir });
    expect((await cli('lock')).code).toBe(0);
    expect((await readLock(dir)).agents.research.plans['market-size'].acceptedOutputModes).toEqual([
      'application/json',
      'application/pdf',
    ]);
    const seen = cardRequests(agent.requests).length;

    await writeManifest(
      dir,
      manifest({ research: research(agent.origin) }, profile(['application/pdf', 'application/json'])),
    );
    const human = await cli('lock');
    expect(human.code, show(human)).toBe(0);
    expect(human.stdout).toMatch(/~ research updated/);
    expect(human.stdout).toContain(
      'plan market-size › acceptedOutputModes: reordered ["application/json","application/pdf"] → ["application/pdf","application/json"]',
    );
    // a2a lock prints the change view of what it wrote: the settings, the risk, the count line.
    expect(human.stdout).toContain(
      'settings › accepts: reordered ["application/json","application/pdf"] → ["application/pdf","application/json"]',
    );
    expect(human.stdout).toContain('medium output-modes-changed: plan market-size accepted output modes: reordered');
    expect(human.stdout).toContain('1 changed, 0 added, 0 removed · 1 medium\nwrote ');
    expect(cardRequests(agent.requests).length).toBeGreaterThan(seen);
    const lock = await readLock(dir);
    expect(lock.settings.research.accepts).toEqual(['application/pdf', 'application/json']);
    expect(lock.agents.research.plans['market-size'].acceptedOutputModes).toEqual([
      'application/pdf',
      'application/json',
    ]);

    // And back, under --json: planChanges per skill.
    await writeManifest(
      dir,
      manifest({ research: research(agent.origin) }, profile(['application/json', 'application/pdf'])),
    );
    const json = await cli('lock', '--json');
    expect(json.code, show(json)).toBe(0);
    expect(oneJsonDocument(json).agents.research).toMatchObject({
      status: 'updated',
      cardChanges: [],
      planChanges: {
        'market-size': [
          {
            field: 'acceptedOutputModes',
            old: ['application/pdf', 'application/json'],
            new: ['application/json', 'application/pdf'],
          },
        ],
      },
    });
  });
});

describe.concurrent('invalid lockfiles are never replaced; merge conflicts are re-resolved', () => {
  /** A locked project; returns its dir and the lockfile text. */
  async function lockedProject(res: ReturnType<typeof resources>) {
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    return { agent, dir, text: (await readLockBytes(dir))!.toString('utf8') };
  }

  it.for([
    // (Node 20's JSON.parse gives no position for "Unexpected end of JSON input", so no line/column here.)
    {
      name: 'truncated JSON',
      corrupt: (t: string) => t.slice(0, Math.floor(t.length / 2)),
      detail: /a2a\.lock\.json: invalid JSON/,
    },
    {
      name: 'a bad integrity format',
      corrupt: (t: string) => t.replace(/"integrity": "sha256-[^"]+"/, '"integrity": "md5-0123456789abcdef"'),
      detail: /\$\.agents\.research\.integrity: must be sha256-<base64>/,
    },
  ])(
    '$name: lock and update exit 2 with a hint; the lockfile stays byte-identical',
    async ({ corrupt, detail }, { onTestFinished }) => {
      const res = resources(onTestFinished);
      const { dir, text } = await lockedProject(res);
      const bad = corrupt(text);
      expect(bad).not.toBe(text);
      await writeLockBytes(dir, bad);
      const [lock, update, json] = await Promise.all([
        runCli(['lock'], { cwd: dir }),
        runCli(['update', 'research'], { cwd: dir }),
        runCli(['lock', '--json'], { cwd: dir }),
      ]);
      for (const r of [lock, update]) {
        expect(r.code, show(r)).toBe(2);
        const lines = r.stderr.trimEnd().split('\n');
        expect(lines, show(r)).toHaveLength(2);
        expect(lines[0]).toMatch(/lockfile-invalid: .*a2a\.lock\.json/);
        expect(lines[0]).toMatch(detail);
        expect(lines[1]).toMatch(/^ {2}hint: .*a2a\.lock\.json.*(git checkout|delete it and run a2a lock)/);
        noStack(r);
      }
      expect(json.code).toBe(2);
      expect(oneJsonDocument(json).error).toMatchObject({
        code: 'lockfile-invalid',
        hint: expect.stringMatching(/a2a lock/),
      });
      expect((await readLockBytes(dir))!.toString('utf8')).toBe(bad);
    },
  );

  it('merge-conflict markers: verify exit 2 "merge conflict, run a2a lock"; lock re-resolves with a lockfile-merge-conflict warning', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const { dir, text } = await lockedProject(res);
    const lines = text.split('\n');
    const i = lines.findIndex((l) => l.includes('"integrity"'));
    const theirs = lines[i]!.replace(/sha256-[^"]+/, `sha256-${'B'.repeat(43)}=`);
    const conflicted = [
      ...lines.slice(0, i),
      '<<<<<<< HEAD',
      lines[i],
      '=======',
      theirs,
      '>>>>>>> feature/other-agent',
      ...lines.slice(i + 1),
    ].join('\n');
    await writeLockBytes(dir, conflicted);

    const [verify, json] = await Promise.all([
      runCli(['verify'], { cwd: dir }),
      runCli(['verify', '--json'], { cwd: dir }),
    ]);
    expect(verify.code, show(verify)).toBe(2);
    expectOneLineError(verify, /lockfile-invalid: .*a2a\.lock\.json: merge conflict, run a2a lock/);
    expect(json.code).toBe(2);
    expect(oneJsonDocument(json).error).toMatchObject({
      code: 'lockfile-invalid',
      message: expect.stringMatching(/merge conflict, run a2a lock/),
    });
    expect((await readLockBytes(dir))!.toString('utf8')).toBe(conflicted);

    // A second copy for --json (the first lock fixes the file).
    const copy = await res.dir(JSON.parse((await readManifestBytes(dir)).toString()));
    await writeLockBytes(copy, conflicted);
    const [lock, lockJson] = await Promise.all([
      runCli(['lock'], { cwd: dir }),
      runCli(['lock', '--json'], { cwd: copy }),
    ]);
    expect(lock.code, show(lock)).toBe(0);
    expect(lock.stderr).toMatch(/warning lockfile-merge-conflict: .*a2a\.lock\.json had merge conflict markers/);
    expect(lock.stdout).toMatch(/wrote .*a2a\.lock\.json/);
    // Re-resolved from the manifest: the same bytes a clean lock wrote.
    expect((await readLockBytes(dir))!.toString('utf8')).toBe(text);
    expect(lockJson.code, show(lockJson)).toBe(0);
    expect(oneJsonDocument(lockJson)).toMatchObject({
      ok: true,
      written: true,
      warnings: [expect.objectContaining({ code: 'lockfile-merge-conflict' })],
    });
    expect((await readLockBytes(copy))!.toString('utf8')).toBe(text);
    const after = await runCli(['verify'], { cwd: dir });
    expect(after.code, show(after)).toBe(0);
  });
});

/** The sample agent locked in a new directory, and its lockfile read back with `streaming` edited to false in its settings (not written). */
async function lockedWithStreamingEdited(res: ReturnType<typeof resources>) {
  const agent = await res.agent({ card: (o) => sampleCard(o) });
  const dir = await res.dir(manifest({ research: research(agent.origin) }));
  expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
  const lock = await readLock(dir);
  lock.settings.research.streaming = false;
  return { agent, dir, lock };
}

describe.concurrent('the lockfile stays self-consistent', () => {
  const noJsonRpc = (o: string) => {
    const card = sampleCard(o);
    return { ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding !== 'JSONRPC') };
  };

  it('a card that now negotiates a different plan, re-read because the URL was respelled: lock exits 1 naming a2a update, bytes kept', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: noJsonRpc });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    expect((await readLock(dir)).agents.research.plans['market-size'].protocolBinding).toBe('HTTP+JSON');
    agent.setCard(sampleCard(agent.origin)); // JSONRPC is back: a fresh resolution would pick it
    expect((await runCli(['verify'], { cwd: dir })).code).toBe(0); // verify tolerates a better offer
    await writeManifest(dir, manifest({ research: research(`${agent.origin}/`) }));
    const before = await readLockBytes(dir);
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toMatch(/market-size › protocolBinding: "HTTP\+JSON" → "JSONRPC"/);
    expect(r.stdout).toMatch(/run: a2a update research/);
    expect(await readLockBytes(dir)).toEqual(before);
    expect((await runCli(['verify', '--offline'], { cwd: dir })).code).toBe(1); // the manifest change is still pending
    const u = await runCli(['update', 'research'], { cwd: dir });
    expect(u.code, show(u)).toBe(0);
    expect((await runCli(['verify', '--offline'], { cwd: dir })).code).toBe(0);
  });

  it('settings for an agent the lockfile has no entry for (a hand edit): lock resolves it, no crash', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const { dir, lock } = await lockedWithStreamingEdited(resources(onTestFinished));
    delete lock.agents.research;
    const { serializeLockfile } = await import('../../src/lock/format.js');
    await writeLockBytes(dir, serializeLockfile(lock));
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect((await readLock(dir)).agents.research.plans['market-size'].delivery).toBe('stream');
  });

  it('settings hand-edited in the lockfile do not lift the constraint: card drift is still refused', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const { agent, dir, lock } = await lockedWithStreamingEdited(resources(onTestFinished));
    const { serializeLockfile } = await import('../../src/lock/format.js');
    await writeLockBytes(dir, serializeLockfile(lock));
    agent.setCard(noJsonRpc(agent.origin));
    const before = await readLockBytes(dir);
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toMatch(/run: a2a update research/);
    expect(await readLockBytes(dir)).toEqual(before);
  });
});

describe.concurrent('could not check is not drift', () => {
  it('the JWKS host is down at verify time: exit 3 (unreachable), not a signature drift to accept', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    // The JWKS on the card's own origin (a jku elsewhere is not fetched).
    const { agent, jwks } = await signedAgent(res.agent, await newKey('k1'));
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    expect((await readLock(dir)).agents.research.signature.status).toBe('verified');
    jwks.setUp(false);
    const r = await runCli(['verify'], { cwd: dir });
    expect(r.code, show(r)).toBe(3);
    expect(r.stdout).toMatch(/jwks\.json/);
    expect(r.stdout).not.toMatch(/a2a update/);
  });

  it('a directory or a missing file as a card: exit 1 (card-invalid) / 3 with one line, never 70', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    await mkdir(join(dir, 'cards'));
    const [asDir, missing] = await Promise.all([
      runCli(['card', 'cards'], { cwd: dir }),
      runCli(['card', 'nope.json'], { cwd: dir }),
    ]);
    expect(asDir.code, show(asDir)).toBe(1);
    expect(asDir.stderr).toMatch(/card-invalid: .*cards: not a regular file/);
    expect(missing.code, show(missing)).toBe(3);
  });
});
