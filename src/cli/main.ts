/**
 * The CLI shell: parse arguments (yargs) against the commands of `./commands/index.ts` (each its
 * own file: definition, args, and its code and renderer loaded on demand), print the result (human
 * lines or `--json`), and map errors to exit codes in one place ({@link exitCodeFor}). Commands
 * return data; this is the one place that prints.
 */
import { relative } from 'node:path';
import kleur from 'kleur';
import yargs, { type Argv } from 'yargs';
import type { GlobalOptions } from '../commands/context.js';
import { A2aLockError, ExitCode, exitCodeFor } from '../errors.js';
import { redactError } from '../redact.js';
import type { PluginInfo } from '../version.js';
import { normalizeArgs } from './argv.js';
import { colourEnabled } from './colour.js';
import type { CommandContext, ParsedArgv } from './commands/command.js';
import { type AnyCliCommand, COMMANDS, commandName, HELP_ORDER, LOCK_SUBCOMMANDS } from './commands/index.js';
import { withGlobalOptions } from './global-options.js';
import { type CliIo, processIo } from './io.js';
import { print } from './print.js';
import { createProgress } from './progress.js';
import { escapeUntrusted } from './render/common.js';
import { failure, hideAll } from './yargs-shell.js';

function globals(argv: ParsedArgv, io: CliIo): GlobalOptions {
  return {
    manifest: String(argv.manifest ?? 'a2a.json'),
    ...(argv.manifest === undefined ? { searchManifest: true } : {}),
    ...(argv.lockfile ? { lockfile: String(argv.lockfile) } : {}),
    json: Boolean(argv.json),
    verbose: Boolean(argv.verbose),
    network: {
      ...(argv.timeout !== undefined ? { timeoutMs: Number(argv.timeout) } : {}),
      ...(argv.concurrency !== undefined ? { concurrency: Number(argv.concurrency) } : {}),
      ...(argv['allow-http'] ? { allowHttp: true } : {}),
      ...(argv.retries !== undefined ? { retries: Number(argv.retries) } : {}),
    },
    cwd: io.cwd,
    env: io.env,
  };
}

/**
 * The yargs handler of `command`: its args from the parsed line, the global options, then its code
 * and renderer loaded (one round of lazy imports) and run. `done` receives the printing of the
 * result, which returns the exit code.
 */
function handler(
  command: AnyCliCommand,
  context: CommandContext,
  io: CliIo,
  done: (printResult: () => ExitCode) => void,
) {
  return async (argv: ParsedArgv) => {
    const args: unknown = command.args(argv, context);
    const options = globals(argv, io);
    // A manifest found above the working directory is named once, in human output only.
    let named = false;
    options.usingManifest = (path) => {
      if (named || options.json) return;
      named = true;
      io.stderr(`using ${escapeUntrusted(relative(options.cwd, path))}\n`);
    };
    // Progress is cleared before anything is printed (the result, or the error).
    const progress = io.progress && createProgress({ json: options.json, env: io.env, stream: io.progress });
    if (progress) options.progress = progress.update;
    try {
      const [code, { outputSecrets }, { redactingIo }] = await Promise.all([
        command.load(),
        import('../commands/context.js'),
        import('./output-secrets.js'),
      ]);
      // No credential value the manifest names reaches the output, whatever a card or an agent
      // put in the result or an error (an agent that was sent a token can echo it in its card).
      const result = await code.run(options, args).catch(async (error: unknown) => {
        throw redactError(error, await outputSecrets(options));
      });
      const out = redactingIo(io, await outputSecrets(options));
      const renderer = code.renderer(args);
      // Under GitHub Actions, each annotation once per job (step-summary.js loads only there).
      const annotations =
        options.env.GITHUB_ACTIONS === 'true' && renderer.annotations
          ? (await import('./step-summary.js')).annotationsOnce(options.env, renderer.annotations(result.data, options))
          : [];
      done(() => {
        print(result, renderer, annotations, options, out);
        code.printed?.(result, args, options, out);
        return result.exitCode;
      });
    } finally {
      progress?.stop();
    }
  };
}

/**
 * Run the CLI with `rawArgs` (without `node` and the script; no command means `lock`, and
 * `lock <command>` means `<command>`, see {@link normalizeArgs}). Prints to stdout/stderr and returns the
 * exit code: 0 ok · 1 drift/refusal/out of date · 2 usage or invalid input · 3 unreachable ·
 * 4 auth refused · 5 timeout · 70 internal error. Connections stay pooled: the process shell
 * (dist/bin.js) closes them with `closeFetcher()` when this returns. `about` is the package's name,
 * version and description (`src/version.ts`, passed down by src/bin.ts): `--version` and `info`.
 */
export async function main(rawArgs: string[], io: CliIo = processIo(), about: PluginInfo): Promise<number> {
  // `a2a-lock` alone locks; `a2a lock verify` (the official a2a CLI running its plugin) verifies.
  const args = normalizeArgs(rawArgs, COMMANDS.map(commandName), LOCK_SUBCOMMANDS);
  kleur.enabled = colourEnabled(io.env, io.stdoutIsTTY ?? false);
  const wantsJson =
    args.includes('--json') ||
    args.includes('--format=json') ||
    args.some((a, i) => a === '--format' && args[i + 1] === 'json');
  const verbose = args.includes('--verbose');
  const wantsHelp = args.includes('--help') || args.includes('-h') || args[0] === 'help';
  let printResult: (() => ExitCode) | undefined;

  const parser = withGlobalOptions(
    yargs(args)
      .scriptName('a2a')
      .usage('$0 <command> [options]\n\nLock the A2A agents this client depends on: negotiate, lock, verify.'),
  );
  /** Add `command` (its options, examples and subcommands) to `y`. */
  const register = (y: Argv, command: AnyCliCommand): Argv =>
    y.command(
      command.command,
      command.describe,
      (inner: Argv) =>
        (command.subcommands ?? []).reduce(
          register,
          // Examples and the options' help rows only for a help that is shown (yargs renders it on every run: see .wrap).
          wantsHelp
            ? command.examples.reduce(
                (withExamples, [line, what]) => withExamples.example(line, what),
                command.options?.(inner) ?? inner,
              )
            : hideAll(command.options?.(inner) ?? inner),
        ),
      handler(command, { line: args, about }, io, (p) => (printResult = p)),
    );
  for (const name of HELP_ORDER) register(parser, COMMANDS.find((c) => commandName(c) === name)!);
  parser
    .example('$0 verify --strict', 'the CI gate: exit 1 when an agent moved beyond the lockfile')
    .example('$0 why research-agent', 'why the lockfile holds the plans it holds')
    // Help always says `a2a`; through the official a2a CLI each command is `a2a lock <command>`.
    .epilogue('Through the official a2a CLI (a2aproject/a2a-cli): a2a lock <command>, e.g. a2a lock verify.')
    .demandCommand(1, 'name a command (see a2a --help)')
    .recommendCommands()
    .strict()
    .version(about.version)
    .alias('version', 'V')
    .help()
    .alias('help', 'h')
    // yargs renders the help text on every command run (it caches it for a handler that shows help,
    // which ours never do); wrapping it costs ~15 ms of a ~200 ms run, so it is wrapped only when shown.
    .wrap(wantsHelp ? Math.min(100, process.stdout.columns || 100) : null)
    // yargs would translate its messages by LANG; ours are English, the fail handler reads
    // yargs' English ones, and CI scripts parse them.
    .locale('en')
    .fail(failure(args));

  try {
    await parser.parseAsync();
    return printResult ? printResult() : ExitCode.Ok; // none: --help / --version
  } catch (error) {
    return report(error, wantsJson, verbose, io);
  }
}

/** An error's stack for `--verbose`, each line {@link escapeUntrusted} (its message may carry card text). */
function stackOf(error: Error): string {
  return (error.stack ?? '').split('\n').map(escapeUntrusted).join('\n');
}

function report(error: unknown, json: boolean, verbose: boolean, io: CliIo): number {
  const code = exitCodeFor(error);
  if (error instanceof A2aLockError) {
    if (json) io.stdout(`${JSON.stringify({ error: error.toJSON() }, null, 2)}\n`);
    else {
      io.stderr(`${kleur.red('error')} ${error.code}: ${escapeUntrusted(error.message)}\n`);
      if (error.hint) io.stderr(`  hint: ${escapeUntrusted(error.hint)}\n`);
    }
    if (verbose && error.stack) io.stderr(`${stackOf(error)}\n`);
    return code;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (json) io.stdout(`${JSON.stringify({ error: { code: 'internal', message } }, null, 2)}\n`);
  else
    io.stderr(
      `${kleur.red('internal error')}: ${escapeUntrusted(message)}\n  this is a bug in a2a-lock; please report it${verbose ? '' : ' (rerun with --verbose for the stack)'}\n`,
    );
  if (verbose && error instanceof Error && error.stack) io.stderr(`${stackOf(error)}\n`);
  return code;
}
