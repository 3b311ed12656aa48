/** `a2a lock` (also `a2a` alone): make the lockfile satisfy the manifest; `a2a lock digest`: the lockfile's digest. */
import { defineCommand } from './command.js';

/** `a2a lock digest`: print the digest of the lockfile (what a reviewer approves, a deploy pins). */
const lockDigest = defineCommand({
  command: 'digest',
  describe: "Print the digest of a2a.lock.json's content (sha256-…, the same whatever its whitespace or key order)",
  examples: [
    ['$0 lock digest', ''],
    ['$0 lock digest --json', '{"digest": "sha256-…", "lockfile": "/…/a2a.lock.json"}'],
  ],
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
  ],
  subcommands: [lockDigest],
  args: () => ({}),
  load: async () => {
    const [{ runLock }, { lockRenderer }] = await Promise.all([
      import('../../commands/lock.js'),
      import('../render/lock.js'),
    ]);
    return { run: (options) => runLock(options), renderer: () => lockRenderer };
  },
});
