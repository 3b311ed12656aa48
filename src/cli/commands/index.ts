/**
 * Every command of the CLI, one file each (`./<name>.ts`, see `./command.ts` for what a command
 * holds). To add a command: write its file, add it to {@link COMMANDS} (alphabetical) and to
 * {@link HELP_ORDER}; `test/cli/commands.test.ts` checks both lists and every entry's description,
 * examples, help and renderer.
 */
import { add } from './add.js';
import { card } from './card.js';
import type { CliCommand } from './command.js';
import { diff } from './diff.js';
import { exportCommand } from './export.js';
import { info } from './info.js';
import { init } from './init.js';
import { install } from './install.js';
import { lock } from './lock.js';
import { ls } from './ls.js';
import { outdated } from './outdated.js';
import { plan } from './plan.js';
import { remove } from './remove.js';
import { update } from './update.js';
import { verify } from './verify.js';
import { why } from './why.js';

/** A command of any args and data (each entry is checked against its own where it is defined). */
export type AnyCliCommand = CliCommand<unknown, unknown>;

/** The commands, in alphabetical order of name. */
export const COMMANDS: readonly AnyCliCommand[] = [
  add,
  card,
  diff,
  exportCommand,
  info,
  init,
  install,
  lock,
  ls,
  outdated,
  plan,
  remove,
  update,
  verify,
  why,
];

/** A command's name: the first word of its command string. */
export function commandName(command: AnyCliCommand): string {
  return command.command.split(' ')[0]!;
}

/** The subcommands of `lock` (`a2a lock digest`): the official a2a CLI runs `a2a lock digest` as `a2a-lock digest`. */
export const LOCK_SUBCOMMANDS: readonly string[] = (lock.subcommands ?? []).map(commandName);

/** The order `a2a --help` lists the commands in: the order a user meets them (plugin, try a card, set up, check, maintain, review). */
export const HELP_ORDER: readonly string[] = [
  'info',
  'plan',
  'card',
  'init',
  'add',
  'lock',
  'install',
  'verify',
  'update',
  'remove',
  'ls',
  'why',
  'outdated',
  'diff',
  'export',
];
