// Preloaded (`node --import`) into a process the benchmarks time: on exit it prints, on stderr,
// its peak RSS, its CPU time, and the time from its first undici request to its exit (the network phase).
import { subscribe } from 'node:diagnostics_channel';
import { writeSync } from 'node:fs';

let first;
subscribe('undici:request:create', () => {
  first ??= performance.now();
});
process.on('exit', () => {
  const usage = process.resourceUsage();
  const report = {
    maxRssBytes: usage.maxRSS * 1024,
    cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    ...(first !== undefined ? { networkMs: performance.now() - first } : {}),
  };
  writeSync(2, `\n@@probe ${JSON.stringify(report)}\n`);
});
