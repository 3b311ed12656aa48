// Section 4: negotiate() throughput on the design document's worked example card (in process).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROFILE, root, row, workedExample } from './lib/fleet.js';

const GOAL_PER_S = 200_000;

export async function run() {
  const { negotiate, normalizeCard } = await import(pathToFileURL(join(root, 'dist', 'index.js')).href);
  const { card } = normalizeCard(workedExample(), { source: 'worked-example.json' });
  const once = () => negotiate(card, 'market-size', PROFILE, ['bearer']);
  if (!once().plan) throw new Error('the worked example does not negotiate');
  for (let i = 0; i < 20_000; i++) once(); // warm up
  let plans = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < 1000) {
    for (let i = 0; i < 10_000; i++) plans += once().plan ? 1 : 0;
    elapsed = performance.now() - start;
  }
  const perS = (plans / elapsed) * 1000;
  return [
    row(
      'negotiate(), worked example card',
      perS,
      'plans/s',
      `goal ${GOAL_PER_S / 1000}k plans/s`,
      perS / GOAL_PER_S,
      '≥ 1×',
    ),
  ];
}
