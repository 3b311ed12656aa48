/**
 * The types of the runtime loader: the public ones `a2a-lock/runtime` exports (the options of
 * `loadLock`, a {@link LockedAgent}, the `degraded`, `fallback` and `drift` events, the options and the
 * client of `createClient()`) and the internal {@link AgentRuntime} the `Lock` hands to the
 * client and gRPC modules. Types only: every runtime module may import this one, and it imports
 * no runtime module but the error classification.
 */
import type { Client, ClientConfig } from '@a2a-js/sdk/client';
import type { NormalizedCard } from '../card/model.js';
import type { CredentialPlacement } from '../credentials.js';
import type { AgentDegradedError } from '../errors.js';
import type { OriginAuthProvider } from '../http/origin-auth.js';
import type { AgentReport } from '../lock/report.js';
import type { FallbackInterface, Plan } from '../negotiate/types.js';
import type { AgentErrorKind } from './classify.js';

/**
 * A `@grpc/grpc-js` `ChannelCredentials` (`grpc.credentials.createSsl(rootCa, key, cert)`), typed by
 * the members a2a-lock relies on, so that these declarations compile without `@grpc/grpc-js`
 * installed (it is an optional peer, needed only for gRPC plans).
 */
export interface ChannelCredentials {
  compose(callCredentials: never): unknown;
  _isSecure(): boolean;
}

/**
 * What a credential is asked for, when a request is made: the locked agent and skill (`"*"` for the
 * agent-level plan), the security scheme's name as the card spells it, the scopes the locked
 * requirement lists for it (`[]` for none), and the origin (`scheme://host[:port]`) the request goes
 * to (the plan's interface or a locked fallback's), as `credentialDestinations` spell it: a gRPC
 * interface's is the origin its channel is dialled at (`host:port` over TLS: `https://host:port`;
 * conformance/vectors/credential-origin.json).
 */
export interface CredentialRequest {
  agent: string;
  skill: string;
  scheme: string;
  scopes: readonly string[];
  origin: string;
}

/**
 * Returns a credential's secret when a request is made; `undefined` (or `''`) when it has none,
 * which is `credential-unset` with nothing sent (never a fallback to the manifest).
 */
export type CredentialProvider = (request: CredentialRequest) => string | undefined | Promise<string | undefined>;

/**
 * `loadLock`'s `credentials`: per locked agent name, per scheme name, a {@link CredentialProvider}
 * (`{ 'research-agent': { bearer: provider } }`); or one {@link CredentialProvider} for every
 * agent and scheme. A provider wins over the manifest's source for its agent and scheme.
 */
export type CredentialsOption =
  | Readonly<Record<string, Readonly<Record<string, CredentialProvider>>>>
  | CredentialProvider;

/** Options of `loadLock`. */
export interface LoadLockOptions {
  /** The lockfile path. Default `a2a.lock.json` (relative to the working directory). */
  lockfile?: string;
  /**
   * The manifest whose credential sources (`{"env": NAME}`) are read at request time. Default
   * `a2a.json` beside the lockfile; a missing default manifest means no sources. When present it
   * must match the lockfile (else `lockfile-out-of-date`).
   */
  manifest?: string;
  /**
   * Credential providers, which win over the manifest's sources: per agent then scheme
   * (`{ 'research-agent': { bearer: provider } }`; agents and schemes not listed read the manifest),
   * or one function of `{ agent, skill, scheme, scopes, origin }` answering every credential (the
   * manifest is then not read for credentials). Checked by `loadLock`: a key that is not a locked agent
   * name, or a value that is not an object of functions, is a UsageError (the scheme-only form
   * `{ bearer: provider }` of a2a-lock 0.1 is refused, naming the per-agent form).
   */
  credentials?: CredentialsOption;
  /**
   * Origin (`https://host[:port]`) → provider of its platform credential (`originAuth` in the
   * manifest, recorded per agent in the lockfile), asked on every request there: the token for a
   * `bearer` or `header` placement, `{accessKeyId, secretAccessKey, sessionToken?}` for `awsSigV4`.
   * Wins over the environment variables the placement names. Checked by `loadLock`: a key that no
   * locked agent records a platform credential for (a misspelt origin, a trailing `/`) is a UsageError.
   */
  originAuth?: Record<string, OriginAuthProvider>;
  /** Where `{"env": NAME}` sources are read. Default `process.env`. Never the proxy variables (see `fetch`). */
  env?: NodeJS.ProcessEnv;
  /**
   * Check every agent's entry (snapshot integrity, plans = what the snapshot negotiates) in
   * `loadLock`, as `a2a verify --offline` does, instead of on each agent's first `lock.agent()`
   * call. Default false (lazy: a cold start pays only for the agents it uses). Either way a
   * tampered entry is refused before anything is sent to it.
   */
  eager?: boolean;
  /**
   * The digest the lockfile must have (`sha256-<base64>`, as `a2a lock digest` prints it and the
   * review's marker carries it): any other lockfile is refused by `loadLock` with a
   * `DigestMismatchError` (code `digest-mismatch`) naming the file, the expected and the actual
   * digest, before anything is sent. A value not spelt as a digest is a UsageError. Default: none.
   */
  expectDigest?: string;
  /**
   * The fetch requests are finally sent with (OAuth token requests included). Default the global
   * `fetch`, through a proxy-aware dispatcher when `HTTPS_PROXY` / `HTTP_PROXY` is set in the
   * process environment when `loadLock` runs (the proxy variables as they are then, never read from
   * `env`; loopback never proxied, `NO_PROXY` as curl reads it, a plain-http request with a
   * credential never through the proxy), as the CLI and `refresh()` send; a fetch given here is used as it is.
   */
  fetch?: typeof fetch;
  /**
   * Re-fetch the locked cards every this many ms in the background and emit `drift` (as
   * `a2a verify` reports it) for an agent whose plans are now beyond the lock, which marks it
   * degraded. The plans in use never change. Off by default.
   */
  refreshIntervalMs?: number;
  /**
   * What a drift found by the refresh (`refreshIntervalMs` or `refresh()`) does to the drifted
   * agent: `'report'` (the default) emits `drift` and `degraded` and calls go on with the locked
   * plan; `'refuse'` does the same, then every later call to that agent (each of its skills, through
   * `fetch` or `createClient()`) throws `AgentDegradedError` (code `agent-degraded`, reason `drift`)
   * before any credential is read or anything is sent. Anything else is a UsageError from `loadLock`.
   */
  onDrift?: 'report' | 'refuse';
  /** Per-card deadline of the refresh (ms, default 10 000) and plain http to non-loopback hosts (as the CLI's `--timeout`, `--allow-http`). */
  timeoutMs?: number;
  allowHttp?: boolean;
  /**
   * gRPC plans: allow plaintext (no TLS) to a host that is not loopback, credential included: a
   * `grpc://` or `http://` interface, and a bare `host:port` one (otherwise TLS). For a network
   * that encrypts below gRPC (a service mesh sidecar). Default false: such a `grpc://` interface is
   * refused by `createClient()` before any connection (PlanViolationError). Loopback hosts are
   * always reached in plaintext unless the interface says `grpcs://` / `https://` or
   * {@link grpcChannelCredentials} is given.
   */
  allowInsecureGrpc?: boolean;
  /**
   * gRPC plans: the channel credentials (`@grpc/grpc-js` `credentials.createSsl(rootCa, key, cert)`)
   * for a private CA or mutual TLS; used for every gRPC interface, loopback included. Default: TLS
   * with the system's root certificates (see {@link allowInsecureGrpc} for plaintext).
   * `createClient({ grpcChannelCredentials })` overrides it for one agent.
   */
  grpcChannelCredentials?: ChannelCredentials;
}

/** Emitted as `degraded`: an agent failed its plan and its one locked fallback, or drifted. */
export interface DegradedEvent {
  agent: string;
  /**
   * The skill it concerns: the failed call's, or for `drift` the first drifted skill (every locked
   * skill of the agent when its signature drifted); `"*"` only for the agent-level plan.
   */
  skill: string;
  /** For `drift`: every skill whose plan the fresh card goes beyond (sorted); else `[skill]`. */
  skills: string[];
  /** The classified agent error, or `drift`. */
  reason: AgentErrorKind | 'drift' | 'stream-broken';
  error: AgentDegradedError;
}

/**
 * Why a locked alternative was used: the classified agent error it answered
 * (`version-not-supported`, `unsupported-operation`, `push-notification-not-supported`), or
 * `stream-broken` (a stream that broke after a task id was seen, continued by polling GetTask).
 */
export type FallbackReason = AgentErrorKind | 'stream-broken';

/**
 * Emitted as `fallback` each time `createClient()` uses a locked alternative (before the retry is
 * sent). `from` and `to`: for an interface fallback `"<binding> <version> <url>"` (url without
 * query), for a delivery fallback the delivery names (`"stream"` → `"poll"`, `"push"` → `"poll"`).
 */
export interface FallbackEvent {
  agent: string;
  skill: string;
  from: string;
  to: string;
  reason: FallbackReason;
}

/** Emitted as `drift` by the background refresh: the findings `a2a verify` prints for the agent. */
export interface DriftEvent {
  agent: string;
  report: AgentReport;
}

/** A locked agent skill: its plan, a plan-enforcing fetch, and an SDK client bound to the plan. */
export interface LockedAgent {
  readonly name: string;
  readonly skill: string;
  /** The locked plan (deeply frozen). */
  readonly plan: Readonly<Plan>;
  /**
   * The locked card narrowed to the plan (only the locked interface and its locked fallbacks, the
   * locked delivery, extensions, security requirement and the locked skill's modes), deeply frozen,
   * in the shape of the plan's protocol version (A2A 0.3 for a 0.3 plan, else 1.0 ProtoJSON): to
   * configure clients that take a card object. `fetch` serves the same card.
   */
  readonly card: Readonly<Record<string, unknown>>;
  /**
   * A fetch-compatible function that enforces the plan (see docs/reference/runtime-api.md). A GET
   * of the locked card URL, or of `/.well-known/agent-card.json` / `/.well-known/agent.json` on a
   * locked origin, is answered from the lockfile without the network: the narrowed card in the
   * shape the request's `A2A-Version` asks for (absent or 0.x: 0.3; else 1.0).
   */
  readonly fetch: typeof fetch;
  /** True once the agent is degraded (by any of its skills, or by drift). */
  readonly degraded: boolean;
  /**
   * How many times a locked alternative was used for this agent (all its skills), per
   * {@link FallbackReason}; reasons never seen are absent. A fresh object on each read.
   */
  readonly fallbacksTaken: Partial<Record<FallbackReason, number>>;
  /**
   * An `@a2a-js/sdk` Client bound to exactly the locked interface (JSON-RPC, HTTP+JSON, the v0.3
   * compat transport for 0.3 plans, or gRPC), sending through the plan's enforcement, retrying an
   * agent error once on the locked fallback. Needs the optional peer `@a2a-js/sdk` (and
   * `@grpc/grpc-js` for gRPC plans).
   */
  createClient(options?: CreateClientOptions): Promise<LockedClient>;
}

/** Options of `LockedAgent.createClient()`. */
export interface CreateClientOptions {
  /** SDK client config (interceptors, polling); `acceptedOutputModes` is always the locked list. */
  clientConfig?: Omit<ClientConfig, 'acceptedOutputModes'>;
  /** After a stream breaks mid-task: ms between GetTask polls (default 1000) and the most polls (default 300). */
  pollIntervalMs?: number;
  maxPolls?: number;
  /** gRPC plans: channel credentials for this client (private CA, mTLS); wins over `loadLock`'s {@link LoadLockOptions.grpcChannelCredentials}. */
  grpcChannelCredentials?: ChannelCredentials;
}

/** The SDK Client `createClient()` returns. */
export type LockedClient = Client;

/** Internal per-agent-skill runtime state the `Lock` shares with the client and gRPC modules. */
export interface AgentRuntime {
  name: string;
  skill: string;
  plan: Plan;
  card: NormalizedCard;
  inputModes: readonly string[];
  /** The locked `pushEndpoint` (the agent's settings): the only URL a push notification config may name. */
  pushEndpoint: string | null;
  /** The enforcing fetch for the plan's interface or one of its fallbacks. */
  fetchFor(iface: FallbackInterface): typeof fetch;
  /** Count a locked alternative taken (`fallbacksTaken`) and emit the `fallback` event. */
  fallback(reason: FallbackReason, from: string, to: string): void;
  /** Mark the agent degraded (once per agent) and return the typed error to throw. */
  degrade(reason: DegradedEvent['reason'], message: string, cause?: unknown): AgentDegradedError;
  /** The credential placements for the locked security requirement (read now), for a request to `iface` (default: the plan's). */
  placements(iface?: FallbackInterface): Promise<CredentialPlacement[]>;
  /**
   * The agent refused the credential (HTTP 401, gRPC UNAUTHENTICATED): drop the OAuth access tokens
   * just sent; true when there were any, and the call is then sent once more with new ones.
   */
  renew(): boolean;
  /** The platform credential values (`originAuth`) this agent's requests have carried: kept out of its errors and events. */
  platformSecrets(): string[];
  /** gRPC transport security: `loadLock`'s `allowInsecureGrpc` and `grpcChannelCredentials`. */
  grpc: { allowInsecure: boolean; credentials?: ChannelCredentials };
}
