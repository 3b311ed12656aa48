/**
 * The command reference says what the built CLI does: docs/reference/commands/ has one page per command of
 * `a2a --help`, each page's synopsis is the command's usage line and its options table lists exactly the
 * command's own options, and the global options table lists the options every command takes.
 */
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cells, page, REPO, section } from '../helpers/markdown.js';
import { type CliResult, runCli, show } from './helpers.js';

const COMMANDS = 'docs/reference/commands';

const helpDir = mkdtemp(join(tmpdir(), 'a2a-reference-help-'));
afterAll(async () => rm(await helpDir, { recursive: true, force: true }));
const helps = new Map<string, Promise<CliResult>>();
/** `a2a ...args` (a `--help` run, a process each) in an empty directory, run once per file whichever test asks first. */
function help(...args: string[]): Promise<CliResult> {
  const key = args.join(' ');
  if (!helps.has(key))
    helps.set(
      key,
      helpDir.then((cwd) => runCli(args, { cwd })),
    );
  return helps.get(key)!;
}

/** The long option names (`--x`) in the `Options:` block of a help text. */
function helpOptions(help: string): string[] {
  const block = help.split('\nOptions:\n')[1]!.split('\n\n')[0]!;
  return [...block.matchAll(/^\s+(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!);
}

/** The long option names in the first column of the tables under `title` on a page. */
function tableOptions(text: string, title: string): string[] {
  return section(text, title)
    .filter((l) => l.startsWith('| `-'))
    .flatMap((l) => [...cells(l)[0]!.matchAll(/`(?:-\w`, `)?(--[\w-]+)/g)].map((m) => m[1]!));
}

describe('docs/reference/commands vs a2a --help', () => {
  it('the command table and the pages list exactly the commands a2a --help lists; the global options are the same', async () => {
    const top = await help('--help');
    expect(top.code, show(top)).toBe(0);
    const commands = top.stdout.split('Commands:\n')[1]!.split('\n\n')[0]!;
    const fromHelp = [...commands.matchAll(/^ {2}a2a (\w+)/gm)].map((m) => m[1]!).sort();
    const index = page(`${COMMANDS}/README.md`);
    const fromTable = [...index.matchAll(/^\| \[`a2a (\w+)`\]\((\w+)\.md\) \|/gm)].map((m) => {
      expect(m[2]).toBe(m[1]);
      return m[1]!;
    });
    expect(fromTable.sort()).toEqual(fromHelp);
    const pages = readdirSync(join(REPO, COMMANDS))
      .filter((f) => f !== 'README.md')
      .map((f) => f.replace(/\.md$/, ''));
    expect(pages.sort()).toEqual(fromHelp);
    expect(fromHelp).toEqual(expect.arrayContaining(['remove', 'ls', 'info']));
    expect(tableOptions(index, 'Global options').sort()).toEqual(helpOptions(top.stdout).sort());
  });

  it("each command's page: the synopsis is its usage line, the options table its own options", async () => {
    const global = new Set(helpOptions((await help('--help')).stdout));
    const pages = readdirSync(join(REPO, COMMANDS)).filter((f) => f !== 'README.md');
    const usages = await Promise.all(pages.map((file) => help(file.replace(/\.md$/, ''), '--help')));
    for (const [i, file] of pages.entries()) {
      const usage = usages[i]!;
      expect(usage.code, show(usage)).toBe(0);
      const text = page(`${COMMANDS}/${file}`);
      const synopsis = section(text, 'Synopsis');
      const fence = synopsis.findIndex((l) => l.startsWith('```'));
      expect(synopsis[fence + 1], file).toBe(usage.stdout.split('\n')[0]);
      const own = helpOptions(usage.stdout).filter((o) => !global.has(o));
      expect(tableOptions(text, 'Options').sort(), file).toEqual(own.sort());
      for (const title of ['Exit codes', '`--json`'])
        expect(section(text, title).join('\n').trim(), `${file}: ${title}`).not.toBe('');
    }
  });

  it("each subcommand (a2a lock digest) has a section on its parent's page, headed by its name, whose synopsis is its usage line and which lists no option it lacks", async () => {
    const global = new Set(helpOptions((await help('--help')).stdout));
    const subs: string[] = [];
    const pages = readdirSync(join(REPO, COMMANDS)).filter((f) => f !== 'README.md');
    const usages = await Promise.all(pages.map((file) => help(file.replace(/\.md$/, ''), '--help')));
    for (const [i, file] of pages.entries()) {
      const usage = usages[i]!.stdout;
      if (!usage.includes('\nCommands:\n')) continue;
      const listed = usage.split('\nCommands:\n')[1]!.split('\n\n')[0]!;
      for (const m of listed.matchAll(/^ {2}a2a (\w+) (\w+)/gm)) {
        const own = await help(m[1]!, m[2]!, '--help');
        expect(own.code, show(own)).toBe(0);
        const part = section(page(`${COMMANDS}/${file}`), `\`a2a ${m[1]} ${m[2]}\``);
        const fence = part.findIndex((l) => l.startsWith('```'));
        expect(part[fence + 1], `${m[1]} ${m[2]}`).toBe(own.stdout.split('\n')[0]);
        expect(helpOptions(own.stdout).filter((o) => !global.has(o))).toEqual([]);
        subs.push(`${m[1]} ${m[2]}`);
      }
    }
    expect(subs).toEqual(['lock digest']);
  });
});
