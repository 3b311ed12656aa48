/**
 * The manifest's `credentialDestinations` applied to credential routes (`credential-routes.ts`):
 * the error for a route to an origin the list does not allow. Pure.
 */
import { A2aLockError } from '../errors.js';
import { isAllowedDestination } from '../manifest/credential-destinations.js';
import { isTlsOrLoopbackDestination } from '../manifest/rules.js';
import type { AgentSettings } from '../manifest/schema.js';
import { type CredentialRoute, credentialRoutes } from './credential-routes.js';
import { type AgentReport, errorReport } from './report.js';
import type { LockEntry } from './schema.js';

/** What a route is, in words: `plan market-size (scheme bearer)`, `the token request of scheme oauth`, … */
function describeRoute(route: CredentialRoute): string {
  switch (route.purpose) {
    case 'plan':
      return `plan ${route.skill ?? '*'} (scheme ${route.scheme})`;
    case 'token':
      return `the OAuth client secret of scheme ${route.scheme} (token URL)`;
    case 'extended':
      return `the extended card request (scheme ${route.scheme})`;
    default:
      return 'originAuth (the platform credential)';
  }
}

/**
 * The error for the first of `routes` whose origin `list` does not allow ({@link isAllowedDestination}),
 * naming `subject` (the agent's card), the destination, what would send it there and the list; undefined when every
 * route is allowed or there is no list.
 */
export function destinationRefusal(
  subject: string,
  routes: readonly CredentialRoute[],
  list: readonly string[] | undefined,
): A2aLockError | undefined {
  if (list === undefined) return undefined;
  const refused = routes.find((r) => !isAllowedDestination(r.origin, list));
  if (!refused) return undefined;
  const allowed = list.length ? list.join(', ') : 'none';
  return new A2aLockError(
    'credential-destination-refused',
    `${subject}: ${describeRoute(refused)} would send a credential to ${refused.origin}, which a2a.json's credentialDestinations does not allow (${allowed})`,
    {
      // A plaintext origin off loopback can be no entry of the list (a credential goes only over TLS).
      hint: isTlsOrLoopbackDestination(refused.origin)
        ? `if ${refused.origin} is trusted with this credential, add it to credentialDestinations in a2a.json (a change reviewers see as credential-policy-changed)`
        : `${refused.origin} is plain http to a host that is not loopback: no credentialDestinations entry allows it; the agent must serve this interface over TLS`,
      data: { destination: refused.origin, purpose: refused.purpose, scheme: refused.scheme, allowed: [...list] },
    },
  );
}

/**
 * `verify`: the report of a locked entry that sends a credential where `list` does not allow (a
 * lockfile or manifest edited by hand), before anything is sent; undefined when it may be checked
 * (no list, every route allowed, or a snapshot that no longer reads: the offline check reports that).
 */
export function policyReport(
  name: string,
  entry: LockEntry,
  settings: AgentSettings,
  list: readonly string[] | undefined,
): AgentReport | undefined {
  if (list === undefined) return undefined;
  let routes: CredentialRoute[];
  try {
    routes = credentialRoutes(entry, settings);
  } catch {
    return undefined;
  }
  const refused = destinationRefusal(name, routes, list);
  return refused ? errorReport(refused) : undefined;
}
