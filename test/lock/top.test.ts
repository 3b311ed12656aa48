/**
 * The lockfile's top level read without its entries (src/lock/top.ts), as the runtime's lazy
 * loadLock reads it: the same errors as the whole-file parseLockfile for everything but an
 * entry's schema, a repeated key among them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLockfile } from '../../src/lock/format.js';
import { checkLockfileTop, parseLockfileJson } from '../../src/lock/top.js';

/** The lockfile's top level as the lazy loadLock reads it: parseLockfileJson's checks, then checkLockfileTop. */
function parseLockfileTop(text: string, source: string) {
  return checkLockfileTop(parseLockfileJson(text, source), source);
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

describe('duplicate keys', () => {
  it('so a repeated key is always found, whatever strings try to make up the difference', () => {
    const noise = fc.constantFrom('": "', '":', '\\":', ' :', '"  :', 'x', '');
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }),
        fc.array(noise, { maxLength: 6 }),
        (object, strings) => {
          const [key, first] = Object.entries(object)[0]!;
          // The first key written twice (the repeat with a space before its colon), and string values
          // built from the noise beside it.
          const extra = strings.map((s, i) => `${JSON.stringify(`n${i}`)}: ${JSON.stringify(s)}`).join(', ');
          const inner = JSON.stringify(object, null, 1).slice(1, -1).trim();
          const text = `{"lockfileVersion": 1, "settings": {}, "agents": {}, "x": {${inner}${inner ? ', ' : ''}${JSON.stringify(key)} : ${JSON.stringify(first)}${extra ? `, ${extra}` : ''}}}`;
          return (
            (outcome(() => parseLockfileTop(text, 'l.json')) as { message?: string }).message?.includes(
              'duplicate key',
            ) === true
          );
        },
      ),
      { numRuns: 300 },
    );
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
      expect(
        outcome(() => checkLockfileTop(value, 'l.json')),
        JSON.stringify(value),
      ).toMatchObject({ code: 'lockfile-invalid', path });
      // The whole-file schema refuses each as well.
      expect(
        outcome(() => parseLockfile(JSON.stringify(value), 'l.json')),
        JSON.stringify(value),
      ).toMatchObject({ code: 'lockfile-invalid' });
    }
  });
});
