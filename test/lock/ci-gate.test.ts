import { describe, expect, it } from 'vitest';
import { type DefaultBranchFacts, defaultBranchGate } from '../../src/lock/ci-gate.js';

const ref = 'refs/remotes/origin/main';
const facts = (over: Partial<DefaultBranchFacts>): DefaultBranchFacts => ({
  ref,
  tip: 'a'.repeat(40),
  head: 'b'.repeat(40),
  headOnDefault: false,
  mergeBase: 'c'.repeat(40),
  ...over,
});

describe('defaultBranchGate: the gate follows what is checked out', () => {
  it('is ungated only when HEAD is the tip or an ancestor of the default branch', () => {
    expect(defaultBranchGate(facts({ head: 'a'.repeat(40) }))).toEqual({ kind: 'ungated' });
    expect(defaultBranchGate(facts({ headOnDefault: true }))).toEqual({ kind: 'ungated' });
    expect(defaultBranchGate(facts({}))).toEqual({ kind: 'gated', rev: 'c'.repeat(40) });
  });

  it('is unreadable without the default branch, or without a merge-base; never ungated without HEAD', () => {
    expect(defaultBranchGate(facts({ tip: undefined, headOnDefault: true }))).toMatchObject({ kind: 'unreadable' });
    expect(defaultBranchGate(facts({ mergeBase: undefined }))).toEqual({
      kind: 'unreadable',
      why: 'has no common ancestor with HEAD in this clone',
    });
    expect(defaultBranchGate(facts({ head: undefined, mergeBase: undefined }))).toMatchObject({ kind: 'unreadable' });
  });
});
