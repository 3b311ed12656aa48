/** `a2a why <agent> [skill]`: the negotiation trace of a locked plan (offline). */
import { defineCommand } from './command.js';

export const why = defineCommand({
  command: 'why <agent> [skill]',
  describe: 'Explain a locked plan: the negotiation trace from the locked snapshot, step by step (offline)',
  options: (y) =>
    y
      .positional('agent', { type: 'string', demandOption: true, describe: 'Locked agent' })
      .positional('skill', { type: 'string', describe: 'Skill (default: every locked skill)' }),
  examples: [['$0 why research-agent market-size', '']],
  args: (argv) => ({ agent: String(argv.agent), ...(argv.skill !== undefined ? { skill: String(argv.skill) } : {}) }),
  load: async () => {
    const [{ runWhy }, { whyRenderer }] = await Promise.all([
      import('../../commands/why.js'),
      import('../render/why.js'),
    ]);
    return { run: runWhy, renderer: () => whyRenderer };
  },
});
