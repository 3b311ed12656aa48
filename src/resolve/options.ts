/** The options every `resolve/` operation takes: the network ones, plus the manifest's folder, the environment and progress. */
import { type NetworkOptions, networkOptionsOf } from '../http/network-options.js';
import type { OriginAuthProvider } from '../http/origin-auth.js';
import type { OriginAuthMap } from '../manifest/schema.js';

/** Options of the resolve shell (`resolveAgent`, `checkServed`, `syncLock`, `checkProject`). */
export interface ResolveOptions extends NetworkOptions {
  /** Directory of the manifest (file cards and `trust.jwks` files are relative to it). */
  baseDir: string;
  /** Where credential values are read from (the extended card). Default: none. */
  env?: NodeJS.ProcessEnv;
  /**
   * Why no credential may be sent in this run (a pull request run of `lock`, `update`, `add` or
   * `outdated`: the lockfile and manifest are the pull request's own, not reviewed yet). Set: every
   * request that would carry one fails `credential-unset` with this reason, before any is read.
   */
  credentialsWithheld?: string;
  /**
   * The manifest's `originAuth` (origin → placement): how `lock` authenticates each agent's
   * requests to those origins (`verify` uses the placements each lock entry records).
   */
  originAuthConfig?: OriginAuthMap;
  /** The manifest's `credentialDestinations`: a credential to any other origin is refused before it is sent (`lock/credential-policy.ts`). */
  credentialDestinations?: readonly string[];
  /** Origin → a provider of its `originAuth` value (the runtime's `loadLock({ originAuth })`); wins over the environment. */
  originAuthProviders?: Readonly<Record<string, OriginAuthProvider>>;
  /**
   * The wire probe of `lock`, `add` and `update` (`resolve/probe.ts`): each resolved agent's locked
   * interfaces get one GetTask and the entry records each outcome kind (`probe`). `warn`: a
   * `not-served` interface is the warning `interface-not-served`; `strict`: it fails the agent
   * (`interface-not-served`, nothing written). Absent: no probe (`--no-probe`, `outdated`, the library's default).
   */
  probe?: 'warn' | 'strict';
  /** Called each time an agent's cards have been fetched and checked: (agents done, agents to fetch). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Default bound on agents in flight (and connections per host). With 50 ms per card, 1000 agents
 * take ceil(1000/128)·50 ms = 0.4 s of network, and a whole `verify` of them 1.4× an unbounded
 * Promise.all over the SDK's card resolver; at 64 it was 1.5–1.9× (close to the 2× goal on a busy
 * machine), and above 128 the run is bound by start-up and per-card work while it opens more
 * sockets (docs/explanation/performance.md).
 */
export const DEFAULT_CONCURRENCY = 128;

/**
 * The network options of every request of a run: the shared dispatcher keeps as many connections
 * per origin as agents in flight ({@link DEFAULT_CONCURRENCY} unless set).
 */
export function requestOptions(options: ResolveOptions): NetworkOptions {
  // With a dispatcher of the caller's, the cap is its own business.
  const network = networkOptionsOf(options);
  return network.dispatcher ? network : { ...network, concurrency: options.concurrency ?? DEFAULT_CONCURRENCY };
}
