/**
 * Make a lockfile satisfy a manifest (`a2a lock`, `a2a add`, `a2a update`, `a2a outdated`): the
 * network run between `lock/sync-plan.ts`'s two pure halves. What to resolve is decided by
 * {@link planSync}; those agents are resolved at most `concurrency` at once, hosts in turn; the
 * lockfile is assembled by {@link assembleLock}. All or nothing: the caller writes only when
 * `failures` is empty.
 */
import { cardOrigin } from '../card/location.js';
import type { Resolution } from '../lock/report.js';
import type { Lockfile } from '../lock/schema.js';
import { assembleLock, planSync, type SyncRequest, type SyncResult } from '../lock/sync-plan.js';
import { agentSettings, type Manifest } from '../manifest/schema.js';
import { manifestSecretValues } from '../manifest/secret-values.js';
import { interleaveBy, mapSettled } from '../pool.js';
import { DEFAULT_CONCURRENCY, type ResolveOptions } from './options.js';
import { resolveAgent } from './resolve-agent.js';

export type { SyncAction, SyncRequest, SyncResult } from '../lock/sync-plan.js';

/**
 * Compute the lockfile that satisfies `manifest` (see the module comment and {@link SyncRequest}).
 * @throws only on a bug; every agent's failure is in `failures`
 */
export async function syncLock(
  manifest: Manifest,
  previous: Lockfile | undefined,
  request: SyncRequest,
  options: ResolveOptions,
): Promise<SyncResult> {
  const plan = planSync(manifest, previous, request);
  // Hosts in turn (round-robin), so connections spread over them instead of `concurrency` to each.
  const toResolve = interleaveBy(plan.resolve, (agent) => cardOrigin(manifest.agents[agent.name]!.card));
  const knownSecrets = manifestSecretValues(manifest, options.env ?? {});
  const settled = await mapSettled(
    toResolve,
    options.concurrency ?? DEFAULT_CONCURRENCY,
    ({ name, constrainTo, credentialRouteFrom }) =>
      resolveAgent(
        manifest.agents[name]!,
        agentSettings(manifest, name),
        {
          ...options,
          ...(manifest.originAuth ? { originAuthConfig: manifest.originAuth } : {}),
          ...(manifest.credentialDestinations ? { credentialDestinations: manifest.credentialDestinations } : {}),
          knownSecrets,
        },
        { ...(constrainTo ? { constrainTo } : {}), ...(credentialRouteFrom ? { credentialRouteFrom } : {}) },
      ),
    options.onProgress,
  );
  const outcomes = new Map<string, PromiseSettledResult<Resolution>>(
    toResolve.map((agent, i) => [agent.name, settled[i]!]),
  );
  return assembleLock(manifest, previous, plan, outcomes);
}
