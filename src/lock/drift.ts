/**
 * Drift: how a card read now goes beyond a locked entry. Each locked plan is negotiated again on
 * the fresh card (with the profile narrowed to its locked choices, or as `lock` would), and any
 * refusal or differing plan field is drift; so is a scheme the fresh card presents differently
 * (where the credential goes), and a locked verified signature that no longer verifies with the
 * same key. {@link servedVerdict} turns all of it into one agent's report. Pure.
 */
import { sameJson } from '../canonical.js';
import type { NormalizedCard, SecurityScheme } from '../card/model.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { clientCredentialsTokenUrl, placeCredential } from '../credentials.js';
import { own } from '../json-path.js';
import { type AgentSettings, profileOf } from '../manifest/schema.js';
import { type Explanation, explainNegotiation } from '../negotiate/explain.js';
import { diffPlans, negotiate } from '../negotiate/negotiate.js';
import type { NegotiationResult, Plan, Refusal, TraceStep } from '../negotiate/types.js';
import { type CardSide, cardChanges, changeKind } from './changes.js';
import {
  type AgentReport,
  changedReport,
  driftReport,
  okReport,
  type PlanDrift,
  type SignatureDrift,
  type SkillRefusal,
} from './report.js';
import { isResigned } from './resign.js';
import type { LockEntry } from './schema.js';

/** The options of negotiate() these settings give: `versionRange`, and `allowHttp` when the agent allows plain http. */
function versionRangeOption(settings: AgentSettings): { versionRange?: string; allowHttp?: boolean } {
  return {
    ...(settings.versionRange !== undefined ? { versionRange: settings.versionRange } : {}),
    ...(settings.allowHttp ? { allowHttp: true } : {}),
  };
}

/**
 * One skill negotiated on `card` with an agent's locked or manifest settings: its profile, the
 * credentials held and its version range. With `locked`, the profile is narrowed to that plan's
 * choices (the check "beyond the lockfile").
 */
function negotiateSkill(
  card: NormalizedCard,
  skill: string,
  settings: AgentSettings,
  locked?: Plan,
): NegotiationResult {
  return negotiate(card, skill, profileOf(settings), settings.credentials, {
    ...versionRangeOption(settings),
    ...(locked ? { locked } : {}),
  });
}

/** {@link negotiateSkill} with each step explained (the candidates, the rule that chose): what `a2a why` prints. */
export function explainSkill(card: NormalizedCard, skill: string, settings: AgentSettings): Explanation {
  return explainNegotiation(card, skill, profileOf(settings), settings.credentials, versionRangeOption(settings));
}

/** Every skill of {@link negotiateSkills}: the plans, the refusals and drift, the traces. */
export interface NegotiatedSkills {
  /** Skill id → the plan negotiated now (locked skills included, whatever their drift). */
  plans: Record<string, Plan>;
  /** Skills not in `locked` that negotiation refused. */
  refusals: SkillRefusal[];
  /** Skills in `locked` whose plan now differs (one entry per field) or is refused. */
  drift: PlanDrift[];
  traces: Record<string, TraceStep[]>;
}

/**
 * Negotiate `skills` on `card` as `lock` does (not narrowed). A skill with a plan in `locked` must
 * negotiate to exactly that plan: each differing field, or its refusal, is drift.
 */
export function negotiateSkills(
  card: NormalizedCard,
  skills: readonly string[],
  settings: AgentSettings,
  locked: Record<string, Plan> = {},
): NegotiatedSkills {
  const out: NegotiatedSkills = { plans: {}, refusals: [], drift: [], traces: {} };
  for (const skill of skills) {
    const result = negotiateSkill(card, skill, settings);
    out.traces[skill] = result.trace;
    const lockedPlan = own(locked, skill);
    if (result.plan) {
      out.plans[skill] = result.plan;
      if (lockedPlan) out.drift.push(...fieldDrift(skill, lockedPlan, result.plan));
    } else if (lockedPlan)
      out.drift.push({ skill, refusal: result.refusal, ...missing(card, skill, result.refusal, settings) });
    else out.refusals.push({ skill, refusal: result.refusal, ...missing(card, skill, result.refusal, settings) });
  }
  return out;
}

/**
 * For a `missing-credential` refusal, `{schemes}`: the scheme names of the first security requirement
 * (card order) that applies to `skill` (the skill's own, else the card's) that `settings` does not
 * hold (all of them when it holds every one); `{}` for any other refusal.
 */
function missing(
  card: NormalizedCard,
  skill: string,
  refusal: Refusal,
  settings: Pick<AgentSettings, 'credentials'>,
): { schemes?: string[] } {
  if (refusal.code !== 'missing-credential') return {};
  const own = card.skills.find((s) => s.id === skill)?.securityRequirements;
  const requirements = own?.length ? own : card.securityRequirements;
  const schemes = Object.keys(requirements[0] ?? {});
  const unheld = schemes.filter((s) => !settings.credentials.includes(s));
  return { schemes: unheld.length ? unheld : schemes };
}

/**
 * The locked plans checked on `card` with the profile narrowed to each one's locked choices: a
 * narrowed refusal (with, when `lock` would still find a plan, the fields `a2a update` would change)
 * or the fields that differ.
 * @internal
 */
export function narrowedDrift(
  card: NormalizedCard,
  settings: AgentSettings,
  locked: Record<string, Plan>,
): PlanDrift[] {
  const drift: PlanDrift[] = [];
  for (const [skill, plan] of Object.entries(locked)) {
    const result = negotiateSkill(card, skill, settings, plan);
    if (result.plan) {
      drift.push(...fieldDrift(skill, plan, result.plan));
      continue;
    }
    const unconstrained = negotiateSkill(card, skill, settings);
    drift.push(
      { skill, refusal: result.refusal, ...missing(card, skill, result.refusal, settings) },
      ...(unconstrained.plan ? fieldDrift(skill, plan, unconstrained.plan) : []),
    );
  }
  return drift;
}

/** The fields in which `fresh` differs from `locked`, as drift entries of `skill`. */
export function fieldDrift(skill: string, locked: Plan, fresh: Plan): PlanDrift[] {
  return diffPlans(locked, fresh).map((d) => ({ skill, field: d.field, locked: d.locked, fresh: d.fresh }));
}

/**
 * Whether two definitions of a scheme place a credential alike (header, query parameter or
 * cookie, and its format), judged with a stand-in secret: alike to whoever holds the secret,
 * whatever else differs (a description, the case of `Bearer`, of a header name). A missing
 * definition is alike only to another missing one. An oauth2 client credentials flow must also keep
 * its `tokenUrl` (where a client secret goes).
 * @internal
 */
export function placedAlike(a: SecurityScheme | undefined, b: SecurityScheme | undefined): boolean {
  // An oauth2 client credentials flow's token URL is where a client secret goes: a moved one differs.
  return sameJson(placement(a), placement(b)) && clientCredentialsTokenUrl(a) === clientCredentialsTokenUrl(b);
}

/**
 * How `scheme` presents a credential (headers with lower-cased names, query parameters, cookies,
 * format), as a value to compare; `null` for no scheme, `{refused}` for one that cannot place one.
 */
export function placement(scheme: SecurityScheme | undefined): unknown {
  if (!scheme) return null;
  try {
    const placed = placeCredential(scheme, 'user:secret');
    // Header names are case-insensitive (X-Key and x-key are one header).
    return {
      ...placed,
      headers: Object.fromEntries(Object.entries(placed.headers).map(([name, value]) => [name.toLowerCase(), value])),
    };
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

/**
 * The drift of scheme `name` when `fresh` presents it differently from `locked` (another header,
 * query parameter or cookie, another format, or gone), for a plan of `skill`; undefined when alike.
 */
export function schemeChange(
  skill: string,
  name: string,
  locked: NormalizedCard,
  fresh: NormalizedCard,
): PlanDrift | undefined {
  const was = own(locked.securitySchemes, name);
  const now = own(fresh.securitySchemes, name);
  return placedAlike(was, now)
    ? undefined
    : { skill, field: `securitySchemes.${name}`, locked: was ?? null, fresh: now ?? null };
}

/**
 * For each locked plan, the schemes it names that `fresh` presents differently from `locked` (the
 * cards its plans were and are negotiated against). A plan names its schemes; how each presents
 * the credential comes from the card, and the runtime sends it the locked way.
 */
export function schemeDrift(plans: Record<string, Plan>, locked: NormalizedCard, fresh: NormalizedCard): PlanDrift[] {
  return Object.entries(plans).flatMap(([skill, plan]) =>
    Object.keys(plan.security).flatMap((name) => schemeChange(skill, name, locked, fresh) ?? []),
  );
}

/** A locked verified signature must come back verified by the same key; anything else is drift. */
export function signatureDrift(
  snapshot: SignatureDrift['snapshot'],
  locked: SignatureRecord | undefined,
  fresh: SignatureRecord,
): SignatureDrift[] {
  if (locked?.status !== 'verified') return [];
  if (fresh.status === 'verified' && fresh.thumbprint === locked.thumbprint) return [];
  return [{ snapshot, locked, fresh }];
}

/**
 * The signature drift of an agent: its public card's (when checked now) and its extended card's
 * (when both the lock and this run have one), against the records locked in `entry`.
 */
export function signaturesDrift(
  entry: Pick<LockEntry, 'signature' | 'extended'>,
  fresh: { signature?: SignatureRecord | undefined; extended?: { signature: SignatureRecord } | undefined },
): SignatureDrift[] {
  return [
    ...(fresh.signature ? signatureDrift('card', entry.signature, fresh.signature) : []),
    ...(fresh.extended && entry.extended
      ? signatureDrift('extended', entry.extended.signature, fresh.extended.signature)
      : []),
  ];
}

/** What `verify` read now for one locked agent, for {@link servedVerdict}. */
export interface ServedCards {
  /** The URL (or file path) that answered with the public card now. */
  resolved: string;
  /** The public card as served now (raw JSON). */
  raw: Record<string, unknown>;
  /** Its signature record, when it was checked in this run (a changed card, or a verified one re-checked). */
  signature?: SignatureRecord | undefined;
  /** The extended card fetched now, when it was. */
  extended?: { raw: Record<string, unknown>; signature: SignatureRecord } | undefined;
  /**
   * The card the locked plans are checked against: the fresh extended card; the locked one when it
   * could not be checked; the fresh public card when the agent has no extended card (any more).
   */
  negotiationCard: NormalizedCard;
  /** The card the locked plans were negotiated against (the locked extended snapshot when there is one). */
  lockedCard: NormalizedCard;
  /** Why part of the agent was not checked (the extended card's credential unset), if so. */
  unchecked?: string | undefined;
}

/**
 * The report for a locked agent whose cards as served now are not simply its snapshots: the card
 * changes (structural or descriptive), and drift when any locked plan, scheme or verified
 * signature no longer holds. With no drift it is `changed`: plans equal, a card change to review;
 * `ok` when the only difference is a card re-signed by the same key over the same payload, or
 * fields at their proto3 default written or left out (`lock/proto-defaults.ts`).
 */
export function servedVerdict(
  entry: LockEntry,
  settings: AgentSettings,
  served: ServedCards,
  warnings: AgentReport['warnings'],
): AgentReport {
  // A card only re-signed (same key, same payload: {@link isResigned}) is its snapshot.
  const publicResigned =
    served.resolved === entry.resolved &&
    isResigned({ raw: entry.snapshot, signature: entry.signature }, { raw: served.raw, signature: served.signature });
  const extendedResigned =
    served.extended !== undefined &&
    entry.extended !== undefined &&
    isResigned({ raw: entry.extended.snapshot, signature: entry.extended.signature }, served.extended);
  const now: CardSide = {
    resolved: served.resolved,
    snapshot: publicResigned ? entry.snapshot : served.raw,
    // An extended card that could not be checked is taken as locked (no change said either way).
    extended: served.extended
      ? { snapshot: extendedResigned ? entry.extended!.snapshot : served.extended.raw }
      : served.unchecked
        ? entry.extended
        : undefined,
  };
  const changes = cardChanges(entry, now);
  const change = changeKind(changes) ?? 'descriptive';
  const drift = [
    ...narrowedDrift(served.negotiationCard, settings, entry.plans),
    // A scheme the fresh card presents differently (a header become a query parameter) is drift too.
    ...schemeDrift(entry.plans, served.lockedCard, served.negotiationCard),
  ];
  const signatures = signaturesDrift(entry, served);
  const found = {
    change,
    cardChanges: changes,
    warnings,
    ...(served.unchecked ? { unchecked: served.unchecked } : {}),
  } as const;
  if (drift.length > 0 || signatures.length > 0) return driftReport({ ...found, drift, signatureDrift: signatures });
  // No change: a card re-signed, or one that differs from its snapshot in proto3 defaults alone.
  if (changes.length === 0) return okReport(warnings, served.unchecked);
  return changedReport(found);
}
