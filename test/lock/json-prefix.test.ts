/** What a JSON text cut short says (lock/json-prefix.ts): the containers it opens, closed at the cut, with what was read whole. */
import { describe, expect, it } from 'vitest';
import { jsonPrefix } from '../../src/lock/json-prefix.js';

/** Every cut of `text`, each read as a prefix, agrees with `JSON.parse` of a text that keeps only what was read whole. */
const cuts = (text: string) => Array.from({ length: text.length + 1 }, (_, n) => jsonPrefix(text.slice(0, n)));

describe('jsonPrefix', () => {
  it('a whole text reads as JSON.parse reads it', () => {
    const value = {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32001, message: 'Task "x" not found\\', data: [1, true, null] },
    };
    expect(jsonPrefix(JSON.stringify(value))).toEqual(value);
    expect(jsonPrefix(`  ${JSON.stringify(value, null, 2)}\n`)).toEqual(value);
    expect(jsonPrefix('[]')).toEqual([]);
  });

  it('keeps the members and elements read whole before the cut, and closes what is open there', () => {
    const text =
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found","data":[{"reason":"TASK_NOT_FOUND"},{"trace":"aaaa';
    expect(jsonPrefix(text)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32001, message: 'Task not found', data: [{ reason: 'TASK_NOT_FOUND' }, {}] },
    });
    // A number or a literal counts once a delimiter follows it; a key without its value is left out.
    expect(jsonPrefix('{"error":{"code":-3200')).toEqual({ error: {} });
    expect(jsonPrefix('{"error":{"code":-32001,')).toEqual({ error: { code: -32001 } });
    expect(jsonPrefix('[1, tru')).toEqual([1]);
    expect(jsonPrefix('[1, true ')).toEqual([1, true]);
    expect(jsonPrefix('{"a":1,"b"')).toEqual({ a: 1 });
    expect(jsonPrefix('{"a":1,"b":')).toEqual({ a: 1 });
    expect(jsonPrefix('{"a":"x\\"y", "b":"un')).toEqual({ a: 'x"y' });
    expect(jsonPrefix('{"a":[[{"b":[')).toEqual({ a: [[{ b: [] }]] });
  });

  it('every cut of a text reads (or is undefined before its first bracket), never throws', () => {
    const text = JSON.stringify({ a: [1, -2.5e3, 'x\\"]}', { b: null, c: false }], d: { e: {} } });
    const read = cuts(text);
    expect(read[0]).toBeUndefined();
    for (const value of read.slice(1)) expect(typeof value).toBe('object');
    expect(read.at(-1)).toEqual(JSON.parse(text));
  });

  it('undefined for what is not JSON before the cut, a scalar, or nesting past the bound', () => {
    expect(jsonPrefix('<!doctype html><p>Not Found')).toBeUndefined();
    expect(jsonPrefix('"just a string')).toBeUndefined();
    expect(jsonPrefix('42')).toBeUndefined();
    expect(jsonPrefix('{"a" "b", "c": [1, 2')).toBeUndefined();
    expect(jsonPrefix('['.repeat(300))).toBeUndefined();
    expect(jsonPrefix(`${'['.repeat(100)}1,`)).toEqual(JSON.parse(`${'['.repeat(100)}1${']'.repeat(100)}`));
  });

  it('reads as the whole text is read: anything but whitespace after the value closed is not JSON, cut or not', () => {
    const result = '{"jsonrpc":"2.0","id":1,"result":{}}';
    expect(jsonPrefix(`${result} \r\n\t`)).toEqual(JSON.parse(result));
    // The attacker's shapes: the result followed by junk, a little (whole) or a lot (cut at the read bound).
    expect(jsonPrefix(`${result}<html>`)).toBeUndefined();
    expect(jsonPrefix(`${result}${'<html>'.repeat(12_000)}`.slice(0, 65_536))).toBeUndefined();
    expect(jsonPrefix('{"a":1}]')).toBeUndefined();
    expect(jsonPrefix('{"a":1} {"b":')).toBeUndefined();
    expect(jsonPrefix('[1] 2')).toBeUndefined();
    // Only JSON's whitespace counts, before the value as after it (JSON.parse refuses a no-break space).
    expect(jsonPrefix('\u00a0{"a":1')).toBeUndefined();
    expect(jsonPrefix('{"a":1}\u00a0')).toBeUndefined();
  });

  it('a key read twice in one object makes the text unreadable (JSON.parse keeps the last, the cut may hide it)', () => {
    const methodNotFound = '{"code":-32601,"message":"Method not found"}';
    const taskNotFound = '{"code":-32001,"message":"x","data":"';
    // Both orders, the second value whole or cut into: never judged by either one.
    for (const text of [
      `{"jsonrpc":"2.0","id":1,"error":${methodNotFound},"error":${taskNotFound}${'x'.repeat(70_000)}"}}`.slice(
        0,
        65_536,
      ),
      `{"jsonrpc":"2.0","id":1,"error":${taskNotFound}x"},"error":${methodNotFound}}`,
      `{"jsonrpc":"2.0","id":1,"error":${taskNotFound}x"},"error":"cut here`,
      `{"jsonrpc":"2.0","id":1,"error":${taskNotFound}x"},"error"`,
      '{"error":1,"\u0065rror":2}',
      '{"a":{"b":1,"c":[{"d":1,"d":2}]}}',
    ])
      expect(jsonPrefix(text), text.slice(0, 80)).toBeUndefined();
    // The same key in two objects is no repeat.
    expect(jsonPrefix('[{"a":1},{"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(jsonPrefix('{"a":{"a":{"a":1}},"b":{"a":2')).toEqual({ a: { a: { a: 1 } }, b: {} });
  });
});
