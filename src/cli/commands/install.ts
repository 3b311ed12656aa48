/** `a2a install`: check every locked agent against the lockfile, never writing (like npm ci). */
import { defineCommand } from './command.js';

export const install = defineCommand({
  command: 'install',
  describe: 'Check every locked agent against the lockfile (like npm ci); never writes',
  examples: [['$0 install', '']],
  args: () => ({}),
  load: async () => {
    const [{ runInstall }, { installRenderer }] = await Promise.all([
      import('../../commands/verify.js'),
      import('../render/verify.js'),
    ]);
    return { run: (options) => runInstall(options), renderer: () => installRenderer };
  },
});
