/**
 * Issue 14, points 1, 3, 5 and 6: agents as the popular frameworks serve them, reproduced with real
 * `@a2a-js/sdk` servers set up to behave the same, through the built CLI and the runtime loader.
 *
 * 1. a card re-signed on every request (Mastra; ES256 is not deterministic) with one key over the
 *    same card is unchanged; a new key or a new payload is still a change;
 * 3. a 1.0 card without `skills` (Mastra's plain LLM agent) and a manifest entry without skills:
 *    one agent-level plan `"*"`;
 * 5. a credential the card never asks for (ADK with bearer auth, a card without security, behind a
 *    bearer gate): `credential-never-sent`, and `credential-unused` for a scheme no plan chose;
 * 6. `a2a card --a2a-version` (a card served by the request's version) and modes spelt `"text"`.
 */

import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AgentCallError, loadLock } from '../../src/runtime/index.js';
import { sdkText } from '../helpers/sdk-message.js';
import { jwksOn, type Key, newKey, sign } from '../helpers/signed-agent.js';
import type { Card } from './cards.js';
import {
  cardRequests,
  jsonOf,
  manifest,
  readLock,
  readLockBytes,
  research,
  resources,
  runCli,
  sampleCard,
  show,
  writeManifest,
} from './helpers.js';

const TOKEN = 'fw14-bearer-T0ken';
const ENV = { RESEARCH_TOKEN: TOKEN };
const SLOW_TEST = 90_000;

let k1: Key;
let k2: Key;
beforeAll(async () => {
  [k1, k2] = await Promise.all([newKey('k1'), newKey('k2')]);
});

describe.concurrent('re-signed cards', () => {
  it('re-signed with no key source at all (no jku, no trust: unverifiable every time): verify --strict 0, update writes nothing', {
    timeout: SLOW_TEST,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({
      card: (origin) => sampleCard(origin),
      perRequestCard: (card) => sign(card as Card, k1, ''),
    });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const lock = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(lock.code, show(lock)).toBe(0);
    expect((await readLock(dir)).agents.research.signature).toMatchObject({ status: 'unverifiable', kid: 'k1' });
    const before = await readLockBytes(dir);
    for (const run of [1, 2]) {
      const strict = await runCli(['verify', '--strict', '--json'], { cwd: dir, env: ENV });
      expect(strict.code, `run ${run}: ${show(strict)}`).toBe(0);
    }
    expect((await runCli(['outdated'], { cwd: dir, env: ENV })).code).toBe(0);
    expect((await runCli(['update'], { cwd: dir, env: ENV })).code).toBe(0);
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('a card signed afresh on every request with one key over the same card: verify --strict 0, outdated 0, update and lock write nothing', {
    timeout: SLOW_TEST,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    let key = k1;
    let jku = '';
    const agent = await res.agent({
      card: (origin) => sampleCard(origin),
      perRequestCard: (card) => sign(card as Card, key, jku),
    });
    jku = jwksOn(agent, [k1, k2]).jku;
    const dir = await res.dir(manifest({ research: research(agent.origin) }));

    const lock = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(lock.code, show(lock)).toBe(0);
    const locked = await readLock(dir);
    expect(locked.agents.research.signature).toEqual({
      status: 'verified',
      kid: 'k1',
      alg: 'ES256',
      thumbprint: k1.thumbprint,
    });
    const before = await readLockBytes(dir);

    // The agent really re-signs: two card requests answer different signature bytes.
    const [a, b] = await Promise.all([
      fetch(agent.cardUrl).then((r) => r.json()),
      fetch(agent.cardUrl).then((r) => r.json()),
    ]);
    expect(a.signatures[0].signature).not.toBe(b.signatures[0].signature);
    expect({ ...a, signatures: undefined }).toEqual({ ...b, signatures: undefined });

    const strict = await runCli(['verify', '--strict', '--json'], { cwd: dir, env: ENV });
    expect(strict.code, show(strict)).toBe(0);
    expect(jsonOf(strict).agents.research.status).toBe('ok');
    const outdated = await runCli(['outdated', '--json'], { cwd: dir, env: ENV });
    expect(outdated.code, show(outdated)).toBe(0);
    expect(jsonOf(outdated).agents.research.status).toBe('current');
    const update = await runCli(['update', '--json'], { cwd: dir, env: ENV });
    expect(update.code, show(update)).toBe(0);
    expect(jsonOf(update).agents.research.status).toBe('unchanged');
    expect(await readLockBytes(dir)).toEqual(before);
    // `lock` re-resolving the agent under its lock (a version range added: the card is fetched
    // again, the plans must not move) keeps the locked snapshot as it is too.
    await writeManifest(dir, manifest({ research: research(agent.origin, { version: '^2.4.0' }) }));
    const relock = await runCli(['lock', '--json'], { cwd: dir, env: ENV });
    expect(relock.code, show(relock)).toBe(0);
    const relocked = (await readLock(dir)).agents.research;
    expect({ integrity: relocked.integrity, snapshot: relocked.snapshot, signature: relocked.signature }).toEqual({
      integrity: locked.agents.research.integrity,
      snapshot: locked.agents.research.snapshot,
      signature: locked.agents.research.signature,
    });
    const again = await readLockBytes(dir);
    expect((await runCli(['lock'], { cwd: dir, env: ENV })).code).toBe(0);
    expect((await runCli(['update'], { cwd: dir, env: ENV })).code).toBe(0);
    expect(await readLockBytes(dir)).toEqual(again);

    // A different payload with the same key is still a card change (descriptive: --strict fails).
    agent.setCard({ ...sampleCard(agent.origin), description: 'Sizes markets, now with charts.' });
    const changed = await runCli(['verify', '--strict', '--json'], { cwd: dir, env: ENV });
    expect(changed.code, show(changed)).toBe(1);
    expect(jsonOf(changed).agents.research.status).toBe('changed');
    expect(jsonOf(changed).agents.research.cardChanges.map((c: { path: string }) => c.path)).toContain('$.description');

    // A new key (another thumbprint) over the locked card is still a signature change.
    agent.setCard(sampleCard(agent.origin));
    key = k2;
    const rekeyed = await runCli(['verify', '--json'], { cwd: dir, env: ENV });
    expect(rekeyed.code, show(rekeyed)).toBe(1);
    expect(jsonOf(rekeyed).agents.research.status).toBe('drift');
    expect(jsonOf(rekeyed).agents.research.signatureDrift[0].fresh.thumbprint).toBe(k2.thumbprint);
    expect(await readLockBytes(dir)).toEqual(again);
  });
});

/** The sample card as Mastra's 1.0 card of a plain LLM agent: no `skills` at all, modes spelt by the agent. */
function skillless(origin: string, overrides: Record<string, unknown> = {}): Card {
  const { skills: _skills, ...card } = sampleCard(origin);
  return { ...card, ...overrides } as Card;
}

describe.concurrent('agents without skills', () => {
  it('a card without skills and a manifest entry without skills lock one agent-level plan "*": lock, why, ls, verify, outdated, install and the runtime', {
    timeout: SLOW_TEST,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (origin) => skillless(origin), bearerToken: TOKEN });
    const { skills: _s, ...entry } = research(agent.origin);
    const dir = await res.dir(manifest({ research: entry as never }));

    const lock = await runCli(['lock', '--json'], { cwd: dir, env: ENV });
    expect(lock.code, show(lock)).toBe(0);
    expect(jsonOf(lock).warnings).toContainEqual(
      expect.objectContaining({ code: 'skills-missing', path: '$.skills', agent: 'research' }),
    );
    const plans = (await readLock(dir)).agents.research.plans;
    expect(Object.keys(plans)).toEqual(['*']);
    // From the card's defaults: output modes text/plain and application/pdf, the card's bearer requirement.
    expect(plans['*']).toMatchObject({
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      security: { bearer: [] },
      acceptedOutputModes: ['text/plain'],
      delivery: 'stream',
    });

    const why = await runCli(['why', 'research'], { cwd: dir, env: ENV });
    expect(why.code, show(why)).toBe(0);
    expect(why.stdout).toContain('research › *');
    expect(why.stdout).toContain('agent-level plan "*"');
    const whyStar = await runCli(['why', 'research', '*', '--json'], { cwd: dir, env: ENV });
    expect(whyStar.code, show(whyStar)).toBe(0);
    expect(jsonOf(whyStar).skills['*'].matchesLock).toBe(true);

    const ls = await runCli(['ls', '--json'], { cwd: dir, env: ENV });
    expect(jsonOf(ls).agents.research.skills['*']).toEqual(plans['*']);
    for (const command of [['verify', '--strict'], ['outdated'], ['install']]) {
      const r = await runCli(command, { cwd: dir, env: ENV });
      expect(r.code, `${command.join(' ')}: ${show(r)}`).toBe(0);
    }

    // The runtime: lock.agent(name) without a skill is the agent-level plan; a message goes through.
    const lockfile = join(dir, 'a2a.lock.json');
    const loaded = await loadLock({ lockfile, env: ENV });
    const locked = loaded.agent('research');
    expect(locked.skill).toBe('*');
    expect(locked.plan).toEqual(plans['*']);
    expect(loaded.agent('research', '*')).toBe(locked);
    const client = await locked.createClient();
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('sized?') } as never))).toContain('echo: sized?');
    loaded.close();
  });

  it('a card with skills, a manifest entry with skills: [] locks "*" too; a named skill still locks as before', {
    timeout: SLOW_TEST,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const dir = await res.dir(
      manifest({ research: research(agent.origin, { skills: [] }), named: research(agent.origin) }),
    );
    const lock = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(lock.code, show(lock)).toBe(0);
    const locked = await readLock(dir);
    expect(Object.keys(locked.agents.research.plans)).toEqual(['*']);
    expect(Object.keys(locked.agents.named.plans)).toEqual(['market-size']);
    // The skill's own modes do not apply to "*": the card defaults do.
    expect(locked.agents.research.plans['*'].acceptedOutputModes).toEqual(['text/plain']);
    expect(locked.agents.named.plans['market-size'].acceptedOutputModes).toEqual(['application/json']);
  });
});

describe.concurrent('credentials that are never sent', () => {
  it('a card without security behind a bearer gate: lock and verify warn credential-never-sent; the runtime sends nothing and is refused', {
    timeout: SLOW_TEST,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({
      card: (origin) => sampleCard(origin, { securitySchemes: {}, securityRequirements: [] }),
      bearerToken: TOKEN,
    });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));

    const lock = await runCli(['lock', '--json'], { cwd: dir, env: ENV });
    expect(lock.code, show(lock)).toBe(0);
    const never = expect.objectContaining({
      code: 'credential-never-sent',
      agent: 'research',
      message: expect.stringContaining('"bearer"'),
    });
    expect(jsonOf(lock).warnings).toContainEqual(never);
    expect((await readLock(dir)).agents.research.plans['market-size'].security).toEqual({});
    const verify = await runCli(['verify', '--json'], { cwd: dir, env: ENV });
    expect(verify.code, show(verify)).toBe(0);
    expect(jsonOf(verify).warnings).toContainEqual(never);
    const human = await runCli(['verify'], { cwd: dir, env: ENV });
    expect(human.stderr).toContain('the card declares no securitySchemes');
    expect(human.stderr).not.toContain(TOKEN);

    // The runtime: the plan needs no credential, so none goes; the gate refuses the call.
    const loaded = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: ENV });
    const client = await loaded.agent('research', 'market-size').createClient();
    const sent = agent.requests.length;
    const error = await client.sendMessage({ message: sdkText('hi') } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentCallError);
    expect((error as AgentCallError).code).toBe('auth-refused');
    expect((error as AgentCallError).message).toContain(
      'the locked plan sends no credential: the card declares no securitySchemes',
    );
    // The card may have changed since the lock (a scheme added): the hint says what to run, as in Python.
    expect((error as AgentCallError).hint).toBe(
      'run a2a verify: the card the agent serves may have changed since the lock (a security scheme added); then a2a update research and review the lockfile diff',
    );
    const calls = agent.requests.slice(sent).filter((r) => r.path.startsWith('/a2a'));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((r) => r.headers.authorization === undefined)).toBe(true);
    loaded.close();
  });

  it('a held credential for a scheme no locked plan chose: credential-unused naming agent and scheme; none when every credential is used', {
    timeout: SLOW_TEST,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const extra = { credentials: { bearer: { env: 'RESEARCH_TOKEN' }, apiKey: { env: 'OTHER_KEY' } } };
    const dir = await res.dir(manifest({ research: research(agent.origin, extra), plain: research(agent.origin) }));
    const lock = await runCli(['lock', '--json'], { cwd: dir, env: ENV });
    expect(lock.code, show(lock)).toBe(0);
    const unused = (r: Awaited<ReturnType<typeof runCli>>) =>
      jsonOf(r).warnings.filter((w: { code: string }) => w.code.startsWith('credential-'));
    expect(unused(lock)).toEqual([
      expect.objectContaining({
        code: 'credential-unused',
        agent: 'research',
        message: expect.stringContaining('"apiKey"'),
      }),
    ]);
    expect(unused(lock)[0].message).toContain('the card declares no scheme "apiKey"');
    const verify = await runCli(['verify', '--json'], { cwd: dir, env: ENV });
    expect(verify.code, show(verify)).toBe(0);
    expect(unused(verify)).toEqual([expect.objectContaining({ code: 'credential-unused', agent: 'research' })]);
  });
});

describe.concurrent('card versions and mode spellings', () => {
  it('a card --a2a-version 0.3 shows the card as served to 0.3 (the SDK serves a 1.0 or a 0.3 card by the header)', {
    timeout: SLOW_TEST,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent({ legacy: true });
    const dir = await res.dir();
    const v03 = await runCli(['card', agent.origin, '--a2a-version', '0.3', '--json'], { cwd: dir });
    expect(v03.code, show(v03)).toBe(0);
    // The SDK's 0.3 card carries url/preferredTransport and embeds the 1.0 interfaces: a hybrid.
    expect(jsonOf(v03)).toMatchObject({ valid: true, versionHeader: '0.3', card: { shape: 'hybrid' } });
    const v10 = await runCli(['card', agent.origin, '--a2a-version', '1.0', '--json'], { cwd: dir });
    expect(jsonOf(v10)).toMatchObject({ versionHeader: '1.0', card: { shape: '1.0' } });
    expect(cardRequests(agent.requests).map((r) => r.headers['a2a-version'])).toEqual(['0.3', '1.0']);
    const bad = await runCli(['card', agent.origin, '--a2a-version', 'latest'], { cwd: dir });
    expect(bad.code, show(bad)).toBe(2);
    expect(bad.stderr).toContain('--a2a-version "latest"');
  });

  it('modes spelt "text" (ADK, VoltAgent, gemini-cli): the plan carries "text", compared as text/plain; verify passes and the runtime sends it', {
    timeout: SLOW_TEST,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const card = (origin: string) => {
      const c = sampleCard(origin, {
        defaultInputModes: ['text'],
        defaultOutputModes: ['text'],
        securitySchemes: {},
        securityRequirements: [],
      });
      c.skills = [{ ...c.skills[0]!, inputModes: undefined, outputModes: undefined } as never];
      return JSON.parse(JSON.stringify(c)) as Card;
    };
    const agent = await res.agent({ card });
    const dir = await res.dir(manifest({ research: { card: agent.origin, skills: ['market-size'] } }));
    const lock = await runCli(['lock', '--json'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    expect(jsonOf(lock).warnings).toContainEqual(
      expect.objectContaining({ code: 'mode-not-media-type', path: '$.defaultOutputModes[0]' }),
    );
    const plan = (await readLock(dir)).agents.research.plans['market-size'];
    expect(plan.acceptedOutputModes).toEqual(['text']);
    const verify = await runCli(['verify', '--strict'], { cwd: dir });
    expect(verify.code, show(verify)).toBe(0);

    const loaded = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: {} });
    const client = await loaded.agent('research', 'market-size').createClient();
    expect(JSON.stringify(await client.sendMessage({ message: sdkText('plain') } as never))).toContain('echo: plain');
    loaded.close();
  });
});
