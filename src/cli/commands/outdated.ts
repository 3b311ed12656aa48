/** `a2a outdated [agents..]`: what `a2a update` would change, without writing. */
import { defineCommand, strings } from './command.js';

export const outdated = defineCommand({
  command: 'outdated [agents..]',
  describe:
    'Show what a2a update would change (card version, card diff, plan fields), without writing; exit 1 when anything would',
  options: (y) => y.positional('agents', { type: 'string', array: true, describe: 'Agents to check (default: all)' }),
  examples: [
    ['$0 outdated', ''],
    ['$0 outdated research-agent --json', ''],
  ],
  args: (argv) => ({ agents: strings(argv.agents) }),
  load: async () => {
    const [{ runOutdated }, { outdatedRenderer }] = await Promise.all([
      import('../../commands/outdated.js'),
      import('../render/outdated.js'),
    ]);
    return { run: runOutdated, renderer: () => outdatedRenderer };
  },
});
