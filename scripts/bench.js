#!/usr/bin/env node
// `npm run bench`: run every benchmark section (bench/*.js, in name order), print the machine and
// one table of ratios measured in this run, and write it to BENCHMARKS.md (the notes below the
// `<!-- notes -->` line there are kept).
//
// `node scripts/bench.js <word>…` runs only the sections whose file name contains one of the words
// (`node scripts/bench.js python`) and prints their table without writing BENCHMARKS.md, which
// holds whole runs only.
//
// A section is a module exporting `async function run()` that returns rows
// `{ name, value, unit, baseline, ratio, goal }`: `baseline` says what the value was compared
// with, `ratio` is the comparison, `goal` is "≤ X×" or "≥ X×" over the ratio, or "none: …" for a
// control row (one that shows a neighbour's noise and has no goal of its own).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const COMMAND = 'npm run bench';
const NOTES = '<!-- notes -->';

function met(row) {
  if (row.goal.startsWith('none')) return '';
  const m = /^([≤≥])\s*([\d.]+)/.exec(row.goal);
  if (!m || !Number.isFinite(row.ratio)) return '?';
  const limit = Number(m[2]);
  return (m[1] === '≤' ? row.ratio <= limit : row.ratio >= limit) ? '✓' : '✗';
}

function formatValue(row) {
  const digits = row.value >= 1000 ? 0 : row.value >= 10 ? 1 : 2;
  return `${row.value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${row.unit}`;
}

const cpu = cpus();
// The load average says how much else the machine was running: the ratios are taken within this
// run, but a busy machine still slows the CPU-bound parts more than the network-bound ones.
const machine = `${cpu.length} CPU${cpu.length === 1 ? '' : 's'} (${cpu[0]?.model.trim() ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}-${process.arch}, load average ${loadavg()[0].toFixed(1)} at start`;
console.log(`machine: ${machine}`);

const only = process.argv.slice(2);
const rows = [];
for (const file of readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.js') && (only.length === 0 || only.some((word) => f.includes(word))))
  .sort()) {
  const start = performance.now();
  const section = await import(pathToFileURL(join(root, 'bench', file)).href);
  const got = await section.run();
  rows.push(...got);
  console.error(
    `${file}: ${got.length} row${got.length === 1 ? '' : 's'} in ${((performance.now() - start) / 1000).toFixed(1)} s`,
  );
}

const header = ['benchmark', 'value', 'baseline', 'ratio', 'goal', ''];
const table = rows.map((r) => [r.name, formatValue(r), r.baseline, `${r.ratio.toFixed(2)}×`, r.goal, met(r)]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
const line = (cells) =>
  cells
    .map((c, i) => c.padEnd(widths[i]))
    .join('  ')
    .trimEnd();
console.log([line(header), ...table.map(line)].join('\n'));

if (only.length > 0) {
  console.error(`sections matching ${only.join(', ')} only: BENCHMARKS.md not written`);
  process.exit(0);
}

const markdown = [
  '# Benchmarks',
  '',
  `The last run of \`${COMMAND}\` (${new Date().toISOString().slice(0, 10)}), all ratios measured in that one run.`,
  '',
  `Machine: ${machine}.`,
  '',
  `| ${header.join(' | ')} |`,
  `|${header.map(() => '---').join('|')}|`,
  ...table.map((t) => `| ${t.join(' | ')} |`),
  '',
].join('\n');
const path = join(root, 'BENCHMARKS.md');
let notes = '';
try {
  const previous = readFileSync(path, 'utf8');
  if (previous.includes(NOTES)) notes = previous.slice(previous.indexOf(NOTES));
} catch {
  // first run
}
writeFileSync(path, `${markdown}\n${notes || `${NOTES}\n`}`);
console.error(`wrote ${path}`);
