/** `a2a card <url|file>`: fetch, validate and print the normalised card with its warnings (a linter for agent authors). */
import { existsSync } from 'node:fs';
import type { NormalizedCard, SecurityRequirement } from '../card/model.js';
import { ExitCode } from '../errors.js';
import { readManifest } from '../fs/manifest.js';
import { paths, readCommandCard, type CommandResult, type GlobalOptions } from './context.js';

function requirement(r: SecurityRequirement): string {
  const parts = Object.entries(r).map(([s, scopes]) => (scopes.length ? `${s} (${scopes.join(' ')})` : s));
  return parts.length ? parts.join(' + ') : 'no authentication';
}

/** Human lines for a normalised card. */
export function describeCard(card: NormalizedCard, resolved: string): string[] {
  const lines = [`${card.name} ${card.version} (A2A ${card.shape} card from ${resolved})`, '  interfaces:'];
  for (const i of card.supportedInterfaces) lines.push(`    ${i.protocolBinding} ${i.protocolVersion} ${i.url}${i.tenant ? ` tenant=${i.tenant}` : ''}`);
  const c = card.capabilities;
  lines.push(`  capabilities: streaming=${c.streaming} pushNotifications=${c.pushNotifications} extendedAgentCard=${c.extendedAgentCard}`);
  for (const e of c.extensions) lines.push(`    extension ${e.uri}${e.required ? ' (required)' : ''}`);
  const schemes = Object.entries(card.securitySchemes);
  if (schemes.length) lines.push(`  securitySchemes: ${schemes.map(([n, s]) => `${n} (${s.type})`).join(', ')}`);
  if (card.securityRequirements.length) lines.push(`  securityRequirements: ${card.securityRequirements.map(requirement).join(' | ')}`);
  lines.push(`  modes: in ${card.defaultInputModes.join(', ') || '(none)'}; out ${card.defaultOutputModes.join(', ') || '(none)'}`);
  lines.push(`  skills:${card.skills.length ? '' : ' none'}`);
  for (const s of card.skills) {
    const extra = [
      s.inputModes ? `in ${s.inputModes.join(', ')}` : '',
      s.outputModes ? `out ${s.outputModes.join(', ')}` : '',
      s.securityRequirements ? `security ${s.securityRequirements.map(requirement).join(' | ')}` : '',
    ].filter(Boolean);
    lines.push(`    ${s.id}: ${s.name}${extra.length ? ` (${extra.join('; ')})` : ''}`);
  }
  return lines;
}

/**
 * Load and validate one card. `A2A-Version` is the manifest profile's first version when a manifest
 * exists, else `1.0`. JSON: `{"valid": true, "resolved", "card", "warnings"}`; an invalid card throws
 * (exit 2, `{"error": {...}}` under `--json`).
 */
export async function runCard(options: GlobalOptions, args: { card: string }): Promise<CommandResult> {
  const manifestPath = paths(options).manifest;
  // The manifest's first version when it has a valid one; `a2a card` lints cards, not manifests.
  const versionHeader = existsSync(manifestPath) ? ((await readManifest(manifestPath).catch(() => undefined))?.profile.versions[0] ?? '1.0') : '1.0';
  const { loaded, card, warnings } = await readCommandCard(options, args.card, versionHeader);
  return {
    exitCode: ExitCode.Ok,
    json: { valid: true, resolved: loaded.resolved, card, warnings },
    lines: describeCard(card, loaded.resolved),
    warnings,
  };
}
