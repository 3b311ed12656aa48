/** The command line as the official a2a CLI hands it over (normalizeArgs), and the colour conventions (colourEnabled). */
import { describe, expect, it } from 'vitest';
import { normalizeArgs } from '../../src/cli/argv.js';
import { colourEnabled } from '../../src/cli/colour.js';

const COMMANDS = ['lock', 'verify', 'update', 'why', 'ls', 'remove', 'info'];

describe('normalizeArgs: a2a-lock alone locks; a2a lock <command> is a2a <command>', () => {
  it('no command, or only options, means lock; --help and --version stay themselves', () => {
    expect(normalizeArgs([], COMMANDS)).toEqual(['lock']);
    expect(normalizeArgs(['--json'], COMMANDS)).toEqual(['lock', '--json']);
    expect(normalizeArgs(['--manifest', 'verify', '--json'], COMMANDS)).toEqual([
      'lock',
      '--manifest',
      'verify',
      '--json',
    ]);
    expect(normalizeArgs(['--help'], COMMANDS)).toEqual(['--help']);
    expect(normalizeArgs(['-V'], COMMANDS)).toEqual(['-V']);
  });

  it('lock <command> drops lock; lock with options, or an unknown word after it, stays as it is', () => {
    expect(normalizeArgs(['lock', 'verify', '--json'], COMMANDS)).toEqual(['verify', '--json']);
    expect(normalizeArgs(['lock', '--timeout', '500', 'update', 'research'], COMMANDS)).toEqual([
      '--timeout',
      '500',
      'update',
      'research',
    ]);
    expect(normalizeArgs(['--json', 'lock', 'ls'], COMMANDS)).toEqual(['--json', 'ls']);
    expect(normalizeArgs(['lock', 'info'], COMMANDS)).toEqual(['info']);
    expect(normalizeArgs(['lock', '--json'], COMMANDS)).toEqual(['lock', '--json']);
    expect(normalizeArgs(['lock', 'lock'], COMMANDS)).toEqual(['lock', 'lock']);
    expect(normalizeArgs(['lock', 'verfy'], COMMANDS)).toEqual(['lock', 'verfy']);
    expect(normalizeArgs(['verify', 'lock'], COMMANDS)).toEqual(['verify', 'lock']);
  });

  it("a subcommand of lock alone (a2a-lock digest: the official CLI's a2a lock digest) is lock <subcommand>; lock digest stays", () => {
    const subs = ['digest'];
    expect(normalizeArgs(['digest'], COMMANDS, subs)).toEqual(['lock', 'digest']);
    expect(normalizeArgs(['--manifest', 'a/a2a.json', 'digest', '--json'], COMMANDS, subs)).toEqual([
      '--manifest',
      'a/a2a.json',
      'lock',
      'digest',
      '--json',
    ]);
    expect(normalizeArgs(['lock', 'digest'], COMMANDS, subs)).toEqual(['lock', 'digest']);
    expect(normalizeArgs(['verify', 'digest'], COMMANDS, subs)).toEqual(['verify', 'digest']);
  });
});

describe('colourEnabled', () => {
  it('follows the terminal when nothing is set; TERM=dumb turns it off', () => {
    expect(colourEnabled({}, true)).toBe(true);
    expect(colourEnabled({}, false)).toBe(false);
    expect(colourEnabled({ TERM: 'dumb' }, true)).toBe(false);
  });

  it('NO_COLOR turns it off only when non-empty', () => {
    expect(colourEnabled({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colourEnabled({ NO_COLOR: '' }, true)).toBe(true);
  });

  it('FORCE_COLOR=0 turns it off and 1..3 on, terminal or not', () => {
    expect(colourEnabled({ FORCE_COLOR: '0' }, true)).toBe(false);
    for (const level of ['1', '2', '3']) {
      expect(colourEnabled({ FORCE_COLOR: level }, false)).toBe(true);
      expect(colourEnabled({ FORCE_COLOR: level, NO_COLOR: '1' }, false)).toBe(true);
    }
  });
});
