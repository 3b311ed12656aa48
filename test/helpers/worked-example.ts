/**
 * The design document's worked example card (`test/fixtures/cards/worked-example.json`, raw JSON as
 * served), for unit tests that build cards from it. A fresh copy each call.
 */
import { readFileSync } from 'node:fs';

/** Raw card JSON. */
export type Json = Record<string, any>;

const TEXT = readFileSync(new URL('../fixtures/cards/worked-example.json', import.meta.url), 'utf8');

/** The worked example card, `patch`ed. */
export function workedExample(
  patch: (c: Json) => void = () => {
    /* unchanged */
  },
): Json {
  const c = JSON.parse(TEXT) as Json;
  patch(c);
  return c;
}

/** The worked example card with an API key scheme `key` (header `X-Key`) required: a credential to place; then `patch`ed. */
export function keyedWorkedExample(
  patch: (c: Json) => void = () => {
    /* unchanged */
  },
): Json {
  return workedExample((c) => {
    c.securitySchemes = { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } } };
    c.securityRequirements = [{ schemes: { key: { list: [] } } }];
    patch(c);
  });
}
