/**
 * The loaded lockfile at run time: {@link loadLock} reads and checks `a2a.lock.json` (and the
 * manifest beside it), and the {@link Lock} it returns hands out one {@link LockedAgent} per
 * agent skill (its frozen plan, its enforcing fetch, `createClient()`), marks agents degraded,
 * and optionally re-checks the locked cards in the background (`drift`).
 */
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { placeCredential, type CredentialPlacement } from '../credentials.js';
import { networkOptionsOf } from '../http/network-options.js';
import { A2aLockError, AgentDegradedError, InvalidInputError, OutOfDateError, PlanViolationError, UsageError } from '../errors.js';
import type { LockEntry, Lockfile } from '../lock/schema.js';
import type { AgentEntry, AgentSettings, Manifest } from '../manifest/schema.js';
import type { Plan } from '../negotiate/types.js';
import { isCleartextOffLoopback } from '../card/host.js';
import { CARD_PATH, LEGACY_CARD_PATH } from '../card/location.js';
import { cardServingFetch, lockedCardUrls, narrowedCard, type CardWireShape } from './card.js';
import { enforcingFetch } from './enforce.js';
import type { AgentRuntime, DegradedEvent, DriftEvent, FallbackEvent, FallbackReason, LoadLockOptions, LockedAgent } from './types.js';

/** The pure lock checks the Lock needs after loading (loaded by {@link loadLock} with the lockfile). */
type Offline = Pick<typeof import('../lock/offline.js'), 'checkOffline' | 'lockedNegotiationCard'>;

/**
 * Why a locked entry cannot be used (its snapshot integrity, its plans vs what the snapshot
 * negotiates), as the error `loadLock` or the first `lock.agent()` throws; undefined when it holds.
 */
function entryError(offline: Offline, source: string, name: string, entry: LockEntry, settings: AgentSettings): A2aLockError | undefined {
  const report = offline.checkOffline(entry, settings, `agents.${name}`);
  if (report?.status === 'error') return new InvalidInputError('lockfile-invalid', source, report.error!.message, { hint: `run a2a update ${name}` });
  if (report) return new OutOfDateError(`${source}: agent "${name}": ${(report.reasons ?? []).join('; ')}`);
  return undefined;
}

/** The loaded lockfile: `agent(name, skill)`, events `degraded`, `fallback` and `drift`, `close()`. */
export class Lock extends EventEmitter {
  readonly #lock: Lockfile;
  readonly #source: string;
  readonly #manifest: Manifest | undefined;
  readonly #options: LoadLockOptions;
  readonly #degraded = new Map<string, AgentDegradedError>();
  readonly #agents = new Map<string, LockedAgent>();
  readonly #fallbacks = new Map<string, Partial<Record<FallbackReason, number>>>();
  readonly #offline: Offline;
  /** Per agent: its entry checked (true) or the error it failed with (lazy mode). */
  readonly #checked = new Map<string, true | A2aLockError>();
  #timer: NodeJS.Timeout | undefined;
  #refreshing = false;

  /** @internal use {@link loadLock} */
  constructor(lock: Lockfile, source: string, manifest: Manifest | undefined, options: LoadLockOptions, offline: Offline) {
    super();
    this.#offline = offline;
    if (options.eager) for (const name of Object.keys(lock.agents)) this.#checked.set(name, true);
    this.#lock = lock;
    this.#source = source;
    this.#manifest = manifest;
    this.#options = options;
    if (options.refreshIntervalMs !== undefined) {
      this.#timer = setInterval(() => void this.refresh(), options.refreshIntervalMs);
      this.#timer.unref();
    }
  }

  /** The locked agent names. */
  get agents(): string[] {
    return Object.keys(this.#lock.agents);
  }

  /**
   * The locked plan of `skill` on agent `name`, with its enforcing fetch and client. Without
   * `eager`, the agent's entry is checked on its first call (snapshot integrity, plans = what the
   * snapshot negotiates), so nothing is ever sent to a tampered entry.
   * Without `skill`, the agent-level plan `"*"` (a manifest entry that lists no skills).
   * @throws UsageError for an agent or skill the lockfile does not hold
   * @throws InvalidInputError `lockfile-invalid` (tampered snapshot) / OutOfDateError `lockfile-out-of-date` (lazy check), on every call for that agent
   */
  agent(name: string, skill = '*'): LockedAgent {
    const key = `${name}\n${skill}`;
    const cached = this.#agents.get(key);
    if (cached) return cached;
    const entry = Object.hasOwn(this.#lock.agents, name) ? this.#lock.agents[name] : undefined;
    if (!entry) throw new UsageError(`${this.#source}: no locked agent "${name}" (locked: ${this.agents.join(', ') || 'none'})`);
    const plan = Object.hasOwn(entry.plans, skill) ? entry.plans[skill] : undefined;
    if (!plan) throw new UsageError(`${this.#source}: agent "${name}" has no locked skill "${skill}" (locked: ${Object.keys(entry.plans).join(', ')})`);
    let checked = this.#checked.get(name);
    if (checked === undefined) this.#checked.set(name, (checked = entryError(this.#offline, this.#source, name, entry, this.#lock.settings[name]!) ?? true));
    if (checked !== true) throw checked;
    const runtime = this.#runtime(name, skill, entry, deepFreeze(structuredClone(plan)));
    const degradedMap = this.#degraded;
    const fallbackCounts = this.#fallbacks;
    const cards = new Map<CardWireShape, Record<string, unknown>>();
    const cardIn = (shape: CardWireShape) => {
      let c = cards.get(shape);
      if (!c) cards.set(shape, (c = deepFreeze(narrowedCard(runtime, shape))));
      return c;
    };
    const interfaces = [runtime.plan, ...(runtime.plan.fallbacks?.interfaces ?? [])];
    const agent: LockedAgent = {
      name,
      skill,
      plan: runtime.plan,
      get card() {
        return cardIn(runtime.plan.protocolVersion.startsWith('0.') ? '0.3' : '1.0');
      },
      fetch: cardServingFetch(runtime.fetchFor(runtime.plan), lockedCardUrls(entry.resolved, interfaces, [CARD_PATH, LEGACY_CARD_PATH]), cardIn),
      get degraded() {
        return degradedMap.has(name);
      },
      get fallbacksTaken() {
        return { ...fallbackCounts.get(name) };
      },
      createClient: async (options) => (await import('./client.js')).createLockedClient(runtime, options),
    };
    this.#agents.set(key, agent);
    return agent;
  }

  /** Stop the background refresh. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Re-fetch every locked card once and run the lock-constrained check (as `a2a verify`); emit
   * `drift` and mark degraded each agent whose plans are beyond the lock. Resolves when done;
   * a refresh already running makes this a no-op. Cards that cannot be fetched are skipped.
   */
  async refresh(): Promise<void> {
    if (this.#refreshing) return;
    this.#refreshing = true;
    try {
      const { checkServed } = await import('../resolve/check-served.js');
      const baseDir = dirname(this.#options.manifest ?? this.#source);
      const options = { baseDir, ...networkOptionsOf(this.#options), env: this.#options.env ?? process.env };
      for (const [name, entry] of Object.entries(this.#lock.agents)) {
        const settings = this.#lock.settings[name]!;
        const report = await checkServed({ entry, settings, credentials: this.#sources(name) }, options);
        if (report.status !== 'drift') continue;
        this.emit('drift', { agent: name, report } satisfies DriftEvent);
        this.#markDegraded(name, undefined, 'drift', `the agent's card is now beyond the lockfile (run a2a verify)`);
      }
    } finally {
      this.#refreshing = false;
    }
  }

  #sources(name: string): AgentEntry['credentials'] {
    return this.#manifest?.agents[name]?.credentials ?? {};
  }

  #markDegraded(name: string, skill: string | undefined, reason: DegradedEvent['reason'], message: string, cause?: unknown): AgentDegradedError {
    const error = new AgentDegradedError(name, skill ?? '*', reason, message, { cause });
    if (!this.#degraded.has(name)) {
      this.#degraded.set(name, error);
      this.emit('degraded', { agent: name, skill, reason, error } satisfies DegradedEvent);
    }
    return error;
  }

  #runtime(name: string, skill: string, entry: LockEntry, plan: Plan): AgentRuntime {
    const card = this.#offline.lockedNegotiationCard(entry, `${this.#source} agents.${name}`);
    const found = card.skills.find((s) => s.id === skill);
    const inputModes = found?.inputModes?.length ? found.inputModes : card.defaultInputModes;
    const sources = this.#sources(name);
    const providers = this.#options.credentials ?? {};
    const env = this.#options.env ?? process.env;
    const send = this.#options.fetch ?? globalThis.fetch;
    const placements = async (): Promise<CredentialPlacement[]> => {
      const out: CredentialPlacement[] = [];
      for (const scheme of Object.keys(plan.security)) {
        const definition = card.securitySchemes[scheme];
        if (!definition) throw new InvalidInputError('lockfile-invalid', this.#source, `agent "${name}" locks scheme "${scheme}", which its card does not define`);
        const provider = Object.hasOwn(providers, scheme) ? providers[scheme] : undefined;
        const variable = Object.hasOwn(sources, scheme) ? sources[scheme]!.env : undefined;
        const secret: unknown = provider ? await provider() : variable !== undefined ? env[variable] : undefined;
        if (secret !== undefined && typeof secret !== 'string') {
          throw new UsageError(`${name} (${skill}): the credentials provider for scheme "${scheme}" returned ${secret === null ? 'null' : Array.isArray(secret) ? 'an array' : `a ${typeof secret}`}, not a string`);
        }
        if (secret === undefined || secret === '') {
          const where = variable !== undefined ? `${variable} is not set` : 'no credentials option or manifest source names it';
          throw new A2aLockError('credential-unset', `${name} (${skill}): no credential for scheme "${scheme}" (${where})`, { data: { agent: name, scheme, ...(variable ? { variable } : {}) } });
        }
        out.push(placeCredential(definition, secret, scheme));
      }
      return out;
    };
    const fetches = new Map<string, typeof fetch>();
    return {
      name,
      skill,
      plan,
      card,
      inputModes,
      placements,
      grpc: { allowInsecure: this.#options.allowInsecureGrpc === true, ...(this.#options.grpcChannelCredentials ? { credentials: this.#options.grpcChannelCredentials } : {}) },
      fetchFor: (iface) => {
        const key = `${iface.protocolBinding}\n${iface.protocolVersion}\n${iface.url}`;
        let enforcing = fetches.get(key);
        // A credential never crosses the network in cleartext, whatever the lockfile says.
        const guarded = isCleartextOffLoopback(iface.url) ? () => Promise.reject(cleartextRefusal(name, skill, iface.url)) : placements;
        if (!enforcing) fetches.set(key, (enforcing = enforcingFetch({ agent: name, skill, plan, iface, inputModes, placements: guarded, security: Object.keys(plan.security).length > 0, send })));
        return enforcing;
      },
      degrade: (reason, message, cause) => this.#markDegraded(name, skill, reason, message, cause),
      fallback: (reason, from, to) => {
        const counts = this.#fallbacks.get(name) ?? {};
        counts[reason] = (counts[reason] ?? 0) + 1;
        this.#fallbacks.set(name, counts);
        this.emit('fallback', { agent: name, skill, from, to, reason } satisfies FallbackEvent);
      },
    };
  }
}

/**
 * Read and check `a2a.lock.json` for run-time use: its schema (as the CLI), every agent's settings,
 * and with a manifest that the lock matches it. Each agent's snapshot integrity and that its plans
 * are what its snapshot negotiates are checked on its first `lock.agent()` call (cheap cold start:
 * only the agents a process uses are checked), or all here with `eager: true` (at deploy time).
 * The lockfile parsing modules are loaded here, not when `a2a-lock/runtime` is imported.
 *
 * @throws InvalidInputError `lockfile-invalid` (missing, invalid; with `eager`, a tampered snapshot);
 *   OutOfDateError `lockfile-out-of-date` (manifest out of step; with `eager`, plans out of step: run `a2a lock`);
 *   InvalidInputError `manifest-invalid`
 */
export async function loadLock(options: LoadLockOptions = {}): Promise<Lock> {
  const [{ readLockfile }, { readManifest }, { describeMismatches, manifestMismatches }, offline] = await Promise.all([
    import('../fs/lockfile.js'),
    import('../fs/manifest.js'),
    import('../lock/satisfies.js'),
    import('../lock/offline.js'),
  ]);
  const source = resolve(options.lockfile ?? 'a2a.lock.json');
  const read = await readLockfile(source);
  if (!read) throw new InvalidInputError('lockfile-invalid', source, 'no lockfile here', { hint: 'run a2a lock' });
  const manifestPath = resolve(options.manifest ?? join(dirname(source), 'a2a.json'));
  const manifest = options.manifest !== undefined || existsSync(manifestPath) ? await readManifest(manifestPath) : undefined;
  if (manifest) {
    const mismatches = manifestMismatches(manifest, read.lock);
    if (mismatches.size > 0) {
      throw new OutOfDateError(`${source} does not match ${manifestPath}: ${describeMismatches(mismatches)}`);
    }
  }
  for (const [name, entry] of Object.entries(read.lock.agents)) {
    const settings: AgentSettings | undefined = read.lock.settings[name];
    if (!settings) throw new InvalidInputError('lockfile-invalid', source, `agent "${name}" has no settings`, { path: `$.settings["${name}"]` });
    if (!options.eager) continue;
    const error = entryError(offline, source, name, entry, settings);
    if (error) throw error;
  }
  return new Lock(read.lock, source, manifest, options, offline);
}

/** The error for a credential that would go over plain http to a host that is not loopback (nothing is sent). */
function cleartextRefusal(agent: string, skill: string, url: string): PlanViolationError {
  const origin = URL.canParse(url) ? new URL(url).origin : url;
  return new PlanViolationError(agent, skill, `the plan's interface ${origin} is plain http to a host that is not loopback: a credential is never sent over it (use an https interface)`);
}

/** Freeze `value` and everything it holds, in place; returns it. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
