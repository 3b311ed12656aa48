/**
 * Where the extended card's credential may go (A2A 1.0 GetExtendedAgentCard, §3.1.11): through
 * which interface, with which security requirement. A first resolution takes the profile's
 * interface and the card's first satisfiable requirement ({@link routeFor}); a locked agent only
 * the route `lock` took ({@link lockedExtendedRoute}), and only while the card served now agrees
 * with it. A card, or an edited lockfile, never picks a new place for a secret without `a2a update`.
 * Pure: the credential itself is read and sent in `resolve/extended.ts`.
 */
import { isCleartextOffLoopback } from '../card/host.js';
import type { AgentInterface, NormalizedCard, SecurityRequirement, Warning } from '../card/model.js';
import { type AgentSettings, profileOf } from '../manifest/schema.js';
import { chooseInterface, chooseRequirement } from '../negotiate/negotiate.js';
import { schemeChange } from './drift.js';
import { lockedPublicCard } from './offline.js';
import type { PlanDrift } from './report.js';
import type { LockEntry } from './schema.js';

/** Where the extended card is fetched through: an interface and a security requirement. */
export interface ExtendedRoute {
  iface: Pick<AgentInterface, 'url' | 'protocolBinding' | 'protocolVersion' | 'tenant'>;
  requirement: SecurityRequirement;
}

/**
 * The route for a first resolution: the profile's interface and the card's first satisfiable
 * requirement (the card's own; when it has none, the first of `skills`, in the order given, that
 * has one). Undefined, with a `no-extended-card` warning, when no credential held satisfies one.
 */
export function routeFor(
  card: NormalizedCard,
  skills: readonly string[],
  settings: AgentSettings,
  warnings: Warning[],
): ExtendedRoute | undefined {
  const { interface: iface } = chooseInterface(card, profileOf(settings), undefined, settings.allowHttp === true);
  if (!iface) return undefined; // negotiation refuses with no-common-interface or plain-http
  let requirements = card.securityRequirements;
  if (requirements.length === 0) {
    for (const id of skills) {
      const skill = card.skills.find((s) => s.id === id);
      if (skill?.securityRequirements?.length) {
        requirements = skill.securityRequirements;
        break;
      }
    }
  }
  const requirement = requirements.length ? chooseRequirement(requirements, new Set(settings.credentials)) : {};
  if (!requirement) {
    warnings.push({
      code: 'no-extended-card',
      message: "the extended card was not fetched: no credential held satisfies the card's security requirements",
    });
    return undefined;
  }
  // A credential never crosses the network in cleartext, "allowHttp" or not.
  if (Object.keys(requirement).length > 0 && isCleartextOffLoopback(iface.url)) {
    warnings.push({
      code: 'no-extended-card',
      message: `the extended card was not fetched: ${iface.url} is plain http to a host that is not loopback, and a credential is never sent over it`,
    });
    return undefined;
  }
  return { iface, requirement };
}

/** The outcome of {@link lockedExtendedRoute}: a route (none when the locked card had none), the schemes to place with, and drift. */
export interface GuardedRoute {
  route?: ExtendedRoute;
  /** The locked public card's schemes: the credential is placed the locked way. */
  schemes: NormalizedCard['securitySchemes'];
  /** Non-empty when the served card no longer agrees with the route; then `route` is absent and nothing may be sent. */
  drift: PlanDrift[];
}

/**
 * Where a credential for the extended card of a locked agent may go: along the route `lock` took
 * (chosen on the locked public card, skills in the lockfile's order), and only if `served` still
 * offers that interface and presents each scheme of the requirement the same way (same header,
 * query parameter or cookie, same format). Otherwise the drift that says why, and no route.
 * @throws InvalidInputError `card-invalid` when the locked snapshot is no longer a valid card
 */
export function lockedExtendedRoute(
  previous: LockEntry,
  served: NormalizedCard,
  settings: AgentSettings,
  warnings: Warning[],
): GuardedRoute {
  const lockedPublic = lockedPublicCard(previous, previous.card, settings);
  const skills = Object.keys(previous.plans).sort();
  const route = routeFor(lockedPublic, skills, settings, warnings);
  if (!route) return { schemes: lockedPublic.securitySchemes, drift: [] };
  // Drift for the skills whose plan uses the scheme; all of them when none does (every plan is
  // negotiated against the extended card this route fetches).
  const affected = (scheme?: string): string[] => {
    const using =
      scheme === undefined ? [] : skills.filter((skill) => Object.hasOwn(previous.plans[skill]!.security, scheme));
    return using.length > 0 ? using : skills;
  };
  const drift: PlanDrift[] = [];
  for (const name of Object.keys(route.requirement)) {
    for (const skill of affected(name)) {
      const change = schemeChange(skill, name, lockedPublic, served);
      if (change) drift.push(change);
    }
  }
  const { url, protocolBinding, protocolVersion, tenant } = route.iface;
  const offered = served.supportedInterfaces.some(
    (i) =>
      i.url === url &&
      i.protocolBinding === protocolBinding &&
      i.protocolVersion === protocolVersion &&
      (i.tenant ?? '') === (tenant ?? ''),
  );
  if (!offered) {
    for (const skill of affected())
      drift.push({
        skill,
        field: 'supportedInterfaces',
        locked: { url, protocolBinding, protocolVersion, ...(tenant ? { tenant } : {}) },
        fresh: null,
      });
  }
  return drift.length > 0
    ? { schemes: lockedPublic.securitySchemes, drift }
    : { route, schemes: lockedPublic.securitySchemes, drift: [] };
}
