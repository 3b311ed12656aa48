/**
 * The command line as the official `a2a` CLI hands it over: it runs `a2a-lock` for `a2a lock …`
 * with the rest of the arguments, so `a2a lock` alone must lock and `a2a lock verify --json` must
 * verify. {@link normalizeArgs} turns both spellings into the one yargs parses.
 */

/** Global options that take a value (the value is not the command). */
const VALUE_OPTIONS = new Set(['--manifest', '--lockfile', '--timeout', '--concurrency', '--retries']);

/** Index of the first argument that is not an option or an option's value, or -1. */
function commandIndex(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return i + 1 < args.length ? i + 1 : -1;
    if (!arg.startsWith('-') || arg === '-') return i;
    if (VALUE_OPTIONS.has(arg)) i++;
  }
  return -1;
}

/**
 * The arguments with the command made explicit: none named (only options, or nothing) means
 * `lock`, except for `--help` and `--version`; `lock <command> …`, where `<command>` is one of
 * `commands` other than `lock`, means `<command> …` (`lock` itself takes no positional argument);
 * `<sub> …`, where `<sub>` is one of `lockSubcommands` (`digest`) and no command, means
 * `lock <sub> …` (the official CLI runs `a2a lock digest` as `a2a-lock digest`).
 */
export function normalizeArgs(
  args: readonly string[],
  commands: readonly string[],
  lockSubcommands: readonly string[] = [],
): string[] {
  const at = commandIndex(args);
  if (at < 0) {
    if (args.some((a) => ['--help', '-h', '--version', '-V'].includes(a))) return [...args];
    return ['lock', ...args];
  }
  if (lockSubcommands.includes(args[at]!) && !commands.includes(args[at]!))
    return [...args.slice(0, at), 'lock', ...args.slice(at)];
  if (args[at] !== 'lock') return [...args];
  const rest = args.slice(at + 1);
  const next = commandIndex(rest);
  if (next >= 0 && rest[next] !== 'lock' && commands.includes(rest[next]!)) return [...args.slice(0, at), ...rest];
  return [...args];
}
