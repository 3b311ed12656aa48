/** Types of scripts/fuzz-fetch.js (the enforcing-fetch fuzz generator; imports dist/). */
export interface FetchFuzzCounts {
  /** A PlanViolationError before anything was sent. */
  refused: number;
  /** Sent, and the oracle finds it on plan. */
  checked: number;
  /** Sent, and the oracle finds it off plan. */
  unchecked: number;
  /** Any other error. */
  crash: number;
}
export interface FetchFuzzReport {
  cases: number;
  seed: number;
  counts: FetchFuzzCounts;
  /** The same counts per locked plan, by label (`name (binding version delivery)`). */
  perPlan: Record<string, FetchFuzzCounts>;
  /** The first few unchecked or crashing cases. */
  examples: Array<{ case: number; plan: string; outcome: string; detail: string; input: string; init: unknown }>;
  /** The most frequent refusal messages (numbers and quoted text elided) with their counts. */
  topRefusals: Array<[reason: string, count: number]>;
}
export function fuzzFetch(options?: { cases?: number; seed?: number }): Promise<FetchFuzzReport>;
