#!/usr/bin/env node
/**
 * The executable of both `a2a` and `a2a-lock`: runs {@link main} on the process and exits with its
 * code. `--version` alone, and `info` alone (the official `a2a` CLI's plugin contract: one JSON
 * object `{name, version, description}` on stdout, exit 0), are answered without loading the CLI
 * (start-up is most of a short run). The version comes from `./version.ts` (written into the bundle).
 */
import { packageVersion, pluginInfo } from './version.js';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${packageVersion()}\n`);
} else if (args.length === 1 && args[0] === 'info') {
  process.stdout.write(`${JSON.stringify(pluginInfo())}\n`);
} else {
  // A reader that stops early (`a2a diff … | head`, `git log -p` into a pager that quits) closes the
  // pipe: the rest of the output has nowhere to go, which is not an error of the run.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  // Both loaded before the run: a file opened only at exit could fail with EMFILE after a run
  // that used every descriptor (one socket per agent in flight).
  const [{ main }, { closeFetcher }] = await Promise.all([import('./cli/main.js'), import('./resolve/load-card.js')]);
  process.exitCode = await main(args, undefined, pluginInfo());
  // Close pooled keep-alive connections (if any card was fetched) so the process exits at once.
  await closeFetcher();
}
