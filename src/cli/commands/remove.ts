/** `a2a remove <agents..>`: remove agents (or skills of one, `--skill`) from the manifest and the lockfile together. */
import { defineCommand, strings } from './command.js';

export const remove = defineCommand({
  command: 'remove <agents..>',
  describe:
    'Remove agents (or, with --skill, skills of one agent) from a2a.json and the lockfile (both written, or neither)',
  options: (y) =>
    y
      .positional('agents', { type: 'string', array: true, demandOption: true, describe: 'Agents to remove' })
      .option('skill', {
        type: 'string',
        requiresArg: true,
        array: true,
        describe: 'Remove just this skill of the agent, and its locked plan (repeatable)',
      }),
  examples: [
    ['$0 remove research-agent', ''],
    ['$0 remove research-agent --skill market-size', ''],
  ],
  args: (argv) => ({
    agents: [...new Set(strings(argv.agents))],
    ...(argv.skill !== undefined ? { skills: strings(argv.skill) } : {}),
  }),
  load: async () => {
    const [{ runRemove }, { removeRenderer }] = await Promise.all([
      import('../../commands/remove.js'),
      import('../render/remove.js'),
    ]);
    return { run: runRemove, renderer: () => removeRenderer };
  },
});
