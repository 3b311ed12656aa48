/** Colour on or off for human output (the CLI sets kleur from it once per run). */

/**
 * Whether human output is coloured, by the conventions other tools follow: `FORCE_COLOR=0`
 * (or `false`) turns colour off and `FORCE_COLOR=1`, `2`, `3` (or `true`) on, whether or not
 * stdout is a terminal (as in Node itself, it wins over `NO_COLOR`); `NO_COLOR` turns it off only
 * when set to something non-empty (no-color.org); `TERM=dumb` turns it off; otherwise colour is on
 * exactly when stdout is a terminal.
 */
export function colourEnabled(env: Readonly<Record<string, string | undefined>>, stdoutIsTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force === '0' || force === 'false') return false;
  if (force === '1' || force === '2' || force === '3' || force === 'true') return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stdoutIsTTY;
}
