/** `a2a verify [agents..]`: the CI gate; under GitHub Actions its report is also the job summary (once per job; `--no-summary`: none). */

import type { VerifyData } from '../../commands/verify.js';
import { UsageError } from '../../errors.js';
import { checkIgnored, defineCommand, formatArgs, ignoreCodes, single, strings } from './command.js';

/** `{ignore}` when any code was given, else nothing. */
function withIgnore(ignore: string[]): { ignore?: string[] } {
  return ignore.length ? { ignore } : {};
}

/** `--base <rev>`: one revision; `--base x --no-base` together is a contradiction, not a repeat. */
function baseOption(value: unknown): string {
  if (Array.isArray(value) && value.includes(false))
    throw new UsageError('--base and --no-base contradict each other: give one');
  return single('base', value, 'verify compares against one base');
}

export const verify = defineCommand({
  command: 'verify [agents..]',
  describe: 'CI gate: check the lockfile against the manifest and the cards served now',
  options: (y) =>
    y
      .positional('agents', { type: 'string', array: true, describe: 'Agents to verify (default: all)' })
      .option('offline', { type: 'boolean', default: false, describe: 'No network: check snapshots and plans only' })
      .option('strict', {
        type: 'boolean',
        default: false,
        describe: 'Also fail (exit 1) on card changes that leave plans equal',
      })
      .option('probe', {
        type: 'boolean',
        default: false,
        describe:
          'Also send each locked interface one GetTask for a task id that cannot exist; fail (exit 6) on one not served',
      })
      .option('base', {
        type: 'string',
        requiresArg: true,
        describe:
          'Send credentials only along routes the lockfile at the merge-base of HEAD and this revision had (default: the review base under CI; --no-base: none)',
      })
      .option('expect-digest', {
        type: 'string',
        requiresArg: true,
        describe:
          'Refuse (exit 1, digest-mismatch) a lockfile whose digest (a2a lock digest) is not this one, before anything else',
      })
      .option('ignore', {
        // Not `array`: that would take the positionals after it (`--ignore x main`) as codes too.
        type: 'string',
        requiresArg: true,
        describe:
          'A failure code (drift, unreachable, …) whose agents are still shown, marked ignored, and no longer count for the exit code (repeatable)',
      })
      .option('summary', {
        type: 'boolean',
        default: true,
        // A summary is written only where the runner gives a file for it; `[default: true]` said more.
        defaultDescription: 'when GITHUB_STEP_SUMMARY is set',
        describe: 'Write the GitHub job summary, once per job (--no-summary: none)',
      })
      .option('format', {
        type: 'string',
        requiresArg: true,
        choices: ['text', 'json', 'sarif'],
        describe: 'Output format (--json is json; sarif: SARIF 2.1.0 for code scanning)',
      }),
  examples: [
    ['$0 verify --strict', ''],
    ['$0 verify --base origin/main', ''],
    ['$0 verify --probe', 'also check that each locked interface is served'],
    ['$0 verify --offline --expect-digest $A2A_LOCK_DIGEST', ''],
    ['$0 verify --ignore unreachable', ''],
    ['$0 verify --format sarif > a2a-verify.sarif', 'SARIF for GitHub code scanning'],
  ],
  args: (argv, { about }) => ({
    ...withIgnore(ignoreCodes(argv.ignore)),
    summary: argv.summary !== false,
    agents: strings(argv.agents),
    offline: Boolean(argv.offline),
    strict: Boolean(argv.strict),
    ...(argv.probe ? { probe: true } : {}),
    ...(argv['expect-digest'] !== undefined
      ? {
          // Its spelling is checked in run(): lock/digest.js (and node:crypto) load only for verify.
          expectDigest: single('expect-digest', argv['expect-digest'], 'a lockfile has one digest'),
        }
      : {}),
    ...(argv.base === false
      ? { base: false as const }
      : argv.base !== undefined
        ? { base: baseOption(argv.base) }
        : {}),
    ...formatArgs(argv, about),
  }),
  load: async () => {
    const [
      { runVerify, VERIFY_FAILURE_CODES },
      { verifyRenderer, verifySummary },
      { appendStepSummary, annotationsOnce },
      { lockDigestOption },
    ] = await Promise.all([
      import('../../commands/verify.js'),
      import('../render/verify.js'),
      import('../step-summary.js'),
      import('../../lock/digest.js'),
    ]);
    // Loaded only for --format sarif.
    let sarif: typeof import('../render/sarif.js') | undefined;
    return {
      run: async (options, args) => {
        if (args.expectDigest !== undefined) lockDigestOption('--expect-digest', args.expectDigest);
        checkIgnored(args.ignore, VERIFY_FAILURE_CODES, 'failure code');
        if (args.format === 'json') options.json = true;
        if (args.tool) sarif = await import('../render/sarif.js');
        // The job summary's heading names the manifest from the repository root (a git call): only when one is written.
        // Under GitHub Actions each agent is located, so its annotation sits at its line.
        return runVerify(options, {
          ...args,
          named: args.summary && Boolean(options.env.GITHUB_STEP_SUMMARY),
          ...(options.env.GITHUB_ACTIONS === 'true' ? { locate: true as const } : {}),
        });
      },
      renderer: (args) =>
        args.tool && sarif
          ? sarif.sarifRenderer((data: VerifyData) => sarif!.verifySarif(data, args.tool!))
          : verifyRenderer,
      printed: (result, args, options, out) => {
        // SARIF goes into a file: the annotations on stderr (the runner reads both).
        if (args.tool && out.env.GITHUB_ACTIONS === 'true') {
          const lines = annotationsOnce(out.env, verifyRenderer.annotations!(result.data, options));
          if (lines.length) out.stderr(`${lines.join('\n')}\n`);
        }
        if (args.summary)
          appendStepSummary(out, () => verifySummary(result.data), `verify ${result.data.human.manifest}`);
      },
    };
  },
});
