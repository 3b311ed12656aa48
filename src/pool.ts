/** Bounded concurrency for network work. */

/**
 * Map `items` through `fn` with at most `limit` calls in flight; results keep the input order.
 * Every item is settled (one failure does not cancel the others), so callers see all outcomes.
 * `onSettled(done, total)` is called once before the first item starts and after each item settles (progress).
 *
 * A call may end its turn early with `release()`: the next item starts at once while the call
 * finishes work that needs no share of the limit (CPU work after its requests are done).
 */
export async function mapSettled<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number, release: () => void) => Promise<R>,
  onSettled?: (done: number, total: number) => void,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  const running: Promise<void>[] = [];
  let next = 0;
  let done = 0;
  if (items.length > 0) onSettled?.(0, items.length);
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      let release!: () => void;
      const turn = new Promise<void>((resolve) => (release = resolve));
      const call = (async () => {
        try {
          results[index] = { status: 'fulfilled', value: await fn(items[index]!, index, release) };
        } catch (reason) {
          results[index] = { status: 'rejected', reason };
        }
        onSettled?.(++done, items.length);
        release();
      })();
      running.push(call);
      await turn;
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  await Promise.all(running);
  return results;
}

/**
 * `items` in round-robin order over their keys: the first item of each key (keys in order of first
 * appearance), then the second of each, and so on; items of one key keep their order. A bounded
 * pool fed this order spreads its calls over the keys (hosts) at once instead of working through
 * one key's items before the next: its connections to each host stay near `limit / keys` rather
 * than `limit` per host, all kept alive together.
 */
export function interleaveBy<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  const out: T[] = [];
  const lists = [...groups.values()];
  for (let i = 0; out.length < items.length; i++) for (const list of lists) if (i < list.length) out.push(list[i]!);
  return out;
}
