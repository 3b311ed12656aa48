/**
 * Review of two lockfiles: which agents were added, removed, changed or renamed (renamed: another
 * name, the same manifest `card`), what changed in each ({@link entryChanges}), and what every
 * change risks. Each risk has a stable code and a level (`high`, `medium`, `low`, `info`); an
 * improvement (a signature now verified, cleartext gone, a credential destination removed) is
 * listed apart as `better`. What `a2a diff` prints and what `a2a update` and `a2a lock` show of what
 * they wrote. Pure.
 */
import coerce from 'semver/functions/coerce.js';
import semverCompare from 'semver/functions/compare.js';
import valid from 'semver/functions/valid.js';
import { sameJson } from '../canonical.js';
import { internationalHostWarnings, isCleartextOffLoopback } from '../card/host.js';
import type { NormalizedCard, SecurityScheme } from '../card/model.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { own } from '../json-path.js';
import { sourceVariables, type AgentSettings, type Manifest } from '../manifest/schema.js';
import type { Plan } from '../negotiate/types.js';
import { entryChanges, planChanges, signatureChanges, type EntryChanges } from './changes.js';
import { credentialRoutes, originAuthRoutes, originOf, planRoutes, uncoveredRoutes, type CredentialRoute, type LockedCards } from './credential-routes.js';
import { describeOriginAuth } from '../credentials.js';
import type { OriginAuth } from '../manifest/schema.js';
import { placement } from './drift.js';
import { lockedNegotiationCard, lockedPublicCard } from './offline.js';
import type { LockEntry, Lockfile } from './schema.js';

/** How much a change needs a reviewer's eye; `info` is shown but never weighs. */
export type RiskLevel = 'high' | 'medium' | 'low' | 'info';

/** The levels, highest first. */
export const RISK_LEVELS: readonly RiskLevel[] = ['high', 'medium', 'low', 'info'];

/** Every risk code with its level (docs/reference/risk-codes.md, held to it by test/docs.test.ts). */
export const RISK_CODES = {
  'new-credential-destination': 'high',
  'scheme-redefined': 'high',
  'cleartext-transport': 'high',
  'signature-weakened': 'high',
  'signer-changed': 'high',
  'credential-source-changed': 'high',
  'origin-changed': 'medium',
  'scopes-widened': 'medium',
  'protocol-downgrade': 'medium',
  'extension-activated': 'medium',
  'required-extension-added': 'medium',
  'delivery-changed': 'medium',
  'output-modes-changed': 'medium',
  'card-version-rollback': 'medium',
  'push-endpoint-changed': 'medium',
  'skill-added': 'low',
  'skill-removed': 'low',
  'fallbacks-changed': 'low',
  'card-structural': 'low',
  'descriptive': 'info',
  'interface-other-origin': 'info',
  'host-international': 'info',
  'agent-added': 'info',
  'agent-removed': 'info',
} as const satisfies Record<string, RiskLevel>;

/** A stable risk code (see {@link RISK_CODES}). */
export type RiskCode = keyof typeof RISK_CODES;

/** One risky change of one agent. */
export interface Risk {
  code: RiskCode;
  level: RiskLevel;
  /** What changed, in one line (may quote card text: escape before printing). */
  message: string;
  /** The skill whose plan it concerns, when one does. */
  skill?: string;
}

/** A stable improvement code. */
export type ImprovementCode = 'signature-verified' | 'cleartext-gone' | 'credential-destination-removed';

/** One change for the better. */
export interface Improvement {
  code: ImprovementCode;
  message: string;
  skill?: string;
}

/** One agent as a lockfile holds it: its entry and its locked settings (absent in a lockfile that lacks them). */
export interface AgentSide {
  entry: LockEntry;
  settings?: AgentSettings | undefined;
}

/** `0 < rank` ordering of levels: high 3 … info 0. */
function rank(level: RiskLevel): number {
  return 3 - RISK_LEVELS.indexOf(level);
}

/** Whether `level` is at or above `threshold` (`any`: every level, info included). */
export function atOrAbove(level: RiskLevel, threshold: RiskLevel | 'any'): boolean {
  return threshold === 'any' || rank(level) >= rank(threshold);
}

/** The highest level of `risks`, undefined for none. */
export function highestLevel(risks: readonly Risk[]): RiskLevel | undefined {
  return RISK_LEVELS.find((level) => risks.some((r) => r.level === level));
}

/** A risk at its code's level (`level`: the codes whose level depends on the change, as docs/reference/risk-codes.md says). */
function risk(code: RiskCode, message: string, skill?: string, level: RiskLevel = RISK_CODES[code]): Risk {
  return { code, level, message, ...(skill !== undefined ? { skill } : {}) };
}

function better(code: ImprovementCode, message: string, skill?: string): Improvement {
  return { code, message, ...(skill !== undefined ? { skill } : {}) };
}

/**
 * Whether `url` is plain http to a host other than this machine: the transport rule's own test
 * ({@link isCleartextOffLoopback}, one definition of loopback), for `http:` URLs.
 */
export function isCleartext(url: string): boolean {
  return /^\s*http:/i.test(url) && isCleartextOffLoopback(url);
}

/** Every URL an entry (with its settings) sends requests to: plan interfaces and fallbacks by skill, and the push endpoint. */
function requestUrls(side: AgentSide | undefined): Array<{ url: string; skill?: string; what: string }> {
  if (!side) return [];
  const out: Array<{ url: string; skill?: string; what: string }> = [];
  for (const [skill, plan] of Object.entries(side.entry.plans)) {
    out.push({ url: plan.url, skill, what: `plan ${skill}` });
    for (const f of plan.fallbacks?.interfaces ?? []) out.push({ url: f.url, skill, what: `plan ${skill} fallback` });
  }
  if (side.settings?.pushEndpoint) out.push({ url: side.settings.pushEndpoint, what: 'push endpoint' });
  return out;
}

/** The credential routes of a side; a snapshot that no longer reads as a card sends along its plans only (placement unknown). */
function routesOf(side: AgentSide | undefined): CredentialRoute[] {
  if (!side) return [];
  // Nothing credentialed, no extended card: no route (and no card to read) but the platform's.
  if (!side.entry.extended && Object.values(side.entry.plans).every((p) => Object.keys(p.security).length === 0)) return originAuthRoutes(side.entry);
  const settings = side.settings ?? { bindings: [], versions: [], accepts: [], sends: [], streaming: false, pushEndpoint: null, extensions: [], credentials: [] };
  try {
    return credentialRoutes(side.entry, settings, lockedCards(side));
  } catch {
    return [...planRoutes(side.entry.plans, () => ({ unknown: true })), ...originAuthRoutes(side.entry)];
  }
}

function routeText(r: CredentialRoute): string {
  if (r.purpose === 'origin') return `originAuth ${describeOriginAuth(r.placement as OriginAuth)} → ${r.origin} (every request to the origin)`;
  if (r.purpose === 'token') return `${r.scheme} client secret → ${(r.placement as { tokenUrl: string }).tokenUrl} (OAuth token request${r.skill !== undefined ? `, plan ${r.skill}` : ''})`;
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
    cards = { public: publicCard, negotiation: side.entry.extended ? lockedNegotiationCard(side.entry, side.entry.card, side.settings) : publicCard };
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
  return s.type === 'http' ? `http ${s.scheme.toLowerCase()}` : s.type === 'apiKey' ? `apiKey in ${s.location}` : s.type;
}

/** Numeric parts of a protocol version (`1.0` → [1, 0]); compares part by part. */
function compareDotted(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Card versions compared as semver (coerced when not strict semver); undefined when either is not a version. */
function compareVersions(a: string, b: string): number | undefined {
  const va = valid(a) ?? coerce(a)?.version;
  const vb = valid(b) ?? coerce(b)?.version;
  if (!va || !vb) return undefined;
  const c = semverCompare(va, vb);
  return c !== 0 ? c : valid(a) && valid(b) ? 0 : compareDotted(a, b);
}

function status(record: SignatureRecord | undefined): string {
  return record?.status ?? 'not recorded';
}

function signatureRisks(old: AgentSide, now: AgentSide, risks: Risk[], improvements: Improvement[]): void {
  for (const c of signatureChanges(old.entry, now.entry)) {
    const label = c.snapshot === 'card' ? 'card signature' : 'extended card signature';
    if (c.old?.status === 'verified' && c.new?.status === 'verified') {
      if (c.old.thumbprint !== c.new.thumbprint) risks.push(risk('signer-changed', `${label} verified by another key: ${c.old.thumbprint ?? c.old.kid ?? '?'} → ${c.new.thumbprint ?? c.new.kid ?? '?'}`));
    } else if (c.old?.status === 'verified') risks.push(risk('signature-weakened', `${label}: verified → ${status(c.new)}`));
    else if (c.new?.status === 'verified') improvements.push(better('signature-verified', `${label}: ${status(c.old)} → verified`));
  }
}

/**
 * `push-endpoint-changed` when the push endpoint (where an agent delivers results, the lockfile's
 * settings) goes to another origin than at base, or is set where it was not: medium, high when it
 * becomes plain http to a non-loopback host (`cleartext-transport` says so too).
 */
function pushEndpointRisk(was: string | null, now: string | null): Risk | undefined {
  if (now === null || (was !== null && originOf(was) === originOf(now))) return undefined;
  const cleartext = isCleartext(now) && !(was !== null && isCleartext(was));
  return risk('push-endpoint-changed', `push endpoint goes to another origin: ${was === null ? 'none' : originOf(was)} → ${originOf(now)}`, undefined, cleartext ? 'high' : 'medium');
}

/** The risks of each plan field that changes, for a skill locked on both sides. */
function planRisks(skill: string, was: Plan, now: Plan, credentialed: boolean, risks: Risk[]): void {
  if (originOf(was.url) !== originOf(now.url) && !credentialed) risks.push(risk('origin-changed', `plan ${skill} goes to another origin: ${originOf(was.url)} → ${originOf(now.url)}`, skill));
  else if (was.url !== now.url && originOf(was.url) === originOf(now.url)) risks.push(risk('card-structural', `plan ${skill} url: ${was.url} → ${now.url}`, skill));
  if (was.protocolBinding !== now.protocolBinding || was.tenant !== now.tenant) risks.push(risk('card-structural', `plan ${skill} binding: ${was.protocolBinding}${was.tenant ? ` (tenant ${was.tenant})` : ''} → ${now.protocolBinding}${now.tenant ? ` (tenant ${now.tenant})` : ''}`, skill));
  if (compareDotted(now.protocolVersion, was.protocolVersion) < 0) risks.push(risk('protocol-downgrade', `plan ${skill} protocol version ${was.protocolVersion} → ${now.protocolVersion}`, skill));
  for (const [scheme, scopes] of Object.entries(now.security)) {
    const before = own(was.security, scheme);
    if (!before) continue;
    const wider = scopes.filter((s) => !before.includes(s));
    if (wider.length) risks.push(risk('scopes-widened', `plan ${skill} asks ${scheme} for more scopes: + ${wider.join(', ')}`, skill));
  }
  const activated = now.extensions.filter((e) => !was.extensions.includes(e));
  if (activated.length) risks.push(risk('extension-activated', `plan ${skill} now sends extension ${activated.join(', ')}`, skill));
  if (was.delivery !== now.delivery) risks.push(risk('delivery-changed', `plan ${skill} delivery: ${was.delivery} → ${now.delivery}`, skill));
  if (!sameJson(was.acceptedOutputModes, now.acceptedOutputModes)) {
    const removed = was.acceptedOutputModes.filter((m) => !now.acceptedOutputModes.includes(m));
    const added = now.acceptedOutputModes.filter((m) => !was.acceptedOutputModes.includes(m));
    const what = removed.length || added.length ? [...removed.map((m) => `- ${m}`), ...added.map((m) => `+ ${m}`)].join(', ') : 'reordered';
    risks.push(risk('output-modes-changed', `plan ${skill} accepted output modes: ${what}`, skill));
  }
  if (!sameJson(was.fallbacks ?? null, now.fallbacks ?? null)) risks.push(risk('fallbacks-changed', `plan ${skill} fallbacks changed`, skill));
}

/**
 * What the change of one agent from `old` to `now` risks and improves. `old` absent: the agent is
 * new (its credential routes are all new destinations, its cleartext URLs all new); `now` absent:
 * removed. `changes` is {@link entryChanges} of the two entries (computed when absent).
 */
export function assessRisks(old: AgentSide | undefined, now: AgentSide | undefined, changes?: EntryChanges): { risks: Risk[]; better: Improvement[] } {
  const risks: Risk[] = [];
  const improvements: Improvement[] = [];
  if (!now) {
    risks.push(risk('agent-removed', 'agent removed from the lockfile'));
    for (const r of uncoveredRoutes([], routesOf(old))) improvements.push(better('credential-destination-removed', `no longer sends ${routeText(r)}`, r.skill));
    return { risks, better: improvements };
  }
  if (!old) risks.push(risk('agent-added', `agent added (${now.entry.card})`));
  const diff = old ? (changes ?? entryChanges(old.entry, now.entry)) : undefined;
  // Routes follow from the plans, the settings and the structural fields of the cards: with all
  // three alike, they are alike (and the cards need not be read again).
  const structural = diff ? diff.cardChanges.some((c) => c.structural) : true;
  const samePlans = old !== undefined && sameJson(old.entry.plans, now.entry.plans) && sameJson(old.settings ?? null, now.settings ?? null);
  const sameRouting = samePlans && !structural && sameJson(old.entry.originAuth ?? null, now.entry.originAuth ?? null);

  // Where credentials go.
  if (!sameRouting) {
    const oldRoutes = routesOf(old);
    const newRoutes = routesOf(now);
    for (const r of uncoveredRoutes(oldRoutes, newRoutes)) risks.push(risk('new-credential-destination', `${old ? 'now sends' : 'new agent sends'} ${routeText(r)}`, r.skill));
    if (old) for (const r of uncoveredRoutes(newRoutes, oldRoutes)) improvements.push(better('credential-destination-removed', `no longer sends ${routeText(r)}`, r.skill));
  }

  // Where requests go follows from the plans and the settings (the push endpoint) alone: with both
  // alike, no request goes anywhere new.
  const sameRequests = samePlans && old.entry.resolved === now.entry.resolved;

  if (!sameRequests) {
    // Cleartext.
    const wasCleartext = new Set(requestUrls(old).filter((u) => isCleartext(u.url)).map((u) => u.url));
    const isNowCleartext = new Set(requestUrls(now).filter((u) => isCleartext(u.url)).map((u) => u.url));
    const seen = new Set<string>();
    for (const u of requestUrls(now)) {
      if (!isNowCleartext.has(u.url) || wasCleartext.has(u.url) || seen.has(u.url)) continue;
      seen.add(u.url);
      risks.push(risk('cleartext-transport', `${u.what} is plain http to a non-loopback host: ${u.url}`, u.skill));
    }
    for (const u of wasCleartext) if (!isNowCleartext.has(u)) improvements.push(better('cleartext-gone', `no more plain http to ${u}`));

    // Calls to another origin than the card's: legitimate (a gRPC host, an API gateway), but said.
    const elsewhere = (side: AgentSide | undefined): Map<string, { url: string; skill?: string; what: string }> => {
      const out = new Map<string, { url: string; skill?: string; what: string }>();
      if (!side || !/^https?:\/\//i.test(side.entry.resolved)) return out;
      const cardOrigin = originOf(side.entry.resolved);
      for (const u of requestUrls(side)) {
      const origin = originOf(u.url);
      if (!u.what.startsWith('push') && origin !== cardOrigin && !out.has(origin)) out.set(origin, u);
    }
      return out;
    };
    const wasElsewhere = elsewhere(old);
    for (const [origin, u] of elsewhere(now)) {
      if (!wasElsewhere.has(origin)) risks.push(risk('interface-other-origin', `${u.what} goes to ${origin}, another origin than the card's (${originOf(now.entry.resolved)})`, u.skill));
    }
    // A host spelt otherwise than it is contacted (U+3002 dots, punycode): both spellings said.
    const wasUrls = new Set(requestUrls(old).map((u) => u.url));
    for (const u of requestUrls(now)) {
      if (wasUrls.has(u.url)) continue;
      wasUrls.add(u.url);
      for (const w of internationalHostWarnings([[`${u.what} url`, u.url]])) risks.push(risk('host-international', w.message, u.skill));
    }
  }

  if (!old || !diff) return { risks, better: improvements };

  // Schemes: same name, another type or placement (only a structural change can do that).
  const wasCard = structural ? negotiationCard(old) : undefined;
  const nowCard = structural ? negotiationCard(now) : undefined;
  if (wasCard && nowCard) {
    for (const [name, scheme] of Object.entries(nowCard.securitySchemes)) {
      const before = own(wasCard.securitySchemes, name);
      if (!before) continue;
      if (schemeKind(before) !== schemeKind(scheme) || !sameJson(placement(before), placement(scheme))) {
        risks.push(risk('scheme-redefined', `security scheme ${name} redefined: ${schemeKind(before)} → ${schemeKind(scheme)}`));
      }
    }
    const required = (card: NormalizedCard) => new Set(card.capabilities.extensions.filter((e) => e.required).map((e) => e.uri));
    const wasRequired = required(wasCard);
    for (const uri of required(nowCard)) if (!wasRequired.has(uri)) risks.push(risk('required-extension-added', `the card now requires extension ${uri}`));
  }

  signatureRisks(old, now, risks, improvements);
  const push = pushEndpointRisk(old.settings?.pushEndpoint ?? null, now.settings?.pushEndpoint ?? null);
  if (push) risks.push(push);

  const credentialed = (plan: Plan) => Object.keys(plan.security).length > 0;
  for (const [skill, list] of Object.entries(diff.planChanges)) {
    const was = own(old.entry.plans, skill);
    const plan = own(now.entry.plans, skill);
    if (!was && plan) risks.push(risk('skill-added', `skill ${skill} locked`, skill));
    else if (was && !plan) risks.push(risk('skill-removed', `skill ${skill} no longer locked`, skill));
    else if (was && plan && list.length) planRisks(skill, was, plan, credentialed(was) || credentialed(plan), risks);
  }

  if (diff.version) {
    const c = compareVersions(diff.version.new, diff.version.old);
    if (c !== undefined && c < 0) risks.push(risk('card-version-rollback', `card version went down: ${diff.version.old} → ${diff.version.new}`));
  }
  const structuralCount = diff.cardChanges.filter((c) => c.structural).length;
  const descriptive = diff.cardChanges.length - structuralCount;
  if (structuralCount) risks.push(risk('card-structural', `${structuralCount} structural card change${structuralCount === 1 ? '' : 's'}`));
  if (descriptive) risks.push(risk('descriptive', `${descriptive} descriptive card change${descriptive === 1 ? '' : 's'}`));
  return { risks, better: improvements };
}

/** A field of an agent's locked settings that changes. */
export interface SettingsChange {
  field: string;
  old?: unknown;
  new?: unknown;
}

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

/** The manifests of the two sides of a diff (absent: that side has none, or it could not be read). */
export interface DiffManifests {
  base?: Manifest | undefined;
  head?: Manifest | undefined;
}

/** An agent's credential sources in `manifest` (scheme → variable name; an OAuth client's two, space-separated); undefined without a manifest. */
function sourcesOf(manifest: Manifest | undefined, name: string): Map<string, string> | undefined {
  if (!manifest) return undefined;
  return new Map(Object.entries(own(manifest.agents, name)?.credentials ?? {}).map(([scheme, source]) => [scheme, sourceVariables(source).join(' ')]));
}

/**
 * The credential sources of one agent that differ between the base and head manifests, sorted by
 * scheme; none unless both manifests were read.
 */
export function credentialSourceChanges(was: ReadonlyMap<string, string> | undefined, now: ReadonlyMap<string, string> | undefined): CredentialSourceChange[] {
  if (!was || !now) return [];
  const out: CredentialSourceChange[] = [];
  for (const scheme of [...new Set([...was.keys(), ...now.keys()])].sort()) {
    const old = was.get(scheme);
    const fresh = now.get(scheme);
    if (old !== fresh) out.push({ scheme, ...(old !== undefined ? { old } : {}), ...(fresh !== undefined ? { new: fresh } : {}) });
  }
  return out;
}

/**
 * `credential-source-changed` for each changed source of an agent present at head: high when the
 * variable changes for a scheme that already had a credential route at base (the same destination
 * now receives another secret), medium when it is new otherwise, low when the source is removed.
 */
export function credentialSourceRisks(changes: readonly CredentialSourceChange[], old: AgentSide | undefined): Risk[] {
  if (!changes.length) return [];
  const routed = new Set(routesOf(old).map((r) => r.scheme));
  return changes.map((c) => {
    if (c.new === undefined) return risk('credential-source-changed', `credential ${c.scheme} no longer read from env ${c.old} (a2a.json)`, undefined, 'low');
    const was = c.old === undefined ? 'none at base' : `was env ${c.old}`;
    return risk('credential-source-changed', `credential ${c.scheme} now read from env ${c.new} (${was})${routed.has(c.scheme) ? ', for a route the base already sent it along' : ''}`, undefined, routed.has(c.scheme) ? 'high' : 'medium');
  });
}

/** How an agent differs between the two lockfiles. */
export type Verdict = 'added' | 'removed' | 'changed' | 'renamed' | 'unchanged';

/** One agent of a {@link LockfileDiff}. */
export interface AgentDiff {
  /** The agent's name at head (at base when removed). */
  name: string;
  verdict: Verdict;
  /** `renamed`: the name at base. */
  from?: string;
  /** The manifest's card location (head's; base's when removed). */
  card: string;
  /** The card's own version at each side (absent on a side without the agent). */
  version: { old?: string; new?: string };
  /** The signature status of the public card at each side. */
  signature: { old?: string; new?: string };
  /** What differs ({@link entryChanges}); for added/removed: the skills' plans and signatures only. Empty for unchanged. */
  changes: EntryChanges;
  /** Locked settings fields (profile, credentials held, version range, trust) that differ. */
  settingsChanges: SettingsChange[];
  /** The manifests' credential sources that differ (when both sides' manifests were read and any differs). */
  credentialSources?: CredentialSourceChange[];
  risks: Risk[];
  better: Improvement[];
  /** The highest risk level, undefined when no risk. */
  level?: RiskLevel;
}

/** Counts of a {@link LockfileDiff}: agents by verdict (renamed ones count as changed too), risks by level, improvements. */
export interface DiffCounts {
  changed: number;
  added: number;
  removed: number;
  renamed: number;
  unchanged: number;
  high: number;
  medium: number;
  low: number;
  info: number;
  better: number;
}

/** Everything that differs between two lockfiles, agent by agent (sorted by name). */
export interface LockfileDiff {
  agents: AgentDiff[];
  counts: DiffCounts;
}

function settingsChanges(old: AgentSettings | undefined, now: AgentSettings | undefined): SettingsChange[] {
  if (!old || !now) return [];
  const out: SettingsChange[] = [];
  const a = old as unknown as Record<string, unknown>;
  const b = now as unknown as Record<string, unknown>;
  for (const field of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (!sameJson(a[field] ?? null, b[field] ?? null)) out.push({ field, ...(a[field] !== undefined ? { old: a[field] } : {}), ...(b[field] !== undefined ? { new: b[field] } : {}) });
  }
  return out;
}

function sideOf(lock: Lockfile | undefined, name: string): AgentSide | undefined {
  const entry = own(lock?.agents, name);
  return entry ? { entry, settings: own(lock?.settings, name) } : undefined;
}

function agentDiff(name: string, old: AgentSide | undefined, now: AgentSide | undefined, from?: string, sources: readonly CredentialSourceChange[] = []): AgentDiff {
  const empty = { plans: {} as Record<string, Plan> };
  let changes: EntryChanges;
  let verdict: Verdict;
  if (old && now) {
    changes = entryChanges(old.entry, now.entry);
    // Any change found already says "changed": the whole-entry compare is for the rest (integrity, unknown keys).
    const found = changes.version !== undefined || changes.cardChanges.length > 0 || changes.signatureChanges.length > 0 || Object.keys(changes.planChanges).length > 0;
    const same = !found && sameJson(old.entry, now.entry) && sameJson(old.settings ?? null, now.settings ?? null);
    verdict = from !== undefined ? 'renamed' : same && sources.length === 0 ? 'unchanged' : 'changed';
  } else {
    const side = (old ?? now)!.entry;
    changes = {
      cardChanges: [],
      // The signature status is the agent's `signature` field; "not recorded → absent" says nothing.
      signatureChanges: [],
      planChanges: old ? planChanges(side.plans, empty.plans) : planChanges(empty.plans, side.plans),
    };
    verdict = old ? 'removed' : 'added';
  }
  const settings = settingsChanges(old?.settings, now?.settings);
  const assessed = verdict === 'unchanged' ? { risks: [], better: [] } : assessRisks(old, now, old && now ? changes : undefined);
  if (now) assessed.risks.push(...credentialSourceRisks(sources, old));
  const level = highestLevel(assessed.risks);
  return {
    name,
    verdict,
    ...(from !== undefined ? { from } : {}),
    card: (now ?? old)!.entry.card,
    version: { ...(old ? { old: old.entry.version } : {}), ...(now ? { new: now.entry.version } : {}) },
    signature: { ...(old ? { old: status(old.entry.signature) } : {}), ...(now ? { new: status(now.entry.signature) } : {}) },
    changes,
    settingsChanges: settings,
    ...(sources.length ? { credentialSources: [...sources] } : {}),
    risks: assessed.risks,
    better: assessed.better,
    ...(level ? { level } : {}),
  };
}

/**
 * The review of `head` against `base` (either absent: no lockfile on that side, every agent added or
 * removed). An agent only at base and one only at head with the same manifest `card` are one
 * agent `renamed`. Agents sorted by name. `manifests`: the `a2a.json` of each side; when both are
 * given, each agent's credential sources are compared too ({@link credentialSourceChanges}): a
 * change makes the agent `changed` even with its lock entry alike.
 */
export function diffLockfiles(base: Lockfile | undefined, head: Lockfile | undefined, manifests: DiffManifests = {}): LockfileDiff {
  const baseNames = Object.keys(base?.agents ?? {});
  const headNames = Object.keys(head?.agents ?? {});
  const onlyBase = baseNames.filter((n) => !Object.hasOwn(head?.agents ?? {}, n));
  const onlyHead = headNames.filter((n) => !Object.hasOwn(base?.agents ?? {}, n));
  const renamedFrom = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of onlyHead) {
    const card = head!.agents[name]!.card;
    const from = onlyBase.find((b) => !taken.has(b) && base!.agents[b]!.card === card);
    if (from === undefined) continue;
    taken.add(from);
    renamedFrom.set(name, from);
  }
  const agents: AgentDiff[] = [];
  for (const name of headNames) {
    const from = renamedFrom.get(name);
    const sources = credentialSourceChanges(sourcesOf(manifests.base, from ?? name), sourcesOf(manifests.head, name));
    agents.push(agentDiff(name, sideOf(base, from ?? name), sideOf(head, name), from, sources));
  }
  for (const name of onlyBase) if (!taken.has(name)) agents.push(agentDiff(name, sideOf(base, name), undefined));
  agents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const counts: DiffCounts = { changed: 0, added: 0, removed: 0, renamed: 0, unchanged: 0, high: 0, medium: 0, low: 0, info: 0, better: 0 };
  for (const a of agents) {
    if (a.verdict === 'renamed') {
      counts.renamed++;
      counts.changed++;
    } else counts[a.verdict]++;
    for (const r of a.risks) counts[r.level]++;
    counts.better += a.better.length;
  }
  return { agents, counts };
}

/** Whether any risk of `diff` is at or above `threshold` (`--fail-on`); `any`: any agent changed at all. */
export function failsOn(diff: LockfileDiff, threshold: RiskLevel | 'any'): boolean {
  if (threshold === 'any') return diff.agents.some((a) => a.verdict !== 'unchanged');
  return diff.agents.some((a) => a.risks.some((r) => atOrAbove(r.level, threshold)));
}
