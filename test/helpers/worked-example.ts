/**
 * The design document's worked example card (`test/fixtures/cards/worked-example.json`, raw JSON as
 * served), for unit tests that build cards from it. A fresh copy each call.
 */
import { readFileSync } from 'node:fs';
import { integrityOf } from '../../src/canonical.js';
import { normalizeCard } from '../../src/card/normalize.js';
import { negotiateSkills } from '../../src/lock/drift.js';
import type { LockEntry } from '../../src/lock/schema.js';
import { type AgentSettings, DEFAULT_PROFILE } from '../../src/manifest/schema.js';

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

/** Where the lock tests' entries say the worked example was fetched from. */
export const WORKED_CARD_URL = 'https://research.example.com/.well-known/agent-card.json';

/** Agent settings holding the credential of {@link keyedWorkedExample}'s scheme `key`. */
export const KEYED_SETTINGS: AgentSettings = { ...DEFAULT_PROFILE, credentials: ['key'] };

/** A lock entry as `a2a lock` writes it for `json` fetched from {@link WORKED_CARD_URL}: snapshot, integrity, the plans its card negotiates for `skills` under `settings`. */
export function lockEntryFor(
  json: Json,
  settings: AgentSettings = KEYED_SETTINGS,
  skills = ['market-size'],
): LockEntry {
  const card = normalizeCard(json, { source: WORKED_CARD_URL, baseUrl: WORKED_CARD_URL }).card;
  const { plans } = negotiateSkills(card, skills, settings);
  return {
    card: WORKED_CARD_URL,
    resolved: WORKED_CARD_URL,
    a2aVersion: '1.0',
    version: String(json.version),
    integrity: integrityOf(json),
    snapshot: json,
    plans,
  };
}
