/**
 * The lockfile's top level read without its entries (src/lock/top.ts), as the runtime's lazy
 * loadLock reads it: the same errors as the whole-file parseLockfile for everything but an
 * entry's schema, and the fast duplicate-key count agreeing with the exact scan.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLockfile } from '../../src/lock/format.js';
import { AGENT_NAME, checkLockfileTop, keysInText, parseLockfileTop } from '../../src/lock/top.js';
import { AgentNameSchema } from '../../src/manifest/schema.js';

/** Every key of every object in a parsed JSON value. */
function keysIn(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + keysIn(v), 0);
  return Object.entries(value).reduce((n, [, v]) => n + 1 + keysIn(v), 0);
}

/** What a parse throws (its code, message and path), or 'ok'. */
function outcome(parse: () => unknown): unknown {
  try {
    parse();
    return 'ok';
  } catch (error) {
    const e = error as { code?: string; message: string; data?: { path?: string } };
    return { code: e.code, message: e.message, path: e.data?.path };
  }
}

const valid = {
  $schema: './x.json',
  lockfileVersion: 1,
  settings: { a: { any: 'thing' } },
  agents: { a: { card: 'https://a.example', plans: {} } },
};

describe('keysInText', () => {
  it('counts the keys of any JSON text, whatever its spacing and escapes', () => {
    const spaced = fc.oneof(fc.constant(undefined), fc.constant(1), fc.constant(2), fc.constant('\t'), fc.constant(' \r\n '));
    fc.assert(
      fc.property(fc.jsonValue(), spaced, (value, space) => {
        const text = JSON.stringify(value, null, space as never) ?? 'null';
        return keysInText(text) === keysIn(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
    expect(keysInText('{"a\\"": "b\\\\", "c": ["d\\\\\\"", {"e" : 1}], "f"\n:\t"g:"}')).toBe(4);
    expect(keysInText('["a", "b"]')).toBe(0);
  });
});

describe('parseLockfileTop', () => {
  it('reads a valid top level, entries unchecked, and throws what parseLockfile throws for a file that fails before the entries', () => {
    expect(parseLockfileTop(JSON.stringify(valid), 'l.json')).toEqual(valid);
    const cases: string[] = [
      '{"lockfileVersion": 1, "settings": {}, "agents": {}, "agents": {}}',
      `{"lockfileVersion": 1, "settings": {}, "agents": {"a": {"card": "x", "card": "y"}}}`,
      '{"lockfileVersion": 2, "settings": {}, "agents": {}}',
      `{"lockfileVersion": 1, "settings": {}, "agents": {"a": ${'['.repeat(70)}${']'.repeat(70)}}}`,
      '{"lockfileVersion": 1, "settings": {}, "agents": {"__proto__": {}}}',
      '<<<<<<< ours\n{}\n>>>>>>> theirs\n',
      '{"lockfileVersion": 1, "settings": {}, "agents": {',
      '',
    ];
    for (const text of cases) {
      const top = outcome(() => parseLockfileTop(text, 'l.json'));
      expect(top, text).not.toBe('ok');
      expect(top, text).toEqual(outcome(() => parseLockfile(text, 'l.json')));
    }
  });

  it('refuses the top-level shapes the lockfile schema refuses, naming the path', () => {
    const bad: Array<[unknown, string]> = [
      [[], '$'],
      [{ ...valid, lockfileVersion: 0 }, '$.lockfileVersion'],
      [{ ...valid, lockfileVersion: '1' }, '$.lockfileVersion'],
      [{ ...valid, $schema: 3 }, '$.$schema'],
      [{ ...valid, settings: [] }, '$.settings'],
      [{ ...valid, agents: null }, '$.agents'],
      [{ ...valid, agents: { 'bad name': {} } }, '$.agents["bad name"]'],
      [{ ...valid, settings: { '-x': {} } }, '$.settings["-x"]'],
    ];
    for (const [value, path] of bad) {
      expect(outcome(() => checkLockfileTop(value, 'l.json')), JSON.stringify(value)).toMatchObject({ code: 'lockfile-invalid', path });
      // The whole-file schema refuses each as well.
      expect(outcome(() => parseLockfile(JSON.stringify(value), 'l.json')), JSON.stringify(value)).toMatchObject({ code: 'lockfile-invalid' });
    }
  });

  it('agent names: the same rule as the manifest schema', () => {
    for (const name of ['a', 'A0', 'x.y_z-1', '0', '-a', '.a', '_a', 'a b', '', 'é', 'a/b', 'a\n']) {
      expect(AGENT_NAME.test(name), name).toBe(AgentNameSchema.safeParse(name).success);
    }
  });
});
