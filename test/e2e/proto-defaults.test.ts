/**
 * A real `@a2a-js/sdk` agent whose card starts writing ProtoJSON defaults (`tenant: ""`,
 * `extensions: []`, `examples: []`, `securitySchemes`-like empty fields, `false` flags): no change
 * to `verify --strict`, `outdated`, `update` (the lockfile byte for byte) or `diff` (issue 36, "A
 * review shows only what changed"). The lockfile's snapshot and integrity are the bytes as fetched.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import { closeFetcher } from '../../src/index.js';
import { parseLockfile, serializeLockfile } from '../../src/lock/format.js';
import { git, lockedRepository, lockPath, readLockBytes, runCli, sampleCard, show } from './helpers.js';

/** The sample card as an SDK that writes every ProtoJSON default serves it. */
function withDefaults(origin: string) {
  const card = sampleCard(origin) as ReturnType<typeof sampleCard> & Record<string, unknown>;
  for (const i of card.supportedInterfaces) Object.assign(i, { tenant: '' });
  Object.assign(card.capabilities, { extendedAgentCard: false });
  for (const e of card.capabilities.extensions ?? []) Object.assign(e, { description: '', params: {} });
  for (const s of card.skills) Object.assign(s, { examples: [], securityRequirements: [] });
  Object.assign(card, { signatures: [], documentationUrl: '', iconUrl: '', provider: { organization: '', url: '' } });
  return card;
}

describe('ProtoJSON defaults are no change', () => {
  it('verify --strict, outdated and update see no change when the served card gains tenant "", extensions [], examples []', async ({
    onTestFinished,
  }) => {
    onTestFinished(() => closeFetcher());
    const { agent, dir } = await lockedRepository(onTestFinished);
    const before = await readLockBytes(dir);
    agent.setCard(withDefaults(agent.origin));
    const verify = await runCli(['verify', '--strict'], { cwd: dir });
    expect(verify.code, show(verify)).toBe(0);
    const outdated = await runCli(['outdated'], { cwd: dir });
    expect(outdated.code, show(outdated)).toBe(0);
    const update = await runCli(['update'], { cwd: dir });
    expect(update.code, show(update)).toBe(0);
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('diff: a lockfile whose snapshot differs in defaults alone (its own integrity) is unchanged; a real change beside them is the only line', async ({
    onTestFinished,
  }) => {
    onTestFinished(() => closeFetcher());
    const { agent, dir } = await lockedRepository(onTestFinished);
    const lock = parseLockfile(await readFile(lockPath(dir), 'utf8'), 'a2a.lock.json');
    const entry = lock.agents.research!;
    const snapshot = JSON.parse(JSON.stringify(withDefaults(agent.origin)));
    await writeFile(
      lockPath(dir),
      serializeLockfile({ ...lock, agents: { research: { ...entry, snapshot, integrity: integrityOf(snapshot) } } }),
    );
    const quiet = await runCli(['diff', '--format', 'markdown'], { cwd: dir });
    expect(quiet.code, show(quiet)).toBe(0);
    expect(quiet.stdout).toMatch(/0 changed, 0 added, 0 removed · no risk/);
    expect(quiet.stdout).toMatch(/No agent changed\./);
    expect(await runCli(['verify', '--strict', '--offline'], { cwd: dir }).then((r) => r.code)).toBe(0);

    // Beside the defaults, the agent stops streaming: that is the one card line.
    snapshot.capabilities.streaming = false;
    await writeFile(
      lockPath(dir),
      serializeLockfile({ ...lock, agents: { research: { ...entry, snapshot, integrity: integrityOf(snapshot) } } }),
    );
    const one = await runCli(['diff'], { cwd: dir });
    expect(one.code, show(one)).toBe(0);
    const cardLines = one.stdout.split('\n').filter((l) => /structural|descriptive$/.test(l) && /\$/.test(l));
    expect(cardLines, one.stdout).toEqual([expect.stringMatching(/- \$\.capabilities\.streaming: true structural/)]);
    expect(git(dir, 'status', '--porcelain')).toMatch(/a2a\.lock\.json/);
  });
});
