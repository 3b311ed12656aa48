/**
 * Finding `a2a.json` the way npm, pnpm and git find their project files: upward from the working
 * directory, but never into a folder someone else controls. Inside a git work tree the search
 * stops at its root; outside one, at the working directory itself, or at `$HOME` when the working
 * directory is under it (a shared parent such as `/tmp` is never searched). A manifest found this
 * way that another user owns is refused, as git refuses a repository another user owns
 * (`safe.directory`).
 */
import { existsSync, lstatSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { A2aLockError } from '../errors.js';

/** What {@link findManifest} found: the manifest's path, or where it looked. */
export type ManifestLookup = { found: true; path: string } | { found: false; path: string; lookedUpTo: string };

/** The nearest directory from `dir` upward that holds `.git` (a work tree's root), or undefined. */
function gitTop(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return undefined;
  }
}

/** Whether `dir` is `top` or inside it. */
function within(dir: string, top: string): boolean {
  const rel = relative(top, dir);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel));
}

/**
 * Look for `name` (default `a2a.json`) in `cwd`, then in each parent directory up to the highest
 * one the search may reach: the git work tree's root (the nearest directory holding `.git`); outside
 * git, `cwd` itself, or `home` when `cwd` is under it. Not found: `path` is `cwd/name` (where
 * `a2a init` would write it) and `lookedUpTo` the last directory searched. `cwd` and `home` must be
 * absolute.
 * @throws A2aLockError `manifest-unsafe`: the manifest found is owned by another user than this process's
 */
export function findManifest(cwd: string, name = 'a2a.json', home?: string): ManifestLookup {
  const top = gitTop(cwd) ?? (home && within(cwd, home) ? home : cwd);
  for (let dir = cwd; ; dir = dirname(dir)) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) {
      assertOwnManifest(candidate);
      return { found: true, path: candidate };
    }
    if (dir === top || dirname(dir) === dir) return { found: false, path: join(cwd, name), lookedUpTo: dir };
  }
}

/**
 * Refuse a manifest another user owns (its owner's uid is not this process's; POSIX only), or a
 * symlink another user owns to one: it may name that user's agents and the variables holding this
 * user's secrets.
 * @throws A2aLockError `manifest-unsafe`
 */
function assertOwnManifest(path: string): void {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid === undefined) return;
  let owner: number;
  try {
    // The link's owner too: another user's symlink to a file of this user's would make its folder
    // (the lockfile, card and JWKS files beside it) theirs.
    const link = lstatSync(path).uid;
    owner = link !== uid ? link : statSync(path).uid;
  } catch {
    return; // gone or unreadable: reading it says so
  }
  if (owner !== uid) {
    throw new A2aLockError(
      'manifest-unsafe',
      `${path} is owned by another user (uid ${owner}, this process runs as uid ${uid}), so it is not used`,
      {
        hint: 'run a2a in your own project folder; to use this file anyway, name it: --manifest <file>',
        data: { source: path, owner },
      },
    );
  }
}
