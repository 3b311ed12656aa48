/** `a2a ls`: the agents, their skills and each locked plan, one line each (offline). */
import { defineCommand } from './command.js';

export const ls = defineCommand({
  command: 'ls',
  describe: 'List the agents, their skills and each locked plan in one line (offline)',
  examples: [['$0 ls --json', '']],
  args: () => ({}),
  load: async () => {
    const [{ runLs }, { lsRenderer }] = await Promise.all([import('../../commands/ls.js'), import('../render/ls.js')]);
    return { run: (options) => runLs(options), renderer: () => lsRenderer };
  },
});
