/**
 * Where a lock entry sends credentials: one route per (purpose, origin, scheme, placement). A plan
 * that names a scheme sends that credential to its interface's origin and to the origin of each
 * locked fallback interface; the extended card's route ({@link routeFor} on the locked public card)
 * sends its requirement's credentials to that interface's origin. An `oauth2` scheme with a client
 * credentials flow also sends a client secret to its `tokenUrl` (a `token` route). Two lockfiles compare by these
 * routes: a route the head has and the base had not, for the same agent, is a new destination for a
 * secret (issue "review": `new-credential-destination`, and `verify --base` sends nothing along it).
 * Pure.
 */
import { sameJson } from '../canonical.js';
import { credentialOriginOf, originOf } from '../card/host.js';
import type { NormalizedCard, Warning } from '../card/model.js';
import { clientCredentialsTokenUrl } from '../credentials.js';
import type { AgentSettings } from '../manifest/schema.js';
import { placement } from './drift.js';
import { lockedNegotiationCard, lockedPublicCard } from './offline.js';
import { type ExtendedRoute, routeFor } from './route.js';
import type { LockEntry } from './schema.js';

export { originOf };

/** One place a credential goes. */
export interface CredentialRoute {
  /**
   * `plan`: a skill's calls (its interface or a fallback); `extended`: the GetExtendedAgentCard
   * request; `token`: the OAuth client credentials token request of an `oauth2` scheme (its flow's
   * `tokenUrl`, where a client secret goes; placement `{ tokenUrl }`); `origin`: every request to
   * the origin (the manifest's `originAuth`, scheme `originAuth`).
   */
  purpose: 'plan' | 'extended' | 'token' | 'origin';
  /** The skill whose plan sends it (purpose `plan`). */
  skill?: string;
  /**
   * `scheme://host[:port]`, lower-cased, as `credentialDestinations` entries spell origins: a gRPC
   * address by its channel ({@link credentialOriginOf}: `host:port` is `https://host:port`).
   */
  origin: string;
  /** The security scheme's name (the credential's key in the manifest). */
  scheme: string;
  /** How the credential is presented ({@link placement}): header, query parameter or cookie, and format. */
  placement: unknown;
}

/** The entry's locked cards, when the caller has them normalised already (they are read from the entry otherwise). */
export interface LockedCards {
  /** {@link lockedPublicCard} of the entry. */
  public: NormalizedCard;
  /** {@link lockedNegotiationCard} of the entry (the extended card when there is one). */
  negotiation: NormalizedCard;
}

/**
 * Every route along which `entry` (with its agent's locked `settings`) sends a credential, plan
 * routes first (skills sorted, each plan's interface then its fallbacks), then the extended card's.
 * Routes repeat across skills; compare with {@link uncoveredRoutes}. `cards`: the entry's cards
 * already normalised (else read from its snapshots).
 * @throws InvalidInputError `card-invalid` when a snapshot is no longer a valid card
 */
export function credentialRoutes(entry: LockEntry, settings: AgentSettings, cards?: LockedCards): CredentialRoute[] {
  const card = cards?.negotiation ?? lockedNegotiationCard(entry, entry.card, settings);
  const scheme = (name: string) => (Object.hasOwn(card.securitySchemes, name) ? card.securitySchemes[name] : undefined);
  const routes = planRoutes(
    entry.plans,
    (name) => placement(scheme(name)),
    (name) => clientCredentialsTokenUrl(scheme(name)),
  );
  if (entry.extended) {
    const publicCard = cards?.public ?? lockedPublicCard(entry, entry.card, settings);
    const warnings: Warning[] = [];
    const route = routeFor(publicCard, Object.keys(entry.plans).sort(), settings, warnings);
    if (route) routes.push(...extendedRoutes(route, publicCard.securitySchemes));
  }
  routes.push(...originAuthRoutes(entry));
  return routes;
}

/** The scheme name of an {@link originAuthRoutes} route (the platform's credential, not one of the card's schemes). */
const ORIGIN_AUTH_SCHEME = 'originAuth';

/**
 * The routes of an entry's `originAuth` placements, by origin: every request to the origin carries
 * the platform credential, placed as recorded (the placement includes its variable's name).
 */
export function originAuthRoutes(entry: Pick<LockEntry, 'originAuth'>): CredentialRoute[] {
  return Object.entries(entry.originAuth ?? {}).map(([origin, placement]) => ({
    purpose: 'origin' as const,
    origin: origin.toLowerCase(),
    scheme: ORIGIN_AUTH_SCHEME,
    placement,
  }));
}

/**
 * The routes of locked plans (skills sorted): each scheme a plan names, to its interface's origin
 * and to each locked fallback's, presented as `placed(scheme)` says.
 */
export function planRoutes(
  plans: LockEntry['plans'],
  placed: (scheme: string) => unknown,
  tokenUrl: (scheme: string) => string | undefined = () => undefined,
): CredentialRoute[] {
  const routes: CredentialRoute[] = [];
  for (const skill of Object.keys(plans).sort()) {
    const plan = plans[skill]!;
    const urls = [plan.url, ...(plan.fallbacks?.interfaces ?? []).map((i) => i.url)];
    for (const scheme of Object.keys(plan.security)) {
      const how = placed(scheme);
      for (const url of urls)
        routes.push({ purpose: 'plan', skill, origin: credentialOriginOf(url), scheme, placement: how });
      const token = tokenUrl(scheme);
      if (token !== undefined) routes.push(tokenRoute(token, scheme, skill));
    }
  }
  return routes;
}

/** The route of an OAuth client credentials token request to `tokenUrl` for `scheme` (the whole URL is its placement: a moved path is a new destination). */
function tokenRoute(tokenUrl: string, scheme: string, skill?: string): CredentialRoute {
  return {
    purpose: 'token',
    ...(skill !== undefined ? { skill } : {}),
    origin: originOf(tokenUrl),
    scheme,
    placement: { tokenUrl },
  };
}

/**
 * The routes of a GetExtendedAgentCard request along `route`, each scheme of its requirement
 * placed as `schemes` define it (the locked public card's); none for a requirement without schemes.
 */
export function extendedRoutes(route: ExtendedRoute, schemes: NormalizedCard['securitySchemes']): CredentialRoute[] {
  return Object.keys(route.requirement).flatMap((scheme) => {
    const definition = Object.hasOwn(schemes, scheme) ? schemes[scheme] : undefined;
    const token = clientCredentialsTokenUrl(definition);
    const request: CredentialRoute = {
      purpose: 'extended',
      origin: credentialOriginOf(route.iface.url),
      scheme,
      placement: placement(definition),
    };
    return token !== undefined ? [request, tokenRoute(token, scheme)] : [request];
  });
}

/** Whether `route` goes where `other` goes: same origin, same scheme name, placed alike (purpose and skill aside). */
export function sameDestination(route: CredentialRoute, other: CredentialRoute): boolean {
  return route.origin === other.origin && route.scheme === other.scheme && sameJson(route.placement, other.placement);
}

/**
 * The routes of `head` that no route of `base` covers ({@link sameDestination}), each once. With an
 * empty `base` (a new agent), every route of `head`.
 */
export function uncoveredRoutes(base: readonly CredentialRoute[], head: readonly CredentialRoute[]): CredentialRoute[] {
  const out: CredentialRoute[] = [];
  for (const route of head) {
    if (base.some((b) => sameDestination(route, b))) continue;
    if (out.some((o) => sameDestination(route, o) && o.purpose === route.purpose)) continue;
    out.push(route);
  }
  return out;
}
