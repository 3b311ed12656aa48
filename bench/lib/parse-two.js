// Baseline for `a2a diff`: read two lockfiles and JSON.parse both.
//   node bench/lib/parse-two.js <base.lock.json> <head.lock.json>
import { readFileSync } from 'node:fs';

const sides = process.argv.slice(2, 4).map((file) => JSON.parse(readFileSync(file, 'utf8')));
if (sides.some((s) => !s || typeof s.agents !== 'object')) throw new Error('not two lockfiles');
