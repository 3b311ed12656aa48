/**
 * The loaded lockfile at run time: {@link loadLock} reads and checks `a2a.lock.json` (and the
 * manifest beside it), and the {@link Lock} it returns hands out one {@link LockedAgent} per
 * agent skill (its frozen plan, its enforcing fetch, `createClient()`), marks agents degraded,
 * and optionally re-checks the locked cards in the background (`drift`).
 */
import { EventEmitter } from 'node:events';
import { dirname } from 'node:path';
import { isCleartextOffLoopback } from '../card/host.js';
import { CARD_PATH, LEGACY_CARD_PATH } from '../card/location.js';
import type { SecurityScheme } from '../card/model.js';
import { clientCredentialsTokenUrl } from '../credentials.js';
import { A2aLockError, AgentDegradedError, InvalidInputError, PlanViolationError, UsageError } from '../errors.js';
import { networkOptionsOf, proxyEnvironment, proxyVariableSet } from '../http/network-options.js';
import { type ClientCredentialsGrant, ClientCredentialsTokens } from '../http/oauth-token.js';
import { originAuthenticator } from '../http/origin-auth.js';
import type { LockEntry } from '../lock/schema.js';
import type { LockfileTop } from '../lock/top.js';
import type { AgentEntry, AgentSettings, Manifest } from '../manifest/schema.js';
import type { Plan } from '../negotiate/types.js';
import { type CardWireShape, cardServingFetch, lockedCardUrls, narrowedCard } from './card.js';
import { checksNow } from './checks-loader.js';
import { credentialPlacements, type OAuthClientSource } from './credential-source.js';
import { enforcingFetch } from './enforce.js';
import { originAuthFetch } from './origin-auth.js';
import type {
  AgentRuntime,
  DegradedEvent,
  DriftEvent,
  FallbackEvent,
  FallbackReason,
  LoadLockOptions,
  LockedAgent,
} from './types.js';

type Checked = import('./checks.js').CheckedAgent;
type CheckedManifest = import('./checks.js').CheckedManifest;

/** The loaded lockfile: `agent(name, skill)`, events `degraded`, `fallback` and `drift`, `close()`. */
export class Lock extends EventEmitter {
  readonly #lock: LockfileTop;
  readonly #source: string;
  readonly #options: LoadLockOptions;
  readonly #degraded = new Map<string, AgentDegradedError>();
  /** The agents a refresh found drifted: with `onDrift: 'refuse'`, every later call to them is refused. */
  readonly #drifted = new Set<string>();
  readonly #agents = new Map<string, LockedAgent>();
  readonly #fallbacks = new Map<string, Partial<Record<FallbackReason, number>>>();
  /** The manifest's text, checked with the first agent (lazy) or at load (eager). */
  readonly #manifestText: { text: string; path: string } | undefined;
  #manifestChecked: { checked: CheckedManifest } | { error: unknown } | undefined;
  /** Per agent: its entry checked, or the error it failed with (filled on first use; all at load with `eager`). */
  readonly #checked: Map<string, Checked>;

  #timer: NodeJS.Timeout | undefined;
  /** What requests are sent with: the `fetch` option, else {@link defaultFetch} (as the environment was when loaded). */
  readonly #send: typeof fetch;
  /** OAuth client-credentials access tokens, cached per token URL, client and scopes (made on first use). */
  #tokenCache: ClientCredentialsTokens | undefined;
  #refreshing = false;

  /** @internal use {@link loadLock} */
  constructor(
    lock: LockfileTop,
    source: string,
    manifest: { text: string; path: string; checked?: CheckedManifest } | undefined,
    options: LoadLockOptions,
    checked = new Map<string, Checked>(),
  ) {
    super();
    this.#checked = checked;
    this.#lock = lock;
    this.#source = source;
    this.#manifestText = manifest;
    if (manifest?.checked) this.#manifestChecked = { checked: manifest.checked };
    this.#options = options;
    this.#send = options.fetch ?? defaultFetch();
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
   * `eager`, the first call checks the manifest and the agent's first call checks its entry (the
   * lockfile schema, snapshot integrity, plans = what the snapshot negotiates; see {@link loadLock}),
   * so nothing is ever sent to a tampered entry.
   * Without `skill`, the agent-level plan `"*"` (a manifest entry that lists no skills).
   * @throws UsageError for an agent or skill the lockfile does not hold
   * @throws InvalidInputError `lockfile-invalid` (invalid entry, tampered snapshot) / OutOfDateError
   *   `lockfile-out-of-date` (plans or manifest out of step) / InvalidInputError `manifest-invalid`
   *   (lazy checks), on every call for that agent
   */
  agent(name: string, skill = '*'): LockedAgent {
    const key = `${name}\n${skill}`;
    const cached = this.#agents.get(key);
    if (cached) return cached;
    if (!Object.hasOwn(this.#lock.agents, name))
      throw new UsageError(`${this.#source}: no locked agent "${name}" (locked: ${this.agents.join(', ') || 'none'})`);
    const checked = this.#check(name);
    if ('error' in checked) throw checked.error;
    const { entry, settings } = checked;
    const plan = Object.hasOwn(entry.plans, skill) ? entry.plans[skill] : undefined;
    if (!plan)
      throw new UsageError(
        `${this.#source}: agent "${name}" has no locked skill "${skill}" (locked: ${Object.keys(entry.plans).join(', ')})`,
      );
    const runtime = this.#runtime(
      name,
      skill,
      entry,
      settings.pushEndpoint,
      deepFreeze(structuredClone(plan)),
      settings,
    );
    const degradedMap = this.#degraded;
    const fallbackCounts = this.#fallbacks;
    const cards = new Map<CardWireShape, Record<string, unknown>>();
    const cardIn = (shape: CardWireShape) => {
      let c = cards.get(shape);
      if (!c) {
        c = deepFreeze(narrowedCard(runtime, shape));
        cards.set(shape, c);
      }
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
      fetch: cardServingFetch(
        runtime.fetchFor(runtime.plan),
        lockedCardUrls(entry.resolved, interfaces, [CARD_PATH, LEGACY_CARD_PATH]),
        cardIn,
      ),
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

  /**
   * The agent's checked entry or its error, checked once: the manifest parsed first (once for all
   * agents: an invalid manifest refuses every agent), then the agent's own entry and its match with
   * the manifest.
   */
  #check(name: string): Checked {
    let checked = this.#checked.get(name);
    if (checked) return checked;
    const checks = checksNow();
    if (this.#manifestText && !this.#manifestChecked) {
      const { text, path } = this.#manifestText;
      try {
        this.#manifestChecked = { checked: checks.checkManifest(text, path, this.#lock) };
      } catch (error) {
        this.#manifestChecked = { error };
      }
    }
    if (this.#manifestChecked && 'error' in this.#manifestChecked) throw this.#manifestChecked.error;
    checked = checks.checkAgent(this.#lock, this.#source, name, this.#manifestChecked?.checked);
    this.#checked.set(name, checked);
    return checked;
  }

  /** The checked manifest (after {@link #check}), or undefined when there is none. */
  get #manifest(): Manifest | undefined {
    const m = this.#manifestChecked;
    return m && 'checked' in m ? m.checked.manifest : undefined;
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
      // The check modules first, synchronously, so that the import below finds them loaded.
      checksNow();
      const [{ checkServed }, { withOriginAuth }] = await Promise.all([
        import('../resolve/check-served.js'),
        import('../http/origin-auth.js'),
      ]);
      const baseDir = dirname(this.#options.manifest ?? this.#source);
      const options = {
        baseDir,
        ...networkOptionsOf(this.#options),
        env: this.#options.env ?? process.env,
        ...(this.#options.originAuth ? { originAuthProviders: this.#options.originAuth } : {}),
      };
      for (const name of Object.keys(this.#lock.agents)) {
        // An agent whose entry fails its checks is never used (lock.agent() throws): nothing to refresh.
        let checked: Checked;
        try {
          checked = this.#check(name);
        } catch {
          continue; // the manifest is invalid: no agent is used
        }
        if ('error' in checked) continue;
        const { entry, settings } = checked;
        const report = await checkServed(
          { entry, settings, credentials: this.#sources(name) },
          withOriginAuth(options, entry.originAuth),
        );
        if (report.status !== 'drift') continue;
        this.emit('drift', { agent: name, report } satisfies DriftEvent);
        // The skills whose plans drifted; a signature that no longer holds concerns every skill.
        const drifted = [...new Set((report.drift ?? []).map((d) => d.skill))].sort();
        const skills = drifted.length > 0 ? drifted : Object.keys(entry.plans).sort();
        this.#drifted.add(name);
        this.#markDegraded(name, skills, 'drift', DRIFTED);
      }
    } finally {
      this.#refreshing = false;
    }
  }

  #sources(name: string): AgentEntry['credentials'] {
    return this.#manifest?.agents[name]?.credentials ?? {};
  }

  get #tokens(): ClientCredentialsTokens {
    this.#tokenCache ??= new ClientCredentialsTokens(this.#send, {
      ...(this.#options.timeoutMs !== undefined ? { timeoutMs: this.#options.timeoutMs } : {}),
    });
    return this.#tokenCache;
  }

  /**
   * The access token for scheme `scheme` of agent `name` from the manifest's OAuth client: requested
   * from the client credentials flow's `tokenUrl` of the LOCKED card (never a fresh one), with the
   * locked requirement's scopes; the grant is added to `grants` (what a 401 renews).
   * @throws UsageError when the locked scheme has no client credentials flow; A2aLockError
   *   `credential-unset` naming an unset variable; the token request's errors (see `http/oauth-token.ts`)
   */
  async #clientCredentialsToken(
    name: string,
    skill: string,
    scheme: string,
    definition: SecurityScheme,
    oauth: OAuthClientSource,
    scopes: readonly string[],
    env: NodeJS.ProcessEnv,
    grants: Set<ClientCredentialsGrant>,
  ): Promise<string> {
    const tokenUrl = clientCredentialsTokenUrl(definition);
    if (tokenUrl === undefined)
      throw new UsageError(
        `${name} (${skill}): a2a.json gives an OAuth client for scheme "${scheme}", but the locked card's scheme is ${definition.type === 'oauth2' ? 'an oauth2 scheme without a clientCredentials flow (authorizationCode and deviceCode tokens come from the application: pass a credentials provider)' : `of type ${definition.type}`}`,
      );
    const read = (variable: string) => {
      const value = env[variable];
      if (!value)
        throw new A2aLockError(
          'credential-unset',
          `${name} (${skill}): no credential for scheme "${scheme}" (${variable} is not set)`,
          { data: { agent: name, scheme, variable } },
        );
      return value;
    };
    const grant: ClientCredentialsGrant = {
      tokenUrl,
      clientId: read(oauth.clientId.env),
      clientSecret: read(oauth.clientSecret.env),
      scopes: [...scopes],
      ...(oauth.clientAuth ? { clientAuth: oauth.clientAuth } : {}),
    };
    const token = await this.#tokens.token(grant);
    for (const g of grants) if (g.tokenUrl === grant.tokenUrl && g.clientId === grant.clientId) grants.delete(g);
    grants.add(grant);
    return token;
  }

  /** Mark agent `name` degraded for `skills` (the first named in the error), once per agent. */
  #markDegraded(
    name: string,
    skills: readonly string[],
    reason: DegradedEvent['reason'],
    message: string,
    cause?: unknown,
  ): AgentDegradedError {
    const skill = skills[0] ?? '*';
    const error = new AgentDegradedError(name, skills.length > 1 ? skills.join(', ') : skill, reason, message, {
      cause,
    });
    if (!this.#degraded.has(name)) {
      this.#degraded.set(name, error);
      this.emit('degraded', { agent: name, skill, skills: [...skills], reason, error } satisfies DegradedEvent);
    }
    return error;
  }

  /**
   * With `onDrift: 'refuse'`, the error a call to agent `name` (skill `skill`) throws once a refresh
   * found it drifted, before anything is sent; undefined otherwise (`'report'`, the default).
   */
  #driftRefusal(name: string, skill: string): AgentDegradedError | undefined {
    if (this.#options.onDrift !== 'refuse' || !this.#drifted.has(name)) return undefined;
    return new AgentDegradedError(name, skill, 'drift', `${DRIFTED}; calls to it are refused (onDrift: 'refuse')`);
  }

  /**
   * `send` behind {@link #driftRefusal}: refused before it runs once agent `name` drifted under
   * `onDrift: 'refuse'`. Both the credential placements (gRPC reads them before every call) and the
   * enforcing fetch (every HTTP request) are gated, so no credential is read and nothing leaves.
   */
  #driftGated<A extends unknown[], R>(name: string, skill: string, send: (...a: A) => Promise<R>) {
    return (...a: A): Promise<R> => {
      const refused = this.#driftRefusal(name, skill);
      return refused ? Promise.reject(refused) : send(...a);
    };
  }

  #runtime(
    name: string,
    skill: string,
    entry: LockEntry,
    pushEndpoint: string | null,
    plan: Plan,
    settings: AgentSettings,
  ): AgentRuntime {
    const card = checksNow().lockedNegotiationCard(entry, `${this.#source} agents.${name}`, settings);
    const found = card.skills.find((s) => s.id === skill);
    // Frozen, as the plan is: the enforcing fetch makes their comparison keys once.
    const inputModes = Object.freeze([...(found?.inputModes?.length ? found.inputModes : card.defaultInputModes)]);
    const env = this.#options.env ?? process.env;
    // The platform's credential (originAuth) goes with every request to the origins the entry records.
    const platformAuth = entry.originAuth
      ? originAuthenticator(entry.originAuth, {
          env,
          ...(this.#options.originAuth ? { providers: this.#options.originAuth } : {}),
        })
      : undefined;
    const send = platformAuth ? originAuthFetch(this.#send, platformAuth) : this.#send;
    /** The OAuth client-credentials grants whose tokens this agent's requests carry (dropped on a 401). */
    const grants = new Set<ClientCredentialsGrant>();
    const placements = this.#driftGated(
      name,
      skill,
      credentialPlacements({
        agent: name,
        skill,
        plan,
        schemes: card.securitySchemes,
        lockfile: this.#source,
        credentials: this.#options.credentials,
        sources: this.#sources(name),
        env,
        oauthToken: (scheme, definition, oauth, scopes) =>
          this.#clientCredentialsToken(name, skill, scheme, definition, oauth, scopes, env, grants),
      }),
    );
    /** A 401 (gRPC: UNAUTHENTICATED): forget the OAuth tokens sent (true when there were any, so one retry with new ones is worth it). */
    const renew = (): boolean => {
      if (grants.size === 0) return false;
      for (const grant of grants) this.#tokens.forget(grant);
      grants.clear();
      return true;
    };
    const fetches = new Map<string, typeof fetch>();
    return {
      name,
      skill,
      plan,
      card,
      inputModes,
      pushEndpoint,
      placements,
      renew,
      platformSecrets: () => platformAuth?.sentSecrets() ?? [],
      grpc: {
        allowInsecure: this.#options.allowInsecureGrpc === true,
        ...(this.#options.grpcChannelCredentials ? { credentials: this.#options.grpcChannelCredentials } : {}),
      },
      fetchFor: (iface) => {
        const key = `${iface.protocolBinding}\n${iface.protocolVersion}\n${iface.url}`;
        let enforcing = fetches.get(key);
        // A credential never crosses the network in cleartext, whatever the lockfile says.
        const guarded = isCleartextOffLoopback(iface.url)
          ? () => Promise.reject(cleartextRefusal(name, skill, iface.url))
          : placements;
        if (!enforcing) {
          enforcing = this.#driftGated(
            name,
            skill,
            enforcingFetch({
              agent: name,
              skill,
              plan,
              iface,
              inputModes,
              placements: guarded,
              pushEndpoint,
              renew,
              security: Object.keys(plan.security).length > 0,
              send,
            }),
          );
          fetches.set(key, enforcing);
        }
        return enforcing;
      },
      degrade: (reason, message, cause) => this.#markDegraded(name, [skill], reason, message, cause),
      fallback: (reason, from, to) => {
        const counts = this.#fallbacks.get(name) ?? {};
        counts[reason] = (counts[reason] ?? 0) + 1;
        this.#fallbacks.set(name, counts);
        this.emit('fallback', { agent: name, skill, from, to, reason } satisfies FallbackEvent);
      },
    };
  }
}

/** The message of a drift found by a refresh. */
const DRIFTED = `the agent's card is now beyond the lockfile (run a2a verify)`;

/**
 * The runtime's default fetch, chosen when a `Lock` is made: the global fetch, through a
 * proxy-aware dispatcher (`http/dispatcher.ts`, the CLI's and `lock.refresh()`'s kind) when
 * `HTTPS_PROXY` / `HTTP_PROXY` is set in the process environment, with the proxy variables as they
 * are now (not the `env` option, which is where credentials are read), so the one proxy decision (`http/proxy-rule.ts`: loopback
 * never proxied, `NO_PROXY` as curl reads it, no credential through a proxy in clear) holds the
 * same way; without a proxy variable it is the global fetch itself and no undici module loads. A
 * request the proxy of a variable that is not an http(s) URL would carry is refused (a `UsageError`).
 */
function defaultFetch(): typeof fetch {
  if (!proxyVariableSet(process.env)) return globalThis.fetch;
  // The proxy variables as they are now: a later change to process.env does not reroute this lock.
  const proxies = proxyEnvironment(process.env);
  return async (input, init) => {
    const { proxyDispatcherFor } = await import('../http/dispatcher.js');
    try {
      return await globalThis.fetch(input, { ...init, dispatcher: proxyDispatcherFor(proxies) } as RequestInit);
    } catch (error) {
      // The dispatcher's own refusals (a bad proxy variable, a credential through a proxy in clear)
      // as they are, not wrapped in fetch's "fetch failed".
      const cause = (error as { cause?: unknown } | null)?.cause;
      throw cause instanceof UsageError || cause instanceof InvalidInputError ? cause : error;
    }
  };
}

/** The error for a credential that would go over plain http to a host that is not loopback (nothing is sent). */
function cleartextRefusal(agent: string, skill: string, url: string): PlanViolationError {
  const origin = URL.canParse(url) ? new URL(url).origin : url;
  return new PlanViolationError(
    agent,
    skill,
    `the plan's interface ${origin} is plain http to a host that is not loopback: a credential is never sent over it (use an https interface)`,
  );
}

/** Freeze `value` and everything it holds, in place; returns it. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
