/**
 * The runtime's zod-based checks (`checks.ts`, a bundle of their own), loaded on the first
 * `lock.agent()`, or by an eager `loadLock`: the one place that holds them once loaded.
 */
import { createRequire } from 'node:module';

/** The zod-based checks (`checks.ts`): loaded on the first `lock.agent()`, or by an eager `loadLock`. */
export type Checks = typeof import('./checks.js');

let loadedChecks: Checks | undefined;
const requireHere = createRequire(import.meta.url);

/**
 * The check modules, loaded now if they are not yet: synchronously (`require` of an ES module,
 * Node ≥ 20.19), since `lock.agent()` is synchronous. {@link loadLock} imports them instead when
 * this cannot work (see {@link canLoadChecksLater}).
 */
export function checksNow(): Checks {
  loadedChecks ??= requireHere('./checks.js') as Checks;
  return loadedChecks;
}

/**
 * Whether {@link checksNow} can load the check modules on the first `lock.agent()`: `checks.js`
 * is a file beside this one (the package as built). Not so when this module runs from its
 * TypeScript source, or bundled into an application: then `loadLock` imports them.
 */
function canLoadChecksLater(): boolean {
  try {
    requireHere.resolve('./checks.js');
    return true;
  } catch {
    return false;
  }
}

/**
 * Load the checks as `loadLock` does: imported now where they cannot be required later (see
 * {@link canLoadChecksLater}); required now when `eager`.
 */
export async function loadChecksFor(eager: boolean | undefined): Promise<void> {
  // Where the checks can be required, they are only ever required (never also imported): a
  // require() of a module an import() is still loading would throw.
  if (!canLoadChecksLater()) loadedChecks ??= await import('./checks.js');
  else if (eager) checksNow();
}

/** The checks, already loaded (by an eager {@link loadChecksFor}). */
export function loadedChecksNow(): Checks {
  return loadedChecks!;
}
