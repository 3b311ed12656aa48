/** `a2a export --format cyclonedx`: the bill of agents, a CycloneDX 1.6 BOM of the lockfile (offline). */
import { UsageError } from '../../errors.js';
import { defineCommand, single, strings } from './command.js';

export const exportCommand = defineCommand({
  command: 'export',
  describe:
    'Export the lockfile as a bill of agents: a CycloneDX 1.6 JSON BOM, each locked agent a service (offline, deterministic)',
  options: (y) =>
    y
      .option('format', {
        type: 'string',
        requiresArg: true,
        choices: ['cyclonedx'],
        default: 'cyclonedx',
        describe: 'Output format',
      })
      .option('output', {
        type: 'string',
        requiresArg: true,
        describe: 'Write the BOM to this file (default: stdout)',
      })
      .option('first-party', {
        type: 'string',
        array: true,
        requiresArg: true,
        describe:
          'An origin (https://host[:port]) the client counts as its own: an agent whose endpoints are all first-party or loopback does not cross the trust boundary (repeatable)',
      })
      .option('timestamp', {
        type: 'boolean',
        default: false,
        describe: 'Write metadata.timestamp (the output then differs run to run)',
      }),
  examples: [
    ['$0 export --output a2a.cdx.json', ''],
    ['$0 export --first-party https://agents.example.com', ''],
  ],
  args: (argv, { about }) => {
    const firstParty = strings(argv['first-party']).map((value) => {
      const origin = URL.canParse(value) ? new URL(value).origin : 'null';
      if (origin === 'null' || !/^https?:/.test(origin))
        throw new UsageError(`--first-party ${value}: not an http(s) origin (https://host[:port])`);
      // First-party is a whole origin: a path (or a query, a user) would silently widen to it, so it is refused.
      const url = new URL(value);
      if (url.pathname !== '/' || url.search || url.hash || url.username || url.password)
        throw new UsageError(`--first-party ${value}: an origin has no path, query or user (${origin})`);
      return origin;
    });
    return {
      format: single('format', argv.format, 'one output format') as 'cyclonedx',
      ...(argv.output !== undefined ? { output: single('output', argv.output, 'one output file') } : {}),
      firstParty: [...new Set(firstParty)].sort(),
      timestamp: Boolean(argv.timestamp),
      toolVersion: about.version,
    };
  },
  load: async () => {
    const [{ runExport }, { exportRenderer }] = await Promise.all([
      import('../../commands/export.js'),
      import('../render/export.js'),
    ]);
    return { run: runExport, renderer: () => exportRenderer };
  },
});
