#!/usr/bin/env node
/**
 * The executable of both `a2a` and `a2a-lock`: runs {@link main} on the process and exits with its
 * code. `--version` alone is answered without loading the CLI (start-up is most of a short run).
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version}\n`);
} else {
  // Both loaded before the run: a file opened only at exit could fail with EMFILE after a run
  // that used every descriptor (one socket per agent in flight).
  const [{ main }, { closeFetcher }] = await Promise.all([import('./cli/main.js'), import('./resolve/load-card.js')]);
  process.exitCode = await main(args);
  // Close pooled keep-alive connections (if any card was fetched) so the process exits at once.
  await closeFetcher();
}
