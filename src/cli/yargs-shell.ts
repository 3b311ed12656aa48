/**
 * yargs' side of the CLI shell that is not the commands: its failures read as usage errors (exit 2,
 * one line, with a suggestion for a misspelt command or option), and options hidden from a help
 * that is not shown.
 */
import type { Argv } from 'yargs';
import { UsageError } from '../errors.js';
import { unknownArgumentsMessage } from './suggest.js';

/**
 * `y` with every option hidden from its help: yargs renders a command's help on every run, and a
 * run that shows none need not lay out a row per option (a speed seam: docs/explanation/performance.md).
 */
export function hideAll(y: Argv): Argv {
  const options = (y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions();
  for (const key of Object.keys(options.key)) y.hide(key);
  return y;
}

/** yargs' failures as usage errors (exit 2), each on one line; `line` is the command line parsed. */
export function failure(line: readonly string[]) {
  return (message: string, error: Error | undefined, usage: unknown): never => {
    // yargs re-wraps errors thrown by `coerce` (our UsageError) as a plain YError: still usage (exit 2).
    const missing = /^Not enough arguments following: (.*)$/.exec(error?.message ?? message);
    if (missing) throw new UsageError(`--${missing[1]} needs a value`);
    if (error) throw error.name === 'YError' ? new UsageError(error.message) : error;
    if (/^Did you mean/.test(message)) {
      // A subcommand misspelt (`lock digset`): yargs suggests the subcommand alone.
      const parent = line[0] === 'lock' && line[1] !== undefined && !line[1].startsWith('-') ? 'lock ' : '';
      throw new UsageError(
        `unknown command "${parent}${String(line[parent ? 1 : 0])}"; ${message.replace(/^Did you mean /, `did you mean ${parent}`)}`,
      );
    }
    const unknown = /^Unknown arguments?: (.*)$/.exec(message);
    if (unknown) {
      // The options of the command that failed (global ones included), as yargs' usage knows them.
      const known = Object.keys(
        (usage as { getDescriptions?: () => Record<string, unknown> }).getDescriptions?.() ?? {},
      );
      const commands =
        (usage as { getCommands?: () => Array<[string, ...unknown[]]> })
          .getCommands?.()
          .map((c) => c[0].split(' ')[0]!) ?? [];
      throw new UsageError(unknownArgumentsMessage(unknown[1]!.split(', '), line, known, commands), {
        hint: 'see a2a <command> --help',
      });
    }
    // yargs' own messages span lines ("Invalid values:\n  Argument: …"): one line, as every error.
    throw new UsageError(
      message
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .join(' '),
    );
  };
}
