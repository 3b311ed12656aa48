/**
 * Load an agent card from where the manifest says it is: an http(s) URL (fetched, `http/card`) or
 * a file path relative to the manifest (read, `fs/card-file`). The I/O edge in front of
 * {@link normalizeCard}.
 */
import { isCardUrl } from '../card/location.js';
import type { Warning } from '../card/model.js';
import { assertShallow } from '../card/read.js';
import { InvalidInputError } from '../errors.js';
import { readCardFile } from '../fs/card-file.js';
import { type NetworkOptions, networkOptionsOf } from '../http/network-options.js';
import type { OriginAuthRun } from '../http/origin-auth.js';
import type { AgentSettings, OriginAuthMap } from '../manifest/schema.js';
import { type ResolveOptions, requestOptions } from './options.js';

/** Where cards are loaded from and how: the network options plus the manifest's folder and the version asked for. */
export interface LoadCardOptions extends NetworkOptions {
  /** Directory of the manifest; file locations are relative to it. */
  baseDir: string;
  /**
   * Sent as the `A2A-Version` header on card requests, in order: a request refused for its
   * version is asked again with the next one (the agent profile's versions).
   */
  versions: readonly string[];
  /** The manifest's `cardPath` for this agent (how a URL location becomes the card's URL). */
  cardPath?: string;
  /** The manifest's `originAuth`, applied to the card request (values read from `env`); `a2a card` passes it. */
  originAuthConfig?: OriginAuthMap;
  /** Where {@link originAuthConfig}'s values are read. */
  env?: NodeJS.ProcessEnv;
}

/** A card as loaded, before validation. */
export interface LoadedCard {
  /** The URL that answered, or the file path relative to `baseDir` (POSIX separators). */
  resolved: string;
  /** The parsed JSON object. */
  raw: Record<string, unknown>;
  /** Set for fetched cards: relative interface URLs resolve against it. */
  baseUrl?: string;
  /** What to name in messages: the URL or the file path as given. */
  source: string;
  /** True when only the pre-0.3 path `/.well-known/agent.json` answered. */
  legacyWellKnown?: boolean;
  /** Set for fetched cards: the `A2A-Version` whose request the card answered. */
  versionHeader?: string;
  warnings: Warning[];
}

let fetchModule: Promise<typeof import('../http/card.js')> | undefined;

/** Close the shared HTTP connection pool if any card was fetched (lets the process exit at once). */
export async function closeFetcher(): Promise<void> {
  if (fetchModule) await (await fetchModule).closeDefaultDispatcher();
}

/**
 * Load a card from a URL or a file.
 * @throws InvalidInputError `card-invalid` / `insecure-url`, FetchError `unreachable` / `auth-refused` / `timeout`
 */
export async function loadCard(location: string, options: LoadCardOptions): Promise<LoadedCard> {
  if (isCardUrl(location)) {
    // The fetcher (and undici) load only when a card is fetched.
    fetchModule ??= import('../http/card.js');
    const { fetchCardForVersions, withOriginAuth } = await fetchModule;
    const network = options.originAuthConfig
      ? withOriginAuth({ ...networkOptionsOf(options), env: options.env ?? {} }, options.originAuthConfig)
      : options;
    const fetched = await fetchCardForVersions(location, options.versions, {
      ...networkOptionsOf(network),
      ...(options.cardPath !== undefined ? { cardPath: options.cardPath } : {}),
    });
    assertShallow(fetched.body, fetched.url);
    const legacy = fetched.warnings.some((w) => w.code === 'legacy-well-known-path');
    return {
      resolved: fetched.url,
      raw: fetched.body as Record<string, unknown>,
      baseUrl: fetched.url,
      source: fetched.url,
      versionHeader: fetched.versionHeader,
      warnings: fetched.warnings,
      ...(legacy ? { legacyWellKnown: true } : {}),
    };
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(location)) {
    throw new InvalidInputError('card-invalid', location, 'only http(s) URLs and file paths are supported');
  }
  const file = await readCardFile(location, options.baseDir);
  return { resolved: file.resolved, raw: file.raw, source: location, warnings: [] };
}

/**
 * `options` whose requests authenticate at the origins of `config` (`withOriginAuth` of
 * `http/origin-auth`, loaded with the card fetcher only when there is a `config`).
 */
export async function withOriginAuthLoaded<T extends OriginAuthRun>(
  options: T,
  config: OriginAuthMap | undefined,
  onUse?: (origin: string) => void,
): Promise<T> {
  if (!config || Object.keys(config).length === 0) return options;
  fetchModule ??= import('../http/card.js');
  return (await fetchModule).withOriginAuth(options, config, onUse);
}

/**
 * An agent's public card from its manifest `card` location, asked for with the profile's versions
 * in order (the next only when the agent refuses one) and the run's network options: the one
 * request `lock` and `verify` both begin with. `answered` (a lock entry's `versionHeader`, the version
 * the agent answered at lock time), when one of the profile's, is asked first: `verify` asks the
 * way `lock` was answered, one request when the agent still answers it.
 */
export function loadAgentCard(
  location: string,
  settings: Pick<AgentSettings, 'versions' | 'cardPath'>,
  options: ResolveOptions,
  answered?: string,
): Promise<LoadedCard> {
  const versions =
    answered !== undefined && settings.versions.includes(answered)
      ? [answered, ...settings.versions.filter((v) => v !== answered)]
      : settings.versions;
  return loadCard(location, {
    baseDir: options.baseDir,
    versions,
    ...requestOptions(options),
    ...(settings.cardPath !== undefined ? { cardPath: settings.cardPath } : {}),
  });
}

/** The {@link CardSource} of a loaded card, for {@link normalizeCard}, with the agent's `rebaseInterfaces` when `settings` say so. */
export function cardSourceOf(
  loaded: LoadedCard,
  settings?: Pick<AgentSettings, 'rebaseInterfaces'>,
): { source: string; baseUrl?: string; legacyWellKnown?: boolean; rebaseInterfaces?: true } {
  return {
    source: loaded.source,
    ...(loaded.baseUrl ? { baseUrl: loaded.baseUrl } : {}),
    ...(loaded.legacyWellKnown ? { legacyWellKnown: true } : {}),
    ...(settings?.rebaseInterfaces ? { rebaseInterfaces: true } : {}),
  };
}
