/**
 * An extended card that echoes the credential it was fetched with (attack run on issue 22): a
 * hostile or careless agent puts the caller's token in its authenticated extended card
 * (`"description": "signed in with Bearer …"`). The card is a snapshot `lock` writes into
 * a2a.lock.json, which is committed (often public) and printed by `card`, `why` and `diff`: the
 * token must be written and printed nowhere, in any spelling or cut short. Built CLI against a real
 * `@a2a-js/sdk` agent on 127.0.0.1.
 */
import { describe, expect, it } from 'vitest';
import { extendedCard, publicCard } from './cards.js';
import { allOutput, expectSecretContained, manifest, readLockBytes, resources, runCli, SLOW, show } from './helpers.js';

const TOKEN = 'echo-secret-T0ken-9c41d7e2ab';

describe.concurrent('an extended card holding the credential it was fetched with', { timeout: SLOW }, () => {
  for (const [label, description] of [
    ['as sent', `signed in with Bearer ${TOKEN}`],
    ['cut short, upper case', `session ${TOKEN.slice(0, -4).toUpperCase()}`],
    ['percent-encoded', `https://x.example/?t=${encodeURIComponent(TOKEN)}`],
  ] as const)
    it(`${label}: lock refuses it (card-invalid), writes nothing, prints no part of the token`, async ({
      onTestFinished,
    }) => {
      const res = resources(onTestFinished);
      const agent = await res.agent({
        card: publicCard,
        bearerToken: TOKEN,
        extendedCard: (o: string) => ({ ...extendedCard(o), description }),
      });
      const dir = await res.dir(
        manifest({
          research: {
            card: agent.origin,
            skills: ['deep-research'],
            credentials: { bearer: { env: 'RESEARCH_TOKEN' } },
          },
        }),
      );
      const [lock, json] = await Promise.all([
        runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } }),
        runCli(['lock', '--json'], { cwd: dir, env: { RESEARCH_TOKEN: TOKEN } }),
      ]);
      for (const r of [lock, json]) expect(r.code, show(r)).not.toBe(0);
      expect(allOutput(lock)).toContain('card-invalid');
      expect(allOutput(lock)).toContain('holds the credential it was fetched with');
      expect(await readLockBytes(dir)).toBeUndefined();
      await expectSecretContained(TOKEN, { results: [lock, json] });
    });
});
