/** `a2a lock` (also `a2a` alone): make the lockfile satisfy the manifest. */
import { defineCommand } from './command.js';

export const lock = defineCommand({
  command: 'lock',
  describe: 'Make a2a.lock.json satisfy a2a.json',
  examples: [['$0 lock', '']],
  args: () => ({}),
  load: async () => {
    const [{ runLock }, { lockRenderer }] = await Promise.all([
      import('../../commands/lock.js'),
      import('../render/lock.js'),
    ]);
    return { run: (options) => runLock(options), renderer: () => lockRenderer };
  },
});
