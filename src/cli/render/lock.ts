/** The output of `a2a lock`, `a2a update` and `a2a add`: what happened to each agent and to the files. */
import { basename } from 'node:path';
import kleur from 'kleur';
import type { LockData, LockedAgent } from '../../commands/lock.js';
import { noCounts } from '../../lock/lockfile-diff.js';
import { type CommandRenderer, documentOf, renderEntryChanges, renderSyncFailure } from './common.js';
import { agentBody, countsLine, diffMarkdown } from './diff.js';

function mark(action: LockedAgent['action']): string {
  return action === 'added'
    ? kleur.green('+')
    : action === 'removed'
      ? kleur.red('-')
      : action === 'updated' || action === 'renamed'
        ? kleur.yellow('~')
        : ' ';
}

/**
 * `a2a lock`, `a2a update`, `a2a add`: the document is `{"ok", "written", "agents"}`; the lines are
 * each failure and `<lockfile> not written`, or each agent that changed (or was named to update) with
 * what changed (the change view of `a2a diff`: plan fields, card, signatures, risks), the count
 * line and `wrote <lockfile>` / `<lockfile> is up to date`; then, for add, the manifest's fate.
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
          const what =
            agent.action === 'renamed' ? `renamed ${agent.from} → ${agent.name}` : `${agent.name} ${agent.action}`;
          lines.push(
            `${mark(agent.action)} ${what}${agent.entry ? ` (${agent.entry.resolved}, version ${agent.entry.version})` : ''}`,
          );
        }
        // The change view of what was written (plans, card, signatures, settings, risks), as a2a diff shows it.
        const reviewed = human.review?.agents.find((a) => a.name === agent.name && a.verdict !== 'unchanged');
        if (reviewed && agent.action !== 'added' && agent.action !== 'removed') lines.push(...agentBody(reviewed));
        else if (agent.changes) lines.push(...renderEntryChanges(agent.changes));
        else if (reviewed) lines.push(...agentBody(reviewed).filter((l) => !/^\s*[+-] plan /.test(l)));
      }
      if (human.review) lines.push(countsLine(human.review.counts));
      lines.push(data.written ? `wrote ${human.lockfile}` : `${human.lockfile} is up to date`);
    }
    if (human.manifest) {
      const { path, outcome } = human.manifest;
      lines.push(
        outcome === 'written'
          ? `wrote ${path}`
          : outcome === 'up-to-date'
            ? `${path} is up to date`
            : `${path} not written`,
      );
    }
    return lines;
  },
};

/**
 * `a2a update --format markdown`: a pull request body, the markdown view of `a2a diff` for what was
 * written (every agent and skill changed, with its risks); the failures as text when nothing was.
 */
export const lockMarkdownRenderer: CommandRenderer<LockData> = {
  json: documentOf,
  text: (data) => {
    if (!data.ok) return lockRenderer.text(data);
    const review = data.human.review ?? { agents: [], counts: noCounts() };
    // The marker names the manifest by its file name (a2a diff names it from the repository root).
    return diffMarkdown(
      review.agents,
      review.counts,
      `a2a update: ${basename(data.human.lockfile)}${data.written ? '' : ' is up to date'}`,
      {
        manifest: basename(data.human.manifest?.path ?? 'a2a.json'),
        ...(data.human.digest !== undefined ? { digest: data.human.digest } : {}),
      },
    )
      .replace(/\n$/, '')
      .split('\n');
  },
};
