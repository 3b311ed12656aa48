/** `a2a ls`: the agents of the manifest, their skills and a one-line summary of each locked plan. Offline; never writes. */

import { describeOriginAuths } from '../credentials.js';
import { ExitCode } from '../errors.js';
import { readLockfile } from '../fs/lockfile.js';
import { readManifest } from '../fs/manifest.js';
import { own } from '../json-path.js';
import { planKeys } from '../manifest/schema.js';
import type { Plan } from '../negotiate/types.js';
import { type CommandResult, type GlobalOptions, paths } from './context.js';

/** One agent of `a2a ls`: its card location, its locked card version (if locked), each skill's locked plan or `null` (not locked); an entry without skills lists its agent-level plan `"*"`. */
interface LsAgent {
  card: string;
  version?: string;
  skills: Record<string, Plan | null>;
  /** The platform authentication its requests carry (the lock entry's `originAuth`): origin → placement as a reader sees it, never a value. */
  originAuth?: Record<string, string>;
}

/** The answer of `a2a ls`, all of it the `--json` document: `{"agents": {name: LsAgent}}` in manifest order. */
export interface LsData {
  agents: Record<string, LsAgent>;
}

/**
 * List the manifest's agents with what the lockfile holds for them (no lockfile: nothing locked).
 * @throws the errors of a missing or invalid manifest or lockfile
 */
export async function runLs(options: GlobalOptions): Promise<CommandResult<LsData>> {
  const p = paths(options);
  const manifest = await readManifest(p.manifest, p.lookedUpTo);
  const lock = (await readLockfile(p.lockfile))?.lock;
  const agents: Record<string, LsAgent> = {};
  for (const [name, entry] of Object.entries(manifest.agents)) {
    const locked = own(lock?.agents, name);
    agents[name] = {
      card: entry.card,
      ...(locked ? { version: locked.version } : {}),
      skills: Object.fromEntries(planKeys(entry).map((skill) => [skill, own(locked?.plans, skill) ?? null])),
      ...(locked?.originAuth ? { originAuth: describeOriginAuths(locked.originAuth) } : {}),
    };
  }
  return { exitCode: ExitCode.Ok, data: { agents }, warnings: [] };
}
