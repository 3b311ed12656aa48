import { describe, expect, it } from 'vitest';
import { lockDigest } from '../../src/lock/digest.js';
import { parseLockfileWithDigest, serializeLockfile } from '../../src/lock/format.js';
import { LOCKFILE_VERSION, type Lockfile } from '../../src/lock/schema.js';
import { parseLockfileJson } from '../../src/lock/top.js';
import { KEYED_SETTINGS, keyedWorkedExample, lockEntryFor } from '../helpers/worked-example.js';

describe('lockDigest', () => {
  const lock = { lockfileVersion: 1, settings: { a: { x: 1 } }, agents: { a: { b: [1, 2] } } };

  it('is sha256-<base64> of the canonical JSON, whatever the whitespace or key order', () => {
    const reordered = JSON.parse(
      JSON.stringify({ agents: lock.agents, settings: lock.settings, lockfileVersion: 1 }, null, 7),
    );
    expect(lockDigest(lock)).toMatch(/^sha256-[A-Za-z0-9+/]{43}=$/);
    expect(lockDigest(reordered)).toBe(lockDigest(lock));
  });

  it('changes with any value', () => {
    expect(lockDigest({ ...lock, agents: { a: { b: [2, 1] } } })).not.toBe(lockDigest(lock));
  });
});

describe('the digest covers the lockfile as it is read', () => {
  /** A valid lockfile (the worked example locked), as `a2a lock` writes it. */
  const text = serializeLockfile({
    lockfileVersion: LOCKFILE_VERSION,
    settings: { research: KEYED_SETTINGS },
    agents: { research: lockEntryFor(keyedWorkedExample(), KEYED_SETTINGS) },
  } as Lockfile);

  it('refuses a "__proto__" key at any depth: zod re-parents it, so what verify, diff and the BOM read is not what the digest covers', () => {
    const value = JSON.parse(text);
    expect(parseLockfileWithDigest(text, 'a2a.lock.json').digest).toBe(lockDigest(value));
    const splices: Array<[string, string]> = [
      // A plan no review shows (the prototype of `plans`), yet in the digest.
      ['"plans": {', '"plans": {"__proto__": {"url": "https://evil.example"}, '],
      ['"security": {', '"security": {"__proto__": {"x": []}, '],
      // The same key spelt with an escape.
      ['"snapshot": {', '"snapshot": {"\\u005f_proto__": {"name": "x"}, '],
      ['"card": "https', '"__proto__": {"card": "x"}, "card": "https'],
      ['{\n  "agents"', '{"__proto__": {"agents": {}},\n  "agents"'],
    ];
    for (const [from, to] of splices) {
      const hostile = text.replace(from, to);
      expect(hostile, from).not.toBe(text);
      expect(() => parseLockfileWithDigest(hostile, 'a2a.lock.json'), from).toThrow(/"__proto__"/);
      expect(() => parseLockfileJson(hostile, 'a2a.lock.json'), from).toThrow(/"__proto__"/);
    }
  });
});
