/** `a2a init`: write a starter manifest. */
import { defineCommand } from './command.js';

export const init = defineCommand({
  command: 'init',
  describe: 'Write a starter a2a.json',
  examples: [['$0 init', '']],
  args: () => ({}),
  load: async () => {
    const [{ runInit }, { initRenderer }] = await Promise.all([
      import('../../commands/init.js'),
      import('../render/init.js'),
    ]);
    return { run: (options) => runInit(options), renderer: () => initRenderer };
  },
});
