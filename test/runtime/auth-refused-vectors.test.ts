/**
 * What a refused call says (reason and hint), against the shared vectors
 * `conformance/vectors/auth-refused.json`, which the Python runtime's tests run too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authRefusal } from '../../src/runtime/call-errors.js';

const vectors: {
  cases: Array<{ planSendsCredential: boolean; cardDeclaresSchemes: boolean; reason: string; hint: string }>;
} = JSON.parse(readFileSync(new URL('../../conformance/vectors/auth-refused.json', import.meta.url), 'utf8'));

describe('authRefusal (conformance/vectors/auth-refused.json)', () => {
  it.each(vectors.cases)(
    'plan sends a credential: $planSendsCredential, card declares schemes: $cardDeclaresSchemes',
    (c) => {
      expect(authRefusal(c.planSendsCredential, c.cardDeclaresSchemes, 'research')).toEqual({
        reason: c.reason,
        hint: c.hint.replaceAll('{agent}', 'research'),
      });
    },
  );

  it('a plan that sends no credential points to a2a verify', () => {
    for (const c of vectors.cases.filter((v) => !v.planSendsCredential)) expect(c.hint).toMatch(/^run a2a verify: /);
  });
});
