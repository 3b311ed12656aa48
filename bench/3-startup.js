// Section 3: start-up. `a2a --version`, `a2a-lock info` (the official a2a CLI asks it of every
// plugin, with a 3 s timeout, for `a2a --help`) and `a2a verify --offline` (1 agent) vs `node -e 0`.
import { bin, fleet, interleaved, row } from './lib/fleet.js';

export async function run() {
  const { dir } = await fleet(1);
  const t = await interleaved(
    { node: ['-e', '0'], version: [bin, '--version'], info: [bin, 'info'], offline: [bin, 'verify', '--offline'] },
    15,
    dir,
  );
  const node = `node -e 0: ${Math.round(t.node)} ms`;
  return [
    row('a2a --version', t.version, 'ms', node, t.version / t.node, '≤ 2×'),
    row('a2a-lock info', t.info, 'ms', node, t.info / t.node, '≤ 2×, well under 100 ms'),
    row('a2a verify --offline, 1 agent', t.offline, 'ms', node, t.offline / t.node, '≤ 3×'),
  ];
}
