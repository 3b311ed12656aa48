/** The output of `a2a export`: the BOM itself, or one line saying where it was written. */
import type { ExportData } from '../../commands/export.js';
import { type CommandRenderer, documentOf } from './common.js';

/**
 * `a2a export`: without `--output` the lines are the BOM's (JSON, printed as written); with it,
 * one line naming the file, the format and the number of agents. The `--json` document (with
 * `--output`) is the data without the BOM's lines.
 */
export const exportRenderer: CommandRenderer<ExportData> = {
  json: documentOf,
  text: (data) =>
    data.output === undefined
      ? data.human.lines
      : [
          `wrote ${data.human.output ?? data.output}: CycloneDX 1.6 BOM of ${data.services} agent${data.services === 1 ? '' : 's'} (${data.serialNumber})`,
        ],
};
