/** What every command receives and returns. Commands never print or exit: the CLI does. */
import { dirname, resolve } from 'node:path';
import { cardSourceOf, loadCard, type LoadedCard } from '../card/load.js';
import type { NormalizedCard, Warning } from '../card/model.js';
import { normalizeCard } from '../card/normalize.js';
import { UsageError, type ExitCode } from '../errors.js';
import type { EngineOptions } from '../lock/engine.js';

/** Global options (yargs) resolved against the working directory. */
export interface GlobalOptions {
  /** Path of `a2a.json`. */
  manifest: string;
  /** Path of `a2a.lock.json`; defaults to beside the manifest. */
  lockfile?: string;
  json: boolean;
  verbose: boolean;
  /** Per-card timeout (ms). */
  timeout?: number;
  concurrency?: number;
  allowHttp?: boolean;
  /** Retries of a request answered 429/500/502/503/504. */
  retries?: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Progress of card fetches (agents done, agents to fetch); the CLI shows it on a TTY. */
  progress?: (done: number, total: number) => void;
}

/** A command's answer: what to print (human lines or JSON) and the exit code. */
export interface CommandResult {
  exitCode: ExitCode;
  /** Printed under `--json` (one JSON document on stdout). */
  json: unknown;
  /** Printed otherwise, one per line on stdout. */
  lines: string[];
  /** Printed to stderr in human mode; included in `json` by the command where its contract says so. */
  warnings: Array<Warning & { agent?: string }>;
  /** GitHub Actions workflow commands (`::error …`): on stdout, or on stderr under `--json`. */
  annotations?: string[];
}

/**
 * Absolute paths of the manifest and the lockfile.
 * @throws UsageError when both name one file (a lockfile write would replace the manifest)
 */
export function paths(options: GlobalOptions): { manifest: string; lockfile: string; baseDir: string } {
  const manifest = resolve(options.cwd, options.manifest);
  const lockfile = options.lockfile ? resolve(options.cwd, options.lockfile) : resolve(dirname(manifest), 'a2a.lock.json');
  if (lockfile === manifest) throw new UsageError(`--lockfile and --manifest name the same file (${options.lockfile ?? options.manifest})`);
  return { manifest, lockfile, baseDir: dirname(manifest) };
}

/** Engine options from the global flags. */
export function engineOptions(options: GlobalOptions, baseDir: string): EngineOptions {
  return {
    baseDir,
    env: options.env,
    ...(options.timeout !== undefined ? { timeoutMs: options.timeout } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.allowHttp ? { allowHttp: true } : {}),
    ...(options.progress ? { onProgress: options.progress } : {}),
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
  };
}

/**
 * Load and normalise one card named on the command line (`plan`, `card`): a URL, or a file relative
 * to the working directory, fetched with the global flags. Warnings of both steps, in order.
 * @throws InvalidInputError / FetchError
 */
export async function readCommandCard(
  options: GlobalOptions,
  location: string,
  a2aVersion: string,
): Promise<{ loaded: LoadedCard; card: NormalizedCard; warnings: Warning[] }> {
  const engine = engineOptions(options, options.cwd);
  const loaded = await loadCard(location, {
    baseDir: options.cwd,
    a2aVersion,
    ...(engine.timeoutMs !== undefined ? { timeoutMs: engine.timeoutMs } : {}),
    ...(engine.allowHttp ? { allowHttp: true } : {}),
    ...(engine.retries !== undefined ? { retries: engine.retries } : {}),
  });
  const normalized = normalizeCard(loaded.raw, cardSourceOf(loaded));
  return { loaded, card: normalized.card, warnings: [...loaded.warnings, ...normalized.warnings] };
}
