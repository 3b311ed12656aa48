/**
 * The lock engine: resolve agents (load card → check its signature → fetch the extended card when
 * the agent has one → normalise → negotiate every skill), check a locked agent against its
 * snapshots (offline) or against the cards served now (online, "beyond the lockfile"), and compare
 * a lockfile with the manifest. Commands compose these; nothing here prints or exits.
 */
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { readFile } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import { assertShallow, cardSourceOf, isCardUrl, loadCard, type LoadedCard } from '../card/load.js';
import type { AgentInterface, NormalizedCard, SecurityRequirement, SecurityScheme, Warning } from '../card/model.js';
import { normalizeCard } from '../card/normalize.js';
import type { SignatureRecord } from '../card/signature.js';
import { integrityOf, sameJson } from '../canonical.js';
import { A2aLockError, ExitCode, exitCodeFor, InvalidInputError, type ErrorCode } from '../errors.js';
import { own } from '../json-path.js';
import { agentSettings, profileOf, type AgentEntry, type AgentSettings, type Manifest } from '../manifest/schema.js';
import { chooseInterface, chooseRequirement, diffPlans, negotiate } from '../negotiate/negotiate.js';
import type { Plan, Refusal, TraceStep } from '../negotiate/types.js';
import type { CardChange } from './card-diff.js';
import type { LockEntry, Lockfile } from './schema.js';

/** Network, file and environment options shared by every command that loads cards. */
export interface EngineOptions {
  /** Directory of the manifest (file cards and `trust.jwks` files are relative to it). */
  baseDir: string;
  /** Per-request deadline (ms). Default 10 000. */
  timeoutMs?: number;
  /** Allow plain http to non-loopback hosts. */
  allowHttp?: boolean;
  /** Retries of a request answered 429/500/502/503/504, with backoff. Default 2. */
  retries?: number;
  /** At most this many agents in flight (and connections per origin). Default {@link DEFAULT_CONCURRENCY}. */
  concurrency?: number;
  dispatcher?: Dispatcher;
  /** Where credential values are read from (the extended card). Default: none. */
  env?: NodeJS.ProcessEnv;
  /** Called each time an agent's cards have been fetched and checked: (agents done, agents to fetch). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Default bound on agents in flight (and connections per host). With 50 ms per card, 1000 agents
 * take ceil(1000/128)·50 ms = 0.4 s of network, and a whole `verify` of them 1.4× an unbounded
 * Promise.all over the SDK's card resolver; at 64 it was 1.5–1.9× (close to the 2× goal on a busy
 * machine), and above 128 the run is bound by start-up and per-card work while it opens more
 * sockets (BENCHMARKS.md).
 */
export const DEFAULT_CONCURRENCY = 128;

/** A refusal for one skill. */
export interface SkillRefusal {
  skill: string;
  refusal: Refusal;
}

/** Outcome of resolving one agent. */
export interface Resolution {
  /** The new lock entry; absent when any skill was refused or went beyond its locked plan. */
  entry?: LockEntry;
  refusals: SkillRefusal[];
  /** Skills whose fresh plan differs from the locked one (only with `locked`). */
  drift: PlanDrift[];
  /** A locked verified signature that no longer holds (only with `locked`). */
  signatureDrift?: SignatureDrift[];
  traces: Record<string, TraceStep[]>;
  warnings: Warning[];
  /** The card negotiated against (the extended card when there is one). */
  card: NormalizedCard;
}

/** Request options of every fetch: the shared dispatcher keeps as many connections per origin as agents in flight. */
function requestOptions(options: EngineOptions) {
  return {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.allowHttp !== undefined ? { allowHttp: options.allowHttp } : {}),
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : { connections: options.concurrency ?? DEFAULT_CONCURRENCY }),
  };
}

function loadOptions(settings: AgentSettings, options: EngineOptions) {
  return { baseDir: options.baseDir, a2aVersion: settings.versions[0]!, ...requestOptions(options) };
}

/** The `versionRange` option of negotiate() for these settings. */
export function versionRangeOption(settings: AgentSettings): { versionRange?: string } {
  return settings.versionRange !== undefined ? { versionRange: settings.versionRange } : {};
}

/** A card as read in this run: raw JSON, the normalised model, its signature and where it came from. */
interface ReadCard {
  raw: Record<string, unknown>;
  card: NormalizedCard;
  signature: SignatureRecord;
  url: string;
}

/**
 * The signature record of a card: operator-pinned keys (`trust.jwks`) when set, else the JWS `jku`.
 * The signature module is loaded only when a card carries signatures.
 */
async function signatureOf(raw: Record<string, unknown>, settings: AgentSettings, options: EngineOptions, warnings: Warning[]): Promise<SignatureRecord> {
  // trust.jwks is read even for unsigned cards, so a wrong path is reported at once.
  const trustedJwks = settings.trustJwks ? await trustedKeys(settings.trustJwks, options) : undefined;
  if (!Array.isArray(raw.signatures) || raw.signatures.length === 0) return { status: 'absent' };
  const [{ verifyCardSignature }, { requestJson }] = await Promise.all([import('../card/signature.js'), import('../card/fetch.js')]);
  let unreachable: unknown;
  const result = await verifyCardSignature(raw, {
    ...(trustedJwks !== undefined ? { trustedJwks } : {}),
    fetchJwks: (url) =>
      cachedJson(url, options, () => requestJson(url, { ...requestOptions(options), subject: 'JWKS' }).then((r) => r.body)).catch((error: unknown) => {
        unreachable ??= error;
        throw error;
      }),
  });
  // Keys that could not be fetched say nothing about the card: that is "could not check" (3/4/5),
  // never a signature status to lock or to report as drift.
  if (result.record.status !== 'verified' && unreachable instanceof A2aLockError) throw unreachable;
  warnings.push(...result.warnings);
  return result.record;
}

/** The operator-pinned JWKS of `trust.jwks` (a file relative to the manifest, or a URL), validated. */
async function trustedKeys(location: string, options: EngineOptions): Promise<unknown> {
  const [{ loadJwks }, { requestJson }] = await Promise.all([import('../card/signature.js'), import('../card/fetch.js')]);
  let value: unknown;
  if (isCardUrl(location)) value = await cachedJson(location, options, () => requestJson(location, { ...requestOptions(options), subject: 'JWKS' }).then((r) => r.body));
  else {
    const path = isAbsolute(location) ? location : resolvePath(options.baseDir, location);
    const { parseJson } = await import('../json-file.js');
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new InvalidInputError('manifest-invalid', location, `trust.jwks cannot be read (${error.code ?? String(error)})`);
    });
    value = parseJson(text, location, 'manifest-invalid');
  }
  loadJwks(value, location);
  return value;
}

/** JWKS documents fetched during one run (one `EngineOptions` object): many agents of one operator share a key set. */
const jwksCache = new WeakMap<EngineOptions, Map<string, Promise<unknown>>>();

function cachedJson(url: string, options: EngineOptions, load: () => Promise<unknown>): Promise<unknown> {
  let perRun = jwksCache.get(options);
  if (!perRun) jwksCache.set(options, (perRun = new Map()));
  let pending = perRun.get(url);
  if (!pending) perRun.set(url, (pending = load()));
  return pending;
}

/** Where the extended card is fetched through: an interface and a security requirement. */
interface ExtendedRoute {
  iface: Pick<AgentInterface, 'url' | 'protocolBinding' | 'protocolVersion' | 'tenant'>;
  requirement: SecurityRequirement;
}

/**
 * Fetch the authenticated extended card through `route` with the agent's credentials, read from
 * the environment variables the manifest names. Returns undefined (with a warning) when the agent
 * answers that it has none.
 * @throws A2aLockError `credential-unset` when a needed variable is unset; FetchError; InvalidInputError
 */
async function readExtended(
  route: ExtendedRoute,
  schemes: NormalizedCard['securitySchemes'],
  sources: AgentEntry['credentials'],
  settings: AgentSettings,
  options: EngineOptions,
  baseUrl: string | undefined,
  warnings: Warning[],
): Promise<ReadCard | undefined> {
  const [{ placeCredential }, { fetchExtendedCard }] = await Promise.all([import('../credentials.js'), import('../card/extended.js')]);
  const placements = Object.keys(route.requirement).map((scheme) => {
    const source = own(sources, scheme);
    const secret = source ? options.env?.[source.env] : undefined;
    if (!source || !secret) {
      const variable = source?.env ?? `(no credentials.${scheme} in the manifest)`;
      throw new A2aLockError('credential-unset', `the extended card needs ${variable} (credential for scheme "${scheme}"), which is not set`, {
        hint: source ? `set ${source.env} and rerun` : `add credentials.${scheme} to the agent in a2a.json`,
        data: { variable, scheme },
      });
    }
    const definition = own(schemes, scheme);
    if (!definition) throw new InvalidInputError('card-invalid', route.iface.url, `security requirement names scheme "${scheme}", which the card does not define`);
    return placeCredential(definition, secret, scheme);
  });
  const result = await fetchExtendedCard({
    url: route.iface.url,
    protocolBinding: route.iface.protocolBinding,
    protocolVersion: route.iface.protocolVersion,
    ...(route.iface.tenant ? { tenant: route.iface.tenant } : {}),
    credentials: placements,
    ...requestOptions(options),
  });
  if (!result.card) {
    warnings.push(result.warning);
    return undefined;
  }
  const source = `${result.url} (extended card)`;
  assertShallow(result.card, source);
  const normalized = normalizeCard(result.card, { source, ...(baseUrl ? { baseUrl } : {}) });
  warnings.push(...normalized.warnings);
  const signature = await signatureOf(result.card, settings, options, warnings);
  return { raw: result.card, card: normalized.card, signature, url: result.url };
}

/** The route for a first resolution: the profile's interface and the card's first satisfiable requirement. */
function routeFor(card: NormalizedCard, skills: readonly string[], settings: AgentSettings, warnings: Warning[]): ExtendedRoute | undefined {
  const { interface: iface } = chooseInterface(card, profileOf(settings));
  if (!iface) return undefined; // negotiation refuses with no-common-interface
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
    warnings.push({ code: 'no-extended-card', message: 'the extended card was not fetched: no credential held satisfies the card\'s security requirements' });
    return undefined;
  }
  return { iface, requirement };
}

/**
 * A test of whether two definitions of a scheme place a credential alike (header, query parameter
 * or cookie, and its format), judged with a stand-in secret: alike to whoever holds the secret,
 * whatever else differs (a description, the case of `Bearer`). A missing definition is alike only
 * to another missing one.
 */
async function placedAlike(): Promise<(a: SecurityScheme | undefined, b: SecurityScheme | undefined) => boolean> {
  const { placeCredential } = await import('../credentials.js');
  const placement = (scheme: SecurityScheme | undefined): unknown => {
    if (!scheme) return null;
    try {
      const placed = placeCredential(scheme, 'user:secret');
      // Header names are case-insensitive (X-Key and x-key are one header).
      return { ...placed, headers: Object.fromEntries(Object.entries(placed.headers).map(([name, value]) => [name.toLowerCase(), value])) };
    } catch (error) {
      return { refused: (error as Error).message };
    }
  };
  return (a, b) => sameJson(placement(a), placement(b));
}

/**
 * For each locked plan, the schemes it names that `fresh` presents differently from `locked` (the
 * cards its plans were and are negotiated against). A plan names its schemes; how each presents
 * the credential comes from the card, and the runtime sends it the locked way.
 */
async function schemeDrift(plans: Record<string, Plan>, locked: NormalizedCard, fresh: NormalizedCard): Promise<PlanDrift[]> {
  const alike = await placedAlike();
  const drift: PlanDrift[] = [];
  for (const [skill, plan] of Object.entries(plans)) {
    for (const name of Object.keys(plan.security)) {
      const was = own(locked.securitySchemes, name);
      const now = own(fresh.securitySchemes, name);
      if (!alike(was, now)) drift.push({ skill, field: `securitySchemes.${name}`, locked: was ?? null, fresh: now ?? null });
    }
  }
  return drift;
}

/**
 * Where a credential for the extended card of a locked agent may go: along the route `lock` took
 * (chosen on the locked public card), and only if the card served now still offers that interface
 * and presents each scheme of the requirement the same way (same header, query parameter or
 * cookie, same format). Otherwise the drift that says why, and nothing is to be sent: a card, or an
 * edited lockfile, never picks a new place for a secret without `a2a update`.
 */
async function lockedExtendedRoute(
  previous: LockEntry,
  served: NormalizedCard,
  settings: AgentSettings,
  warnings: Warning[],
): Promise<{ route?: ExtendedRoute; schemes: NormalizedCard['securitySchemes']; drift: PlanDrift[] }> {
  const lockedPublic = lockedPublicCard(previous, previous.card);
  const skills = Object.keys(previous.plans).sort();
  const route = routeFor(lockedPublic, skills, settings, warnings);
  if (!route) return { schemes: lockedPublic.securitySchemes, drift: [] };
  const alike = await placedAlike();
  // Drift for the skills whose plan uses the scheme; all of them when none does (every plan is
  // negotiated against the extended card this route fetches).
  const affected = (scheme?: string): string[] => {
    const using = scheme === undefined ? [] : skills.filter((skill) => Object.hasOwn(previous.plans[skill]!.security, scheme));
    return using.length > 0 ? using : skills;
  };
  const drift: PlanDrift[] = [];
  for (const name of Object.keys(route.requirement)) {
    const was = own(lockedPublic.securitySchemes, name);
    const now = own(served.securitySchemes, name);
    if (!alike(was, now)) {
      for (const skill of affected(name)) drift.push({ skill, field: `securitySchemes.${name}`, locked: was ?? null, fresh: now ?? null });
    }
  }
  const { url, protocolBinding, protocolVersion, tenant } = route.iface;
  const offered = served.supportedInterfaces.some(
    (i) => i.url === url && i.protocolBinding === protocolBinding && i.protocolVersion === protocolVersion && (i.tenant ?? '') === (tenant ?? ''),
  );
  if (!offered) {
    for (const skill of affected()) drift.push({ skill, field: 'supportedInterfaces', locked: { url, protocolBinding, protocolVersion, ...(tenant ? { tenant } : {}) }, fresh: null });
  }
  return drift.length > 0 ? { schemes: lockedPublic.securitySchemes, drift } : { route, schemes: lockedPublic.securitySchemes, drift: [] };
}

/**
 * Resolve one agent: load its card, check its signature, fetch and use the extended card when the
 * agent advertises one, and negotiate every manifest skill. With `locked` (the entry of an agent
 * whose negotiation inputs did not change), every skill it locked must negotiate on the fresh card
 * to exactly its locked plan, and a locked verified signature must still verify with the same key;
 * anything else is drift (run `a2a update`), never a silent change. The lock thereby stays
 * self-consistent: its plans are what its snapshots negotiate. With `previous` (the agent's lock
 * entry; omitted: `locked`), the extended card's credential goes only along its locked route
 * ({@link lockedExtendedRoute}); with `null`, as the served card says (a first lock, `a2a update`).
 * @throws InvalidInputError / FetchError / A2aLockError (`credential-unset`, `signature-required`)
 */
export async function resolveAgent(
  entry: AgentEntry,
  settings: AgentSettings,
  options: EngineOptions,
  locked?: LockEntry,
  previous?: LockEntry | null,
): Promise<Resolution> {
  // `previous` omitted: the locked entry, if any; `null`: no route constraint (a first lock, update).
  const routeFrom = previous === undefined ? locked : (previous ?? undefined);
  const loaded = await loadCard(entry.card, loadOptions(settings, options));
  const warnings: Warning[] = [...loaded.warnings];
  const normalized = normalizeCard(loaded.raw, cardSourceOf(loaded));
  warnings.push(...normalized.warnings);
  const signature = await signatureOf(loaded.raw, settings, options, warnings);
  if (settings.requireSignature && signature.status !== 'verified') {
    throw new A2aLockError('signature-required', `${loaded.source}: card signature is ${signature.status}; the manifest requires a verified signature`, {
      hint: 'ask the agent to sign its card, or set trust.jwks to the keys it signs with',
    });
  }
  let card = normalized.card;
  let extended: ReadCard | undefined;
  if (card.capabilities.extendedAgentCard) {
    let route: ExtendedRoute | undefined;
    let schemes = card.securitySchemes;
    if (routeFrom) {
      const guarded = await lockedExtendedRoute(routeFrom, card, settings, warnings);
      if (guarded.drift.length > 0) return { refusals: [], drift: guarded.drift, traces: {}, warnings, card };
      ({ route, schemes } = guarded);
    } else {
      // Skill ids sorted, as the lockfile stores its plans: the guard finds the same route later.
      route = routeFor(card, [...entry.skills].sort(), settings, warnings);
    }
    if (route) extended = await readExtended(route, schemes, entry.credentials, settings, options, loaded.baseUrl, warnings);
    if (extended) {
      if (settings.requireSignature && extended.signature.status !== 'verified') {
        throw new A2aLockError('signature-required', `${extended.url} (extended card): signature is ${extended.signature.status}; the manifest requires a verified signature`);
      }
      card = extended.card;
    }
  }

  const plans: Record<string, Plan> = {};
  const refusals: SkillRefusal[] = [];
  const drift: PlanDrift[] = [];
  const traces: Record<string, TraceStep[]> = {};
  for (const skill of entry.skills) {
    const lockedPlan = own(locked?.plans, skill);
    const result = negotiate(card, skill, profileOf(settings), settings.credentials, versionRangeOption(settings));
    traces[skill] = result.trace;
    if (lockedPlan) {
      if (result.plan) drift.push(...fieldDrift(skill, lockedPlan, result.plan));
      else drift.push({ skill, refusal: result.refusal });
      if (result.plan) plans[skill] = result.plan;
      continue;
    }
    if (result.plan) plans[skill] = result.plan;
    else refusals.push({ skill, refusal: result.refusal });
  }
  if (locked) {
    // A locked plan's scheme the card now presents differently (a header become a query
    // parameter) moves it too, though the plan's fields are equal.
    const kept = Object.fromEntries(Object.entries(locked.plans).filter(([skill]) => entry.skills.includes(skill)));
    drift.push(...(await schemeDrift(kept, lockedNegotiationCard(locked, entry.card), card)));
  }
  const sigDrift = locked
    ? [...signatureDrift('card', locked.signature, signature), ...(extended && locked.extended ? signatureDrift('extended', locked.extended.signature, extended.signature) : [])]
    : [];
  if (refusals.length > 0 || drift.length > 0 || sigDrift.length > 0) {
    return { refusals, drift, ...(sigDrift.length ? { signatureDrift: sigDrift } : {}), traces, warnings, card };
  }
  return {
    entry: {
      card: entry.card,
      resolved: loaded.resolved,
      a2aVersion: normalized.card.shape,
      version: normalized.card.version,
      integrity: integrityOf(loaded.raw),
      snapshot: loaded.raw,
      signature,
      ...(extended
        ? { extended: { resolved: extended.url, integrity: integrityOf(extended.raw), snapshot: extended.raw, signature: extended.signature } }
        : {}),
      plans,
    },
    refusals,
    drift,
    traces,
    warnings,
    card,
  };
}

/**
 * How a locked plan fares against a narrowed negotiation result: a refusal (plus, when the
 * unconstrained negotiation succeeds, the fields `a2a update` would change) or the differing fields.
 */
function planDrift(skill: string, locked: Plan, result: ReturnType<typeof negotiate>, card: NormalizedCard, settings: AgentSettings): PlanDrift[] {
  if (result.plan) return fieldDrift(skill, locked, result.plan);
  // Name the fields and their locked vs fresh values too: the plan `a2a update` would lock.
  const unconstrained = negotiate(card, skill, profileOf(settings), settings.credentials, versionRangeOption(settings));
  return [{ skill, refusal: result.refusal }, ...(unconstrained.plan ? fieldDrift(skill, locked, unconstrained.plan) : [])];
}

/** The fields in which `fresh` differs from `locked`, as drift entries of `skill`. */
function fieldDrift(skill: string, locked: Plan, fresh: Plan): PlanDrift[] {
  return diffPlans(locked, fresh).map((d) => ({ skill, field: d.field, locked: d.locked, fresh: d.fresh }));
}

/** Per-agent verification status. */
export type AgentStatus = 'ok' | 'changed' | 'drift' | 'out-of-date' | 'error';

/** One way a fresh card goes beyond a locked plan. */
export interface PlanDrift {
  skill: string;
  /** The plan field that differs (absent when negotiation refused). */
  field?: string;
  locked?: unknown;
  fresh?: unknown;
  /** Set when the narrowed negotiation refused. */
  refusal?: Refusal;
}

/** A locked verified signature that no longer holds: the card came back unsigned, unverifiable, or signed by another key. */
export interface SignatureDrift {
  snapshot: 'card' | 'extended';
  locked: SignatureRecord;
  fresh: SignatureRecord;
}

/** What verify/install found for one agent. `exitCode` is this agent's contribution. */
export interface AgentReport {
  status: AgentStatus;
  exitCode: ExitCode;
  /** For `changed` and `drift`: whether any card change can decide a plan. */
  change?: 'structural' | 'descriptive';
  /** Card changes; paths of extended-card changes start with `extended:`. */
  cardChanges?: CardChange[];
  drift?: PlanDrift[];
  signatureDrift?: SignatureDrift[];
  /** Set when part of the agent could not be checked, e.g. "extended card not checked (RESEARCH_TOKEN unset)"; `--strict` fails on it. */
  unchecked?: string;
  /** For `out-of-date`: why the lock does not match the manifest. */
  reasons?: string[];
  /** For `error`: the typed error. */
  error?: { code: ErrorCode; message: string; hint?: string };
  warnings: Warning[];
}

function errorReport(error: unknown, warnings: Warning[] = []): AgentReport {
  if (!(error instanceof A2aLockError)) throw error;
  return { status: 'error', exitCode: exitCodeFor(error), error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) }, warnings };
}

/**
 * Why a lockfile does not satisfy the manifest, per agent name (empty map when it does): agents
 * missing from the lock, agents no longer in the manifest, a changed `card`, changed settings
 * (effective profile, credentials held, version range, trust) or a changed skill list.
 */
export function manifestMismatches(manifest: Manifest, lock: Lockfile | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (name: string, reason: string) => out.set(name, [...(out.get(name) ?? []), reason]);
  for (const [name, entry] of Object.entries(manifest.agents)) {
    const locked = own(lock?.agents, name);
    if (!locked) {
      add(name, 'not in the lockfile');
      continue;
    }
    if (locked.card !== entry.card) add(name, `card changed in the manifest (${locked.card} → ${entry.card})`);
    if (!sameSettings(own(lock?.settings, name), agentSettings(manifest, name))) {
      add(name, 'profile, credentials, version range or trust changed in the manifest');
    }
    const lockedSkills = Object.keys(locked.plans).sort();
    const wanted = [...entry.skills].sort();
    if (lockedSkills.join('\n') !== wanted.join('\n')) add(name, `skills changed (${lockedSkills.join(', ')} → ${wanted.join(', ')})`);
  }
  for (const name of Object.keys(lock?.agents ?? {})) {
    if (!Object.hasOwn(manifest.agents, name)) add(name, 'no longer in the manifest');
  }
  return out;
}

/** Whether locked settings equal the manifest's, key order aside. */
export function sameSettings(a: AgentSettings | undefined, b: AgentSettings): boolean {
  return a !== undefined && sameJson(a, b);
}

/**
 * The card a locked entry's plans were negotiated against: its extended snapshot when it has one.
 * @throws InvalidInputError `card-invalid` when a snapshot is no longer a valid card
 */
export function lockedNegotiationCard(entry: LockEntry, source: string): NormalizedCard {
  const pub = lockedPublicCard(entry, source);
  if (!entry.extended) return pub;
  const baseUrl = isCardUrl(entry.resolved) ? entry.resolved : undefined;
  return normalizeCard(entry.extended.snapshot, { source: `${source}.extended`, ...(baseUrl ? { baseUrl } : {}) }).card;
}

/**
 * A locked entry's public card snapshot, normalised.
 * @throws InvalidInputError `card-invalid` when it is no longer a valid card
 */
function lockedPublicCard(entry: LockEntry, source: string): NormalizedCard {
  const baseUrl = isCardUrl(entry.resolved) ? entry.resolved : undefined;
  const legacy = entry.resolved.endsWith('/.well-known/agent.json') ? { legacyWellKnown: true } : {};
  return normalizeCard(entry.snapshot, { source, ...(baseUrl ? { baseUrl } : {}), ...legacy }).card;
}

/**
 * Negotiate a locked entry's skills again from its own snapshots, without network (the plans no
 * longer match what the snapshot negotiates with the current settings). The snapshots stay; only
 * plans change, and the caller shows the diff.
 */
export function replanFromSnapshot(entry: LockEntry, settings: AgentSettings, skills: readonly string[], source: string): Resolution {
  const card = lockedNegotiationCard(entry, source);
  const plans: Record<string, Plan> = {};
  const refusals: SkillRefusal[] = [];
  const traces: Record<string, TraceStep[]> = {};
  for (const skill of skills) {
    const result = negotiate(card, skill, profileOf(settings), settings.credentials, versionRangeOption(settings));
    traces[skill] = result.trace;
    if (result.plan) plans[skill] = result.plan;
    else refusals.push({ skill, refusal: result.refusal });
  }
  if (refusals.length > 0) return { refusals, drift: [], traces, warnings: [], card };
  return { entry: { ...entry, plans }, refusals, drift: [], traces, warnings: [], card };
}

/**
 * Check a locked agent against its own snapshots, without network: each snapshot's integrity, that
 * it is still a valid card, and that negotiating it with the locked settings yields exactly the
 * locked plans. Returns undefined when all holds.
 */
export function checkOffline(entry: LockEntry, settings: AgentSettings, source: string): AgentReport | undefined {
  for (const [what, snap] of [['snapshot', entry], ['extended snapshot', entry.extended]] as const) {
    if (snap && integrityOf(snap.snapshot) !== snap.integrity) {
      return {
        status: 'error',
        exitCode: ExitCode.Invalid,
        error: { code: 'lockfile-invalid', message: `${source}: ${what} does not match its integrity ${snap.integrity}` },
        warnings: [],
      };
    }
  }
  let card: NormalizedCard;
  try {
    card = lockedNegotiationCard(entry, source);
  } catch (error) {
    return errorReport(error);
  }
  const reasons: string[] = [];
  for (const [skill, plan] of Object.entries(entry.plans)) {
    const result = negotiate(card, skill, profileOf(settings), settings.credentials, versionRangeOption(settings));
    if (!result.plan) reasons.push(`skill "${skill}": the snapshot no longer negotiates (${result.refusal.code})`);
    else {
      const fields = diffPlans(plan, result.plan).map((d) => d.field);
      if (fields.length > 0) reasons.push(`skill "${skill}": locked plan differs from the plan its snapshot negotiates (${fields.join(', ')})`);
    }
  }
  if (reasons.length > 0) return { status: 'out-of-date', exitCode: ExitCode.Drift, reasons, warnings: [] };
  return undefined;
}

/** A locked verified signature must come back verified by the same key. */
function signatureDrift(snapshot: SignatureDrift['snapshot'], locked: SignatureRecord | undefined, fresh: SignatureRecord): SignatureDrift[] {
  if (locked?.status !== 'verified') return [];
  if (fresh.status === 'verified' && fresh.thumbprint === locked.thumbprint) return [];
  return [{ snapshot, locked, fresh }];
}

/**
 * Fetch the cards as served now and check them against the lock ("beyond the lockfile"): each
 * locked plan is re-negotiated with the profile narrowed to its locked choices; a refusal, any
 * differing field, or a locked verified signature that no longer verifies with the same key is
 * drift. A card change that leaves every plan equal is `changed`, structural or descriptive.
 *
 * @param sources the manifest's credential sources for this agent (the extended card)
 */
export async function checkOnline(entry: LockEntry, settings: AgentSettings, options: EngineOptions, sources: AgentEntry['credentials'] = {}): Promise<AgentReport> {
  return checkServed(entry, settings, options, sources, false);
}

/**
 * Start loading a locked agent's public card as served now, from the manifest's `card` location
 * and with no credentials: the request {@link checkOnline} begins with.
 */
export function loadServedCard(entry: LockEntry, options: EngineOptions, settings: AgentSettings): Promise<LoadedCard> {
  return loadCard(entry.card, loadOptions(settings, options));
}

/**
 * Whether checking `entry` against its card as served ends with that card: it equals its intact
 * snapshot, from the URL the lock records, and nothing else is fetched (no extended card, no
 * verified signature to check again against its key set).
 */
export function servedCardSettles(entry: LockEntry, loaded: LoadedCard): boolean {
  return !entry.extended && entry.signature?.status !== 'verified' && loaded.resolved === entry.resolved && sameJson(loaded.raw, entry.snapshot);
}

/**
 * {@link checkOnline}, for a caller that has just checked the entry offline ({@link checkOffline}
 * returned undefined, so each snapshot matches its integrity) when `snapshotsIntact`: a served card
 * equal to its snapshot as JSON (key order aside) then has the locked integrity without hashing it
 * again, which `verify` would otherwise do once more for every agent. `served`: the public card's
 * load when the caller has started it ({@link loadServedCard}).
 */
export async function checkServed(
  entry: LockEntry,
  settings: AgentSettings,
  options: EngineOptions,
  sources: AgentEntry['credentials'],
  snapshotsIntact: boolean,
  served: Promise<LoadedCard> = loadServedCard(entry, options, settings),
): Promise<AgentReport> {
  /** Whether a card read now has the integrity `locked` records for `snapshot`. */
  const sameAsLocked = (raw: Record<string, unknown>, locked: { integrity: string; snapshot: Record<string, unknown> }): boolean =>
    snapshotsIntact && sameJson(raw, locked.snapshot) ? true : integrityOf(raw) === locked.integrity;
  const warnings: Warning[] = [];
  let unchecked: string | undefined;
  let loaded: LoadedCard;
  let fresh: NormalizedCard;
  let extended: ReadCard | undefined;
  let publicSignature: SignatureRecord | undefined;
  try {
    loaded = await served;
    warnings.push(...loaded.warnings);
    // Same bytes from the same URL: relative interface URLs resolve against `resolved`, so an
    // edited `resolved` would move them (the offline check takes it as written).
    const publicSame = loaded.resolved === entry.resolved && sameAsLocked(loaded.raw, entry);
    // A verified signature is re-checked even on the same bytes: its key may be gone from the JWKS.
    const recheck = entry.signature?.status === 'verified';
    if (publicSame && !entry.extended && !recheck) return { status: 'ok', exitCode: ExitCode.Ok, warnings };
    const normalized = normalizeCard(loaded.raw, cardSourceOf(loaded));
    fresh = normalized.card;
    warnings.push(...normalized.warnings);
    if (!publicSame || recheck) publicSignature = await signatureOf(loaded.raw, settings, options, warnings);
    const publicSignatureHolds = !publicSignature || signatureDrift('card', entry.signature, publicSignature).length === 0;
    if (publicSame && !entry.extended && publicSignatureHolds) return { status: 'ok', exitCode: ExitCode.Ok, warnings };
    if (entry.extended && fresh.capabilities.extendedAgentCard) {
      // The route and schemes `lock` used, if the served card still agrees with them.
      const guarded = await lockedExtendedRoute(entry, fresh, settings, warnings);
      if (guarded.drift.length > 0) {
        const { diffCards } = await import('./card-diff.js');
        return { status: 'drift', exitCode: ExitCode.Drift, change: 'structural', cardChanges: diffCards(entry.snapshot, loaded.raw), drift: guarded.drift, warnings };
      }
      try {
        if (guarded.route) extended = await readExtended(guarded.route, guarded.schemes, sources, settings, options, loaded.baseUrl, warnings);
      } catch (error) {
        if (!(error instanceof A2aLockError) || error.code !== 'credential-unset') throw error;
        unchecked = `extended card not checked (${String(error.data?.variable)} unset)`;
      }
      const extendedSame = extended !== undefined && sameAsLocked(extended.raw, entry.extended);
      const extendedSignatureHolds = !extended || !extendedSame || signatureDrift('extended', entry.extended.signature, extended.signature).length === 0;
      if (publicSame && publicSignatureHolds && (unchecked || (extendedSame && extendedSignatureHolds))) {
        return { status: 'ok', exitCode: ExitCode.Ok, warnings, ...(unchecked ? { unchecked } : {}) };
      }
    }
  } catch (error) {
    return errorReport(error, warnings);
  }

  // deep-diff is loaded only when a card changed.
  const { diffCards } = await import('./card-diff.js');
  const cardChanges = diffCards(entry.snapshot, loaded.raw);
  if (loaded.resolved !== entry.resolved) cardChanges.unshift({ path: 'resolved', kind: 'changed', old: entry.resolved, new: loaded.resolved, structural: true });
  if (extended && entry.extended) {
    cardChanges.push(...diffCards(entry.extended.snapshot, extended.raw).map((c) => ({ ...c, path: `extended:${c.path}` })));
  }
  // The card the plans are checked against: the fresh extended card; the locked one when it could
  // not be checked; the fresh public card when the agent no longer has an extended card.
  let card = fresh;
  if (extended) card = extended.card;
  else if (unchecked && entry.extended) card = lockedNegotiationCard(entry, entry.card);
  if (entry.extended && !extended && !unchecked) {
    cardChanges.push({ path: 'extended:$', kind: 'removed', old: '(extended card)', structural: true });
  }
  const change = cardChanges.some((c) => c.structural) ? 'structural' : 'descriptive';
  const drift: PlanDrift[] = [];
  for (const [skill, locked] of Object.entries(entry.plans)) {
    const result = negotiate(card, skill, profileOf(settings), settings.credentials, { ...versionRangeOption(settings), locked });
    drift.push(...planDrift(skill, locked, result, card, settings));
  }
  // A scheme the fresh card presents differently (a header become a query parameter) is drift too.
  drift.push(...(await schemeDrift(entry.plans, lockedNegotiationCard(entry, entry.card), card)));
  const sigDrift = [
    ...(publicSignature ? signatureDrift('card', entry.signature, publicSignature) : []),
    ...(extended && entry.extended ? signatureDrift('extended', entry.extended.signature, extended.signature) : []),
  ];
  const base = { change, cardChanges, warnings, ...(unchecked ? { unchecked } : {}) } as const;
  if (drift.length > 0 || sigDrift.length > 0) {
    return { status: 'drift', exitCode: ExitCode.Drift, ...base, ...(drift.length ? { drift } : {}), ...(sigDrift.length ? { signatureDrift: sigDrift } : {}) };
  }
  return { status: 'changed', exitCode: ExitCode.Ok, ...base };
}

/** The overall exit code of a multi-agent run: the lowest non-zero agent code, else 0. */
export function overallExitCode(codes: Iterable<ExitCode>): ExitCode {
  let worst: ExitCode = ExitCode.Ok;
  for (const code of codes) {
    if (code === ExitCode.Ok) continue;
    if (worst === ExitCode.Ok || code < worst) worst = code;
  }
  return worst;
}
