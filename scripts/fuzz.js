#!/usr/bin/env node
// Fuzz the card reader (dist/, run `npm run build` first; `npm run fuzz` does): generated and
// mutated cards from test/fixtures/cards/real/. Prints cases/s, the count of each outcome (ok or
// a typed error code) and the slowest case; exits 1 on a crash (an untyped error) or a case
// slower than --max-ms (a hang). Then fuzzes the enforcing fetch (scripts/fuzz-fetch.js): random
// bodies, methods, URLs and header forms through `LockedAgent.fetch` of locked plans; prints
// refused / checked / unchecked / crash counts and exits 1 on any unchecked or crash.
// Usage: node scripts/fuzz.js [--cases 100000] [--seed 1] [--max-ms 1000] [--fetch-cases 20000]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCardText } from '../dist/card/read.js';
import { integrityOf, isA2aLockError, negotiate } from '../dist/index.js';
import { fuzzCases, readFuzzCard } from './fuzz-cards.js';
import { fuzzFetch } from './fuzz-fetch.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const cases = arg('cases', 100_000);
const seed = arg('seed', 1);
const maxMs = arg('max-ms', 1000);
const fetchCases = arg('fetch-cases', 20_000);

const dir = fileURLToPath(new URL('../test/fixtures/cards/real/', import.meta.url));
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
const lib = { readCardText, negotiate, integrityOf, isA2aLockError };

const counts = new Map();
let slowest = { ms: 0, index: -1 };
let failed = 0;
const started = performance.now();
let index = 0;
for (const text of fuzzCases(fixtures, cases, seed)) {
  const t0 = performance.now();
  let outcome;
  try {
    outcome = readFuzzCard(lib, text);
  } catch (error) {
    failed++;
    outcome = `CRASH ${error?.name ?? typeof error}`;
    console.error(`case ${index} (seed ${seed}): ${error?.stack ?? String(error)}\n  input: ${text.slice(0, 300)}`);
  }
  const ms = performance.now() - t0;
  if (ms > slowest.ms) slowest = { ms, index };
  if (ms > maxMs) {
    failed++;
    console.error(`case ${index} (seed ${seed}) took ${ms.toFixed(0)} ms (limit ${maxMs} ms)`);
  }
  counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  index++;
}
const seconds = (performance.now() - started) / 1000;
console.log(
  `${index} cases in ${seconds.toFixed(1)} s (${Math.round(index / seconds)} cases/s), seed ${seed}; slowest case ${slowest.index}: ${slowest.ms.toFixed(1)} ms`,
);
for (const [outcome, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`  ${outcome.padEnd(20)} ${n}`);

if (fetchCases > 0) {
  const t0 = performance.now();
  const report = await fuzzFetch({ cases: fetchCases, seed });
  const s = (performance.now() - t0) / 1000;
  const c = report.counts;
  console.log(
    `enforcing fetch: ${report.cases} requests in ${s.toFixed(1)} s, seed ${seed}: ${c.refused} refused, ${c.checked} passed checked, ${c.unchecked} sent unchecked, ${c.crash} crashed`,
  );
  for (const [plan, n] of Object.entries(report.perPlan))
    console.log(
      `  ${plan.padEnd(44)} refused ${n.refused}, checked ${n.checked}, unchecked ${n.unchecked}, crash ${n.crash}`,
    );
  console.log('  most frequent refusals:');
  for (const [reason, n] of report.topRefusals) console.log(`    ${String(n).padStart(6)}  ${reason}`);
  for (const example of report.examples)
    console.error(
      `  ${example.outcome} case ${example.case} on ${example.plan}: ${example.detail}\n    ${JSON.stringify({ input: example.input, init: example.init })}`,
    );
  failed += c.unchecked + c.crash;
}
if (failed) console.error(`${failed} failing case(s)`);
process.exitCode = failed ? 1 : 0;
