/**
 * The enforcing-fetch fuzzer of `npm run fuzz` (scripts/fuzz-fetch.js), a smaller run in the suite:
 * random bodies, methods, URLs and header forms through `LockedAgent.fetch` of six locked plans;
 * every request is refused or passes checked, none is sent unchecked, none crashes.
 */
import { describe, expect, it } from 'vitest';
import { fuzzFetch } from '../../scripts/fuzz-fetch.js';

describe('enforcing fetch fuzz', () => {
  it('1,500 random requests: every one refused or passed checked; 0 sent unchecked, 0 crashed', {
    timeout: 120_000,
  }, async () => {
    const report = await fuzzFetch({ cases: 1500, seed: 15 });
    expect(report.examples).toEqual([]);
    expect(report.counts).toMatchObject({ unchecked: 0, crash: 0 });
    expect(report.counts.refused).toBeGreaterThan(0);
    expect(report.counts.checked).toBeGreaterThan(0);
    for (const counts of Object.values(report.perPlan))
      expect(counts.checked, JSON.stringify(report.perPlan)).toBeGreaterThan(0);
  });
});
