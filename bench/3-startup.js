// Section 3: start-up. `a2a --version` and `a2a verify --offline` (1 agent) vs `node -e 0`.
import { bin, fleet, interleaved, row } from './lib/fleet.js';

export async function run() {
  const { dir } = await fleet(1);
  const t = await interleaved({ node: ['-e', '0'], version: [bin, '--version'], offline: [bin, 'verify', '--offline'] }, 15, dir);
  const node = `node -e 0: ${Math.round(t.node)} ms`;
  return [
    row('a2a --version', t.version, 'ms', node, t.version / t.node, '≤ 2×'),
    row('a2a verify --offline, 1 agent', t.offline, 'ms', node, t.offline / t.node, '≤ 3×'),
  ];
}
