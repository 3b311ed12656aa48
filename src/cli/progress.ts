/**
 * Progress for long runs: `fetching agents 3/10` on stderr, rewritten in place. Shown only on a
 * TTY, never under CI (`CI` set) or `--json`, and only once the run has taken a second.
 */

/** The stream progress writes to (process.stderr). */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** A progress callback for the resolve shell (agents done, agents to fetch), and `stop()` to clear the line when the command ends. */
export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

/** Milliseconds before progress first appears. */
const PROGRESS_DELAY_MS = 1000;

/**
 * A progress reporter, or undefined when progress must stay silent (not a TTY, CI, `--json`).
 */
export function createProgress(options: {
  json: boolean;
  env: NodeJS.ProcessEnv;
  stream: ProgressStream;
}): Progress | undefined {
  const { stream } = options;
  if (
    options.json ||
    !stream.isTTY ||
    (options.env.CI !== undefined && options.env.CI !== '' && options.env.CI !== 'false')
  )
    return undefined;
  let state: { done: number; total: number } | undefined;
  let due = false;
  let shown = false;
  const draw = () => {
    if (!due || !state) return;
    stream.write(`\r\x1b[2Kfetching agents ${state.done}/${state.total}`);
    shown = true;
  };
  const timer = setTimeout(() => {
    due = true;
    draw();
  }, PROGRESS_DELAY_MS);
  timer.unref();
  return {
    update(done, total) {
      state = { done, total };
      draw();
    },
    stop() {
      clearTimeout(timer);
      if (shown) stream.write('\r\x1b[2K');
      due = shown = false;
    },
  };
}
