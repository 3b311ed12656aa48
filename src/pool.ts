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
