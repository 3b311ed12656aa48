/** A bounded memo for pure functions of one string. Pure: no I/O; the memory is the only state. */

/**
 * `fn`, answering from memory for a string it was asked before: for the facts negotiation asks of
 * the same few strings on every call (an interface URL's host takes two URL parses). `fn` must be
 * pure. At most `limit` answers are kept (all forgotten when full), so a card with many URLs costs
 * bounded memory.
 */
export function remembered<T>(fn: (key: string) => T, limit = 256): (key: string) => T {
  const answers = new Map<string, T>();
  return (key) => {
    const known = answers.get(key);
    if (known !== undefined || answers.has(key)) return known as T;
    if (answers.size >= limit) answers.clear();
    const answer = fn(key);
    answers.set(key, answer);
    return answer;
  };
}
