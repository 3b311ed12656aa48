import { describe, expect, it } from 'vitest';
import { remembered } from '../src/remembered.js';

describe('remembered', () => {
  it('asks the function once per string and answers the same again, undefined included', () => {
    const asked: string[] = [];
    const length = remembered((s: string) => {
      asked.push(s);
      return s === 'none' ? undefined : s.length;
    });
    expect([length('abc'), length('abc'), length('none'), length('none')]).toEqual([3, 3, undefined, undefined]);
    expect(asked).toEqual(['abc', 'none']);
  });

  it('keeps at most its limit of answers: when full it forgets them all and asks again', () => {
    let calls = 0;
    const upper = remembered((s: string) => {
      calls++;
      return s.toUpperCase();
    }, 2);
    upper('a');
    upper('b');
    upper('c'); // full: forgets a and b
    upper('c');
    upper('a');
    expect(calls).toBe(4);
  });
});
