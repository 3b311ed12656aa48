/**
 * Whether dist/ is built from today's src/: the e2e tests and the generated-files check read the build
 * (`npm test` builds first: `npm run build && vitest run`).
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

/**
 * Throw, naming `who` and what to run, when dist/ is missing, its bundle older than the tsc output it is
 * made from, or the build older than src/. The bundle marks when the build ran: `npm run build` writes it
 * every time, while tsc (incremental) rewrites only the outputs whose source changed.
 */
export function checkBuilt(who: string): void {
  if (!existsSync(MAIN)) {
    throw new Error(`${who}: the CLI is not built (${MAIN} is missing). Build it first:\n  ${BUILD}`);
  }
  if (!existsSync(BUNDLE) || statSync(BUNDLE).mtimeMs + 1000 < statSync(MAIN).mtimeMs) {
    throw new Error(
      `${who}: the bundled executable ${BUNDLE} is missing or older than dist/cli/main.js. Rebuild:\n  ${BUILD}`,
    );
  }
  const built = statSync(BUNDLE).mtimeMs;
  const newest = newestSource(join(ROOT, 'src'));
  if (newest && newest.mtimeMs > built + 1000) {
    throw new Error(`${who}: dist is older than ${newest.path}; its tests would run stale code. Rebuild:\n  ${BUILD}`);
  }
}
