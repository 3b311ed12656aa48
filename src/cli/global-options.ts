/** The options every command takes, as yargs defines them (`src/cli/main.ts` reads them into `GlobalOptions`). */
import type { Argv } from 'yargs';
import { UsageError, wholeNumberIn } from '../errors.js';

function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER, min = 1) {
  return (value: unknown) => {
    if (value === undefined) return undefined;
    if (Array.isArray(value)) throw new UsageError(`--${name} given more than once`);
    return wholeNumberIn(`--${name}`, typeof value === 'number' ? value : Number(value), min, max);
  };
}

/** The options every command takes (`global`: listed in each command's help too). */
export function withGlobalOptions(parser: Argv): Argv {
  return parser
    .option('manifest', {
      type: 'string',
      requiresArg: true,
      describe:
        'Manifest file (default: a2a.json here or in the nearest parent folder up to the git root; outside git, up to $HOME)',
      global: true,
    })
    .option('lockfile', {
      type: 'string',
      requiresArg: true,
      describe: 'Lockfile (default: a2a.lock.json beside the manifest)',
      global: true,
    })
    .option('json', { type: 'boolean', default: false, describe: 'Print one JSON document on stdout', global: true })
    .option('verbose', { type: 'boolean', default: false, describe: 'Print stack traces of errors', global: true })
    .option('timeout', {
      type: 'number',
      requiresArg: true,
      describe: 'Per-card timeout in ms (default 10000)',
      global: true,
      coerce: positiveInt('timeout', 2_147_483_647),
    })
    .option('concurrency', {
      type: 'number',
      requiresArg: true,
      describe: 'Agents checked at once, and connections per host (default 128)',
      global: true,
      coerce: positiveInt('concurrency'),
    })
    .option('retries', {
      type: 'number',
      requiresArg: true,
      describe: 'Retries of a card answered 429/500/502/503/504, with backoff (default 2)',
      global: true,
      coerce: positiveInt('retries', 10, 0),
    })
    .option('allow-http', {
      type: 'boolean',
      default: false,
      describe: 'Allow plain http to non-loopback hosts',
      global: true,
    });
}
