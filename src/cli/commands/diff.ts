/**
 * `a2a diff [sides..]`: review the lockfile change between two revisions or files. Under GitHub
 * Actions the markdown view is also the job summary, and with `--format markdown` (a comment) the
 * annotations go to stderr; both once per job (`--no-summary`: no summary).
 */
import type { DiffData, SideSpelling } from '../../commands/diff.js';
import { UsageError } from '../../errors.js';
import { untrusted } from '../render/common.js';
import { checkIgnored, defineCommand, formatArgs, ignoreCodes, single, strings } from './command.js';

export const diff = defineCommand({
  command: 'diff [sides..]',
  describe:
    'Review the lockfile change between two revisions or files (default: HEAD, or the pull request base in CI → the working tree): per agent, skill and card, with risks',
  options: (y) =>
    y
      .positional('sides', {
        type: 'string',
        array: true,
        describe:
          '[<base>] [<head>]: each a git revision or a lockfile (./file, an absolute path, or after --; under CI a bare word is a revision; elsewhere one that is both is refused)',
      })
      .option('format', {
        type: 'string',
        requiresArg: true,
        choices: ['text', 'json', 'markdown', 'sarif'],
        describe: 'Output format (--json is json; sarif: SARIF 2.1.0 for code scanning)',
      })
      .option('fail-on', {
        type: 'string',
        requiresArg: true,
        choices: ['high', 'medium', 'low', 'any'],
        describe: 'Exit 1 when a change at or above this risk level exists',
      })
      .option('ignore', {
        // Not `array`: that would take the positionals after it (`--ignore x main`) as codes too.
        type: 'string',
        requiresArg: true,
        describe: 'A risk code still shown, marked ignored, that no longer counts for --fail-on (repeatable)',
      })
      .option('summary', {
        type: 'boolean',
        default: true,
        // A summary is written only where the runner gives a file for it; `[default: true]` said more.
        defaultDescription: 'when GITHUB_STEP_SUMMARY is set',
        describe: 'Write the GitHub job summary, once per job (--no-summary: none)',
      })
      .option('git-external', {
        type: 'boolean',
        default: false,
        describe: "Run as git's external diff (diff.a2a-lock.command): take git's 7 arguments",
      }),
  examples: [
    ['$0 diff', 'HEAD (or the pull request base) → the working tree'],
    ['$0 diff main --format markdown --fail-on high', ''],
    ['$0 diff --fail-on medium --ignore scopes-widened', ''],
    ['$0 diff ./old.lock.json ./a2a.lock.json', ''],
    ['$0 diff main -- a2a.lock.json', 'revision main → the file'],
    ['$0 diff main --format sarif > a2a-diff.sarif', 'SARIF for GitHub code scanning'],
  ],
  args: (argv, { line, about }) => {
    const { format, tool, locate } = formatArgs(argv, about);
    const gitExternal = Boolean(argv['git-external']);
    // As git: with a `--` on the line, the sides before it are revisions and those after it files.
    const dash = line.indexOf('--');
    const named: Array<{ spec: string; is: SideSpelling }> = [
      ...strings(argv.sides).map((spec) => ({ spec, is: (dash < 0 ? 'either' : 'revision') as SideSpelling })),
      ...(dash < 0 ? [] : line.slice(dash + 1)).map((spec) => ({ spec, is: 'file' as SideSpelling })),
    ];
    const sides = named.map((n) => n.spec);
    if (!gitExternal && sides.length > 2)
      throw new UsageError(`a2a diff takes at most two sides ([<base>] [<head>]); got ${sides.length}`);
    const failOn =
      argv['fail-on'] === undefined
        ? undefined
        : (single('fail-on', argv['fail-on'], 'one threshold') as 'high' | 'medium' | 'low' | 'any');
    const [b, h] = named;
    const ignore = ignoreCodes(argv.ignore);
    return {
      format,
      summary: argv.summary !== false,
      ...(tool ? { tool } : {}),
      diff: {
        ...(ignore.length ? { ignore } : {}),
        ...(locate ? { locate } : {}),
        ...(gitExternal
          ? { gitExternal: sides }
          : { ...(b ? { base: b.spec, baseIs: b.is } : {}), ...(h ? { head: h.spec, headIs: h.is } : {}) }),
        ...(failOn ? { failOn } : {}),
      },
    };
  },
  load: async () => {
    const [
      { runDiff, IGNORABLE_RISK_CODES },
      { diffRenderer, diffMarkdownRenderer, diffSummary, diffStderrAnnotations },
      { appendStepSummary, annotationsOnce },
    ] = await Promise.all([
      import('../../commands/diff.js'),
      import('../render/diff.js'),
      import('../step-summary.js'),
    ]);
    // Loaded only for --format sarif.
    let sarif: typeof import('../render/sarif.js') | undefined;
    return {
      run: async (options, args) => {
        checkIgnored(args.diff.ignore, IGNORABLE_RISK_CODES, 'risk code');
        if (args.format === 'json') options.json = true;
        // The markdown view (printed, or the job summary) carries the head lockfile's digest in its marker.
        const headDigest = args.format === 'markdown' || (args.summary && Boolean(options.env.GITHUB_STEP_SUMMARY));
        if (args.tool) sarif = await import('../render/sarif.js');
        return runDiff(options, { ...args.diff, ...(headDigest ? { headDigest } : {}) });
      },
      renderer: (args) =>
        args.tool && sarif
          ? sarif.sarifRenderer((data: DiffData) => sarif!.diffSarif(data, args.tool!))
          : args.format === 'markdown'
            ? diffMarkdownRenderer
            : diffRenderer,
      printed: (result, args, options, out) => {
        // Markdown goes into a comment, SARIF into a file: their annotations on stderr (the runner reads both).
        if ((args.format === 'markdown' || args.tool) && !options.json && out.env.GITHUB_ACTIONS === 'true') {
          const lines = annotationsOnce(out.env, diffStderrAnnotations(result.data, options));
          if (lines.length) out.stderr(`${lines.join('\n')}\n`);
        }
        // A GitHub job summary gets the markdown view, whatever was printed (once per job).
        if (args.summary)
          appendStepSummary(out, () => diffSummary(untrusted(result.data)), `diff ${result.data.human.manifest}`);
      },
    };
  },
});
