/** The output of `a2a lock`, `a2a update` and `a2a add`: what happened to each agent and to the files. */
import kleur from 'kleur';
import type { LockData, LockedAgent } from '../../commands/lock.js';
import { documentOf, renderEntryChanges, renderSyncFailure, type CommandRenderer } from './common.js';

function mark(action: LockedAgent['action']): string {
  return action === 'added' ? kleur.green('+') : action === 'removed' ? kleur.red('-') : action === 'updated' || action === 'renamed' ? kleur.yellow('~') : ' ';
}

/**
 * `a2a lock`, `a2a update`, `a2a add`: the document is `{"ok", "written", "agents"}`; the lines are
 * each failure and `<lockfile> not written`, or each agent that changed (or was named to update) with
 * what changed and `wrote <lockfile>` / `<lockfile> is up to date`; then, for add, the manifest's fate.
 */
export const lockRenderer: CommandRenderer<LockData> = {
  json: documentOf,
  text: (data) => {
    const { human } = data;
    const lines: string[] = [];
    if (human.failures.length > 0) {
      for (const { name, failure } of human.failures) lines.push(...renderSyncFailure(name, failure));
      lines.push(`${human.lockfile} not written`);
    } else {
      for (const agent of human.agents) {
        if (agent.action !== 'unchanged' || agent.forced) {
          const what = agent.action === 'renamed' ? `renamed ${agent.from} → ${agent.name}` : `${agent.name} ${agent.action}`;
          lines.push(`${mark(agent.action)} ${what}${agent.entry ? ` (${agent.entry.resolved}, version ${agent.entry.version})` : ''}`);
        }
        if (agent.changes) lines.push(...renderEntryChanges(agent.changes));
      }
      lines.push(data.written ? `wrote ${human.lockfile}` : `${human.lockfile} is up to date`);
    }
    if (human.manifest) {
      const { path, outcome } = human.manifest;
      lines.push(outcome === 'written' ? `wrote ${path}` : outcome === 'up-to-date' ? `${path} is up to date` : `${path} not written`);
    }
    return lines;
  },
};
