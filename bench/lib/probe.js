// Preloaded (`node --import`) into a process the benchmarks time: on exit it prints, on stderr,
// its peak RSS and the time from its first undici request to its exit (the network phase).
import { subscribe } from 'node:diagnostics_channel';
import { writeSync } from 'node:fs';

let first;
subscribe('undici:request:create', () => {
  first ??= performance.now();
});
process.on('exit', () => {
  const report = { maxRssBytes: process.resourceUsage().maxRSS * 1024, ...(first !== undefined ? { networkMs: performance.now() - first } : {}) };
  writeSync(2, `\n@@probe ${JSON.stringify(report)}\n`);
});
