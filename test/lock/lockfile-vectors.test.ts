/**
 * The shared lockfile vectors (conformance/vectors/lockfile-schema.json), which the Python loader's
 * tests (python/tests/test_schema.py) read too: the same lockfiles accepted and refused in both runtimes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { parseLockfile } from '../../src/lock/format.js';

interface Vector {
  name: string;
  json: string;
  valid: boolean;
  path?: string;
}

const { cases } = JSON.parse(
  readFileSync(new URL('../../conformance/vectors/lockfile-schema.json', import.meta.url), 'utf8'),
) as { cases: Vector[] };

describe('lockfile vectors', () => {
  test.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    if (c.valid) {
      expect(() => parseLockfile(c.json, 'a2a.lock.json')).not.toThrow();
      return;
    }
    let error: unknown;
    try {
      parseLockfile(c.json, 'a2a.lock.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).code).toBe('lockfile-invalid');
    expect((error as InvalidInputError).path).toBe(c.path);
  });
});
