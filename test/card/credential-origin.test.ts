/**
 * The origin a credential sent along a locked interface reaches (`credentialOriginOf`): every case of the shared
 * vectors `conformance/vectors/credential-origin.json`, which the Python runtime's tests run too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { credentialOriginOf } from '../../src/card/host.js';

const vectors: { cases: Array<{ url: string; origin: string }> } = JSON.parse(
  readFileSync(new URL('../../conformance/vectors/credential-origin.json', import.meta.url), 'utf8'),
);

describe('credentialOriginOf (conformance/vectors/credential-origin.json)', () => {
  it.each(vectors.cases)('$url reaches $origin', ({ url, origin }) => {
    expect(credentialOriginOf(url)).toBe(origin);
  });
});
