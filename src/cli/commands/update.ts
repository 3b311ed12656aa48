/** `a2a update [agents..]`: re-resolve agents and write the lockfile; `--format markdown` is a pull request body. */
import { agentFlagOptions, agentFlags } from './agent-flags.js';
import { defineCommand, single, strings } from './command.js';
import { lockFlags, lockOptions } from './lock.js';

export const update = defineCommand({
  command: 'update [agents..]',
  describe: 'Re-resolve agents (all if none named) and write the lockfile; prints the card and plan diff',
  options: (y) =>
    lockOptions(agentFlagOptions(y))
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
    ['$0 update research-agent --credential apikey=RESEARCH_KEY', ''],
  ],
  args: (argv) => {
    const agents = strings(argv.agents);
    const format = argv.format === undefined ? undefined : single('format', argv.format, 'one output format');
    return {
      lock: lockFlags(argv),
      agents,
      format,
      card: argv.card !== undefined ? single('card', argv.card, 'an agent has one card') : undefined,
      // --allow-http with one agent named is that agent's allowHttp (written to a2a.json); else this run's.
      flags: agentFlags(argv, agents.length === 1),
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
        return runUpdate(options, args.agents, args.card, args.flags, args.lock);
      },
      renderer: (args) => (args.format === 'markdown' ? lockMarkdownRenderer : lockRenderer),
    };
  },
});
