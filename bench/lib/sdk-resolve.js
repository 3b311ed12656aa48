// Baseline: what users write today. Resolve agents 0..n-1 of the bench server with
// @a2a-js/sdk's DefaultAgentCardResolver, one after another (`sequential`) or all at once
// (`all`, an unbounded Promise.all: the network's limit).
//   node bench/lib/sdk-resolve.js <sequential|all> <origin> <n>
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';

const [mode, origin, count] = process.argv.slice(2);
const resolver = new DefaultAgentCardResolver();
const resolve = (i) => resolver.resolve(`${origin}/agents/${i}/`, '.well-known/agent-card.json');
const n = Number(count);
let cards = 0;
if (mode === 'sequential') {
  for (let i = 0; i < n; i++) if (await resolve(i)) cards++;
} else if (mode === 'all') {
  cards = (await Promise.all(Array.from({ length: n }, (_, i) => resolve(i)))).filter(Boolean).length;
} else throw new Error(`unknown mode ${mode}`);
if (cards !== n) throw new Error(`resolved ${cards} of ${n} cards`);
