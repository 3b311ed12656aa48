/** `a2a card <card>`: fetch, validate and print a normalised agent card. */
import { defineCommand, single } from './command.js';

export const card = defineCommand({
  command: 'card <card>',
  describe: 'Fetch, validate and print a normalised agent card with its warnings (exit 0 valid, 1 invalid)',
  options: (y) =>
    y
      .positional('card', { type: 'string', describe: 'Card URL or file', demandOption: true })
      .option('a2a-version', {
        type: 'string',
        requiresArg: true,
        describe:
          "The A2A-Version the card is asked for with (default: the manifest profile's first version, else 1.0)",
      })
      .option('card-path', {
        type: 'string',
        describe: 'Where the card is, relative to the URL ("": the URL is the card itself, e.g. https://host/v1/card)',
      }),
  examples: [
    ['$0 card ./agent-card.json', ''],
    ['$0 card https://agent.example.com --a2a-version 0.3', ''],
  ],
  args: (argv) => {
    const version = argv['a2a-version'];
    const cardPath = argv['card-path'];
    return {
      card: String(argv.card),
      ...(version !== undefined
        ? { a2aVersion: single('a2a-version', version, 'a card is asked for with one version') }
        : {}),
      ...(cardPath !== undefined ? { cardPath: single('card-path', cardPath, 'a card has one path') } : {}),
    };
  },
  load: async () => {
    const [{ runCard }, { cardRenderer }] = await Promise.all([
      import('../../commands/card.js'),
      import('../render/card.js'),
    ]);
    return { run: runCard, renderer: () => cardRenderer };
  },
});
