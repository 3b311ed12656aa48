/**
 * Resolve one agent from the network: load its card, check its signature, fetch and use the
 * extended card when the agent has one, and negotiate every manifest skill into a lock entry.
 */
import { integrityOf } from '../canonical.js';
import type { NormalizedCard, Warning } from '../card/model.js';
import { normalizeCard } from '../card/normalize.js';
import { A2aLockError } from '../errors.js';
import { destinationRefusal } from '../lock/credential-policy.js';
import { credentialRoutes, extendedRoutes, originAuthRoutes } from '../lock/credential-routes.js';
import { negotiateSkills, schemeDrift, signaturesDrift } from '../lock/drift.js';
import { lockedNegotiationCard } from '../lock/offline.js';
import type { Resolution } from '../lock/report.js';
import { type ExtendedRoute, lockedExtendedRoute, routeFor } from '../lock/route.js';
import { entryOrigins, originAuthRecord } from '../lock/satisfies.js';
import type { LockEntry } from '../lock/schema.js';
import { type AgentEntry, type AgentSettings, planKeys } from '../manifest/schema.js';
import { type ReadCard, readExtended } from './extended.js';
import { cardSourceOf, loadAgentCard, withOriginAuthLoaded } from './load-card.js';
import type { ResolveOptions } from './options.js';
import { probeAgent } from './probe.js';
import { signatureOf } from './signature.js';

/** What binds one resolution to the lockfile. */
export interface ResolveAgentOptions {
  /**
   * The agent's locked entry when its negotiation inputs did not change: every skill it locked
   * must negotiate on the fresh card to exactly its locked plan, each scheme those plans name must
   * be presented alike, and a locked verified signature must still verify with the same key;
   * anything else is drift (run `a2a update`), never a silent change.
   */
  constrainTo?: LockEntry;
  /**
   * The locked entry whose route the extended card's credential may take (`lock/route.ts`):
   * absent, it goes where the served card says (a first lock, `a2a update`).
   */
  credentialRouteFrom?: LockEntry;
}

/**
 * Resolve one agent (see the module comment); the lock stays self-consistent: its plans are what
 * its snapshots negotiate.
 * @returns the entry, or no entry with the refusals or drift that stopped it
 * @throws InvalidInputError / FetchError / A2aLockError (`credential-unset`, `signature-required`)
 */
export async function resolveAgent(
  entry: AgentEntry,
  settings: AgentSettings,
  given: ResolveOptions,
  bound: ResolveAgentOptions = {},
): Promise<Resolution> {
  // credentialDestinations: an originAuth origin it does not allow is refused before any request.
  const policy = given.credentialDestinations;
  const platform = originAuthRoutes({ originAuth: given.originAuthConfig ?? {} });
  const refusedPlatform = destinationRefusal(entry.card, platform, policy);
  if (refusedPlatform) throw refusedPlatform;
  // The agent's own "allowHttp" (a2a.json) allows plain http for its card and key set, as --allow-http does for all.
  // Its requests authenticate at the manifest's originAuth origins; those used are recorded.
  const authenticated = new Set<string>();
  const options = await withOriginAuthLoaded(
    settings.allowHttp ? { ...given, allowHttp: true } : given,
    given.originAuthConfig,
    (origin) => authenticated.add(origin),
  );
  const locked = bound.constrainTo;
  const skills = planKeys(entry);
  const loaded = await loadAgentCard(entry.card, settings, options);
  const warnings: Warning[] = [...loaded.warnings];
  const normalized = normalizeCard(loaded.raw, cardSourceOf(loaded, settings));
  warnings.push(...normalized.warnings);
  const signature = await signatureOf(loaded.raw, settings, options, warnings, [loaded.baseUrl]);
  if (settings.requireSignature && signature.status !== 'verified') {
    throw new A2aLockError(
      'signature-required',
      `${loaded.source}: card signature is ${signature.status}; the manifest requires a verified signature`,
      {
        hint: 'ask the agent to sign its card, or set trust.jwks to the keys it signs with',
      },
    );
  }
  let card = normalized.card;
  const read = await extendedOf(card, entry, settings, bound, skills, loaded.baseUrl, options, warnings);
  if ('drift' in read) return { refusals: [], drift: read.drift, traces: {}, warnings, card };
  const { extended } = read;
  if (extended) card = extended.card;

  const { plans, refusals, drift, traces } = negotiateSkills(card, skills, settings, locked?.plans);
  if (locked) {
    // A locked plan's scheme the card now presents differently (a header become a query
    // parameter) moves it too, though the plan's fields are equal.
    const kept = Object.fromEntries(Object.entries(locked.plans).filter(([skill]) => skills.includes(skill)));
    drift.push(...schemeDrift(kept, lockedNegotiationCard(locked, entry.card, settings), card));
  }
  const signatures = locked ? signaturesDrift(locked, { signature, extended }) : [];
  if (refusals.length > 0 || drift.length > 0 || signatures.length > 0) {
    return { refusals, drift, ...(signatures.length ? { signatureDrift: signatures } : {}), traces, warnings, card };
  }
  const originAuth = originAuthRecord(
    [
      ...entryOrigins({
        resolved: loaded.resolved,
        extended: extended ? { resolved: extended.url } : undefined,
        plans,
      }),
      ...authenticated,
    ],
    given.originAuthConfig,
  );
  // credentialDestinations holds for every route of the entry: checked where the lockfile is assembled (`lock/sync-plan.ts`).
  const lockEntry: LockEntry = {
    card: entry.card,
    resolved: loaded.resolved,
    ...(loaded.versionHeader !== undefined && loaded.versionHeader !== settings.versions[0]
      ? { versionHeader: loaded.versionHeader }
      : {}),
    a2aVersion: normalized.card.shape,
    version: normalized.card.version,
    integrity: integrityOf(loaded.raw),
    snapshot: loaded.raw,
    signature,
    ...(extended
      ? {
          extended: {
            resolved: extended.url,
            integrity: integrityOf(extended.raw),
            snapshot: extended.raw,
            signature: extended.signature,
          },
        }
      : {}),
    plans,
    ...(originAuth ? { originAuth } : {}),
  };
  // A probe carries the plan's credential: an entry the destination policy refuses is not probed (sync-plan refuses it).
  // The routes are walked only when there is a list to hold them to.
  const refused = policy !== undefined && destinationRefusal(entry.card, credentialRoutes(lockEntry, settings), policy);
  const probed =
    given.probe && !refused ? await probeAgent(plans, card, entry, settings, options, warnings) : undefined;
  return { entry: probed ? { ...lockEntry, probe: probed } : lockEntry, refusals, drift, traces, warnings, card };
}

/**
 * The agent's extended card, when its card says it serves one: read along the route `lock` used
 * (`bound.credentialRouteFrom`; `drift` when the card no longer agrees with it) or the route the
 * skills choose, with the entry's credential.
 * @throws A2aLockError `signature-required` for an extended card whose signature the manifest requires and is not verified
 */
async function extendedOf(
  card: NormalizedCard,
  entry: AgentEntry,
  settings: AgentSettings,
  bound: ResolveAgentOptions,
  skills: string[],
  baseUrl: string | undefined,
  options: ResolveOptions,
  warnings: Warning[],
): Promise<{ extended: ReadCard | undefined } | { drift: ReturnType<typeof lockedExtendedRoute>['drift'] }> {
  if (!card.capabilities.extendedAgentCard) return { extended: undefined };
  let route: ExtendedRoute | undefined;
  let schemes = card.securitySchemes;
  if (bound.credentialRouteFrom) {
    const guarded = lockedExtendedRoute(bound.credentialRouteFrom, card, settings, warnings);
    if (guarded.drift.length > 0) return { drift: guarded.drift };
    ({ route, schemes } = guarded);
  } else {
    // Skill ids sorted, as the lockfile stores its plans: the guard finds the same route later.
    route = routeFor(card, [...skills].sort(), settings, warnings);
  }
  const refused =
    route && destinationRefusal(entry.card, extendedRoutes(route, schemes), options.credentialDestinations);
  if (refused) throw refused;
  const extended = route
    ? await readExtended(route, { schemes, credentials: entry.credentials, settings, baseUrl }, options, warnings)
    : undefined;
  if (extended && settings.requireSignature && extended.signature.status !== 'verified') {
    throw new A2aLockError(
      'signature-required',
      `${extended.url} (extended card): signature is ${extended.signature.status}; the manifest requires a verified signature`,
    );
  }
  return { extended };
}
