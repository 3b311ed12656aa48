/** What every command receives and returns. Commands never print or exit: the CLI does. */
import { dirname, isAbsolute, resolve } from 'node:path';
import type { NormalizedCard, Warning } from '../card/model.js';
import { normalizeCard } from '../card/normalize.js';
import { type ExitCode, UsageError } from '../errors.js';
import { readTextIfExists } from '../fs/atomic-write.js';
import { findManifest } from '../fs/find-manifest.js';
import { ciBase } from '../fs/git.js';
import { type NetworkOptions, networkOptionsOf } from '../http/network-options.js';
import { parseJson } from '../json-document.js';
import type { OriginAuthMap } from '../manifest/schema.js';
import { manifestSecretValues } from '../manifest/secret-values.js';
import { cardSourceOf, type LoadedCard, loadCard } from '../resolve/load-card.js';
import type { ResolveOptions } from '../resolve/options.js';

/** Global options (yargs) resolved against the working directory. */
export interface GlobalOptions {
  /** Path of `a2a.json`. */
  manifest: string;
  /** `--manifest` was not given: look for `a2a.json` upward from `cwd` ({@link findManifest}). */
  searchManifest?: boolean;
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
  /** The upward search used a manifest outside the working directory (its absolute path): the CLI says `using ../../a2a.json`. */
  usingManifest?: (path: string) => void;
}

/**
 * A command's answer: its exit code, its data and its warnings. Commands return data only (no
 * human text, no colour); the CLI (`src/cli/main.ts`) is the one place that prints it, through the
 * renderer of the command (`src/cli/render/<command>.ts`), and returns the exit code.
 *
 * The pattern of `data`, the same for every command: its top-level fields are the fields of the
 * command's `--json` document, in their order; when the human output needs facts the document does
 * not carry (the card's name on `plan`, the lockfile's path on `lock`, the exit code on `verify`),
 * they are in one more field, `human`, that the JSON renderer leaves out (and nothing else). The
 * CLI adds `warnings` to a JSON document that has none. Each command module exports the type of its
 * `data` (`PlanData`, `LockData`, …).
 */
export interface CommandResult<D = unknown> {
  exitCode: ExitCode;
  /** The command's answer: the `--json` document's fields, plus `human` where the human output needs more. */
  data: D;
  /** Printed to stderr in human mode; in the JSON document as `warnings` (the command's own, or added by the CLI). */
  warnings: Array<Warning & { agent?: string }>;
}

/**
 * Absolute paths of the manifest and the lockfile. With `searchManifest` (and `search` not false),
 * the manifest is the nearest `a2a.json` upward from the working directory ({@link findManifest}:
 * up to the git root, else the working directory or `$HOME`; one another user owns is refused), and
 * one found in another directory is told to `usingManifest`; none found: `cwd/a2a.json`, and
 * `lookedUpTo` says where the search stopped (for the not-found error).
 * @throws UsageError when both name one file (a lockfile write would replace the manifest);
 *   A2aLockError `manifest-unsafe`
 */
export function paths(
  options: GlobalOptions,
  search = true,
): { manifest: string; lockfile: string; baseDir: string; lookedUpTo?: string } {
  const cwd = resolve(options.cwd);
  const home = options.env.HOME && isAbsolute(options.env.HOME) ? resolve(options.env.HOME) : undefined;
  const lookup = search && options.searchManifest ? findManifest(cwd, options.manifest, home) : undefined;
  if (lookup?.found && dirname(lookup.path) !== cwd) options.usingManifest?.(lookup.path);
  const manifest = lookup ? lookup.path : resolve(options.cwd, options.manifest);
  const lockfile = options.lockfile
    ? resolve(options.cwd, options.lockfile)
    : resolve(dirname(manifest), 'a2a.lock.json');
  if (lockfile === manifest)
    throw new UsageError(`--lockfile and --manifest name the same file (${options.lockfile ?? options.manifest})`);
  return {
    manifest,
    lockfile,
    baseDir: dirname(manifest),
    ...(lookup && !lookup.found ? { lookedUpTo: lookup.lookedUpTo } : {}),
  };
}

/** The options of the resolve shell from the global flags: the network ones, the manifest's folder, the environment, progress. */
export function resolveOptions(options: GlobalOptions, baseDir: string): ResolveOptions {
  return {
    baseDir,
    env: options.env,
    ...networkOptionsOf(options.network ?? {}),
    ...(options.progress ? { onProgress: options.progress } : {}),
  };
}

/** Why `lock`, `update`, `add` and `outdated` send no credential on a review run (`run`: "a pull request run", "a push of refs/heads/x, not the default branch main"). */
function reviewRunWithholds(run: string): string {
  return `this is ${run} (its a2a.json and a2a.lock.json are not reviewed yet), so lock, update, add and outdated send no credential`;
}

/**
 * {@link resolveOptions} for a command that resolves agents from the manifest as it stands (`lock`,
 * `update`, `add`, `outdated`): on a review run ({@link ciBase}: a pull request, or a push of a
 * branch other than the default one; its base readable or not) no credential is sent, since the
 * manifest and the lockfile that would say where are the run's own, not reviewed; `verify` is the
 * command that checks credentialed routes there, against the base lockfile.
 */
export async function unreviewedResolveOptions(options: GlobalOptions, baseDir: string): Promise<ResolveOptions> {
  const resolved = resolveOptions(options, baseDir);
  const ci = await ciBase(baseDir, options.env);
  return ci.kind === 'none' ? resolved : { ...resolved, credentialsWithheld: reviewRunWithholds(ci.run) };
}

/**
 * Load and normalise one card named on the command line (`plan`, `card`): a URL, or a file relative
 * to the working directory, fetched with the global flags (and `cardPath`, as the manifest's; the
 * manifest's `originAuth` when given). Warnings of both steps, in order.
 * @throws InvalidInputError / FetchError
 */
export async function readCommandCard(
  options: GlobalOptions,
  location: string,
  versionHeader: string,
  cardPath?: string,
  originAuth?: OriginAuthMap,
): Promise<{ loaded: LoadedCard; card: NormalizedCard; warnings: Warning[] }> {
  // One card: the shared dispatcher's default connection cap, whatever --concurrency says.
  const { concurrency: _c, ...network } = networkOptionsOf(options.network ?? {});
  const platformAuth = originAuth ? { originAuthConfig: originAuth, env: options.env } : {};
  const loaded = await loadCard(location, {
    baseDir: options.cwd,
    versions: [versionHeader],
    ...network,
    ...platformAuth,
    ...(cardPath !== undefined ? { cardPath } : {}),
  });
  const normalized = normalizeCard(loaded.raw, cardSourceOf(loaded));
  return { loaded, card: normalized.card, warnings: [...loaded.warnings, ...normalized.warnings] };
}

/**
 * The credential values of the manifest the command reads ({@link manifestSecretValues}, from its
 * JSON as written), as set in its environment; none when there is no manifest or it is not JSON
 * (the command reports that itself).
 */
export async function outputSecrets(options: GlobalOptions): Promise<string[]> {
  try {
    const path = paths(options).manifest;
    const text = await readTextIfExists(path, 'manifest-invalid');
    return text === undefined ? [] : manifestSecretValues(parseJson(text, path, 'manifest-invalid'), options.env);
  } catch {
    return [];
  }
}
