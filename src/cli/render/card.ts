/** The output of `a2a card`: the normalised card as indented lines, or the `--json` document. */
import { contactedHostNote } from '../../card/host.js';
import type { NormalizedCard, SecurityRequirement } from '../../card/model.js';
import type { CardData } from '../../commands/card.js';
import { type CommandRenderer, documentOf } from './common.js';

function requirement(r: SecurityRequirement): string {
  const parts = Object.entries(r).map(([s, scopes]) => (scopes.length ? `${s} (${scopes.join(' ')})` : s));
  return parts.length ? parts.join(' + ') : 'no authentication';
}

/**
 * Human lines for a normalised card read from `resolved`: interfaces, capabilities, security, modes, skills.
 * @internal
 */
export function describeCard(card: NormalizedCard, resolved: string): string[] {
  const lines = [`${card.name} ${card.version} (A2A ${card.shape} card from ${resolved})`, '  interfaces:'];
  for (const i of card.supportedInterfaces) {
    // An internationalised host is shown beside the host contacted (punycode, dots mapped), so a look-alike shows.
    lines.push(
      `    ${i.protocolBinding} ${i.protocolVersion} ${i.url}${contactedHostNote(i.url)}${i.tenant ? ` tenant=${i.tenant}` : ''}`,
    );
  }
  const c = card.capabilities;
  lines.push(
    `  capabilities: streaming=${c.streaming} pushNotifications=${c.pushNotifications} extendedAgentCard=${c.extendedAgentCard}`,
  );
  for (const e of c.extensions) lines.push(`    extension ${e.uri}${e.required ? ' (required)' : ''}`);
  const schemes = Object.entries(card.securitySchemes);
  if (schemes.length) lines.push(`  securitySchemes: ${schemes.map(([n, s]) => `${n} (${s.type})`).join(', ')}`);
  if (card.securityRequirements.length)
    lines.push(`  securityRequirements: ${card.securityRequirements.map(requirement).join(' | ')}`);
  lines.push(
    `  modes: in ${card.defaultInputModes.join(', ') || '(none)'}; out ${card.defaultOutputModes.join(', ') || '(none)'}`,
  );
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

/** `a2a card`: the document is the data as it is (`{"valid", "resolved", "versionHeader"?, "card", "warnings"}`); the lines are {@link describeCard} (its first names the card's shape, as served to the `A2A-Version` asked with). */
export const cardRenderer: CommandRenderer<CardData> = {
  json: documentOf,
  text: (data) => describeCard(data.card, data.resolved),
};
