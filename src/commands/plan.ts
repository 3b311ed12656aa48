/** `a2a plan <card> --skill <id>`: negotiate one card (file or URL) without a lockfile. */

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Warning } from '../card/model.js';
import { ExitCode } from '../errors.js';
import { readManifest, readProfile } from '../fs/manifest.js';
import { DEFAULT_PROFILE } from '../manifest/schema.js';
import { negotiate } from '../negotiate/negotiate.js';
import type { ClientProfile, Plan, Refusal } from '../negotiate/types.js';
import { type CommandResult, type GlobalOptions, paths, readCommandCard } from './context.js';

/**
 * The answer of `a2a plan`. The `--json` document is `{"plan": {...}, "warnings": [...]}` (exit 0)
 * or `{"refusal": {code, message}, "warnings": [...]}` (exit 1); `human` (not in the document)
 * names the skill negotiated and the card's name and version.
 */
export type PlanData = ({ plan: Plan; warnings: Warning[] } | { refusal: Refusal; warnings: Warning[] }) & {
  human: { skill: string; card: { name: string; version: string } };
};

/**
 * Negotiate one skill of one card. The profile comes from `--profile`, else the manifest's
 * top-level profile when a manifest exists, else {@link DEFAULT_PROFILE}.
 */
export async function runPlan(
  options: GlobalOptions,
  args: { card: string; skill: string; profile?: string; credentials: string[] },
): Promise<CommandResult<PlanData>> {
  let profile: ClientProfile;
  if (args.profile) profile = await readProfile(resolve(options.cwd, args.profile));
  else if (existsSync(paths(options).manifest)) {
    const { $schema: _s, ...root } = (await readManifest(paths(options).manifest)).profile;
    profile = root;
  } else profile = DEFAULT_PROFILE;
  const { card, warnings } = await readCommandCard(options, args.card, profile.versions[0]!);
  const result = negotiate(card, args.skill, profile, args.credentials);
  const human = { skill: args.skill, card: { name: card.name, version: card.version } };
  if (result.plan) return { exitCode: ExitCode.Ok, data: { plan: result.plan, warnings, human }, warnings };
  return { exitCode: ExitCode.Drift, data: { refusal: result.refusal, warnings, human }, warnings };
}
