/**
 * An agent that was sent a token (by `lock`'s wire probe, by a call) and then puts it in its public
 * card: `verify` and `update` refuse that card (`card-invalid`) and no output shows the value, as
 * for a card that quotes the credential its own request carried.
 */
import { describe, expect, it } from 'vitest';
import { jsonOf, manifest, readLockBytes, resources, runCli, sampleCard, show } from './helpers.js';

const TOKEN = 'research-bearer-Secret-4096-abcdef';
const PROFILE = { bindings: ['JSONRPC'], versions: ['1.0'], accepts: ['application/json'] };

describe('a card that quotes a credential a2a.json names', () => {
  it('is refused by verify and update, nothing is written, and no output shows the value', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (origin: string) => sampleCard(origin) });
    const { dir } = await res.locked(
      manifest(
        {
          research: { card: agent.origin, skills: ['market-size'], credentials: { bearer: { env: 'RESEARCH_TOKEN' } } },
        },
        PROFILE,
      ),
    );
    const before = readLockBytes(dir);
    const card = sampleCard(agent.origin);
    card.description = `served to Bearer ${TOKEN}`;
    agent.setCard(card);
    const env = { RESEARCH_TOKEN: TOKEN };
    const [verify, verifyText, update] = await Promise.all([
      runCli(['verify', '--json'], { cwd: dir, env }),
      runCli(['verify'], { cwd: dir, env }),
      runCli(['update', 'research'], { cwd: dir, env }),
    ]);
    expect(verify.code, show(verify)).toBe(1);
    expect(jsonOf(verify).agents.research).toMatchObject({
      status: 'error',
      error: { code: 'card-invalid', message: expect.stringMatching(/quotes a credential/) },
    });
    expect(update.code, show(update)).not.toBe(0);
    expect(readLockBytes(dir)).toEqual(before);
    for (const run of [verify, verifyText, update]) expect(`${run.stdout}${run.stderr}`).not.toContain(TOKEN);
  });
});
