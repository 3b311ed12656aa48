/** The README's command list and exit-code table say what the built CLI does: `a2a --help` and the one exit table (src/errors.ts). */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { resources, ROOT, runCli, show } from './helpers.js';

/** The lines of the README section under `## <title>`, up to the next `## `. */
async function section(title: string): Promise<string[]> {
  const lines = (await readFile(join(ROOT, 'README.md'), 'utf8')).split('\n');
  const start = lines.indexOf(`## ${title}`);
  expect(start, title).toBeGreaterThan(0);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start + 1, end);
}

describe('README vs a2a --help', () => {
  it('the command table lists exactly the commands a2a --help lists', async ({ onTestFinished }) => {
    const help = await runCli(['--help'], { cwd: await resources(onTestFinished).dir() });
    expect(help.code, show(help)).toBe(0);
    const commands = help.stdout.split('Commands:\n')[1]!.split('\n\n')[0]!;
    const fromHelp = new Set([...commands.matchAll(/^ {2}a2a (\w+)/gm)].map((m) => m[1]));
    const table = (await section('Commands')).filter((l) => l.startsWith('| `a2a '));
    const fromReadme = new Set(table.map((l) => /^\| `a2a (\w+)/.exec(l)![1]));
    expect([...fromReadme].sort()).toEqual([...fromHelp].sort());
    expect(fromHelp.has('remove') && fromHelp.has('ls') && fromHelp.has('info')).toBe(true);
  });

  it('the exit-code table has one row per exit code of src/errors.ts, and an invalid card under 1', async () => {
    const rows = (await section('Exit codes')).filter((l) => /^\| \d+ \|/.test(l));
    expect(rows.map((l) => Number(/^\| (\d+)/.exec(l)![1]))).toEqual(Object.values(ExitCode));
    expect(rows.find((l) => l.startsWith('| 1 |'))).toContain('`card-invalid`');
    expect(rows.find((l) => l.startsWith('| 2 |'))).not.toContain('card-invalid');
  });
});
