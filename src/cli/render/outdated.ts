/** The output of `a2a outdated`: what `a2a update` would change, agent by agent. */
import kleur from 'kleur';
import type { OutdatedAgent, OutdatedData } from '../../commands/outdated.js';
import { type CommandRenderer, documentOf, renderEntryChanges, renderSyncFailure } from './common.js';

function agentLines(agent: OutdatedAgent): string[] {
  const { name } = agent;
  switch (agent.status) {
    case 'error':
      return [`${kleur.red('✗')} ${name}: ${agent.error.code}: ${agent.error.message}`];
    case 'failed':
      return renderSyncFailure(name, agent.failure);
    case 'current':
      return [`${kleur.green('✓')} ${name}: up to date (version ${agent.version})`];
    case 'added':
      return [`${kleur.green('+')} ${name}: would be added (${agent.resolved}, version ${agent.version})`];
    case 'removed':
      return [`${kleur.red('-')} ${name}: would be removed (no longer in the manifest)`];
    case 'outdated':
      return [
        `${kleur.yellow('~')} ${name}: would be updated${agent.change ? ` (${agent.change} card change)` : ''}`,
        ...renderEntryChanges(agent.changes),
      ];
  }
}

/**
 * `a2a outdated`: the document is `{"ok", "outdated", "agents"}`; the lines are each agent's state
 * (and what would change), then what to run, or that the lockfile is current.
 */
export const outdatedRenderer: CommandRenderer<OutdatedData> = {
  json: documentOf,
  text: (data) => {
    const lines = data.human.agents.flatMap(agentLines);
    const { outdated } = data;
    if (outdated.length) {
      // Agents added to or removed from the manifest are a2a lock's job; a2a update re-reads locked ones.
      const updated = data.human.agents.filter((agent) => agent.status === 'outdated').map((agent) => agent.name);
      const fix = [
        ...(updated.length < outdated.length ? ['a2a lock'] : []),
        ...(updated.length ? [`a2a update ${updated.join(' ')}`] : []),
      ].join(', then ');
      lines.push(`${outdated.length} agent${outdated.length === 1 ? '' : 's'} would change: run ${fix}`);
    } else if (data.ok) lines.push(kleur.green(`${data.human.lockfile} is current: a2a update would change nothing`));
    return lines;
  },
};
