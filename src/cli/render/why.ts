/** The output of `a2a why`: the negotiation of each locked skill, step by step. */
import kleur from 'kleur';
import type { WhyData } from '../../commands/why.js';
import { type CommandRenderer, documentOf, renderDrift, renderExplanation } from './common.js';

/**
 * `a2a why`: the document is the data (`{"ok", "agent", "card", "skills"}`); the lines name the
 * agent's locked card, then per skill its steps and whether the snapshot still negotiates the
 * locked plan, and `run: a2a lock` when one does not.
 */
export const whyRenderer: CommandRenderer<WhyData> = {
  json: documentOf,
  text: (data) => {
    const { agent, card } = data;
    const lines = [
      `${kleur.bold(agent)}: ${card.name} ${card.version} (${card.resolved}${card.extended !== undefined ? ', extended card' : ''}, ${card.integrity})`,
    ];
    for (const [origin, placement] of Object.entries(card.originAuth ?? {}))
      lines.push(`  originAuth ${origin}: ${placement} (every request to the origin)`);
    for (const [skill, explained] of Object.entries(data.skills)) {
      lines.push(
        `${kleur.bold(agent)} › ${kleur.bold(skill)}${skill === '*' ? ' (agent-level plan)' : ''}`,
        ...renderExplanation(explained.steps),
      );
      if (explained.rebasedFrom !== undefined)
        lines.push(`  ${explained.plan.url}: rebased from ${explained.rebasedFrom} (rebaseInterfaces)`);
      if (explained.refusal)
        lines.push(
          `  ${kleur.red('✗')} the locked snapshot no longer negotiates this skill: ${explained.refusal.code}`,
        );
      else if (explained.differences?.length)
        lines.push(
          `  ${kleur.red('✗')} the locked plan differs from what its snapshot negotiates:`,
          ...renderDrift(explained.differences),
        );
      else lines.push(`  ${kleur.green('✓')} the locked plan`);
    }
    if (!data.ok) lines.push('run: a2a lock');
    return lines;
  },
};
