/** `a2a card <url|file>`: fetch, validate and print the normalised card with its warnings (a linter for agent authors). */
import { existsSync } from 'node:fs';
import { otherOriginWarnings } from '../card/host.js';
import type { NormalizedCard, Warning } from '../card/model.js';
import { ExitCode, UsageError } from '../errors.js';
import { readManifest } from '../fs/manifest.js';
import { manifestSchemas } from '../manifest/schema.js';
import { type CommandResult, type GlobalOptions, paths, readCommandCard } from './context.js';

/**
 * The answer of `a2a card`, all of it the `--json` document: `{"valid": true, "resolved",
 * "versionHeader", "card", "warnings"}`, where `resolved` is where the card was read from,
 * `versionHeader` the `A2A-Version` it was asked for with (absent for a file) and `card` the
 * normalised card.
 */
export interface CardData {
  valid: true;
  resolved: string;
  versionHeader?: string;
  card: NormalizedCard;
  warnings: Warning[];
}

/**
 * Load and validate one card. `A2A-Version` is `a2aVersion` when given (the card as served to that
 * version: a framework may serve a 1.0 or a 0.3 card by the header), else the manifest profile's
 * first version when a manifest exists, else `1.0`. An invalid card throws (exit 1, `{"error":
 * {...}}` under `--json`).
 * @throws UsageError an `a2aVersion` that is not Major.Minor, a `cardPath` the manifest would refuse
 */
export async function runCard(
  options: GlobalOptions,
  args: { card: string; a2aVersion?: string; cardPath?: string },
): Promise<CommandResult<CardData>> {
  if (args.a2aVersion !== undefined && !/^\d+\.\d+$/.test(args.a2aVersion)) {
    throw new UsageError(`--a2a-version "${args.a2aVersion}": use Major.Minor, e.g. 0.3 or 1.0`);
  }
  // The manifest's rule for an agent's cardPath, so the flag reaches nothing a manifest could not name.
  const cardPath = args.cardPath === undefined ? undefined : manifestSchemas().CardPathSchema.safeParse(args.cardPath);
  if (cardPath && !cardPath.success)
    throw new UsageError(
      `--card-path ${JSON.stringify(args.cardPath!.slice(0, 80))}: ${cardPath.error.issues[0]?.message ?? 'not a card path'}`,
    );
  const manifestPath = paths(options).manifest;
  // The manifest's first version when it has a valid one (and its originAuth); `a2a card` lints cards, not manifests.
  const manifest = existsSync(manifestPath) ? await readManifest(manifestPath).catch(() => undefined) : undefined;
  const versionHeader = args.a2aVersion ?? manifest?.profile.versions[0] ?? '1.0';
  const read = await readCommandCard(options, args.card, versionHeader, args.cardPath, manifest?.originAuth);
  const { loaded, card } = read;
  // A lint of `a2a card` only: an interface elsewhere than the card is legitimate, but worth knowing.
  const warnings: Warning[] = [...read.warnings, ...otherOriginWarnings(card.supportedInterfaces, loaded.baseUrl)];
  return {
    exitCode: ExitCode.Ok,
    data: {
      valid: true,
      resolved: loaded.resolved,
      ...(loaded.versionHeader !== undefined ? { versionHeader: loaded.versionHeader } : {}),
      card,
      warnings,
    },
    warnings,
  };
}
