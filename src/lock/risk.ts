/**
 * What the change of one agent between two lockfiles risks ({@link assessRisks}), one function per
 * risk group: credentials, transport, schemes, signatures, the push endpoint, plans, the card. Each
 * risk has a stable code and a level (`high`, `medium`, `low`, `info`); an improvement (a signature
 * now verified, cleartext gone, a credential destination removed) is listed apart as `better`. The
 * review of two whole lockfiles is `lock/lockfile-diff.ts`. Pure.
 */
import { sameJson } from '../canonical.js';
import { internationalHostWarnings, isCleartextOffLoopback } from '../card/host.js';
import type { NormalizedCard, SecurityScheme } from '../card/model.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { compareDotted, compareVersions } from '../card/version.js';
import { describeOriginAuth } from '../credentials.js';
import { own } from '../json-path.js';
import type { AgentSettings, OriginAuth } from '../manifest/schema.js';
import type { Plan } from '../negotiate/types.js';
import { type EntryChanges, entryChanges, signatureChanges } from './changes.js';
import {
  type CredentialRoute,
  credentialRoutes,
  type LockedCards,
  originAuthRoutes,
  originOf,
  planRoutes,
  uncoveredRoutes,
} from './credential-routes.js';
import { placement } from './drift.js';
import { lockedNegotiationCard, lockedPublicCard } from './offline.js';
import { better, type Improvement, type Risk, risk } from './risk-codes.js';
import type { LockEntry } from './schema.js';

/** One agent as a lockfile holds it: its entry and its locked settings (absent in a lockfile that lacks them). */
export interface AgentSide {
  entry: LockEntry;
  settings?: AgentSettings | undefined;
}

/**
 * Whether `url` is plain http to a host other than this machine: the transport rule's own test
 * ({@link isCleartextOffLoopback}, one definition of loopback), for `http:` URLs.
 * @internal
 */
export function isCleartext(url: string): boolean {
  return /^\s*http:/i.test(url) && isCleartextOffLoopback(url);
}

/** One URL a side sends requests to: `what` names it in a message (`plan <skill>`, `plan <skill> fallback`, `push endpoint`). */
interface RequestUrl {
  url: string;
  skill?: string;
  what: string;
}

/** Every URL an entry (with its settings) sends requests to: plan interfaces and fallbacks by skill, and the push endpoint. */
function requestUrls(side: AgentSide | undefined): RequestUrl[] {
  if (!side) return [];
  const out: RequestUrl[] = [];
  for (const [skill, plan] of Object.entries(side.entry.plans)) {
    out.push({ url: plan.url, skill, what: `plan ${skill}` });
    for (const f of plan.fallbacks?.interfaces ?? []) out.push({ url: f.url, skill, what: `plan ${skill} fallback` });
  }
  if (side.settings?.pushEndpoint) out.push({ url: side.settings.pushEndpoint, what: 'push endpoint' });
  return out;
}

/** The credential routes of a side; a snapshot that no longer reads as a card sends along its plans only (placement unknown). */
export function routesOf(side: AgentSide | undefined): CredentialRoute[] {
  if (!side) return [];
  // Nothing credentialed, no extended card: no route (and no card to read) but the platform's.
  if (!side.entry.extended && Object.values(side.entry.plans).every((p) => Object.keys(p.security).length === 0))
    return originAuthRoutes(side.entry);
  const settings = side.settings ?? {
    bindings: [],
    versions: [],
    accepts: [],
    sends: [],
    streaming: false,
    pushEndpoint: null,
    extensions: [],
    credentials: [],
  };
  try {
    return credentialRoutes(side.entry, settings, lockedCards(side));
  } catch {
    return [...planRoutes(side.entry.plans, () => ({ unknown: true })), ...originAuthRoutes(side.entry)];
  }
}

function routeText(r: CredentialRoute): string {
  if (r.purpose === 'origin')
    return `originAuth ${describeOriginAuth(r.placement as OriginAuth)} → ${r.origin} (every request to the origin)`;
  if (r.purpose === 'token')
    return `${r.scheme} client secret → ${(r.placement as { tokenUrl: string }).tokenUrl} (OAuth token request${r.skill !== undefined ? `, plan ${r.skill}` : ''})`;
  return `${r.scheme} → ${r.origin}${r.purpose === 'extended' ? ' (extended card request)' : r.skill !== undefined ? ` (plan ${r.skill})` : ''}`;
}

/** Each side's cards, read once from its snapshots (a side is read by several checks). */
const readCards = new WeakMap<AgentSide, LockedCards | null>();

/** The side's public and negotiation cards; undefined when a snapshot no longer reads as a card. */
function lockedCards(side: AgentSide): LockedCards | undefined {
  if (readCards.has(side)) return readCards.get(side) ?? undefined;
  let cards: LockedCards | null = null;
  try {
    const publicCard = lockedPublicCard(side.entry, side.entry.card, side.settings);
    cards = {
      public: publicCard,
      negotiation: side.entry.extended ? lockedNegotiationCard(side.entry, side.entry.card, side.settings) : publicCard,
    };
  } catch {
    cards = null;
  }
  readCards.set(side, cards);
  return cards ?? undefined;
}

function negotiationCard(side: AgentSide): NormalizedCard | undefined {
  return lockedCards(side)?.negotiation;
}

/** A scheme's kind for comparison: its type and, for http, its scheme (bearer, basic). */
function schemeKind(s: SecurityScheme): string {
  return s.type === 'http'
    ? `http ${s.scheme.toLowerCase()}`
    : s.type === 'apiKey'
      ? `apiKey in ${s.location}`
      : s.type;
}

/** The signature status of a snapshot as a review shows it (`not recorded` when the lockfile holds none). */
export function signatureStatus(record: SignatureRecord | undefined): string {
  return record?.status ?? 'not recorded';
}

/** What one risk group finds: its risks and its improvements, each in the order it lists them. */
interface Findings {
  risks: Risk[];
  better: Improvement[];
}

const NOTHING: Findings = { risks: [], better: [] };

/** Findings that hold risks only. */
function risksOnly(risks: Risk[]): Findings {
  return { risks, better: [] };
}

/** Whether both sides lock the same plans and the same settings. */
function samePlansAndSettings(old: AgentSide, now: AgentSide): boolean {
  return sameJson(old.entry.plans, now.entry.plans) && sameJson(old.settings ?? null, now.settings ?? null);
}

/**
 * Whether both sides send credentials along the same routes, known without reading their cards.
 * The invariant: an agent's credential routes ({@link credentialRoutes}) follow from its plans, its
 * settings, the structural fields of its cards and its `originAuth`; with all four alike, the
 * routes are alike.
 * @internal
 */
export function sameRouting(old: AgentSide, now: AgentSide, diff: EntryChanges): boolean {
  return (
    samePlansAndSettings(old, now) &&
    !diff.cardChanges.some((c) => c.structural) &&
    sameJson(old.entry.originAuth ?? null, now.entry.originAuth ?? null)
  );
}

/**
 * Whether both sides send requests to the same URLs, and compare them to the same card origin.
 * The invariant: the URLs an agent sends requests to ({@link requestUrls}) follow from its plans
 * and its settings (the push endpoint) alone; the card's origin is its `resolved` URL's.
 * @internal
 */
export function sameRequests(old: AgentSide, now: AgentSide): boolean {
  return samePlansAndSettings(old, now) && old.entry.resolved === now.entry.resolved;
}

/** `agent-added` / `agent-removed`: an agent only on one side. */
function membershipRisks(old: AgentSide | undefined, now: AgentSide | undefined): Findings {
  if (!now) return risksOnly([risk('agent-removed', 'agent removed from the lockfile')]);
  return risksOnly(old ? [] : [risk('agent-added', `agent added (${now.entry.card})`)]);
}

/**
 * Where credentials go: `new-credential-destination` for each route of `now` that no route of
 * `old` covers (every route of a new agent); each route of `old` that `now` no longer has is better.
 */
function credentialRisks(old: AgentSide | undefined, now: AgentSide | undefined): Findings {
  const oldRoutes = routesOf(old);
  const newRoutes = routesOf(now);
  return {
    risks: uncoveredRoutes(oldRoutes, newRoutes).map((r) =>
      risk('new-credential-destination', `${old ? 'now sends' : 'new agent sends'} ${routeText(r)}`, r.skill),
    ),
    better: old
      ? uncoveredRoutes(newRoutes, oldRoutes).map((r) =>
          better('credential-destination-removed', `no longer sends ${routeText(r)}`, r.skill),
        )
      : [],
  };
}

/**
 * Where requests go: `cleartext-transport` for each URL newly plain http to a non-loopback host
 * (one that no longer is: better), `interface-other-origin` for each origin other than the card's
 * newly called, `host-international` for each new URL whose host is spelt otherwise than contacted.
 */
function transportRisks(old: AgentSide | undefined, now: AgentSide): Findings {
  const risks: Risk[] = [];
  const improvements: Improvement[] = [];
  const wasCleartext = new Set(
    requestUrls(old)
      .filter((u) => isCleartext(u.url))
      .map((u) => u.url),
  );
  const isNowCleartext = new Set(
    requestUrls(now)
      .filter((u) => isCleartext(u.url))
      .map((u) => u.url),
  );
  const seen = new Set<string>();
  for (const u of requestUrls(now)) {
    if (!isNowCleartext.has(u.url) || wasCleartext.has(u.url) || seen.has(u.url)) continue;
    seen.add(u.url);
    risks.push(risk('cleartext-transport', `${u.what} is plain http to a non-loopback host: ${u.url}`, u.skill));
  }
  for (const u of wasCleartext)
    if (!isNowCleartext.has(u)) improvements.push(better('cleartext-gone', `no more plain http to ${u}`));

  // Calls to another origin than the card's: legitimate (a gRPC host, an API gateway), but said.
  const wasElsewhere = otherOriginRequests(old);
  for (const [origin, u] of otherOriginRequests(now)) {
    if (!wasElsewhere.has(origin))
      risks.push(
        risk(
          'interface-other-origin',
          `${u.what} goes to ${origin}, another origin than the card's (${originOf(now.entry.resolved)})`,
          u.skill,
        ),
      );
  }
  // A host spelt otherwise than it is contacted (U+3002 dots, punycode): both spellings said.
  const wasUrls = new Set(requestUrls(old).map((u) => u.url));
  for (const u of requestUrls(now)) {
    if (wasUrls.has(u.url)) continue;
    wasUrls.add(u.url);
    for (const w of internationalHostWarnings([[`${u.what} url`, u.url]]))
      risks.push(risk('host-international', w.message, u.skill));
  }
  return { risks, better: improvements };
}

/** The requests (not the push endpoint) of a side that go to another origin than its card's, first one per origin; none for a card not fetched over http(s). */
function otherOriginRequests(side: AgentSide | undefined): Map<string, RequestUrl> {
  const out = new Map<string, RequestUrl>();
  if (!side || !/^https?:\/\//i.test(side.entry.resolved)) return out;
  const cardOrigin = originOf(side.entry.resolved);
  for (const u of requestUrls(side)) {
    const origin = originOf(u.url);
    if (!u.what.startsWith('push') && origin !== cardOrigin && !out.has(origin)) out.set(origin, u);
  }
  return out;
}

/** `scheme-redefined`: a security scheme of the negotiation card keeps its name with another type or placement. */
function schemeRisks(wasCard: NormalizedCard, nowCard: NormalizedCard): Findings {
  const risks: Risk[] = [];
  for (const [name, scheme] of Object.entries(nowCard.securitySchemes)) {
    const before = own(wasCard.securitySchemes, name);
    if (!before) continue;
    if (schemeKind(before) !== schemeKind(scheme) || !sameJson(placement(before), placement(scheme))) {
      risks.push(
        risk('scheme-redefined', `security scheme ${name} redefined: ${schemeKind(before)} → ${schemeKind(scheme)}`),
      );
    }
  }
  return risksOnly(risks);
}

/** `required-extension-added`: the negotiation card requires an extension it did not. */
function requiredExtensionRisks(wasCard: NormalizedCard, nowCard: NormalizedCard): Findings {
  const required = (card: NormalizedCard) =>
    new Set(card.capabilities.extensions.filter((e) => e.required).map((e) => e.uri));
  const wasRequired = required(wasCard);
  return risksOnly(
    [...required(nowCard)]
      .filter((uri) => !wasRequired.has(uri))
      .map((uri) => risk('required-extension-added', `the card now requires extension ${uri}`)),
  );
}

/** `signature-weakened`, `signer-changed`; a signature now verified is better. */
function signatureRisks(old: AgentSide, now: AgentSide): Findings {
  const risks: Risk[] = [];
  const improvements: Improvement[] = [];
  for (const c of signatureChanges(old.entry, now.entry)) {
    const label = c.snapshot === 'card' ? 'card signature' : 'extended card signature';
    if (c.old?.status === 'verified' && c.new?.status === 'verified') {
      if (c.old.thumbprint !== c.new.thumbprint)
        risks.push(
          risk(
            'signer-changed',
            `${label} verified by another key: ${c.old.thumbprint ?? c.old.kid ?? '?'} → ${c.new.thumbprint ?? c.new.kid ?? '?'}`,
          ),
        );
    } else if (c.old?.status === 'verified')
      risks.push(risk('signature-weakened', `${label}: verified → ${signatureStatus(c.new)}`));
    else if (c.new?.status === 'verified')
      improvements.push(better('signature-verified', `${label}: ${signatureStatus(c.old)} → verified`));
  }
  return { risks, better: improvements };
}

/**
 * `push-endpoint-changed` when the push endpoint (where an agent delivers results, the lockfile's
 * settings) goes to another origin than at base, or is set where it was not: medium, high when it
 * becomes plain http to a non-loopback host (`cleartext-transport` says so too).
 */
function pushEndpointRisks(old: AgentSide, now: AgentSide): Findings {
  const was = old.settings?.pushEndpoint ?? null;
  const is = now.settings?.pushEndpoint ?? null;
  if (is === null || (was !== null && originOf(was) === originOf(is))) return NOTHING;
  const cleartext = isCleartext(is) && !(was !== null && isCleartext(was));
  return risksOnly([
    risk(
      'push-endpoint-changed',
      `push endpoint goes to another origin: ${was === null ? 'none' : originOf(was)} → ${originOf(is)}`,
      undefined,
      cleartext ? 'high' : 'medium',
    ),
  ]);
}

/** `skill-added` / `skill-removed` for a skill locked on one side only, and the risks of each plan that changed ({@link planFieldRisks}). */
function planRisks(old: AgentSide, now: AgentSide, diff: EntryChanges): Findings {
  const risks: Risk[] = [];
  const credentialed = (plan: Plan) => Object.keys(plan.security).length > 0;
  for (const [skill, list] of Object.entries(diff.planChanges)) {
    const was = own(old.entry.plans, skill);
    const plan = own(now.entry.plans, skill);
    if (!was && plan) risks.push(risk('skill-added', `skill ${skill} locked`, skill));
    else if (was && !plan) risks.push(risk('skill-removed', `skill ${skill} no longer locked`, skill));
    else if (was && plan && list.length)
      risks.push(...planFieldRisks(skill, was, plan, credentialed(was) || credentialed(plan)));
  }
  return risksOnly(risks);
}

/** The risks of each plan field that changes, for a skill locked on both sides. */
function planFieldRisks(skill: string, was: Plan, now: Plan, credentialed: boolean): Risk[] {
  const risks: Risk[] = [];
  if (originOf(was.url) !== originOf(now.url) && !credentialed)
    risks.push(
      risk(
        'origin-changed',
        `plan ${skill} goes to another origin: ${originOf(was.url)} → ${originOf(now.url)}`,
        skill,
      ),
    );
  else if (was.url !== now.url && originOf(was.url) === originOf(now.url))
    risks.push(risk('card-structural', `plan ${skill} url: ${was.url} → ${now.url}`, skill));
  if (was.protocolBinding !== now.protocolBinding || was.tenant !== now.tenant)
    risks.push(
      risk(
        'card-structural',
        `plan ${skill} binding: ${was.protocolBinding}${was.tenant ? ` (tenant ${was.tenant})` : ''} → ${now.protocolBinding}${now.tenant ? ` (tenant ${now.tenant})` : ''}`,
        skill,
      ),
    );
  if (compareDotted(now.protocolVersion, was.protocolVersion) < 0)
    risks.push(
      risk(
        'protocol-downgrade',
        `plan ${skill} protocol version ${was.protocolVersion} → ${now.protocolVersion}`,
        skill,
      ),
    );
  for (const [scheme, scopes] of Object.entries(now.security)) {
    const before = own(was.security, scheme);
    if (!before) continue;
    const wider = scopes.filter((s) => !before.includes(s));
    if (wider.length)
      risks.push(risk('scopes-widened', `plan ${skill} asks ${scheme} for more scopes: + ${wider.join(', ')}`, skill));
  }
  const activated = now.extensions.filter((e) => !was.extensions.includes(e));
  if (activated.length)
    risks.push(risk('extension-activated', `plan ${skill} now sends extension ${activated.join(', ')}`, skill));
  if (was.delivery !== now.delivery)
    risks.push(risk('delivery-changed', `plan ${skill} delivery: ${was.delivery} → ${now.delivery}`, skill));
  if (!sameJson(was.acceptedOutputModes, now.acceptedOutputModes)) {
    const removed = was.acceptedOutputModes.filter((m) => !now.acceptedOutputModes.includes(m));
    const added = now.acceptedOutputModes.filter((m) => !was.acceptedOutputModes.includes(m));
    const what =
      removed.length || added.length
        ? [...removed.map((m) => `- ${m}`), ...added.map((m) => `+ ${m}`)].join(', ')
        : 'reordered';
    risks.push(risk('output-modes-changed', `plan ${skill} accepted output modes: ${what}`, skill));
  }
  if (!sameJson(was.fallbacks ?? null, now.fallbacks ?? null))
    risks.push(risk('fallbacks-changed', `plan ${skill} fallbacks changed`, skill));
  return risks;
}

/** `card-version-rollback`, and the counts of structural (`card-structural`) and descriptive card changes. */
function cardRisks(diff: EntryChanges): Findings {
  const risks: Risk[] = [];
  if (diff.version) {
    const c = compareVersions(diff.version.new, diff.version.old);
    if (c !== undefined && c < 0)
      risks.push(risk('card-version-rollback', `card version went down: ${diff.version.old} → ${diff.version.new}`));
  }
  const structural = diff.cardChanges.filter((c) => c.structural).length;
  const descriptive = diff.cardChanges.length - structural;
  if (structural)
    risks.push(risk('card-structural', `${structural} structural card change${structural === 1 ? '' : 's'}`));
  if (descriptive)
    risks.push(risk('descriptive', `${descriptive} descriptive card change${descriptive === 1 ? '' : 's'}`));
  return risksOnly(risks);
}

/** The risk groups of an agent on both sides, in the order a review lists them. */
function changedAgentRisks(old: AgentSide, now: AgentSide, diff: EntryChanges): Findings[] {
  // Schemes can change (same name, another type or placement) only with a structural card change.
  const structural = diff.cardChanges.some((c) => c.structural);
  const wasCard = structural ? negotiationCard(old) : undefined;
  const nowCard = structural ? negotiationCard(now) : undefined;
  return [
    sameRouting(old, now, diff) ? NOTHING : credentialRisks(old, now),
    sameRequests(old, now) ? NOTHING : transportRisks(old, now),
    ...(wasCard && nowCard ? [schemeRisks(wasCard, nowCard), requiredExtensionRisks(wasCard, nowCard)] : []),
    signatureRisks(old, now),
    pushEndpointRisks(old, now),
    planRisks(old, now, diff),
    cardRisks(diff),
  ];
}

/**
 * What the change of one agent from `old` to `now` risks and improves. `old` absent: the agent is
 * new (its credential routes are all new destinations, its cleartext URLs all new); `now` absent:
 * removed. `changes` is {@link entryChanges} of the two entries (computed when absent).
 */
export function assessRisks(
  old: AgentSide | undefined,
  now: AgentSide | undefined,
  changes?: EntryChanges,
): { risks: Risk[]; better: Improvement[] } {
  const groups = [membershipRisks(old, now)];
  if (!now) groups.push(credentialRisks(old, undefined));
  else if (!old) groups.push(credentialRisks(undefined, now), transportRisks(undefined, now));
  else groups.push(...changedAgentRisks(old, now, changes ?? entryChanges(old.entry, now.entry)));
  return { risks: groups.flatMap((g) => g.risks), better: groups.flatMap((g) => g.better) };
}
