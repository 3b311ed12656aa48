/**
 * unlockedWarnings (lock/card-warnings.ts): a card warning the locked snapshots give too is not said
 * again; one the served card brings is; warnings no card reading gives are kept.
 */
import { describe, expect, it } from 'vitest';
import type { Warning } from '../../src/card/model.js';
import { normalizeCard } from '../../src/card/normalize.js';
import { unlockedWarnings } from '../../src/lock/card-warnings.js';
import type { LockEntry } from '../../src/lock/schema.js';
import { workedExample } from '../helpers/worked-example.js';

const CARD_URL = 'https://research.example.com/.well-known/agent-card.json';
type Json = Record<string, any>;

/** The worked example with its interfaces' protocolVersion left out from `from` on (as a2a-sdk serves). */
function unversioned(patch: (c: Json) => void = () => undefined): Json {
  return workedExample((c) => {
    for (const i of c.supportedInterfaces) delete i.protocolVersion;
    patch(c);
  });
}
const read = (card: Json): Warning[] => normalizeCard(card, { source: CARD_URL, baseUrl: CARD_URL }).warnings;
const entry = (snapshot: Json): LockEntry => ({ card: CARD_URL, resolved: CARD_URL, snapshot }) as unknown as LockEntry;
const missing = (ws: Warning[]) => ws.filter((w) => w.code === 'interface-version-missing');

describe('unlockedWarnings', () => {
  it('the locked card read again: nothing said; a run warning (a probe) kept; no locked entry: all said', () => {
    const card = unversioned();
    const probe = { code: 'interface-not-served', message: 'JSONRPC 1.0 at … is not served' };
    const run = [...read(card), probe];
    expect(missing(run).length).toBeGreaterThan(1);
    expect(unlockedWarnings(run, entry(card))).toEqual([probe]);
    expect(unlockedWarnings(run, undefined)).toEqual(run);
  });

  it('an interface added first without a version: only its warning, though the locked ones moved in the list', () => {
    const locked = unversioned();
    const served = unversioned((c) =>
      c.supportedInterfaces.unshift({ url: 'https://research.example.com/a2a/v2', protocolBinding: 'JSONRPC' }),
    );
    const said = unlockedWarnings(read(served), entry(locked));
    expect(said.map((w) => [w.code, w.path])).toEqual([
      ['interface-version-missing', '$.supportedInterfaces[0].protocolVersion'],
    ]);
    expect(said[0]!.message).toContain('interface JSONRPC https://research.example.com/a2a/v2 without protocolVersion');
  });

  it('a locked snapshot that no longer reads as a card: every warning said', () => {
    const run = read(unversioned());
    expect(unlockedWarnings(run, entry({ supportedInterfaces: 'not a list' }))).toEqual(run);
  });
});
