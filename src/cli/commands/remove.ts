/** `a2a remove <agents..>`: remove agents from the manifest and the lockfile together. */
import { defineCommand, strings } from './command.js';

export const remove = defineCommand({
  command: 'remove <agents..>',
  describe: 'Remove agents from a2a.json and the lockfile (both written, or neither)',
  options: (y) =>
    y.positional('agents', { type: 'string', array: true, demandOption: true, describe: 'Agents to remove' }),
  examples: [['$0 remove research-agent', '']],
  args: (argv) => [...new Set(strings(argv.agents))],
  load: async () => {
    const [{ runRemove }, { removeRenderer }] = await Promise.all([
      import('../../commands/remove.js'),
      import('../render/remove.js'),
    ]);
    return { run: runRemove, renderer: () => removeRenderer };
  },
});
