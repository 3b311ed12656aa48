/** `a2a add <name> <card>`: add an agent to the manifest and lock it. */
import { defineCommand, single, strings } from './command.js';
import { lockFlags, lockOptions } from './lock.js';

export const add = defineCommand({
  command: 'add <name> <card>',
  describe: 'Add an agent to a2a.json and lock it',
  options: (y) =>
    lockOptions(y)
      .positional('name', { type: 'string', demandOption: true })
      .positional('card', { type: 'string', demandOption: true })
      .option('skill', {
        type: 'string',
        requiresArg: true,
        array: true,
        default: [],
        describe: 'Skill id (repeatable; none: one agent-level plan "*")',
      })
      .option('credential', {
        type: 'string',
        requiresArg: true,
        array: true,
        default: [],
        describe: '<scheme>=<ENV_VAR> (repeatable)',
      })
      .option('range', { type: 'string', requiresArg: true, describe: 'Semver range over the card version' })
      .option('card-path', {
        type: 'string',
        describe: 'Where the card is, relative to <card> ("": <card> is the card itself, e.g. https://host/v1/card)',
      }),
  examples: [
    ['$0 add research https://research.example.com --skill market-size --credential bearer=RESEARCH_TOKEN', ''],
  ],
  args: (argv) => ({
    ...lockFlags(argv),
    name: String(argv.name),
    card: String(argv.card),
    skills: strings(argv.skill),
    credentials: strings(argv.credential),
    ...(argv.range ? { version: String(argv.range) } : {}),
    ...(argv['card-path'] !== undefined
      ? { cardPath: single('card-path', argv['card-path'], 'an agent has one card path') }
      : {}),
  }),
  load: async () => {
    const [{ runAdd }, { lockRenderer }] = await Promise.all([
      import('../../commands/lock.js'),
      import('../render/lock.js'),
    ]);
    return { run: runAdd, renderer: () => lockRenderer };
  },
});
