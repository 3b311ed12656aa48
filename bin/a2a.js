#!/usr/bin/env node
// Entry point for both `a2a` and `a2a-lock`. `--version` is answered without loading the CLI.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(process.argv.slice(2));
  // Close pooled keep-alive connections (if any card was fetched) so the process exits at once.
  const { closeFetcher } = await import('../dist/card/load.js');
  await closeFetcher();
}
