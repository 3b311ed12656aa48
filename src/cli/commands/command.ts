/**
 * What a command of the CLI is: its yargs definition (command string, description, options,
 * examples), the mapping of the parsed arguments to the command's own args, and — loaded on demand,
 * so a run loads one command's code — the command (`src/commands/`) with its renderer
 * (`src/cli/render/`). Every command is one file beside this one, listed in `./index.ts`.
 */
import type { Argv } from 'yargs';
import type { CommandResult, GlobalOptions } from '../../commands/context.js';
import { UsageError } from '../../errors.js';
import type { PluginInfo } from '../../version.js';
import type { CommandRenderer } from '../render/common.js';
import type { SarifTool } from '../render/sarif.js';
import type { SummaryTarget } from '../step-summary.js';
import { closest } from '../suggest.js';

/** The arguments as yargs parsed them (options by name, positionals by name, the rest in `_`). */
export type ParsedArgv = Record<string, unknown> & { _: Array<string | number> };

/** What a command's {@link CliCommand.args} reads besides the parsed arguments. */
export interface CommandContext {
  /** The normalised command line (a `--` on it splits revisions from files, for diff). */
  line: readonly string[];
  /** This package's name, version and description (`info`). */
  about: PluginInfo;
}

/** A command's code, loaded when it runs: the command, its renderer, what follows the print. */
interface LoadedCommand<A, D> {
  /** Run the command (it returns data; it prints nothing). May set `options.json` (`--format json`). */
  run(options: GlobalOptions, args: A): Promise<CommandResult<D>>;
  /** The renderer of the result (some commands pick one by `--format`). */
  renderer(args: A): CommandRenderer<D>;
  /** After the result is printed: annotations on stderr, the GitHub job summary. */
  printed?(result: CommandResult<D>, args: A, options: GlobalOptions, out: SummaryTarget): void;
}

/** One command of the CLI (`a2a <command>`). */
export interface CliCommand<A = never, D = never> {
  /** yargs' command string: the name and positionals, e.g. `plan <card>`. */
  command: string;
  /** The one-line description `a2a --help` lists. */
  describe: string;
  /** The command's positionals and options (none: the command takes only the global options). */
  options?(y: Argv): Argv;
  /**
   * Its subcommands (`a2a lock digest`): each a command of its own, run instead of this one when
   * named after it (`a2a lock --help` lists them under Commands).
   */
  subcommands?: ReadonlyArray<CliCommand<unknown, unknown>>;
  /** `[command line, what it does]` pairs shown under Examples in `a2a <command> --help` (`$0` is `a2a`). */
  examples: ReadonlyArray<readonly [string, string]>;
  /** The command's args from the parsed arguments; throws {@link UsageError}. */
  args(argv: ParsedArgv, context: CommandContext): A;
  /** The command's code and renderer: dynamic imports, one round, when the command runs. */
  load(): Promise<LoadedCommand<A, D>>;
}

/** A command definition whose args and data types are checked where it is written. */
export function defineCommand<A, D>(command: CliCommand<A, D>): CliCommand<A, D> {
  return command;
}

/** An option given once; repeated (yargs makes an array) is a usage error saying `why` one. */
export function single(name: string, value: unknown, why: string): string {
  if (Array.isArray(value))
    throw new UsageError(`--${name} given more than once (${value.map(String).join(', ')}); ${why}`);
  return String(value);
}

/**
 * `--format sarif`: the tool the log names (this package's name and version); undefined for
 * another format. `--json` with it is a contradiction.
 * @throws UsageError `--json` and `--format sarif` together
 */
function sarifTool(format: string | undefined, argv: ParsedArgv, about: PluginInfo): SarifTool | undefined {
  if (format !== 'sarif') return undefined;
  if (argv.json) throw new UsageError('--json and --format sarif contradict each other: give one');
  return { name: 'a2a-lock', version: about.version };
}

/**
 * `--format` of a command whose data can be a SARIF log: the format, and for `sarif` the tool the
 * log names and `locate` (the command finds each agent's line).
 * @throws UsageError `--format` repeated, or `--json` with `--format sarif`
 */
export function formatArgs(argv: ParsedArgv, about: PluginInfo): { format?: string; tool?: SarifTool; locate?: true } {
  if (argv.format === undefined) return {};
  const format = single('format', argv.format, 'one output format');
  const tool = sarifTool(format, argv, about);
  return { format, ...(tool ? { tool, locate: true as const } : {}) };
}

/** A repeatable positional or option as strings (absent: none). */
export function strings(value: unknown): string[] {
  return ((value as unknown[] | undefined) ?? []).map(String);
}

/** `--ignore <code>` (repeatable; also comma-separated): the codes given, in order, each once (checked by {@link checkIgnored}). */
export function ignoreCodes(value: unknown): string[] {
  const given = value === undefined ? [] : [value].flat().map(String);
  return [...new Set(given.flatMap((v) => v.split(',').map((c) => c.trim())))];
}

/**
 * `codes` (of {@link ignoreCodes}), each one of `known` (`what` names them: `risk code`). Called
 * when the command's code is loaded (the lists live beside it, not in every run's start-up), before
 * it reads anything. An unknown code is a usage error naming the nearest known code, or all of
 * them.
 * @throws UsageError an unknown or empty code
 */
export function checkIgnored(codes: readonly string[] | undefined, known: readonly string[], what: string): void {
  for (const code of codes ?? []) {
    if (known.includes(code)) continue;
    const near = code ? closest(code.toLowerCase(), known) : undefined;
    throw new UsageError(
      `--ignore: unknown ${what} "${code}"${near ? `; did you mean ${near}?` : ` (${what}s: ${known.join(', ')})`}`,
    );
  }
}
