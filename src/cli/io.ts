/** Where the CLI reads and writes: the process, or a test's own. */
import type { ProgressStream } from './progress.js';

/**
 * Where the CLI reads its working directory and environment and writes its output. The process by
 * default ({@link processIo}); tests run commands in-process with their own. yargs itself still
 * prints `--help` and `--version` to the process.
 */
export interface CliIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Where progress is drawn (it checks `isTTY`); none: no progress. */
  progress?: ProgressStream;
  /** Whether stdout is a terminal (colour, see `colourEnabled` in ./colour.ts); absent: not. */
  stdoutIsTTY?: boolean;
  /** What is done to text written elsewhere (a job summary) before it is written: the redaction of `stdout` and `stderr`. Absent: nothing. */
  redact?(text: string): string;
}

/** The process's directory, environment, stdout and stderr. */
export function processIo(): CliIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    progress: process.stderr,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
  };
}
