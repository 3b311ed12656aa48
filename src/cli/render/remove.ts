/** The output of `a2a remove`. */
import kleur from 'kleur';
import type { RemoveData } from '../../commands/remove.js';
import { type CommandRenderer, documentOf } from './common.js';

/** `a2a remove`: the document is `{"ok", "removed", "written"}`; the lines name each agent removed and each file written. */
export const removeRenderer: CommandRenderer<RemoveData> = {
  json: documentOf,
  text: (data) => [
    ...data.removed.map((name) => `${kleur.red('-')} ${name} removed`),
    `wrote ${data.human.manifest}`,
    ...(data.written.lockfile ? [`wrote ${data.human.lockfile}`] : []),
  ],
};
