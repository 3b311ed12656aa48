/** How a command's result is printed: one place, for every command (`--json` or human lines). */
import type { CommandResult, GlobalOptions } from '../commands/context.js';
import type { CliIo } from './io.js';
import { type CommandRenderer, renderWarning, terminalSafe, untrusted } from './render/common.js';

/**
 * Print a command's result: under `--json` its document on stdout (with `warnings` added when it
 * has none) and GitHub annotations on stderr; otherwise annotations on stdout, warnings on stderr,
 * then the renderer's lines on stdout, rendered from {@link untrusted} data and each made {@link terminalSafe}. `annotations`:
 * the renderer's, under `GITHUB_ACTIONS=true`, each once per job (step-summary.ts `annotationsOnce`).
 */
export function print<D>(
  result: CommandResult<D>,
  renderer: CommandRenderer<D>,
  annotations: readonly string[],
  options: GlobalOptions,
  io: CliIo,
): void {
  if (options.json) {
    // Every JSON document carries the warnings (plan's contract puts them there; the others follow).
    const document = renderer.json(result.data);
    const json =
      document && typeof document === 'object' && !Array.isArray(document) && !('warnings' in document)
        ? { ...document, warnings: result.warnings }
        : document;
    io.stdout(`${JSON.stringify(json, null, 2)}\n`);
    if (annotations.length) io.stderr(`${annotations.join('\n')}\n`);
    return;
  }
  if (annotations.length) io.stdout(`${annotations.join('\n')}\n`);
  for (const w of result.warnings) io.stderr(`${terminalSafe(renderWarning(untrusted(w)))}\n`);
  // Escaped before any colour is added: the renderer interpolates only inert text.
  const lines = renderer.text(untrusted(result.data));
  if (lines.length) io.stdout(`${lines.map(terminalSafe).join('\n')}\n`);
}
