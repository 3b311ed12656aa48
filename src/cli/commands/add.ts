/** `a2a add <name> <card>`: add an agent to the manifest and lock it. */
import { agentFlagOptions, agentFlags } from './agent-flags.js';
import { defineCommand, strings } from './command.js';
import { lockFlags, lockOptions } from './lock.js';

export const add = defineCommand({
  command: 'add <name> <card>',
  describe: 'Add an agent to a2a.json and lock it',
  options: (y) =>
    lockOptions(
      agentFlagOptions(
        y
          .positional('name', { type: 'string', demandOption: true })
          .positional('card', { type: 'string', demandOption: true })
          .option('skill', {
            type: 'string',
            requiresArg: true,
            array: true,
            default: [],
            describe: 'Skill id (repeatable; none: one agent-level plan "*")',
          }),
      ),
    ),
  examples: [
    ['$0 add research https://research.example.com --skill market-size --credential bearer=RESEARCH_TOKEN', ''],
    [
      '$0 add planner https://planner-abc-uc.a.run.app --rebase-interfaces --origin-auth https://planner-abc-uc.a.run.app=bearer:ID_TOKEN',
      '',
    ],
  ],
  args: (argv) => ({
    lock: lockFlags(argv),
    name: String(argv.name),
    card: String(argv.card),
    skills: strings(argv.skill),
    // --allow-http on add is the agent's allowHttp (written to a2a.json), not this run's alone.
    flags: agentFlags(argv, true),
  }),
  load: async () => {
    const [{ runAdd }, { lockRenderer }] = await Promise.all([
      import('../../commands/add.js'),
      import('../render/lock.js'),
    ]);
    return { run: runAdd, renderer: () => lockRenderer };
  },
});
