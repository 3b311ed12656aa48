/** Finding `a2a.json` the way npm, pnpm and git find their project files: upward from the working directory. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What {@link findManifest} found: the manifest's path, or where it looked. */
export type ManifestLookup = { found: true; path: string } | { found: false; path: string; lookedUpTo: string };

/**
 * Look for `name` (default `a2a.json`) in `cwd`, then in each parent directory, stopping after the
 * first directory that holds `.git` (the repository root) or at the filesystem root. Not found:
 * `path` is `cwd/name` (where `a2a init` would write it) and `lookedUpTo` the last directory searched.
 * `cwd` must be absolute.
 */
export function findManifest(cwd: string, name = 'a2a.json'): ManifestLookup {
  let dir = cwd;
  for (;;) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return { found: true, path: candidate };
    const parent = dirname(dir);
    if (existsSync(join(dir, '.git')) || parent === dir) return { found: false, path: join(cwd, name), lookedUpTo: dir };
    dir = parent;
  }
}
