/**
 * The card reader under fuzz, bounded for `npm test`: 2,000 generated and mutated cards
 * (scripts/fuzz-cards.js) read as a served card is read. Every case ends in a card or a typed
 * error, never a crash. `npm run fuzz` runs 100,000 against dist and also times every case (hangs).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type FuzzLibrary, fuzzCases, readFuzzCard } from '../../scripts/fuzz-cards.js';
import { integrityOf } from '../../src/canonical.js';
import { readCardText } from '../../src/card/read.js';
import { isA2aLockError } from '../../src/errors.js';
import { negotiate } from '../../src/negotiate/negotiate.js';
import { CORPUS_DIR, CORPUS_FILES } from '../helpers/corpus.js';

const lib = { readCardText, negotiate, integrityOf, isA2aLockError } as unknown as FuzzLibrary;
const fixtures = CORPUS_FILES.map((f) => JSON.parse(readFileSync(`${CORPUS_DIR}${f}`, 'utf8')) as unknown);

describe('card reader fuzz', () => {
  it('2,000 generated and mutated cards: only cards and typed errors, no crash', () => {
    const outcomes = new Map<string, number>();
    for (const text of fuzzCases(fixtures, 2000, 20260601)) {
      let outcome: string;
      try {
        outcome = readFuzzCard(lib, text);
      } catch (error) {
        throw new Error(`crash on ${JSON.stringify(text.slice(0, 200))}: ${String(error)}`, { cause: error });
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    expect([...outcomes.keys()].sort()).toEqual(['card-invalid', 'ok']);
    expect(outcomes.get('ok')).toBeGreaterThan(100);
  });

  it('the generator is deterministic for a seed', () => {
    expect([...fuzzCases(fixtures, 50, 7)]).toEqual([...fuzzCases(fixtures, 50, 7)]);
  });
});
