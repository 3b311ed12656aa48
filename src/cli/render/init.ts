/** The output of `a2a init`. */
import type { InitData } from '../../commands/init.js';
import { type CommandRenderer, documentOf } from './common.js';

/** `a2a init`: the document is the data (`{"ok", "manifest", "written"}`); the lines name the manifest written and the next step. */
export const initRenderer: CommandRenderer<InitData> = {
  json: documentOf,
  text: (data) => [`wrote ${data.manifest}`, 'next: a2a add <name> <card-url> --skill <id>'],
};
