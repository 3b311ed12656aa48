// Section 2: `a2a verify --offline` of a 1000-agent lockfile vs JSON.parse + canonical stringify of it.
import { join } from 'node:path';
import { bin, fleet, interleaved, root, row } from './lib/fleet.js';

export async function run() {
  const { dir } = await fleet(1000);
  const t = await interleaved(
    {
      ours: [bin, 'verify', '--offline'],
      baseline: [join(root, 'bench', 'lib', 'canonical.js'), join(dir, 'a2a.lock.json')],
    },
    5,
    dir,
  );
  return [
    row(
      'verify --offline, 1000 agents (whole process)',
      t.ours / 1000,
      's',
      `node: read + JSON.parse + canonical stringify: ${(t.baseline / 1000).toFixed(2)} s`,
      t.ours / t.baseline,
      '≤ 5×',
    ),
  ];
}
