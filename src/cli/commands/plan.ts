/** `a2a plan <card>`: negotiate one card without a lockfile. */
import { defineCommand, single, strings } from './command.js';

export const plan = defineCommand({
  command: 'plan <card>',
  describe: 'Negotiate one card (file or URL) without a lockfile',
  options: (y) =>
    y
      .positional('card', { type: 'string', describe: 'Card URL or file', demandOption: true })
      .option('skill', {
        type: 'string',
        requiresArg: true,
        demandOption: true,
        describe: 'Skill id ("*": the agent-level plan, from the card\'s defaults)',
      })
      .option('profile', { type: 'string', requiresArg: true, describe: 'JSON file holding a client profile' })
      .option('credential', {
        type: 'string',
        requiresArg: true,
        array: true,
        default: [],
        describe: 'A scheme name the client holds (repeatable)',
      }),
  examples: [['$0 plan https://agent.example.com --skill market-size --credential bearer', '']],
  args: (argv) => ({
    card: String(argv.card),
    skill: single('skill', argv.skill, 'plan negotiates one skill'),
    ...(argv.profile ? { profile: String(argv.profile) } : {}),
    // `scheme=ENV` (the form `add` takes) names the scheme too; the variable is not read here.
    credentials: strings(argv.credential).map((c) => c.split('=')[0]!),
  }),
  load: async () => {
    const [{ runPlan }, { planRenderer }] = await Promise.all([
      import('../../commands/plan.js'),
      import('../render/plan.js'),
    ]);
    return { run: runPlan, renderer: () => planRenderer };
  },
});
