/** The output of `a2a why`: the negotiation of each locked skill, step by step. */
import kleur from 'kleur';
import type { WhyData } from '../../commands/why.js';
import { type CommandRenderer, documentOf, renderDrift, renderExplanation } from './common.js';

/** What each probe outcome kind means, as `why` says it. */
const PROBE_MEANING: Record<string, string> = {
  served: 'served',
  'auth-required': 'auth-required (alive behind authentication, not proven served)',
  'not-served': 'not-served (its answer was not A2A of this binding and version)',
};

/**
 * `a2a why`: the document is the data (`{"ok", "agent", "card", "skills", "interfaces"}`); the lines
 * name the agent's locked card, then per skill its steps and whether the snapshot still negotiates
 * the locked plan, then each locked interface with what the wire probe found there at lock time
 * (`not probed` when the lockfile records nothing), and `run: a2a lock` when a plan does not hold.
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
    if (data.interfaces.length) {
      lines.push(`${kleur.bold(agent)} › interfaces (wire probe when locked)`);
      for (const i of data.interfaces) {
        const mark =
          i.probe === 'served' ? kleur.green('✓') : i.probe === undefined ? kleur.dim('?') : kleur.yellow('!');
        const what =
          i.probe === undefined
            ? kleur.dim('not probed (a2a update, or verify --probe, probes it)')
            : PROBE_MEANING[i.probe];
        lines.push(
          `  ${mark} ${i.protocolBinding} ${i.protocolVersion} ${i.url}${i.tenant ? ` tenant=${i.tenant}` : ''}: ${what}`,
        );
      }
    }
    if (!data.ok) lines.push('run: a2a lock');
    return lines;
  },
};
