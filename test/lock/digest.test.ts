import { describe, expect, it } from 'vitest';
import { lockDigest } from '../../src/lock/digest.js';

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
