/** `a2a update [agents..]`: re-resolve agents and write the lockfile; `--format markdown` is a pull request body. */
import { defineCommand, single, strings } from './command.js';
import { lockFlags, lockOptions } from './lock.js';

export const update = defineCommand({
  command: 'update [agents..]',
  describe: 'Re-resolve agents (all if none named) and write the lockfile; prints the card and plan diff',
  options: (y) =>
    lockOptions(y)
      .positional('agents', { type: 'string', array: true })
      .option('card', {
        type: 'string',
        requiresArg: true,
        describe: "Change the agent's card URL (or file) too: writes a2a.json and the lockfile together",
      })
      .option('format', {
        type: 'string',
        requiresArg: true,
        choices: ['text', 'json', 'markdown'],
        describe:
          'Output format: markdown is a pull request body listing every agent and skill changed (--json is json)',
      }),
  examples: [
    ['$0 update research-agent', ''],
    ['$0 update research-agent --card https://research-v2.example.com', ''],
  ],
  args: (argv) => {
    const agents = strings(argv.agents);
    const format = argv.format === undefined ? undefined : single('format', argv.format, 'one output format');
    return {
      ...lockFlags(argv),
      agents,
      format,
      card: argv.card !== undefined ? single('card', argv.card, 'an agent has one card') : undefined,
    };
  },
  load: async () => {
    const [{ runUpdate }, { lockRenderer, lockMarkdownRenderer }] = await Promise.all([
      import('../../commands/lock.js'),
      import('../render/lock.js'),
    ]);
    return {
      run: (options, args) => {
        if (args.format === 'json') options.json = true;
        return runUpdate(options, args.agents, args.card, args);
      },
      renderer: (args) => (args.format === 'markdown' ? lockMarkdownRenderer : lockRenderer),
    };
  },
});
