/**
 * vitest globalSetup of the e2e project. The e2e tests run the BUILT CLI: dist/cli/main.js
 * in-process, and the bundled executable dist/a2a.js when they spawn it; `npm test` builds both
 * first (`npm run build && vitest run`). Here we only check that dist exists, is not older than
 * src, and that the bundle is not older than the tsc output it is made from, and fail the run
 * with a clear message otherwise (testing a stale build would test old code).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'dist', 'cli', 'main.js');
const BUNDLE = join(ROOT, 'dist', 'a2a.js');
const BUILD = 'npm run build   (tsc, then the bundle; npm test builds first)';

function newestSource(dir: string): { path: string; mtimeMs: number } | undefined {
  let newest: { path: string; mtimeMs: number } | undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const found = entry.isDirectory()
      ? newestSource(path)
      : entry.name.endsWith('.ts')
        ? { path, mtimeMs: statSync(path).mtimeMs }
        : undefined;
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

export default function setup(): void {
  if (!existsSync(MAIN)) {
    throw new Error(`e2e: the CLI is not built (${MAIN} is missing). Build it first:\n  ${BUILD}`);
  }
  const built = statSync(MAIN).mtimeMs;
  const newest = newestSource(join(ROOT, 'src'));
  if (newest && newest.mtimeMs > built + 1000) {
    throw new Error(`e2e: dist is older than ${newest.path}; the e2e tests would run stale code. Rebuild:\n  ${BUILD}`);
  }
  if (!existsSync(BUNDLE) || statSync(BUNDLE).mtimeMs + 1000 < built) {
    throw new Error(
      `e2e: the bundled executable ${BUNDLE} is missing or older than dist/cli/main.js. Rebuild:\n  ${BUILD}`,
    );
  }
}
