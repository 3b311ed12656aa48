/**
 * The output that redacts what a run's output must never show: the credential values the
 * project's a2a.json names (`outputSecrets` in commands/context.ts; promise 2: a credential is in
 * no output, in any spelling).
 */
import { redactSecrets } from '../redact.js';
import type { CliIo } from './io.js';

/** `io` with every text it writes (and each job summary, through `redact`) {@link redactSecrets}-ed of `secrets`. */
export function redactingIo(io: CliIo, secrets: readonly string[]): CliIo {
  if (secrets.length === 0) return io;
  const redact = (text: string) => redactSecrets(text, secrets);
  return {
    ...io,
    stdout: (text) => io.stdout(redact(text)),
    stderr: (text) => io.stderr(redact(text)),
    redact,
  };
}
