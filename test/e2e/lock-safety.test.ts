/**
 * `a2a lock` never moves a locked plan silently, whatever path leads to a re-resolution: a git merge
 * conflict with two valid sides, a clean merge that leaves plans inconsistent with their snapshot,
 * `a2a add` on a locked agent, a respelled card URL. And "could not check" is never reported as drift
 * (a JWKS host that is down), nor a directory as a crash. Found by the fresh-clone QA rounds.
 */
import * as jose from 'jose';
import { generateAgentCardSignature } from '@a2a-js/sdk';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifest, readLock, readLockBytes, research, resources, runCli, sampleCard, show, writeLockBytes, writeManifest } from './helpers.js';

const SLOW = 60_000;

/** The sample card whose market-size skill outputs `outputs`. */
function cardWith(origin: string, outputs: string[]) {
  const card = sampleCard(origin);
  card.skills = [{ ...card.skills[0]!, outputModes: outputs }];
  return card;
}

describe.concurrent('no silent plan moves', () => {
  it('merge conflict with two valid sides that differ: the agent is re-checked against our plans; card drift is refused (exit 1)', { timeout: SLOW }, async ({ onTestFinished }) => {
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

  it('a clean merge (skill added on one side, streaming off on the other): verify says run a2a lock, and lock re-plans from the snapshot offline with a diff', { timeout: SLOW }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (o) => ({ ...sampleCard(o), skills: [...sampleCard(o).skills, { id: 'summarize', name: 'S', description: 'd', tags: [], outputModes: ['application/json'] }] }) });
    const dir = await res.dir(manifest({ research: research(agent.origin, { skills: ['market-size', 'summarize'] }) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    // The other branch turned streaming off for this agent; git merged the settings line cleanly.
    await writeManifest(dir, manifest({ research: research(agent.origin, { skills: ['market-size', 'summarize'], profile: { streaming: false } }) }));
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

  it('a2a add on a locked agent keeps its other fields and does not accept card drift', { timeout: SLOW }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (o) => ({ ...cardWith(o, ['application/json']), skills: [...cardWith(o, ['application/json']).skills, { id: 'summarize', name: 'S', description: 'd', tags: [], outputModes: ['application/json', 'text/plain'] }] }) });
    const dir = await res.dir(manifest({ research: research(agent.origin, { profile: { streaming: false } }) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readLockBytes(dir);
    const card = sampleCard(agent.origin);
    const unchanged = await readFile(join(dir, 'a2a.json'), 'utf8');
    agent.setCard({ ...card, skills: [{ ...card.skills[0]!, outputModes: ['text/plain'] }, { id: 'summarize', name: 'S', description: 'd', tags: [], outputModes: ['application/json'] }] });
    const r = await runCli(['add', 'research', agent.origin, '--skill', 'summarize', '--credential', 'bearer=RESEARCH_TOKEN'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toMatch(/run: a2a update research/);
    expect(await readLockBytes(dir)).toEqual(before);
    expect(await readFile(join(dir, 'a2a.json'), 'utf8')).toBe(unchanged);

    // Without drift, add merges into the entry: the profile override stays, the skill is added.
    agent.setCard({ ...card, skills: [{ ...card.skills[0]!, outputModes: ['application/json'] }, { id: 'summarize', name: 'S', description: 'd', tags: [], outputModes: ['application/json'] }] });
    const ok = await runCli(['add', 'research', agent.origin, '--skill', 'summarize'], { cwd: dir });
    expect(ok.code, show(ok)).toBe(0);
    const written = JSON.parse(await readFile(join(dir, 'a2a.json'), 'utf8'));
    expect(written.agents.research).toMatchObject({ skills: ['market-size', 'summarize'], profile: { streaming: false }, credentials: { bearer: { env: 'RESEARCH_TOKEN' } } });
    expect((await readLock(dir)).agents.research.plans['market-size'].delivery).toBe('poll');
    // Adding what is already there changes nothing and says so.
    const again = await runCli(['add', 'research', agent.origin, '--skill', 'summarize'], { cwd: dir });
    expect(again.code, show(again)).toBe(0);
    expect(again.stdout).toMatch(/a2a\.json is up to date/);
    expect(again.stdout).not.toMatch(/wrote/);
  });

  it('the card URL respelled in a2a.json (the same card): plans stay locked; drift is refused', { timeout: SLOW }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (o) => cardWith(o, ['application/json']) });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    agent.setCard(cardWith(agent.origin, ['text/plain']));
    await writeManifest(dir, manifest({ research: research(`${agent.origin}/.well-known/agent-card.json`, { version: '^2.0.0' }) }));
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toMatch(/market-size › acceptedOutputModes/);
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

describe.concurrent('the lockfile stays self-consistent (QA round 3)', () => {
  const noJsonRpc = (o: string) => {
    const card = sampleCard(o);
    return { ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding !== 'JSONRPC') };
  };

  it('a card that now negotiates a different plan, re-read because the URL was respelled: lock exits 1 naming a2a update, bytes kept', { timeout: SLOW }, async ({ onTestFinished }) => {
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

  it('settings for an agent the lockfile has no entry for (a hand edit): lock resolves it, no crash', { timeout: SLOW }, async ({ onTestFinished }) => {
    const { dir, lock } = await lockedWithStreamingEdited(resources(onTestFinished));
    delete lock.agents.research;
    const { serializeLockfile } = await import('../../src/lock/format.js');
    await writeLockBytes(dir, serializeLockfile(lock));
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect((await readLock(dir)).agents.research.plans['market-size'].delivery).toBe('stream');
  });

  it('settings hand-edited in the lockfile do not lift the constraint: card drift is still refused', { timeout: SLOW }, async ({ onTestFinished }) => {
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
  it('the JWKS host is down at verify time: exit 3 (unreachable), not a signature drift to accept', { timeout: SLOW }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const { publicKey, privateKey } = await jose.generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    let up = true;
    const jwks = await res.http((req, response) => {
      if (!up) return req.socket.destroy();
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    const agent = await res.sampleAgent();
    const signer = generateAgentCardSignature(privateKey, { alg: 'ES256', kid: 'k1', typ: 'JOSE', jku: `${jwks.origin}/jwks.json` });
    agent.setCard(JSON.parse(JSON.stringify(await signer(sampleCard(agent.origin) as never))));
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    expect((await readLock(dir)).agents.research.signature.status).toBe('verified');
    up = false;
    const r = await runCli(['verify'], { cwd: dir });
    expect(r.code, show(r)).toBe(3);
    expect(r.stdout).toMatch(/jwks\.json/);
    expect(r.stdout).not.toMatch(/a2a update/);
  });

  it('a directory or a missing file as a card: exit 2 / 3 with one line, never 70', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    await mkdir(join(dir, 'cards'));
    const [asDir, missing] = await Promise.all([runCli(['card', 'cards'], { cwd: dir }), runCli(['card', 'nope.json'], { cwd: dir })]);
    expect(asDir.code, show(asDir)).toBe(2);
    expect(asDir.stderr).toMatch(/cards: not a regular file/);
    expect(missing.code, show(missing)).toBe(3);
  });
});
