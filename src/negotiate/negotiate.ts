/**
 * negotiate(): card + skill + client profile → call plan, or a refusal with a stable code.
 * Pure and deterministic: no I/O, no clock, no randomness.
 *
 * The five steps of the capability-negotiation design (interface, security, media types,
 * delivery, extensions), preceded by the skill lookup and the optional semver range check.
 * Spec: A2A 1.0 §3.6 (versions), §8.3 (interfaces), §4.5 / securityRequirements, §3.2.2
 * (acceptedOutputModes), §3.1.2/§3.1.7 (streaming, push), §4.6 (extensions).
 */

// The functions used, not the package index (which loads all of semver: 47 modules).
import satisfies from 'semver/functions/satisfies.js';
import { sameJson } from '../canonical.js';
import { contactedHostNote, isCleartextOffLoopback, isUnspecifiedUrl } from '../card/host.js';
import { sameMediaType } from '../card/media.js';
import type { AgentInterface, AgentSkill, NormalizedCard, SecurityRequirement } from '../card/model.js';
import { cardSemver, majorMinor } from '../card/version.js';
import {
  AGENT_LEVEL,
  type ClientProfile,
  type Delivery,
  type FallbackInterface,
  type NegotiationResult,
  type Plan,
  type PlanFallbacks,
  type RefusalCode,
  type TraceStep,
} from './types.js';

/** Options of {@link negotiate}. */
export interface NegotiateOptions {
  /** A semver range the card's `version` must satisfy (manifest `version`), else `version-out-of-range`. */
  versionRange?: string;
  /**
   * A locked plan: negotiate with the profile narrowed to the locked choices (the locked interface
   * URL, binding and version; the locked security requirement; accepts = the locked output modes;
   * the locked delivery; the locked extensions). Any plan this yields that differs from `locked`
   * is beyond the lockfile.
   */
  locked?: Plan;
  /**
   * Allow plain `http://` (and gRPC `grpc://`) interfaces and a push endpoint on a host that is
   * not loopback (the manifest's per-agent `allowHttp`). Default false: such interfaces are not
   * candidates, and when only they (or only such a push endpoint) would give a plan the refusal is
   * `plain-http`. Loopback hosts (localhost, 127.0.0.0/8, ::1) are always allowed.
   */
  allowHttp?: boolean;
}

/**
 * Negotiate a call plan for one skill.
 *
 * @param card normalised agent card ({@link normalizeCard})
 * @param skillId the skill to call (AgentSkill.id), or {@link AGENT_LEVEL} (`"*"`) for the agent-level plan: no
 *   skill, the card's default modes and card-level security requirements
 * @param profile what the client implements, lists in preference order
 * @param credentials names of the security schemes (as the card names them) the client holds
 * @returns `{ plan, trace }` or `{ refusal, trace }`: a refusal is a value, not an exception. Never throws
 *   for a normalised card and a profile of the {@link ClientProfile} shape (check JSON input with
 *   `ProfileSchema` first; the hot path does not re-validate its arguments).
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the decision reads best as one list of labelled steps (skill, version, interface, security, media, delivery, extensions, fallbacks), top to bottom.
export function negotiate(
  card: NormalizedCard,
  skillId: string,
  profile: ClientProfile,
  credentials: Iterable<string>,
  options: NegotiateOptions = {},
): NegotiationResult {
  const trace: TraceStep[] = [];
  const refuse = (
    step: TraceStep['step'],
    code: RefusalCode,
    message: string,
    candidates?: unknown[],
  ): NegotiationResult => {
    trace.push({ step, ok: false, detail: message, ...(candidates ? { candidates } : {}) });
    return { refusal: { code, message }, trace };
  };

  const { locked } = options;
  const effective: ClientProfile = locked ? narrow(profile, locked) : profile;
  const holding = new Set(credentials);
  const held = locked ? new Set(Object.keys(locked.security).filter((s) => holding.has(s))) : holding;

  // Skill lookup ("*": the agent itself, with the card's defaults).
  const skill = skillId === AGENT_LEVEL ? agentLevelSkill(card) : card.skills.find((s) => s.id === skillId);
  if (!skill) {
    const ids = card.skills.map((s) => s.id);
    return refuse(
      'skill',
      'skill-not-found',
      `card has no skill "${skillId}" (skills: ${ids.length ? ids.map((i) => `"${i}"`).join(', ') : 'none'})`,
      ids,
    );
  }
  trace.push({
    step: 'skill',
    ok: true,
    detail:
      skillId === AGENT_LEVEL
        ? `agent-level plan "${AGENT_LEVEL}": no skill; the card's default modes and card-level security requirements`
        : `skill "${skill.id}" (${skill.name})`,
    chosen: skill.id,
  });

  // Agent version range.
  if (options.versionRange !== undefined) {
    // "1.0", "2", "v1.2": coerced (normalizeCard warns version-not-semver); a date or words: refused.
    const version = cardSemver(card.version)?.semver;
    if (!version) {
      return refuse(
        'version',
        'version-out-of-range',
        `card version "${card.version}" is not semver; manifest requires ${options.versionRange}`,
      );
    }
    const read = version === card.version ? '' : ` (read as ${version})`;
    if (!satisfies(version, options.versionRange, { loose: true })) {
      return refuse(
        'version',
        'version-out-of-range',
        `card version ${card.version}${read} does not satisfy ${options.versionRange}`,
      );
    }
    trace.push({
      step: 'version',
      ok: true,
      detail: `card version ${card.version}${read} satisfies ${options.versionRange}`,
      chosen: card.version,
    });
  }

  // Step 1: interface. Version-major order: for each profile version, for each profile binding,
  // the first interface the card offers wins; card order only breaks ties.
  const allowHttp = options.allowHttp === true;
  const { interface: iface, tried, cleartext } = chooseInterface(card, effective, locked, allowHttp);
  if (!iface && cleartext.length > 0) {
    const where = cleartext.map((i) => `${i.protocolBinding} ${i.protocolVersion} at ${i.url}`).join('; ');
    // A server advertising the address it binds (0.0.0.0, ::): allowHttp would lock an unreachable address.
    const bound = cleartext.find((i) => isUnspecifiedUrl(i.url));
    const fix = bound
      ? `the card advertises its bind address (${bound.url}), which no client can reach; set "rebaseInterfaces": true on the agent in a2a.json to lock it at the origin the card came from`
      : 'set "allowHttp": true on the agent in a2a.json to lock it anyway (a credential is never sent over it)';
    return refuse(
      'interface',
      'plain-http',
      `the card offers the profile's interfaces only over plain http to a host that is not loopback (${where}); ${fix}`,
      tried,
    );
  }
  if (!iface) {
    const offered = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} at ${i.url}`);
    const needed = locked
      ? `the locked ${locked.protocolBinding} ${locked.protocolVersion} at ${locked.url}`
      : `one of ${tried.join(', ')}`;
    return refuse(
      'interface',
      'no-common-interface',
      `card offers ${offered.join('; ') || 'no interface'}; needed ${needed}`,
      tried,
    );
  }
  trace.push({
    step: 'interface',
    ok: true,
    detail: `${iface.protocolBinding} ${iface.protocolVersion} at ${iface.url}${contactedHostNote(iface.url)} (candidate ${tried.length} of the profile's order)${cleartext.length ? `; passed over, plain http to a host that is not loopback: ${cleartext.map((i) => i.url).join(', ')}` : ''}`,
    candidates: tried,
    chosen: { ...iface },
  });

  // Step 2: security. The skill's requirements if it has any, else the card's; the first
  // alternative (card order) whose schemes are all held.
  const requirements: SecurityRequirement[] = skill.securityRequirements?.length
    ? skill.securityRequirements
    : card.securityRequirements;
  const whose = skill.securityRequirements?.length ? `skill "${skill.id}"` : 'the card';
  const who = skillId === AGENT_LEVEL ? 'the agent' : `skill "${skill.id}"`;
  let security: Record<string, string[]> = {};
  if (requirements.length > 0) {
    const match = chooseRequirement(requirements, held);
    const alternatives = requirements.map(describeRequirement);
    if (!match) {
      const holding = held.size ? [...held].map((h) => `"${h}"`).join(', ') : 'none';
      return refuse(
        'security',
        'missing-credential',
        `${whose} requires ${alternatives.join(' or ')}; credentials held: ${holding}`,
        alternatives,
      );
    }
    security = Object.fromEntries(Object.entries(match).map(([k, scopes]) => [k, [...scopes]]));
    trace.push({
      step: 'security',
      ok: true,
      detail: `${whose}: ${describeRequirement(match)}`,
      candidates: alternatives,
      chosen: security,
    });
  } else {
    trace.push({ step: 'security', ok: true, detail: `${whose} lists no security requirement`, chosen: {} });
  }

  // Step 3: media types, both directions.
  const inputs = skill.inputModes?.length ? skill.inputModes : card.defaultInputModes;
  const outputs = skill.outputModes?.length ? skill.outputModes : card.defaultOutputModes;
  const rejected = effective.sends.filter((t) => !inputs.some((m) => sameMediaType(m, t)));
  if (rejected.length > 0) {
    return refuse('media', 'input-mode-not-accepted', `${who} accepts ${list(inputs)}; client sends ${list(rejected)}`);
  }
  const acceptedOutputModes: string[] = [];
  for (const want of effective.accepts) {
    const theirs = outputs.find((m) => sameMediaType(m, want));
    if (theirs !== undefined && !acceptedOutputModes.includes(theirs)) acceptedOutputModes.push(theirs);
  }
  if (acceptedOutputModes.length === 0) {
    return refuse(
      'media',
      'no-common-output-mode',
      `${who} outputs ${list(outputs)}; client accepts ${list(effective.accepts)}`,
      [...effective.accepts],
    );
  }
  trace.push({
    step: 'media',
    ok: true,
    detail: `inputs ${list(inputs)} take ${list(effective.sends)}; accept ${list(acceptedOutputModes)}`,
    candidates: [...effective.accepts],
    chosen: acceptedOutputModes,
  });

  // Step 4: delivery.
  let delivery: Delivery;
  if (card.capabilities.streaming && effective.streaming) delivery = 'stream';
  else if (card.capabilities.pushNotifications && effective.pushEndpoint) delivery = 'push';
  else delivery = 'poll';
  if (delivery === 'push' && !allowHttp && isCleartextOffLoopback(effective.pushEndpoint!)) {
    return refuse(
      'delivery',
      'plain-http',
      `push endpoint ${effective.pushEndpoint} is plain http to a host that is not loopback; use https, or set "allowHttp": true on the agent in a2a.json`,
    );
  }
  trace.push({
    step: 'delivery',
    ok: true,
    detail: `${delivery} (card streaming: ${card.capabilities.streaming}, push: ${card.capabilities.pushNotifications}; client streaming: ${effective.streaming}, push endpoint: ${effective.pushEndpoint ? 'yes' : 'no'})`,
    chosen: delivery,
  });

  // Step 5: extensions.
  const exts = card.capabilities.extensions;
  const missing = exts.filter((e) => e.required && !effective.extensions.includes(e.uri)).map((e) => e.uri);
  if (missing.length > 0) {
    return refuse(
      'extensions',
      'required-extension-unsupported',
      `card requires extension${missing.length > 1 ? 's' : ''} ${list(missing)}; client implements ${list(effective.extensions)}`,
    );
  }
  const active: string[] = [];
  for (const e of exts) if (effective.extensions.includes(e.uri) && !active.includes(e.uri)) active.push(e.uri);
  trace.push({
    step: 'extensions',
    ok: true,
    detail: active.length ? `active ${list(active)}` : 'none active',
    candidates: exts.map((e) => e.uri),
    chosen: active,
  });

  // Fallbacks: the interfaces the profile would pick next, and poll for stream/push. Narrowed to a
  // locked plan, only its locked fallbacks the card and profile still offer: a vanished one shows
  // as a difference (drift); a new one is not added (the runtime never uses it before an update).
  const next = fallbackInterfaces(card, profile, iface, allowHttp);
  const interfaces = locked
    ? (locked.fallbacks?.interfaces ?? []).filter((l) => next.some((n) => sameInterface(n, l)))
    : next;
  const fallbacks: PlanFallbacks = { interfaces, delivery: delivery === 'poll' ? [] : ['poll'] };
  const plan: Plan = {
    url: iface.url,
    protocolBinding: iface.protocolBinding,
    protocolVersion: iface.protocolVersion,
    ...(iface.tenant ? { tenant: iface.tenant } : {}),
    security,
    acceptedOutputModes,
    delivery,
    extensions: active,
    ...(fallbacks.interfaces.length + fallbacks.delivery.length > 0 ? { fallbacks } : {}),
  };
  return { plan, trace };
}

/** The stand-in skill of the agent-level plan: no modes or requirements of its own, so the card's apply. */
export function agentLevelSkill(card: NormalizedCard): AgentSkill {
  return { id: AGENT_LEVEL, name: card.name, description: card.description, tags: [] };
}

/**
 * Every card interface the profile accepts other than `chosen`, in the order step 1 tries them
 * (for each profile version, for each profile binding, card order), without duplicates.
 */
function fallbackInterfaces(
  card: NormalizedCard,
  profile: Pick<ClientProfile, 'bindings' | 'versions'>,
  chosen: AgentInterface,
  allowHttp: boolean,
): FallbackInterface[] {
  const out: FallbackInterface[] = [];
  for (const v of profile.versions) {
    const want = majorMinor(v);
    for (const b of profile.bindings) {
      for (const i of card.supportedInterfaces) {
        if (
          i.protocolBinding !== b ||
          i.protocolVersion !== want ||
          sameInterface(i, chosen) ||
          out.some((o) => sameInterface(o, i))
        )
          continue;
        if (!allowHttp && isCleartextOffLoopback(i.url)) continue;
        out.push({
          url: i.url,
          protocolBinding: i.protocolBinding,
          protocolVersion: i.protocolVersion,
          ...(i.tenant ? { tenant: i.tenant } : {}),
        });
      }
    }
  }
  return out;
}

/**
 * Step 1 alone: the interface the profile prefers among those the card offers, in version-major
 * order (for each profile version, for each profile binding; card order breaks ties). With
 * `locked`, only the locked URL and tenant qualify. Without `allowHttp`, an interface that is
 * plain http (or `grpc://`) to a host that is not loopback is no candidate: it is listed in
 * `cleartext` instead (those the profile would otherwise have taken). `tried` lists the candidates in order.
 */
export function chooseInterface(
  card: NormalizedCard,
  profile: Pick<ClientProfile, 'bindings' | 'versions'>,
  locked?: Pick<Plan, 'url' | 'tenant'>,
  allowHttp = false,
): { interface: AgentInterface | undefined; tried: string[]; cleartext: AgentInterface[] } {
  const tried: string[] = [];
  const cleartext: AgentInterface[] = [];
  for (const v of profile.versions) {
    const want = majorMinor(v);
    for (const b of profile.bindings) {
      tried.push(`${b} ${want}`);
      const matching = card.supportedInterfaces.filter(
        (i) =>
          i.protocolBinding === b &&
          i.protocolVersion === want &&
          (!locked || (i.url === locked.url && (i.tenant ?? '') === (locked.tenant ?? ''))),
      );
      for (const found of matching) {
        if (!allowHttp && isCleartextOffLoopback(found.url)) {
          if (!cleartext.includes(found)) cleartext.push(found);
          continue;
        }
        return { interface: found, tried, cleartext };
      }
    }
  }
  return { interface: undefined, tried, cleartext };
}

/** Same binding, version, URL and tenant. */
function sameInterface(a: FallbackInterface, b: FallbackInterface): boolean {
  return (
    a.protocolBinding === b.protocolBinding &&
    a.protocolVersion === b.protocolVersion &&
    a.url === b.url &&
    (a.tenant ?? '') === (b.tenant ?? '')
  );
}

/** Step 2 alone: the first requirement (card order) whose schemes are all held; `{}` matches anyone. */
export function chooseRequirement(
  requirements: readonly SecurityRequirement[],
  held: ReadonlySet<string>,
): SecurityRequirement | undefined {
  return requirements.find((r) => Object.keys(r).every((s) => held.has(s)));
}

/** The profile narrowed to a locked plan's choices ("beyond the lockfile" check). */
/**
 * The profile narrowed to a locked plan's choices, intersected with what the profile still
 * implements: a locked choice the client no longer supports is not offered ("beyond the lockfile").
 */
function narrow(profile: ClientProfile, locked: Plan): ClientProfile {
  const versions = profile.versions.map((v) => majorMinor(v));
  return {
    bindings: profile.bindings.includes(locked.protocolBinding) ? [locked.protocolBinding] : [],
    versions: versions.includes(majorMinor(locked.protocolVersion)) ? [locked.protocolVersion] : [],
    accepts: locked.acceptedOutputModes.filter((m) => profile.accepts.some((a) => sameMediaType(a, m))),
    sends: [...profile.sends],
    streaming: locked.delivery === 'stream' && profile.streaming,
    pushEndpoint: locked.delivery === 'push' ? profile.pushEndpoint : null,
    extensions: locked.extensions.filter((e) => profile.extensions.includes(e)),
  };
}

/** `[bearer]`, `[oauth (read write) + apiKey]`, `[no authentication]`: one alternative for humans. */
export function describeRequirement(r: SecurityRequirement): string {
  const parts = Object.entries(r).map(([name, scopes]) => (scopes.length ? `${name} (${scopes.join(' ')})` : name));
  return parts.length ? `[${parts.join(' + ')}]` : '[no authentication]';
}

function list(values: readonly string[]): string {
  return values.length ? values.join(', ') : '(none)';
}

/**
 * Field-by-field differences between two plans: `[field, locked, fresh]`, empty when equal. Objects
 * compare regardless of key order; arrays keep their order (it is preference); output modes compare
 * as media types (`text` and `text/plain` are one mode, in whichever spelling the plan carries). `fallbacks` is a
 * field like any other: a new or vanished alternative is an interface the runtime may (or may no
 * longer) use, so it is beyond the lockfile.
 */
export function diffPlans(locked: Plan, fresh: Plan): Array<{ field: keyof Plan; locked: unknown; fresh: unknown }> {
  const fields: Array<keyof Plan> = [
    'url',
    'protocolBinding',
    'protocolVersion',
    'tenant',
    'security',
    'acceptedOutputModes',
    'delivery',
    'extensions',
    'fallbacks',
  ];
  const out: Array<{ field: keyof Plan; locked: unknown; fresh: unknown }> = [];
  for (const field of fields) {
    const equal =
      field === 'acceptedOutputModes'
        ? sameModes(locked.acceptedOutputModes, fresh.acceptedOutputModes)
        : sameJson(locked[field] ?? null, fresh[field] ?? null);
    if (!equal) {
      out.push({ field, locked: locked[field], fresh: fresh[field] });
    }
  }
  return out;
}

/** Two mode lists, in order, media type by media type ({@link sameMediaType}). */
function sameModes(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (!a || !b) return a === b;
  return a.length === b.length && a.every((m, i) => sameMediaType(m, b[i]!));
}
