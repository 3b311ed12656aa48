/**
 * zod's JIT, off while the runtime's check modules build their schemas: imported first by
 * `checks.ts`, which calls {@link restoreJit} once every module it imports is evaluated.
 *
 * zod 4 compiles a fast parser (`new Function`) for each object schema on its first parse, if JIT
 * was on when the schema was built. A lazy `lock.agent()` parses each schema about once, where
 * that compilation cost more than it saved: the first `lock.agent()` of a fresh process, the
 * manifest 9 → 6.5 ms and the entry checks 24 → 13 ms (BENCHMARKS.md). zod keeps the setting on
 * `globalThis`, shared with the application's own zod 4; it is changed only while the check
 * modules are evaluated (one synchronous step, in which no other code runs) and then restored.
 */
import { config } from 'zod/mini';

const global = config();
const had = Object.hasOwn(global, 'jitless');
const before = global.jitless;
global.jitless = true;

let restored = false;

/** Put zod's JIT setting back as it was before this module was evaluated (once; later calls do nothing). */
export function restoreJit(): void {
  if (restored) return;
  restored = true;
  if (had) global.jitless = before;
  else delete global.jitless;
}
