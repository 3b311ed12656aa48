/** The output of `a2a ls`. */
import type { LsData } from '../../commands/ls.js';
import type { CredentialSource } from '../../manifest/schema.js';
import type { Plan } from '../../negotiate/types.js';
import { type CommandRenderer, documentOf } from './common.js';

/** Where a credential's secret comes from, in words: `env NAME`, `oauth client ID_ENV / SECRET_ENV`. */
function sourceOf(source: CredentialSource): string {
  return 'env' in source
    ? `env ${source.env}`
    : `oauth client ${source.oauth.clientId.env} / ${source.oauth.clientSecret.env}`;
}

/** A plan in one line: binding and version, delivery, security, output modes, extensions. */
function planSummary(plan: Plan): string {
  const security = Object.keys(plan.security);
  return [
    `${plan.protocolBinding} ${plan.protocolVersion}`,
    plan.delivery,
    security.length ? security.join(' + ') : 'no auth',
    plan.acceptedOutputModes.join(', '),
    ...(plan.extensions.length ? [`${plan.extensions.length} extension${plan.extensions.length > 1 ? 's' : ''}`] : []),
  ].join(' · ');
}

/** `a2a ls`: the document is `{"agents"}`; the lines are each agent (card, locked version), each skill with its plan in one line (or `not locked`), its credentials and where each goes, its `originAuth` origins and its rebased interfaces. */
export const lsRenderer: CommandRenderer<LsData> = {
  json: documentOf,
  text: (data) => {
    const names = Object.keys(data.agents);
    if (names.length === 0) return ['no agents (add one: a2a add <name> <card-url> --skill <id>)'];
    const lines: string[] = [];
    for (const name of names) {
      const agent = data.agents[name]!;
      lines.push(
        `${name} ${agent.card}${agent.version !== undefined ? ` (version ${agent.version})` : ' (not locked)'}`,
      );
      for (const [skill, plan] of Object.entries(agent.skills))
        lines.push(`  ${skill}: ${plan ? planSummary(plan) : 'not locked (run a2a lock)'}`);
      for (const [scheme, c] of Object.entries(agent.credentials ?? {}))
        lines.push(
          `  credential ${scheme} (${sourceOf(c.source)}) → ${c.to.length ? c.to.join(', ') : 'nowhere locked'}`,
        );
      for (const [origin, placement] of Object.entries(agent.originAuth ?? {}))
        lines.push(`  originAuth ${origin}: ${placement}`);
      for (const [advertised, locked] of Object.entries(agent.rebased ?? {}))
        lines.push(`  rebased ${advertised} → ${locked} (rebaseInterfaces)`);
    }
    return lines;
  },
};
