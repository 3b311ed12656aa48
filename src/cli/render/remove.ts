/** The output of `a2a remove`. */
import kleur from 'kleur';
import type { RemoveData } from '../../commands/remove.js';
import { type CommandRenderer, documentOf } from './common.js';

/** `a2a remove`: the document is `{"ok", "removed", "skills"?, "written"}`; the lines name each agent (or skill) removed and each file written. */
export const removeRenderer: CommandRenderer<RemoveData> = {
  json: documentOf,
  text: (data) => [
    ...(data.skills
      ? data.skills.map((skill) => `${kleur.red('-')} ${data.removed[0]} › ${skill} removed`)
      : data.removed.map((name) => `${kleur.red('-')} ${name} removed`)),
    `wrote ${data.human.manifest}`,
    ...(data.written.lockfile ? [`wrote ${data.human.lockfile}`] : []),
  ],
};
