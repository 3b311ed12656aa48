/**
 * A card holding a `"__proto__"` member (issue 22): an object-literal copy drops it (zod's record
 * did, for a top-level one), so `lock` once wrote a snapshot whose integrity covered other bytes and
 * every later read failed ("snapshot does not match its integrity"). Now every card reader refuses it,
 * at any depth, as `card-invalid` naming the JSON path: `card`, `plan`, `lock` and `update --card`
 * agree, nothing is written, and a lockfile `lock` wrote always passes `verify --offline`.
 * Built CLI against real `@a2a-js/sdk` agents serving the card verbatim.
 */
import { describe, expect, it } from 'vitest';
import {
  allOutput,
  manifest,
  noStack,
  oneJsonDocument,
  readLockBytes,
  research,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
} from './helpers.js';

/** Where a `"__proto__"` member is spliced into the sample card text, and the JSON path named for it. */
const PLACES: Array<{ label: string; path: string; splice: (cardText: string) => string }> = [
  { label: 'top level', path: '$.__proto__', splice: (t) => `${t.slice(0, -1)},"__proto__":{"polluted":true}}` },
  {
    label: 'in capabilities',
    path: '$.capabilities.__proto__',
    splice: (t) => t.replace('"capabilities":{', '"capabilities":{"__proto__":{"streaming":false},'),
  },
  {
    label: 'in a skill',
    path: '$.skills[0].__proto__',
    splice: (t) => t.replace('"skills":[{', '"skills":[{"__proto__":{"id":"x"},'),
  },
];

describe.concurrent('a card with a "__proto__" member', () => {
  for (const place of PLACES) {
    it(`${place.label}: card, plan, lock and update --card refuse it (card-invalid ${place.path}); nothing written`, {
      timeout: SLOW,
    }, async ({ onTestFinished }) => {
      const res = resources(onTestFinished);
      const agent = await res.agent({
        card: (origin) => JSON.parse(place.splice(JSON.stringify(sampleCard(origin)))) as object,
      });
      const good = await res.sampleAgent();
      expect(JSON.stringify(JSON.parse(place.splice(JSON.stringify(sampleCard(agent.origin)))))).toContain(
        '"__proto__"',
      );

      const fresh = await res.dir(manifest({ research: research(agent.origin) }));
      const locked = await res.dir(manifest({ research: research(good.origin) }));
      const first = await runCli(['lock'], { cwd: locked });
      expect(first.code, show(first)).toBe(0);
      const before = await readLockBytes(locked);

      const [card, plan, lock, update] = await Promise.all([
        runCli(['card', agent.origin, '--json'], { cwd: fresh }),
        runCli(['plan', agent.origin, '--skill', 'market-size'], { cwd: fresh }),
        runCli(['lock'], { cwd: fresh }),
        runCli(['update', 'research', '--card', agent.origin], { cwd: locked }),
      ]);
      expect(card.code, show(card)).toBe(1);
      expect(oneJsonDocument(card).error).toMatchObject({
        code: 'card-invalid',
        source: agent.cardUrl,
        path: place.path,
      });
      for (const [label, r] of Object.entries({ plan, lock, update })) {
        expect(r.code, `${label}: ${show(r)}`).not.toBe(0);
        expect(allOutput(r), label).toContain(
          `card-invalid: ${agent.cardUrl} ${place.path}: the key "__proto__" is not allowed`,
        );
        noStack(r);
      }
      expect(await readLockBytes(fresh)).toBeUndefined();
      expect(await readLockBytes(locked)).toEqual(before);
      const verify = await runCli(['verify', '--offline'], { cwd: locked });
      expect(verify.code, show(verify)).toBe(0);
    });
  }
});
