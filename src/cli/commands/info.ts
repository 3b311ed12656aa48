/** `a2a info`: the plugin contract of the official `a2a` CLI (src/bin.ts answers `info` alone the same way, without the parser). */
import { ExitCode } from '../../errors.js';
import { defineCommand } from './command.js';

export const info = defineCommand({
  command: 'info',
  describe: 'Describe this plugin to the official a2a CLI: one JSON object {name, version, description}',
  examples: [['$0 info', '']],
  args: (_argv, { about }) => about,
  load: async () => ({
    run: async (options, about) => {
      // One compact JSON line whatever the flags (the host parses it): never the --json document.
      options.json = false;
      return { exitCode: ExitCode.Ok, data: about, warnings: [] };
    },
    renderer: () => ({ json: (data) => data, text: (data) => [JSON.stringify(data)] }),
  }),
});
