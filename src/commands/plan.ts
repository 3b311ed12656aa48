/** `a2a plan <card> --skill <id>`: negotiate one card (file or URL) without a lockfile. */
import { resolve } from 'node:path';
import { ExitCode } from '../errors.js';
import { readManifest, readProfile } from '../fs/manifest.js';
import { DEFAULT_PROFILE } from '../manifest/schema.js';
import { negotiate } from '../negotiate/negotiate.js';
import type { ClientProfile } from '../negotiate/types.js';
import { renderPlan } from '../cli/render.js';
import { paths, readCommandCard, type CommandResult, type GlobalOptions } from './context.js';
import { existsSync } from 'node:fs';

/**
 * Negotiate one skill of one card. The profile comes from `--profile`, else the manifest's
 * top-level profile when a manifest exists, else {@link DEFAULT_PROFILE}.
 * JSON: `{"plan": {...}, "warnings": [...]}` (exit 0) or `{"refusal": {code, message}, "warnings": [...]}` (exit 1).
 */
export async function runPlan(options: GlobalOptions, args: { card: string; skill: string; profile?: string; credentials: string[] }): Promise<CommandResult> {
  let profile: ClientProfile;
  if (args.profile) profile = await readProfile(resolve(options.cwd, args.profile));
  else if (existsSync(paths(options).manifest)) {
    const { $schema: _s, ...root } = (await readManifest(paths(options).manifest)).profile;
    profile = root;
  } else profile = DEFAULT_PROFILE;
  const { card, warnings } = await readCommandCard(options, args.card, profile.versions[0]!);
  const result = negotiate(card, args.skill, profile, args.credentials);
  if (result.plan) {
    return {
      exitCode: ExitCode.Ok,
      json: { plan: result.plan, warnings },
      lines: [`plan for skill "${args.skill}" on ${card.name} ${card.version}`, ...renderPlan(result.plan)],
      warnings,
    };
  }
  return {
    exitCode: ExitCode.Drift,
    json: { refusal: result.refusal, warnings },
    lines: [`refused: ${result.refusal.code}: ${result.refusal.message}`],
    warnings,
  };
}
