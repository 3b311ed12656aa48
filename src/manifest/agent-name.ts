/**
 * The rule for agent names (the manifest's `agents` keys, the lockfile's `agents` and `settings`
 * keys): one constant, used by the manifest's `AgentNameSchema` and by the lockfile's zod-free top
 * check (`lock/top.ts`); and the check that names given on the command line are agents of a
 * manifest. Pure.
 */
import { UsageError } from '../errors.js';

/** A valid agent name: a letter or digit, then letters, digits, ".", "_" and "-". */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** What {@link AGENT_NAME} allows, in the words of the error for a name it refuses. */
export const AGENT_NAME_RULE = 'agent names use letters, digits, ".", "_" and "-"';

/**
 * Refuse names the manifest does not hold (the agents named to `update` and `outdated`).
 * @throws UsageError `unknown agent "x" (manifest agents: a, b)`
 */
export function assertManifestAgents(manifest: { agents: object }, names: readonly string[]): void {
  for (const name of names) {
    if (!Object.hasOwn(manifest.agents, name))
      throw new UsageError(
        `unknown agent "${name}" (manifest agents: ${Object.keys(manifest.agents).join(', ') || 'none'})`,
      );
  }
}
