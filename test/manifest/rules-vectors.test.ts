/**
 * The shared manifest-refinement vectors (conformance/vectors/manifest-rules.json), which the Python
 * loader's tests (python/tests/test_manifest_rules.py) read too: each refinement of src/manifest/rules.ts
 * that the manifest's JSON Schema cannot state (and the pushEndpoint URL check, which it states only as an
 * annotation) gives the same verdict on the same value in both runtimes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import * as rules from '../../src/manifest/rules.js';
import { manifestSchemas } from '../../src/manifest/schema.js';

const { rules: vectors } = JSON.parse(
  readFileSync(new URL('../../conformance/vectors/manifest-rules.json', import.meta.url), 'utf8'),
) as { rules: Record<string, Array<{ value: string; valid: boolean }>> };

const predicates: Record<string, (value: string) => boolean> = {
  isOrigin: rules.isOrigin,
  isTlsOrLoopback: rules.isTlsOrLoopback,
  isDestinationPattern: rules.isDestinationPattern,
  isTlsOrLoopbackDestination: rules.isTlsOrLoopbackDestination,
  isCanonicalBinding: rules.isCanonicalBinding,
  isCardPath: rules.isCardPath,
  isNotProto: rules.isNotProto,
  // Not a refinement: zod's z.url check, which the JSON Schema states only as an annotation (format: uri).
  pushEndpoint: (pushEndpoint) =>
    manifestSchemas().ProfileSchema.safeParse({
      bindings: ['JSONRPC'],
      versions: ['1.0'],
      accepts: ['text/plain'],
      pushEndpoint,
    }).success,
};

describe('manifest refinement vectors', () => {
  test('every rule has vectors both ways, and names a predicate', () => {
    expect(Object.keys(vectors).sort()).toEqual(Object.keys(predicates).sort());
    for (const list of Object.values(vectors)) {
      expect(list.some((v) => v.valid)).toBe(true);
      expect(list.some((v) => !v.valid)).toBe(true);
    }
  });

  test.each(
    Object.entries(vectors).flatMap(([rule, list]) => list.map((v) => [rule, JSON.stringify(v.value), v] as const)),
  )('%s %s', (rule, _shown, v) => {
    expect(predicates[rule]?.(v.value)).toBe(v.valid);
  });
});
