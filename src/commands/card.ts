/** `a2a card <url|file>`: fetch, validate and print the normalised card with its warnings (a linter for agent authors). */
import { existsSync } from 'node:fs';
import type { NormalizedCard, Warning } from '../card/model.js';
import { otherOriginWarnings } from '../card/host.js';
import { ExitCode } from '../errors.js';
import { readManifest } from '../fs/manifest.js';
import { paths, readCommandCard, type CommandResult, type GlobalOptions } from './context.js';

/**
 * The answer of `a2a card`, all of it the `--json` document: `{"valid": true, "resolved", "card",
 * "warnings"}`, where `resolved` is where the card was read from and `card` the normalised card.
 */
export interface CardData {
  valid: true;
  resolved: string;
  card: NormalizedCard;
  warnings: Warning[];
}

/**
 * Load and validate one card. `A2A-Version` is the manifest profile's first version when a manifest
 * exists, else `1.0`. An invalid card throws (exit 1, `{"error": {...}}` under `--json`).
 */
export async function runCard(options: GlobalOptions, args: { card: string }): Promise<CommandResult<CardData>> {
  const manifestPath = paths(options).manifest;
  // The manifest's first version when it has a valid one; `a2a card` lints cards, not manifests.
  const versionHeader = existsSync(manifestPath) ? ((await readManifest(manifestPath).catch(() => undefined))?.profile.versions[0] ?? '1.0') : '1.0';
  const read = await readCommandCard(options, args.card, versionHeader);
  const { loaded, card } = read;
  // A lint of `a2a card` only: an interface elsewhere than the card is legitimate, but worth knowing.
  const warnings: Warning[] = [...read.warnings, ...otherOriginWarnings(card.supportedInterfaces, loaded.baseUrl)];
  return { exitCode: ExitCode.Ok, data: { valid: true, resolved: loaded.resolved, card, warnings }, warnings };
}
