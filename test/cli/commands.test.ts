/**
 * The command index (src/cli/commands/index.ts) holds together: every command has a description,
 * an example, help that renders, and a renderer (its code loads); the index is alphabetical and
 * `a2a --help` lists each command once. In process.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS, commandName, HELP_ORDER } from '../../src/cli/commands/index.js';
import { main } from '../../src/cli/main.js';
import { pluginInfo } from '../../src/version.js';

afterEach(() => vi.restoreAllMocks());

/** What `a2a <args>` prints as help (yargs writes it with console.log and exits). */
async function help(args: string[]): Promise<string> {
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(parts.join(' ')));
  vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
  expect(await main(args, undefined, pluginInfo())).toBe(0);
  return printed.join('\n');
}

describe('the command index', () => {
  it('is alphabetical, names each command once, and a2a --help lists every one of them in HELP_ORDER', async () => {
    const names = COMMANDS.map(commandName);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
    expect([...HELP_ORDER].sort()).toEqual(names);
    const listed = [
      ...(await help(['--help']))
        .split('Commands:\n')[1]!
        .split('\n\n')[0]!
        .matchAll(/^ {2}a2a (\w+)/gm),
    ].map((m) => m[1]);
    expect(listed).toEqual([...HELP_ORDER]);
  });

  it.each(COMMANDS.map((command) => [commandName(command), command] as const))(
    '%s: a description, an example, help that renders, a renderer',
    async (name, command) => {
      expect(command.describe.length).toBeGreaterThan(10);
      expect(command.examples.length).toBeGreaterThan(0);
      for (const [line] of command.examples) expect(line).toMatch(new RegExp(`^\\$0 ${name}\\b`));
      // Help is wrapped at 100 columns: compared with its white space made single.
      const text = (await help([name, '--help'])).replace(/\s+/g, ' ');
      expect(text).toContain(command.describe);
      expect(text).toContain('Examples:');
      for (const [line] of command.examples) expect(text).toContain(line.replace('$0', 'a2a').replace(/\s+/g, ' '));
      const code = await command.load();
      expect(typeof code.run).toBe('function');
      const renderer = code.renderer({} as never);
      expect(typeof renderer.json).toBe('function');
      expect(typeof renderer.text).toBe('function');
    },
  );

  it.each(
    COMMANDS.flatMap((parent) =>
      (parent.subcommands ?? []).map((sub) => [`${commandName(parent)} ${commandName(sub)}`, sub] as const),
    ),
  )(
    '%s (a subcommand): a description, an example, help that renders, a renderer; its parent lists it',
    async (name, sub) => {
      expect(name).toBe('lock digest');
      expect(sub.describe.length).toBeGreaterThan(10);
      for (const [line] of sub.examples) expect(line).toMatch(new RegExp(`^\\$0 ${name}\\b`));
      const text = (await help([...name.split(' '), '--help'])).replace(/\s+/g, ' ');
      expect(text.startsWith(`a2a ${name} `)).toBe(true);
      expect(text).toContain(sub.describe);
      for (const [line] of sub.examples) expect(text).toContain(line.replace('$0', 'a2a').replace(/\s+/g, ' '));
      expect((await help([name.split(' ')[0]!, '--help'])).replace(/\s+/g, ' ')).toContain(
        `a2a ${name} ${sub.describe}`,
      );
      const code = await sub.load();
      expect(typeof code.run).toBe('function');
      expect(typeof code.renderer({} as never).text).toBe('function');
    },
  );

  it('--version and info answer with the name, version and description main is given (src/version.ts, passed down by src/bin.ts)', async () => {
    const about = { name: 'lock', version: '9.8.7-test', description: 'passed down' };
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(parts.join(' ')));
    vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    expect(await main(['--version', '--json'], undefined, about)).toBe(0);
    expect(printed).toEqual(['9.8.7-test']);
    const stdout: string[] = [];
    const io = {
      cwd: process.cwd(),
      env: {},
      stdout: (text: string) => void stdout.push(text),
      stderr: () => undefined,
    };
    expect(await main(['info', '--json'], io, about)).toBe(0);
    expect(stdout.join('')).toBe(`${JSON.stringify(about)}\n`);
  });
});
