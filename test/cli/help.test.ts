/**
 * Help text: yargs renders it on every command run, but wraps it (at 100 columns) only when it is
 * shown, since wrapping costs start-up time (issue 6). In process.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { pluginInfo } from '../../src/version.js';

afterEach(() => vi.restoreAllMocks());

describe('help', () => {
  it.each([{ args: ['--help'] }, { args: ['-h'] }, { args: ['help'] }, { args: ['verify', '--help'] }])(
    'a2a $args prints help wrapped at 100 columns',
    async ({ args }) => {
      const printed: string[] = [];
      vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(parts.join(' ')));
      vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never); // yargs exits after help
      expect(await main(args, undefined, pluginInfo())).toBe(0);
      const lines = printed.join('\n').split('\n');
      expect(lines.join('\n')).toMatch(/Options:/);
      expect(lines.filter((line) => line.length > 100)).toEqual([]);
      // The spelling under the official a2a CLI, whose `a2a` runs this package as `a2a lock` (top-level help).
      if (args[0] !== 'verify')
        expect(lines.join('\n')).toContain('Through the official a2a CLI (a2aproject/a2a-cli): a2a lock <command>');
    },
  );

  it.each([{ command: 'verify' }, { command: 'diff' }])(
    'a2a $command --help says the job summary is written by default only where GITHUB_STEP_SUMMARY is set, not [default: true]',
    async ({ command }) => {
      const printed: string[] = [];
      vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(parts.join(' ')));
      vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never); // yargs exits after help
      expect(await main([command, '--help'], undefined, pluginInfo())).toBe(0);
      const text = printed.join('\n');
      // The option's entry: its line and the next (yargs puts the type and default on a line of their own).
      const entry = /^\s+--summary .*\n.*$/m.exec(text)?.[0] ?? '';
      expect(entry).toContain('[default: when GITHUB_STEP_SUMMARY is set]');
      expect(entry).not.toContain('[default: true]');
    },
  );
});
