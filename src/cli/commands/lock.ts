/** `a2a lock` (also `a2a` alone): make the lockfile satisfy the manifest; `a2a lock digest`: the lockfile's digest. */
import type { Argv } from 'yargs';
import type { LockFlags } from '../../commands/lock.js';
import { defineCommand, type ParsedArgv } from './command.js';

/** The options `lock`, `add` and `update` share: the wire probe, and `--strict`. */
export function lockOptions(y: Argv): Argv {
  return y
    .option('probe', {
      type: 'boolean',
      default: true,
      describe:
        'Probe each locked interface with one GetTask for a task that cannot exist and record what answered (--no-probe: none)',
    })
    .option('strict', {
      type: 'boolean',
      default: false,
      describe: 'Refuse, writing nothing, when a locked interface is not served (not only warn)',
    });
}

/** `--probe` / `--no-probe` and `--strict` as the command's flags. */
export function lockFlags(argv: ParsedArgv): LockFlags {
  return { probe: argv.probe !== false, strict: argv.strict === true };
}

/** `a2a lock digest`: print the digest of the lockfile (what a reviewer approves, a deploy pins). */
const lockDigest = defineCommand({
  command: 'digest',
  describe: "Print the digest of a2a.lock.json's content (sha256-…, the same whatever its whitespace or key order)",
  examples: [
    ['$0 lock digest', ''],
    ['$0 lock digest --json', '{"digest": "sha256-…", "lockfile": "/…/a2a.lock.json"}'],
  ],
  // yargs hands a subcommand its parent's options: lock's own are not digest's.
  options: (y) => y.hide('probe').hide('strict'),
  args: () => ({}),
  load: async () => {
    const [{ runLockDigest }, { lockDigestRenderer }] = await Promise.all([
      import('../../commands/lock-digest.js'),
      import('../render/lock-digest.js'),
    ]);
    return { run: (options) => runLockDigest(options), renderer: () => lockDigestRenderer };
  },
});

export const lock = defineCommand({
  command: 'lock',
  describe: 'Make a2a.lock.json satisfy a2a.json',
  examples: [
    ['$0 lock', ''],
    ['$0 lock digest', 'print the digest of the lockfile'],
    ['$0 lock --strict', 'refuse an interface its server does not serve'],
  ],
  subcommands: [lockDigest],
  options: lockOptions,
  args: (argv) => lockFlags(argv),
  load: async () => {
    const [{ runLock }, { lockRenderer }] = await Promise.all([
      import('../../commands/lock.js'),
      import('../render/lock.js'),
    ]);
    return { run: (options, flags) => runLock(options, flags), renderer: () => lockRenderer };
  },
});
