/**
 * Where a review run (`a2a verify` on a pull request) may send an agent's credentials: only along
 * a route the base lockfile already had for the same agent (same origin, same scheme name, placed
 * alike, {@link sameDestination}) with the secret the base manifest named for that scheme (same
 * environment variable). Anything else is withheld and the agent is `unchecked`
 * (`credential-route-new`); a pull request whose base cannot be read withholds every credential
 * (`base-unreadable`). Pure: the base files are read in `resolve/verify.ts`.
 */
import { sameJson } from '../canonical.js';
import { own } from '../json-path.js';
import { type AgentEntry, type AgentSettings, type Manifest, sourceVariables } from '../manifest/schema.js';
import { type CredentialRoute, credentialRoutes, originAuthRoutes, sameDestination } from './credential-routes.js';
import type { Unchecked, WithheldRoute } from './report.js';
import type { LockEntry, Lockfile } from './schema.js';

/**
 * What a pull request's base allows one agent:
 * - `base`: the routes its base lockfile entry sends credentials along (none for an agent the base
 *   did not lock), the base manifest's secret variable(s) per scheme, space-separated (an OAuth
 *   client's id and secret variables; undefined: the base manifest
 *   could not be read, so no variable is known), the base extended snapshot's integrity, and the
 *   base's lock entry and settings for the agent (undefined: the base did not lock it);
 * - `unreadable`: the base is not in this clone; nothing may be sent.
 */
export type CredentialGate =
  | {
      kind: 'base';
      routes: readonly CredentialRoute[];
      sources: Readonly<Record<string, string>> | undefined;
      extendedIntegrity?: string | undefined;
      entry?: LockEntry | undefined;
      settings?: AgentSettings | undefined;
    }
  | { kind: 'unreadable' };

/**
 * The gate of agent `name` from the base lockfile (undefined: the base had no lockfile) and the
 * base manifest (undefined: none, or not readable). A base entry whose snapshot no longer reads as
 * a card allows no route.
 */
export function gateFromBase(
  name: string,
  base: Lockfile | undefined,
  baseManifest: Manifest | undefined,
): CredentialGate {
  const entry: LockEntry | undefined = base ? own(base.agents, name) : undefined;
  const settings: AgentSettings | undefined = base ? own(base.settings, name) : undefined;
  let routes: CredentialRoute[] = [];
  if (entry && settings) {
    try {
      routes = credentialRoutes(entry, settings);
    } catch {
      routes = [];
    }
  }
  const credentials = baseManifest ? own(baseManifest.agents, name)?.credentials : undefined;
  const sources = credentials
    ? Object.fromEntries(
        Object.entries(credentials).map(([scheme, source]) => [scheme, sourceVariables(source).join(' ')]),
      )
    : undefined;
  return { kind: 'base', routes, sources, extendedIntegrity: entry?.extended?.integrity, entry, settings };
}

/**
 * The routes of `routes` (where this run would send a credential, with the head manifest's
 * `credentials`) that `gate` does not allow: all of them when the base is unreadable; otherwise
 * each one no base route covers, or whose secret variable is not the one the base manifest named.
 */
export function withheldRoutes(
  gate: CredentialGate,
  routes: readonly CredentialRoute[],
  credentials: AgentEntry['credentials'],
): CredentialRoute[] {
  if (gate.kind === 'unreadable') return [...routes];
  return routes.filter((route) => {
    const source = own(credentials, route.scheme);
    const variable = source ? sourceVariables(source).join(' ') : undefined;
    const baseVariable = gate.sources ? own(gate.sources, route.scheme) : undefined;
    const covered = gate.routes.some((b) => sameDestination(route, b));
    return !(covered && variable !== undefined && variable === baseVariable);
  });
}

/**
 * The `originAuth` routes of the head `entry` that `gate` does not allow: all of them when the
 * base is unreadable; otherwise each one the base entry did not record alike (same origin, same
 * placement, same variable). A review run sends no platform credential while any is withheld.
 */
export function withheldOriginAuth(gate: CredentialGate, entry: LockEntry): CredentialRoute[] {
  const routes = originAuthRoutes(entry);
  if (gate.kind === 'unreadable') return routes;
  return routes.filter((route) => !gate.routes.some((b) => sameDestination(route, b)));
}

/** Whether the head entry's extended snapshot is not the one the base locked (or the base had none). */
export function extendedChangedSince(gate: CredentialGate, entry: LockEntry): boolean {
  return gate.kind === 'base' && entry.extended !== undefined && entry.extended.integrity !== gate.extendedIntegrity;
}

/**
 * An agent whose card served now could not be read in a review run (its `originAuth` variable
 * unset): when its head `entry` or `settings` differ from the base's, `credential-route-new` with
 * the routes of the head entry (plans, fallbacks, extended card, token URLs, `originAuth`) the base
 * does not allow with the head manifest's `credentials`; undefined when the entry is the base's, or
 * adds no route (the caller reports it `credential-unset`, `unchecked` all the same).
 */
export function unreadEntryChanged(
  gate: CredentialGate,
  entry: LockEntry,
  settings: AgentSettings,
  credentials: AgentEntry['credentials'],
): Unchecked | undefined {
  if (gate.kind !== 'base') return undefined;
  if (gate.entry && sameJson(gate.entry, entry) && sameJson(gate.settings, settings)) return undefined;
  let routes: CredentialRoute[];
  try {
    routes = credentialRoutes(entry, settings).filter((r) => r.purpose !== 'origin');
  } catch {
    // A snapshot that is no longer a card (the offline check refuses it before this).
    routes = [];
  }
  // The `originAuth` placements by destination alone ({@link withheldOriginAuth}); the card's schemes with their variable too.
  const withheld = [...withheldOriginAuth(gate, entry), ...withheldRoutes(gate, routes, credentials)];
  return withheld.length > 0 ? credentialRouteNew(withheld) : undefined;
}

/** The line `verify` shows for an agent whose credential went along a route the base did not have. */
const CREDENTIAL_ROUTE_NEW_MESSAGE = 'checked with credentials after this change is merged; review it in a2a diff';

/** `credential-route-new` for `withheld` (each destination once). */
export function credentialRouteNew(withheld: readonly CredentialRoute[]): Unchecked {
  const routes: WithheldRoute[] = [];
  for (const r of withheld)
    if (!routes.some((o) => o.origin === r.origin && o.scheme === r.scheme))
      routes.push({ origin: r.origin, scheme: r.scheme });
  return { reason: 'credential-route-new', message: CREDENTIAL_ROUTE_NEW_MESSAGE, routes };
}

/** `base-unreadable`: no credential was sent, the base (a pull request's, or the default branch for another run of a branch) being unreadable. */
export function baseUnreadable(): Unchecked {
  return {
    reason: 'base-unreadable',
    message: "not checked with credentials: this run's review base could not be read, so no credential was sent",
  };
}

/** The extended card could not be fetched (`variable` unset): `extended-changed` when its snapshot changed since the base, else `credential-unset`. */
export function extendedUnchecked(variable: string, changedSinceBase: boolean): Unchecked {
  return changedSinceBase
    ? {
        reason: 'extended-changed',
        message: `the lockfile's extended card changed since the base and was not checked (${variable} unset); review it in a2a diff`,
      }
    : { reason: 'credential-unset', message: `extended card not checked (${variable} unset)` };
}
