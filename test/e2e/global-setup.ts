/**
 * vitest globalSetup of the e2e project. The e2e tests run the BUILT CLI: dist/cli/main.js
 * in-process, and the bundled executable dist/a2a.js when they spawn it; `npm test` builds both
 * first (`npm run build && vitest run`). Here we only check that dist exists, is not older than
 * src, and that the bundle is not older than the tsc output it is made from, and fail the run
 * with a clear message otherwise (testing a stale build would test old code).
 */
import { checkBuilt } from '../helpers/dist.js';

export default function setup(): void {
  checkBuilt('e2e');
}
