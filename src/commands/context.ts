/** What every command receives and returns. Commands never print or exit: the CLI does. */
import { dirname, resolve } from 'node:path';
import { cardSourceOf, loadCard, type LoadedCard } from '../resolve/load-card.js';
import type { NormalizedCard, Warning } from '../card/model.js';
import { normalizeCard } from '../card/normalize.js';
import { UsageError, type ExitCode } from '../errors.js';
import { networkOptionsOf, type NetworkOptions } from '../http/network-options.js';
import type { ResolveOptions } from '../resolve/options.js';

/** Global options (yargs) resolved against the working directory. */
export interface GlobalOptions {
  /** Path of `a2a.json`. */
  manifest: string;
  /** Path of `a2a.lock.json`; defaults to beside the manifest. */
  lockfile?: string;
  json: boolean;
  verbose: boolean;
  /** The network flags (`--timeout`, `--concurrency`, `--retries`, `--allow-http`). */
  network?: NetworkOptions;
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

/** The options of the resolve shell from the global flags: the network ones, the manifest's folder, the environment, progress. */
export function resolveOptions(options: GlobalOptions, baseDir: string): ResolveOptions {
  return { baseDir, env: options.env, ...networkOptionsOf(options.network ?? {}), ...(options.progress ? { onProgress: options.progress } : {}) };
}

/**
 * Load and normalise one card named on the command line (`plan`, `card`): a URL, or a file relative
 * to the working directory, fetched with the global flags. Warnings of both steps, in order.
 * @throws InvalidInputError / FetchError
 */
export async function readCommandCard(
  options: GlobalOptions,
  location: string,
  versionHeader: string,
): Promise<{ loaded: LoadedCard; card: NormalizedCard; warnings: Warning[] }> {
  // One card: the shared dispatcher's default connection cap, whatever --concurrency says.
  const { concurrency: _c, ...network } = networkOptionsOf(options.network ?? {});
  const loaded = await loadCard(location, { baseDir: options.cwd, versionHeader, ...network });
  const normalized = normalizeCard(loaded.raw, cardSourceOf(loaded));
  return { loaded, card: normalized.card, warnings: [...loaded.warnings, ...normalized.warnings] };
}
