/**
 * One agent's platform authentication (`originAuth`) in the resolve shell: the authenticator its
 * requests carry, built from placements (the manifest's for `lock`, its lock entry's for `verify`)
 * and the run's environment, providers and withholding.
 */
import { originAuthenticator } from '../http/origin-auth.js';
import type { OriginAuthMap } from '../lock/origin-auth.js';
import type { ResolveOptions } from './options.js';

/**
 * `options` whose requests authenticate at the origins of `config` (none: `options` as they are);
 * `onUse` hears each origin a request was authenticated for.
 */
export function withOriginAuth(options: ResolveOptions, config: OriginAuthMap | undefined, onUse?: (origin: string) => void): ResolveOptions {
  if (!config || Object.keys(config).length === 0) return options;
  const platformAuth = originAuthenticator(config, {
    env: options.env ?? {},
    ...(options.originAuthProviders ? { providers: options.originAuthProviders } : {}),
    ...(options.credentialsWithheld !== undefined ? { withheld: options.credentialsWithheld } : {}),
    ...(onUse ? { onUse } : {}),
  });
  return { ...options, platformAuth };
}
