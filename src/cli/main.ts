/**
 * The CLI shell: parse arguments (yargs), lazy-load the one command module needed with its renderer
 * (`render/<command>.ts`), print its result (human lines or `--json`), and map errors to exit codes
 * in one place ({@link exitCodeFor}). Commands return data; this is the one place that prints.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import kleur from 'kleur';
import yargs from 'yargs';
import { A2aLockError, exitCodeFor, ExitCode, UsageError, wholeNumberIn } from '../errors.js';
import type { CommandResult, GlobalOptions } from '../commands/context.js';
import type { SideSpelling } from '../commands/diff.js';
import { escapeUntrusted, renderWarning, terminalSafe, untrusted, type CommandRenderer } from './render/common.js';
import { createProgress, type ProgressStream } from './progress.js';
import { unknownArgumentsMessage } from './suggest.js';
import { normalizeArgs } from './argv.js';
import { colourEnabled } from './colour.js';

/** Every command name (and alias) the parser knows, for {@link normalizeArgs}. */
const COMMANDS = ['info', 'plan', 'card', 'init', 'add', 'lock', 'install', 'verify', 'update', 'remove', 'ls', 'why', 'outdated', 'diff'];

type Argv = Record<string, unknown> & { _: Array<string | number> };

function single(name: string, value: unknown, why = 'plan negotiates one skill'): string {
  if (Array.isArray(value)) throw new UsageError(`--${name} given more than once (${value.map(String).join(', ')}); ${why}`);
  return String(value);
}

/** `--base <rev>` of verify: one revision; `--base x --no-base` together is a contradiction, not a repeat. */
function baseOption(value: unknown): string {
  if (Array.isArray(value) && value.includes(false)) throw new UsageError('--base and --no-base contradict each other: give one');
  return single('base', value, 'verify compares against one base');
}

/**
 * Where the CLI reads its working directory and environment and writes its output. The process by
 * default ({@link processIo}); tests run commands in-process with their own. yargs itself still
 * prints `--help` and `--version` to the process.
 */
export interface CliIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Where progress is drawn (it checks `isTTY`); none: no progress. */
  progress?: ProgressStream;
  /** Whether stdout is a terminal (colour, see {@link colourEnabled}); absent: not. */
  stdoutIsTTY?: boolean;
}

/** The process's directory, environment, stdout and stderr. */
export function processIo(): CliIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    progress: process.stderr,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
  };
}

function globals(argv: Argv, io: CliIo): GlobalOptions {
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

/** A command's result paired with its command's renderer (paired where their data types agree). */
interface Answer {
  exitCode: ExitCode;
  print(options: GlobalOptions, io: CliIo): void;
}

function answer<D>(result: CommandResult<D>, renderer: CommandRenderer<D>): Answer {
  return { exitCode: result.exitCode, print: (options, io) => print(result, renderer, options, io) };
}

function version(): string {
  return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;
}

/** What `a2a-lock info` prints (src/bin.ts answers `info` alone the same way, without loading this module). */
export function pluginInfo(): { name: string; version: string; description: string } {
  return { name: 'lock', version: version(), description: 'Lockfile for A2A agents: lock, verify, update' };
}

function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER, min = 1) {
  return (value: unknown) => {
    if (value === undefined) return undefined;
    if (Array.isArray(value)) throw new UsageError(`--${name} given more than once`);
    return wholeNumberIn(`--${name}`, typeof value === 'number' ? value : Number(value), min, max);
  };
}

/**
 * Run the CLI with `rawArgs` (without `node` and the script; no command means `lock`, and
 * `lock <command>` means `<command>`, see {@link normalizeArgs}). Prints to stdout/stderr and returns the
 * exit code: 0 ok · 1 drift/refusal/out of date · 2 usage or invalid input · 3 unreachable ·
 * 4 auth refused · 5 timeout · 70 internal error. Connections stay pooled: the process shell
 * (dist/bin.js) closes them with `closeFetcher()` when this returns.
 */
export async function main(rawArgs: string[], io: CliIo = processIo()): Promise<number> {
  // `a2a-lock` alone locks; `a2a lock verify` (the official a2a CLI running its plugin) verifies.
  const args = normalizeArgs(rawArgs, COMMANDS);
  kleur.enabled = colourEnabled(io.env, io.stdoutIsTTY ?? false);
  let result: Answer | undefined;
  let options: GlobalOptions | undefined;
  const wantsJson = args.includes('--json') || args.includes('--format=json') || args.some((a, i) => a === '--format' && args[i + 1] === 'json');
  const verbose = args.includes('--verbose');
  const wantsHelp = args.includes('--help') || args.includes('-h') || args[0] === 'help';
  // Each command loads its module and its renderer together (one round of lazy imports).
  const run = (load: (o: GlobalOptions, argv: Argv) => Promise<Answer>) => async (argv: Argv) => {
    options = globals(argv, io);
    // A manifest found above the working directory is named once, in human output only.
    const o = options;
    let named = false;
    o.usingManifest = (path) => {
      if (named || o.json) return;
      named = true;
      io.stderr(`using ${escapeUntrusted(relative(o.cwd, path))}\n`);
    };
    // Progress is cleared before anything is printed (the result, or the error).
    const progress = io.progress && createProgress({ json: options.json, env: io.env, stream: io.progress });
    if (progress) options.progress = progress.update;
    try {
      result = await load(options, argv);
    } finally {
      progress?.stop();
    }
  };

  const parser = yargs(args)
    .scriptName('a2a')
    .usage('$0 <command> [options]\n\nLock the A2A agents this client depends on: negotiate, lock, verify.')
    .option('manifest', { type: 'string', requiresArg: true, describe: 'Manifest file (default: a2a.json here or in the nearest parent folder up to the git root; outside git, up to $HOME)', global: true })
    .option('lockfile', { type: 'string', requiresArg: true, describe: 'Lockfile (default: a2a.lock.json beside the manifest)', global: true })
    .option('json', { type: 'boolean', default: false, describe: 'Print one JSON document on stdout', global: true })
    .option('verbose', { type: 'boolean', default: false, describe: 'Print stack traces of errors', global: true })
    .option('timeout', { type: 'number', requiresArg: true, describe: 'Per-card timeout in ms (default 10000)', global: true, coerce: positiveInt('timeout', 2_147_483_647) })
    .option('concurrency', { type: 'number', requiresArg: true, describe: 'Agents checked at once, and connections per host (default 128)', global: true, coerce: positiveInt('concurrency') })
    .option('retries', { type: 'number', requiresArg: true, describe: 'Retries of a card answered 429/500/502/503/504, with backoff (default 2)', global: true, coerce: positiveInt('retries', 10, 0) })
    .option('allow-http', { type: 'boolean', default: false, describe: 'Allow plain http to non-loopback hosts', global: true })
    .command('info', 'Describe this plugin to the official a2a CLI: one JSON object {name, version, description}', (y) => y.example('$0 info', ''), () => {
      result = { exitCode: ExitCode.Ok, print: (_o, out) => out.stdout(`${JSON.stringify(pluginInfo())}\n`) };
      options = globals({ _: [] }, io);
    })
    .command(
      'plan <card>',
      'Negotiate one card (file or URL) without a lockfile',
      (y) =>
        y
          .positional('card', { type: 'string', describe: 'Card URL or file', demandOption: true })
          .option('skill', { type: 'string', requiresArg: true, demandOption: true, describe: 'Skill id ("*": the agent-level plan, from the card\'s defaults)' })
          .option('profile', { type: 'string', requiresArg: true, describe: 'JSON file holding a client profile' })
          .option('credential', { type: 'string', requiresArg: true, array: true, default: [], describe: 'A scheme name the client holds (repeatable)' })
          .example('$0 plan https://agent.example.com --skill market-size --credential bearer', ''),
      run(async (o, argv) => {
        const [{ runPlan }, { planRenderer }] = await Promise.all([import('../commands/plan.js'), import('./render/plan.js')]);
        const result = await runPlan(o, {
          card: String(argv.card),
          skill: single('skill', argv.skill),
          ...(argv.profile ? { profile: String(argv.profile) } : {}),
          // `scheme=ENV` (the form `add` takes) names the scheme too; the variable is not read here.
          credentials: (argv.credential as string[]).map((c) => String(c).split('=')[0]!),
        });
        return answer(result, planRenderer);
      }),
    )
    .command(
      'card <card>',
      'Fetch, validate and print a normalised agent card with its warnings (exit 0 valid, 1 invalid)',
      (y) =>
        y
          .positional('card', { type: 'string', describe: 'Card URL or file', demandOption: true })
          .option('a2a-version', { type: 'string', requiresArg: true, describe: 'The A2A-Version the card is asked for with (default: the manifest profile\'s first version, else 1.0)' })
          .option('card-path', { type: 'string', describe: 'Where the card is, relative to the URL ("": the URL is the card itself, e.g. https://host/v1/card)' })
          .example('$0 card ./agent-card.json', '')
          .example('$0 card https://agent.example.com --a2a-version 0.3', ''),
      run(async (o, argv) => {
        const [{ runCard }, { cardRenderer }] = await Promise.all([import('../commands/card.js'), import('./render/card.js')]);
        const version = argv['a2a-version'];
        const cardPath = argv['card-path'];
        return answer(
          await runCard(o, {
            card: String(argv.card),
            ...(version !== undefined ? { a2aVersion: single('a2a-version', version, 'a card is asked for with one version') } : {}),
            ...(cardPath !== undefined ? { cardPath: single('card-path', cardPath, 'a card has one path') } : {}),
          }),
          cardRenderer,
        );
      }),
    )
    .command('init', 'Write a starter a2a.json', (y) => y.example('$0 init', ''), run(async (o) => {
      const [{ runInit }, { initRenderer }] = await Promise.all([import('../commands/init.js'), import('./render/init.js')]);
      return answer(await runInit(o), initRenderer);
    }))
    .command(
      'add <name> <card>',
      'Add an agent to a2a.json and lock it',
      (y) =>
        y
          .positional('name', { type: 'string', demandOption: true })
          .positional('card', { type: 'string', demandOption: true })
          .option('skill', { type: 'string', requiresArg: true, array: true, default: [], describe: 'Skill id (repeatable; none: one agent-level plan "*")' })
          .option('credential', { type: 'string', requiresArg: true, array: true, default: [], describe: '<scheme>=<ENV_VAR> (repeatable)' })
          .option('range', { type: 'string', requiresArg: true, describe: 'Semver range over the card version' })
          .option('card-path', { type: 'string', describe: 'Where the card is, relative to <card> ("": <card> is the card itself, e.g. https://host/v1/card)' })
          .example('$0 add research https://research.example.com --skill market-size --credential bearer=RESEARCH_TOKEN', ''),
      run(async (o, argv) => {
        const [{ runAdd }, { lockRenderer }] = await Promise.all([import('../commands/lock.js'), import('./render/lock.js')]);
        const result = await runAdd(o, {
          name: String(argv.name),
          card: String(argv.card),
          skills: (argv.skill as string[]).map(String),
          credentials: (argv.credential as string[]).map(String),
          ...(argv.range ? { version: String(argv.range) } : {}),
          ...(argv['card-path'] !== undefined ? { cardPath: single('card-path', argv['card-path'], 'an agent has one card path') } : {}),
        });
        return answer(result, lockRenderer);
      }),
    )
    .command('lock', 'Make a2a.lock.json satisfy a2a.json', (y) => y.example('$0 lock', ''), run(async (o) => {
      const [{ runLock }, { lockRenderer }] = await Promise.all([import('../commands/lock.js'), import('./render/lock.js')]);
      return answer(await runLock(o), lockRenderer);
    }))
    .command('install', 'Check every locked agent against the lockfile (like npm ci); never writes', (y) => y.example('$0 install', ''), run(async (o) => {
      const [{ runInstall }, { installRenderer }] = await Promise.all([import('../commands/verify.js'), import('./render/verify.js')]);
      return answer(await runInstall(o), installRenderer);
    }))
    .command(
      'verify [agents..]',
      'CI gate: check the lockfile against the manifest and the cards served now',
      (y) =>
        y
          .positional('agents', { type: 'string', array: true, describe: 'Agents to verify (default: all)' })
          .option('offline', { type: 'boolean', default: false, describe: 'No network: check snapshots and plans only' })
          .option('strict', { type: 'boolean', default: false, describe: 'Also fail (exit 1) on card changes that leave plans equal' })
          .option('base', {
            type: 'string',
            requiresArg: true,
            describe: "Send credentials only along routes the lockfile at the merge-base of HEAD and this revision had (default: the review base under CI; --no-base: none)",
          })
          .example('$0 verify --strict', '')
          .example('$0 verify --base origin/main', ''),
      run(async (o, argv) => {
        const [{ runVerify }, { verifyRenderer, verifySummary }, { appendStepSummary }] = await Promise.all([import('../commands/verify.js'), import('./render/verify.js'), import('./step-summary.js')]);
        const result = await runVerify(o, {
          agents: ((argv.agents as string[] | undefined) ?? []).map(String),
          offline: Boolean(argv.offline),
          strict: Boolean(argv.strict),
          ...(argv.base === false ? { base: false } : argv.base !== undefined ? { base: baseOption(argv.base) } : {}),
        });
        const answered = answer(result, verifyRenderer);
        // Under GitHub Actions the report is also the job summary.
        return { exitCode: answered.exitCode, print: (opts, out) => { answered.print(opts, out); appendStepSummary(out, verifySummary(result.data)); } };
      }),
    )
    .command(
      'update [agents..]',
      'Re-resolve agents (all if none named) and write the lockfile; prints the card and plan diff',
      (y) =>
        y
          .positional('agents', { type: 'string', array: true })
          .option('card', { type: 'string', requiresArg: true, describe: "Change the agent's card URL (or file) too: writes a2a.json and the lockfile together" })
          .option('format', { type: 'string', requiresArg: true, choices: ['text', 'json', 'markdown'], describe: 'Output format: markdown is a pull request body listing every agent and skill changed (--json is json)' })
          .example('$0 update research-agent', '')
          .example('$0 update research-agent --card https://research-v2.example.com', ''),
      run(async (o, argv) => {
        const [{ runUpdate }, { lockRenderer, lockMarkdownRenderer }] = await Promise.all([import('../commands/lock.js'), import('./render/lock.js')]);
        const agents = ((argv.agents as string[] | undefined) ?? []).map(String);
        const format = argv.format === undefined ? undefined : single('format', argv.format, 'one output format');
        if (format === 'json') o.json = true;
        return answer(await runUpdate(o, agents, argv.card !== undefined ? single('card', argv.card, 'an agent has one card') : undefined), format === 'markdown' ? lockMarkdownRenderer : lockRenderer);
      }),
    )
    .command(
      'remove <agents..>',
      'Remove agents from a2a.json and the lockfile (both written, or neither)',
      (y) => y.positional('agents', { type: 'string', array: true, demandOption: true, describe: 'Agents to remove' }).example('$0 remove research-agent', ''),
      run(async (o, argv) => {
        const [{ runRemove }, { removeRenderer }] = await Promise.all([import('../commands/remove.js'), import('./render/remove.js')]);
        return answer(await runRemove(o, [...new Set((argv.agents as string[]).map(String))]), removeRenderer);
      }),
    )
    .command('ls', 'List the agents, their skills and each locked plan in one line (offline)', (y) => y.example('$0 ls --json', ''), run(async (o) => {
      const [{ runLs }, { lsRenderer }] = await Promise.all([import('../commands/ls.js'), import('./render/ls.js')]);
      return answer(await runLs(o), lsRenderer);
    }))
    .command(
      'why <agent> [skill]',
      'Explain a locked plan: the negotiation trace from the locked snapshot, step by step (offline)',
      (y) =>
        y
          .positional('agent', { type: 'string', demandOption: true, describe: 'Locked agent' })
          .positional('skill', { type: 'string', describe: 'Skill (default: every locked skill)' })
          .example('$0 why research-agent market-size', ''),
      run(async (o, argv) => {
        const [{ runWhy }, { whyRenderer }] = await Promise.all([import('../commands/why.js'), import('./render/why.js')]);
        return answer(await runWhy(o, { agent: String(argv.agent), ...(argv.skill !== undefined ? { skill: String(argv.skill) } : {}) }), whyRenderer);
      }),
    )
    .command(
      'outdated [agents..]',
      'Show what a2a update would change (card version, card diff, plan fields), without writing; exit 1 when anything would',
      (y) =>
        y
          .positional('agents', { type: 'string', array: true, describe: 'Agents to check (default: all)' })
          .example('$0 outdated', '')
          .example('$0 outdated research-agent --json', ''),
      run(async (o, argv) => {
        const [{ runOutdated }, { outdatedRenderer }] = await Promise.all([import('../commands/outdated.js'), import('./render/outdated.js')]);
        return answer(await runOutdated(o, { agents: ((argv.agents as string[] | undefined) ?? []).map(String) }), outdatedRenderer);
      }),
    )
    .command(
      'diff [sides..]',
      'Review the lockfile change between two revisions or files (default: HEAD, or the pull request base in CI → the working tree): per agent, skill and card, with risks',
      (y) =>
        y
          .positional('sides', { type: 'string', array: true, describe: '[<base>] [<head>]: each a git revision or a lockfile (./file, an absolute path, or after --; a bare word that is both is refused)' })
          .option('format', { type: 'string', requiresArg: true, choices: ['text', 'json', 'markdown'], describe: 'Output format (--json is json)' })
          .option('fail-on', { type: 'string', requiresArg: true, choices: ['high', 'medium', 'low', 'any'], describe: 'Exit 1 when a change at or above this risk level exists' })
          .option('git-external', { type: 'boolean', default: false, describe: "Run as git's external diff (diff.a2a-lock.command): take git's 7 arguments" })
          .example('$0 diff', 'HEAD (or the pull request base) → the working tree')
          .example('$0 diff main --format markdown --fail-on high', '')
          .example('$0 diff ./old.lock.json ./a2a.lock.json', '')
          .example('$0 diff main -- a2a.lock.json', 'revision main → the file'),
      run(async (o, argv) => {
        const [{ runDiff }, { diffRenderer, diffMarkdownRenderer, diffDataMarkdown, diffStderrAnnotations }] = await Promise.all([import('../commands/diff.js'), import('./render/diff.js')]);
        const format = argv.format === undefined ? undefined : single('format', argv.format, 'one output format');
        if (format === 'json') o.json = true;
        const gitExternal = Boolean(argv['git-external']);
        // As git: with a `--` on the line, the sides before it are revisions and those after it files.
        const dash = args.indexOf('--');
        const named: Array<{ spec: string; is: SideSpelling }> = [
          ...((argv.sides as unknown[] | undefined) ?? []).map((s) => ({ spec: String(s), is: (dash < 0 ? 'either' : 'revision') as SideSpelling })),
          ...(dash < 0 ? [] : args.slice(dash + 1)).map((spec) => ({ spec, is: 'file' as SideSpelling })),
        ];
        const sides = named.map((n) => n.spec);
        if (!gitExternal && sides.length > 2) throw new UsageError(`a2a diff takes at most two sides ([<base>] [<head>]); got ${sides.length}`);
        const failOn = argv['fail-on'] === undefined ? undefined : (single('fail-on', argv['fail-on'], 'one threshold') as 'high' | 'medium' | 'low' | 'any');
        const [b, h] = named;
        const result = await runDiff(o, {
          ...(gitExternal ? { gitExternal: sides } : { ...(b ? { base: b.spec, baseIs: b.is } : {}), ...(h ? { head: h.spec, headIs: h.is } : {}) }),
          ...(failOn ? { failOn } : {}),
        });
        const shown = answer(result, format === 'markdown' ? diffMarkdownRenderer : diffRenderer);
        return {
          exitCode: shown.exitCode,
          print: (options, out) => {
            shown.print(options, out);
            // Markdown goes into a comment: its annotations on stderr (the runner reads both).
            if (format === 'markdown' && !options.json && out.env.GITHUB_ACTIONS === 'true') {
              const lines = diffStderrAnnotations(result.data, options);
              if (lines.length) out.stderr(`${lines.join('\n')}\n`);
            }
            // A GitHub job summary gets the markdown view, whatever was printed.
            const summary = out.env.GITHUB_STEP_SUMMARY;
            if (summary) {
              const data = untrusted(result.data);
              try {
                appendFileSync(summary, diffDataMarkdown(data));
              } catch (error) {
                out.stderr(`${kleur.yellow('warning')} step-summary-unwritten: GITHUB_STEP_SUMMARY ${escapeUntrusted(summary)}: ${escapeUntrusted((error as Error).message)}\n`);
              }
            }
          },
        };
      }),
    )
    .example('$0 verify --strict', 'the CI gate: exit 1 when an agent moved beyond the lockfile')
    .example('$0 why research-agent', 'why the lockfile holds the plans it holds')
    .demandCommand(1, 'name a command (see a2a --help)')
    .recommendCommands()
    .strict()
    .version(version())
    .alias('version', 'V')
    .help()
    .alias('help', 'h')
    // yargs renders the help text on every command run (it caches it for a handler that shows help,
    // which ours never do); wrapping it costs ~15 ms of a ~200 ms run, so it is wrapped only when shown.
    .wrap(wantsHelp ? Math.min(100, process.stdout.columns || 100) : null)
    // yargs would translate its messages by LANG; ours are English, the fail handler below reads
    // yargs' English ones, and CI scripts parse them.
    .locale('en')
    .fail((message, error, usage) => {
      // yargs re-wraps errors thrown by `coerce` (our UsageError) as a plain YError: still usage (exit 2).
      const missing = /^Not enough arguments following: (.*)$/.exec(error?.message ?? message);
      if (missing) throw new UsageError(`--${missing[1]} needs a value`);
      if (error) throw error.name === 'YError' ? new UsageError(error.message) : error;
      if (/^Did you mean/.test(message)) throw new UsageError(`unknown command "${String(args[0])}"; ${message.replace(/^D/, 'd')}`);
      const unknown = /^Unknown arguments?: (.*)$/.exec(message);
      if (unknown) {
        // The options of the command that failed (global ones included), as yargs' usage knows them.
        const known = Object.keys((usage as unknown as { getDescriptions?: () => Record<string, unknown> }).getDescriptions?.() ?? {});
        const commands = (usage as unknown as { getCommands?: () => Array<[string, ...unknown[]]> }).getCommands?.().map((c) => c[0].split(' ')[0]!) ?? [];
        throw new UsageError(unknownArgumentsMessage(unknown[1]!.split(', '), args, known, commands), { hint: 'see a2a <command> --help' });
      }
      // yargs' own messages span lines ("Invalid values:\n  Argument: …"): one line, as every error.
      throw new UsageError(message.split('\n').map((line) => line.trim()).filter(Boolean).join(' '));
    });

  // yargs renders the whole help text before running any command's handler, to have it at hand
  // should the handler ask for help (ours never do): ~25 ms of every run, a quarter of a short one.
  // yargs 18's usage instance is kept for the parser's life; without the hook the cost stays.
  const usage = (parser as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } }).getInternalMethods?.().getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function' && !wantsHelp) usage.cacheHelpMessage = () => { /* no help text to render ahead */ };

  try {
    await parser.parseAsync();
    if (!result) return ExitCode.Ok; // --help / --version
    result.print(options!, io);
    return result.exitCode;
  } catch (error) {
    return report(error, wantsJson, verbose, io);
  }
}

/**
 * Print a command's result: under `--json` its document on stdout (with `warnings` added when it
 * has none) and GitHub annotations on stderr; otherwise annotations on stdout, warnings on stderr,
 * then the renderer's lines on stdout, rendered from {@link untrusted} data and each made {@link terminalSafe}. Annotations only when
 * `GITHUB_ACTIONS=true` and the command has them (verify).
 */
function print<D>(result: CommandResult<D>, renderer: CommandRenderer<D>, options: GlobalOptions, io: CliIo): void {
  const annotations = options.env.GITHUB_ACTIONS === 'true' ? (renderer.annotations?.(result.data, options) ?? []) : [];
  if (options.json) {
    // Every JSON document carries the warnings (plan's contract puts them there; the others follow).
    const document = renderer.json(result.data);
    const json = document && typeof document === 'object' && !Array.isArray(document) && !('warnings' in document) ? { ...document, warnings: result.warnings } : document;
    io.stdout(`${JSON.stringify(json, null, 2)}\n`);
    if (annotations.length) io.stderr(`${annotations.join('\n')}\n`);
    return;
  }
  if (annotations.length) io.stdout(`${annotations.join('\n')}\n`);
  for (const w of result.warnings) io.stderr(`${terminalSafe(renderWarning(untrusted(w)))}\n`);
  // Escaped before any colour is added: the renderer interpolates only inert text.
  const lines = renderer.text(untrusted(result.data));
  if (lines.length) io.stdout(`${lines.map(terminalSafe).join('\n')}\n`);
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
  else io.stderr(`${kleur.red('internal error')}: ${escapeUntrusted(message)}\n  this is a bug in a2a-lock; please report it${verbose ? '' : ' (rerun with --verbose for the stack)'}\n`);
  if (verbose && error instanceof Error && error.stack) io.stderr(`${stackOf(error)}\n`);
  return code;
}
