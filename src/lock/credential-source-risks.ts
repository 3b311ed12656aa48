/**
 * `credential-source-changed`: the risk of a credential whose secret the manifest (`a2a.json`) reads
 * from another environment variable at head than at base. The manifest is not in the lockfile, so
 * this group is assessed beside {@link assessRisks} by the review of two lockfiles. Pure.
 */
import { uncoveredRoutes } from './credential-routes.js';
import { type AgentSide, type assessRisks, routesOf } from './risk.js';
import { type Risk, risk } from './risk-codes.js';

/**
 * A credential whose secret comes from another place in the manifest (`a2a.json`'s
 * `credentials.<scheme>.env`) at head than at base: `old`/`new` the environment variable names
 * (absent: the side's manifest names none for that scheme).
 */
export interface CredentialSourceChange {
  scheme: string;
  old?: string;
  new?: string;
}

/**
 * `credential-source-changed` for each changed source of an agent present at head: high when the
 * variable changes for a scheme that already had a credential route at base (the same destination
 * now receives another secret), medium when it is new otherwise, low when the source is removed.
 * A new source for a scheme that `now` sends to a new destination is left out: that
 * `new-credential-destination` (high) states it.
 */
export function credentialSourceRisks(
  changes: readonly CredentialSourceChange[],
  old: AgentSide | undefined,
  now?: AgentSide,
): Risk[] {
  if (!changes.length) return [];
  const wasRoutes = routesOf(old);
  const routed = new Set(wasRoutes.map((r) => r.scheme));
  // A source new for a scheme that now has a new destination: `new-credential-destination` says it (once, high).
  const newlySent = new Set(now ? uncoveredRoutes(wasRoutes, routesOf(now)).map((r) => r.scheme) : []);
  const stated = (c: CredentialSourceChange) => c.new !== undefined && !routed.has(c.scheme) && newlySent.has(c.scheme);
  return changes
    .filter((c) => !stated(c))
    .map((c) => {
      if (c.new === undefined)
        return risk(
          'credential-source-changed',
          `credential ${c.scheme} no longer read from env ${c.old} (a2a.json)`,
          undefined,
          'low',
        );
      const was = c.old === undefined ? 'none at base' : `was env ${c.old}`;
      return risk(
        'credential-source-changed',
        `credential ${c.scheme} now read from env ${c.new} (${was})${routed.has(c.scheme) ? ', for a route the base already sent it along' : ''}`,
        undefined,
        routed.has(c.scheme) ? 'high' : 'medium',
      );
    });
}
