/**
 * The shared integrity vectors (conformance/vectors/integrity.json), which the Python loader's tests
 * (python/tests/test_canonical.py) read too: one canonical form and one hash in both runtimes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { canonicalJson, integrityOf } from '../../src/canonical.js';

interface Vector {
  name: string;
  json: string;
  canonical: string;
  integrity: string;
}

const { cases } = JSON.parse(
  readFileSync(new URL('../../conformance/vectors/integrity.json', import.meta.url), 'utf8'),
) as { cases: Vector[] };

describe('integrity vectors', () => {
  test('there are vectors', () => {
    expect(cases.length).toBeGreaterThan(15);
  });
  test.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const value: unknown = JSON.parse(c.json);
    expect(canonicalJson(value)).toBe(c.canonical);
    expect(integrityOf(value)).toBe(c.integrity);
  });
});
