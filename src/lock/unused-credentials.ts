/**
 * Credentials that are never sent: a manifest credential (a scheme the client holds) that no locked
 * plan uses and the extended card's route does not take either. The call then goes without it, and
 * an agent that authenticates outside A2A (ADK with bearer auth configured still publishes a card
 * without security) refuses it with nothing to say why. `lock` and `verify` warn:
 *
 * - `credential-never-sent` when the card declares no `securitySchemes` at all: nothing on the card
 *   asks for a credential, so it will never be sent;
 * - `credential-unused` otherwise: the card has schemes, but none the locked plans chose is this one.
 *
 * Pure.
 */
import type { Warning } from '../card/model.js';
import type { AgentSettings } from '../manifest/schema.js';
import { credentialRoutes } from './credential-routes.js';
import type { LockEntry } from './schema.js';

/** Whether a card as served (raw JSON) declares at least one security scheme. */
function declaresSchemes(card: Record<string, unknown> | undefined): boolean {
  const schemes = card?.securitySchemes;
  return typeof schemes === 'object' && schemes !== null && Object.keys(schemes).length > 0;
}

/** Whether a card as served (raw JSON) declares the security scheme `name`. */
function declares(card: Record<string, unknown> | undefined, name: string): boolean {
  const schemes = card?.securitySchemes;
  return typeof schemes === 'object' && schemes !== null && Object.hasOwn(schemes, name);
}

/**
 * The warnings about `entry`'s held credentials (`settings.credentials`) that nothing sends: one per
 * scheme, `credential-never-sent` when neither the public nor the extended snapshot declares any
 * security scheme, else `credential-unused`. Cheap when every held credential is in a plan (no card
 * is read); an entry whose snapshot is no longer a valid card gets none (its error is reported
 * elsewhere).
 */
export function credentialWarnings(entry: LockEntry, settings: AgentSettings): Warning[] {
  const planned = new Set(Object.values(entry.plans).flatMap((plan) => Object.keys(plan.security)));
  let unused = settings.credentials.filter((scheme) => !planned.has(scheme));
  if (unused.length === 0) return [];
  if (entry.extended) {
    let routed: Set<string>;
    try {
      routed = new Set(credentialRoutes(entry, settings).map((r) => r.scheme));
    } catch {
      return [];
    }
    unused = unused.filter((scheme) => !routed.has(scheme));
  }
  const none = !declaresSchemes(entry.snapshot) && !declaresSchemes(entry.extended?.snapshot);
  return unused.map(
    (scheme): Warning =>
      none
        ? {
            code: 'credential-never-sent',
            message: `credential "${scheme}" will never be sent: the card declares no securitySchemes, so no plan asks for one (the agent may authenticate outside A2A; calls go without it)`,
          }
        : {
            code: 'credential-unused',
            message: `credential "${scheme}" is held but no locked plan uses it${entry.extended ? ', nor the extended card' : ''}; it is never sent${
              declares(entry.snapshot, scheme) || declares(entry.extended?.snapshot, scheme)
                ? ''
                : ` (the card declares no scheme "${scheme}")`
            }`,
          },
  );
}
