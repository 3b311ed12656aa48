/** "Did you mean" for unknown flags (yargs suggests commands, not options). */

/**
 * Levenshtein edit distance (insertions, deletions, substitutions).
 * @internal
 */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known name closest to `word` (at most 3 edits and fewer than its length), or undefined. */
export function closest(word: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(4, word.length);
  for (const name of known) {
    const d = editDistance(word, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * The usage message for yargs' "Unknown argument(s): a, b": each unknown flag with the closest
 * known option, e.g. `unknown option --strcit (did you mean --strict?)`. Names yargs adds in
 * camelCase for a kebab-case flag are dropped; arguments that are not flags are named as given.
 * @param args the command line, to tell flags (`--x`, `-x`) from stray positionals
 * @param known the option names of the command that failed
 * @param commands the command names, to suggest one for a mistyped first argument (`a2a VERIFY`)
 */
export function unknownArgumentsMessage(
  names: string[],
  args: readonly string[],
  known: readonly string[],
  commands: readonly string[] = [],
): string {
  const isFlag = (n: string) =>
    args.some((a) => a === `--${n}` || a.startsWith(`--${n}=`) || a === `-${n}` || a === `--no-${n}`);
  const flags = names.filter(isFlag);
  const strays = names.filter(
    (n) =>
      !isFlag(n) &&
      !flags.some((f) => f.includes('-') && f.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) === n),
  );
  const parts = [
    ...flags.map((f) => {
      // yargs names `--no-x` as `x`: say it as typed.
      const no =
        f.length > 1 && args.includes(`--no-${f}`) && !args.some((a) => a === `--${f}` || a.startsWith(`--${f}=`));
      const dashes = f.length === 1 ? '-' : no ? '--no-' : '--';
      const match = closest(
        f.toLowerCase(),
        known.filter((k) => k.length > 1),
      );
      return `${dashes}${f}${match ? ` (did you mean ${no ? '--no-' : '--'}${match}?)` : ''}`;
    }),
    ...strays.map((s) => `"${s}"`),
  ];
  // A mistyped command (`a2a VERIFY`) is the first argument: said as yargs says `a2a verfy`.
  const [stray] = strays;
  const command =
    stray !== undefined && strays.length === 1 && flags.length === 0 && stray === args[0]
      ? closest(stray.toLowerCase(), commands)
      : undefined;
  if (command) return `unknown command "${stray}"; did you mean ${command}?`;
  return `unknown ${flags.length ? 'option' : 'argument'}${parts.length > 1 ? 's' : ''} ${parts.join(', ')}`;
}
