/** `a2a ls`: the agents of the manifest, their skills and a one-line summary of each locked plan. Offline; never writes. */

import { describeOriginAuths } from '../credentials.js';
import { ExitCode } from '../errors.js';
import { readLockfile } from '../fs/lockfile.js';
import { readManifest } from '../fs/manifest.js';
import { own } from '../json-path.js';
import { credentialRoutes } from '../lock/credential-routes.js';
import { lockedNegotiationCard } from '../lock/offline.js';
import type { LockEntry } from '../lock/schema.js';
import { type AgentSettings, type CredentialSource, planKeys } from '../manifest/schema.js';
import type { Plan } from '../negotiate/types.js';
import { type CommandResult, type GlobalOptions, paths } from './context.js';

/** One credential of an agent: where its secret comes from (the manifest's source, never a value) and the origins the locked entry sends it to. */
interface LsCredential {
  source: CredentialSource;
  /** Origins, sorted: each plan's interface and fallbacks, the extended card's, an OAuth token URL's. Empty when nothing locked sends it. */
  to: string[];
}

/** One agent of `a2a ls`: its card location, its locked card version (if locked), each skill's locked plan or `null` (not locked); an entry without skills lists its agent-level plan `"*"`. */
interface LsAgent {
  card: string;
  version?: string;
  skills: Record<string, Plan | null>;
  /** Its credentials (the manifest's `credentials`), each with where it goes. */
  credentials?: Record<string, LsCredential>;
  /** The platform authentication its requests carry (the lock entry's `originAuth`): origin → placement as a reader sees it, never a value. */
  originAuth?: Record<string, string>;
  /** `rebaseInterfaces`: each interface locked elsewhere than the card advertised it, advertised URL → locked URL. */
  rebased?: Record<string, string>;
}

/** The answer of `a2a ls`, all of it the `--json` document: `{"agents": {name: LsAgent}}` in manifest order. */
export interface LsData {
  agents: Record<string, LsAgent>;
}

/** Scheme → the origins the locked entry sends it to (none when its snapshot no longer reads: `verify` says why). */
function destinations(entry: LockEntry | undefined, settings: AgentSettings | undefined): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  if (!entry || !settings) return out;
  try {
    for (const route of credentialRoutes(entry, settings))
      if (route.purpose !== 'origin') out.set(route.scheme, (out.get(route.scheme) ?? new Set()).add(route.origin));
  } catch {
    // A snapshot that is no longer a valid card: listed without destinations.
  }
  return out;
}

/** Advertised → locked URL of each interface `rebaseInterfaces` moved (undefined when none, or unreadable). */
function rebasedInterfaces(
  entry: LockEntry | undefined,
  settings: AgentSettings | undefined,
): Record<string, string> | undefined {
  if (!entry || !settings?.rebaseInterfaces) return undefined;
  try {
    const locked = lockedNegotiationCard(entry, entry.card, settings).supportedInterfaces;
    const advertised = lockedNegotiationCard(entry, entry.card).supportedInterfaces;
    const moved = advertised.flatMap((i, at) =>
      locked[at] && locked[at]!.url !== i.url ? [[i.url, locked[at]!.url] as const] : [],
    );
    return moved.length ? Object.fromEntries(moved) : undefined;
  } catch {
    return undefined;
  }
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
    const settings = own(lock?.settings, name);
    const to = destinations(locked, settings);
    const credentials = Object.entries(entry.credentials).map(([scheme, source]) => [
      scheme,
      { source, to: [...(to.get(scheme) ?? [])].sort() },
    ]);
    const rebased = rebasedInterfaces(locked, settings);
    agents[name] = {
      card: entry.card,
      ...(locked ? { version: locked.version } : {}),
      skills: Object.fromEntries(planKeys(entry).map((skill) => [skill, own(locked?.plans, skill) ?? null])),
      ...(credentials.length ? { credentials: Object.fromEntries(credentials) } : {}),
      ...(locked?.originAuth ? { originAuth: describeOriginAuths(locked.originAuth) } : {}),
      ...(rebased ? { rebased } : {}),
    };
  }
  return { exitCode: ExitCode.Ok, data: { agents }, warnings: [] };
}
