/**
 * The per-agent manifest settings `a2a add` and `a2a update` take ({@link AgentFlags}): their yargs
 * options and their values as given. The values are read into the manifest's shape in one place,
 * `manifest/flags.ts`, when the command runs.
 */
import type { Argv } from 'yargs';
import type { AgentFlags } from '../../manifest/flags.js';
import { type ParsedArgv, single, strings } from './command.js';

/** The setting options (`--allow-http` is a global option: here it is also the agent's `allowHttp`). */
export function agentFlagOptions(y: Argv): Argv {
  return y
    .option('credential', {
      type: 'string',
      requiresArg: true,
      array: true,
      default: [],
      describe: '<scheme>=<ENV_VAR>, or <scheme>=oauth:<ID_ENV>:<SECRET_ENV> (an oauth2 client) (repeatable)',
    })
    .option('range', { type: 'string', requiresArg: true, describe: 'Semver range over the card version' })
    .option('card-path', {
      type: 'string',
      describe: 'Where the card is, relative to <card> ("": <card> is the card itself, e.g. https://host/v1/card)',
    })
    .option('rebase-interfaces', {
      type: 'boolean',
      describe: "Lock a bind-address interface (0.0.0.0) at the card's origin (--no-rebase-interfaces: remove it)",
    })
    .option('origin-auth', {
      type: 'string',
      requiresArg: true,
      array: true,
      default: [],
      describe: '<origin>=bearer:<ENV> | header:<NAME>:<ENV>[:<PREFIX>] | aws:<REGION>:<SERVICE> (repeatable)',
    });
}

/** The settings given on the command line (`allowHttp`: whether `--allow-http` is the agent's setting too). */
export function agentFlags(argv: ParsedArgv, allowHttp: boolean): AgentFlags {
  return {
    credential: strings(argv.credential),
    originAuth: strings(argv['origin-auth']),
    ...(argv.range !== undefined ? { range: single('range', argv.range, 'an agent has one version range') } : {}),
    ...(argv['card-path'] !== undefined
      ? { cardPath: single('card-path', argv['card-path'], 'an agent has one card path') }
      : {}),
    ...(argv['rebase-interfaces'] !== undefined ? { rebaseInterfaces: Boolean(argv['rebase-interfaces']) } : {}),
    ...(allowHttp && argv['allow-http'] ? { allowHttp: true } : {}),
  };
}
