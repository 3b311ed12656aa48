// Section 6: `a2a diff` of two 1000-agent lockfiles, every card changed in one field (its
// description), vs reading and JSON.parse of both files, both whole processes in the same run.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bin, fleet, interleaved, root, row } from './lib/fleet.js';

export async function run() {
  const { dir } = await fleet(1000);
  const base = join(dir, 'a2a.lock.json');
  const head = join(dir, 'head.lock.json');
  const lock = JSON.parse(readFileSync(base, 'utf8'));
  for (const entry of Object.values(lock.agents))
    entry.snapshot.description = `${entry.snapshot.description} (revised)`;
  writeFileSync(head, `${JSON.stringify(lock, null, 2)}\n`);
  const t = await interleaved(
    {
      ours: [bin, 'diff', base, head],
      baseline: [join(root, 'bench', 'lib', 'parse-two.js'), base, head],
    },
    5,
    dir,
  );
  return [
    row(
      'diff of two 1000-agent lockfiles, every card changed (whole process)',
      t.ours / 1000,
      's',
      `node: read + JSON.parse both: ${(t.baseline / 1000).toFixed(2)} s`,
      t.ours / t.baseline,
      '≤ 4×',
    ),
  ];
}
