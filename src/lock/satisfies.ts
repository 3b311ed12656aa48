/**
 * Whether a lockfile satisfies the manifest: the agents, their card locations, their settings
 * (the effective profile, the credentials held, the version range, the trust settings) and their
 * skills. Pure: the npm `ci` / pnpm `satisfiesPackageManifest` check.
 */
import { sameJson } from '../canonical.js';
import { own } from '../json-path.js';
import {
  type AgentSettings,
  agentSettings,
  type Manifest,
  type OriginAuth,
  type OriginAuthMap,
  planKeys,
  profileOf,
} from '../manifest/schema.js';
import type { LockEntry, Lockfile } from './schema.js';

/**
 * Why a lockfile does not satisfy the manifest, per agent name (empty map when it does): agents
 * missing from the lock, agents no longer in the manifest, a changed `card`, changed settings
 * (effective profile, credentials held, version range, trust) or a changed skill list.
 */
export function manifestMismatches(manifest: Manifest, lock: Lockfile | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (name: string, reason: string) => out.set(name, [...(out.get(name) ?? []), reason]);
  for (const [name, entry] of Object.entries(manifest.agents)) {
    const locked = own(lock?.agents, name);
    if (!locked) {
      add(name, 'not in the lockfile');
      continue;
    }
    if (locked.card !== entry.card) add(name, `card changed in the manifest (${locked.card} → ${entry.card})`);
    if (!sameSettings(own(lock?.settings, name), agentSettings(manifest, name))) {
      add(name, 'profile, credentials, version range or trust changed in the manifest');
    }
    const originAuth = originAuthMismatch(locked, manifest.originAuth);
    if (originAuth) add(name, originAuth);
    const lockedSkills = Object.keys(locked.plans).sort();
    const wanted = planKeys(entry).sort();
    if (lockedSkills.join('\n') !== wanted.join('\n'))
      add(name, `skills changed (${lockedSkills.join(', ')} → ${wanted.join(', ')})`);
  }
  for (const name of Object.keys(lock?.agents ?? {})) {
    if (!Object.hasOwn(manifest.agents, name)) add(name, 'no longer in the manifest');
  }
  return out;
}

/** The mismatches of {@link manifestMismatches} on one line: `name: reason; reason | name: reason`. */
export function describeMismatches(mismatches: ReadonlyMap<string, readonly string[]>): string {
  return [...mismatches].map(([name, reasons]) => `${name}: ${reasons.join('; ')}`).join(' | ');
}

/** Whether locked settings equal the manifest's, key order aside. */
function sameSettings(a: AgentSettings | undefined, b: AgentSettings): boolean {
  return a !== undefined && sameJson(a, b);
}

/** Whether two settings negotiate alike: the same profile, the same credentials held, the same `allowHttp` and `rebaseInterfaces`. */
export function sameNegotiationInputs(a: AgentSettings, b: AgentSettings): boolean {
  const inputs = (s: AgentSettings) => ({
    ...profileOf(s),
    credentials: s.credentials,
    allowHttp: s.allowHttp === true,
    rebaseInterfaces: s.rebaseInterfaces === true,
  });
  return sameJson(inputs(a), inputs(b));
}

/** `scheme://host[:port]` of an http(s) URL as a URL parser prints it; undefined for anything else (a file, gRPC's `host:port`). */
function httpOrigin(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return undefined;
  return new URL(url).origin;
}

/**
 * The origins an entry's requests go to, each once, sorted: where its card answered, its extended
 * card, and every plan's interface and locked fallback (http(s) ones).
 */
export function entryOrigins(entry: {
  resolved: string;
  extended?: { resolved: string } | undefined;
  plans: LockEntry['plans'];
}): string[] {
  const urls = [entry.resolved, ...(entry.extended ? [entry.extended.resolved] : [])];
  for (const plan of Object.values(entry.plans))
    urls.push(plan.url, ...(plan.fallbacks?.interfaces ?? []).map((i) => i.url));
  const out = new Set<string>();
  for (const url of urls) {
    const origin = httpOrigin(url);
    if (origin !== undefined) out.add(origin);
  }
  return [...out].sort();
}

/**
 * What a lock entry records under `originAuth`: the placement of each origin among `origins`
 * (those of {@link entryOrigins}, and any other this resolution authenticated, a key set say) that
 * `config` names, sorted by origin; undefined when none.
 */
export function originAuthRecord(
  origins: Iterable<string>,
  config: OriginAuthMap | undefined,
): Record<string, OriginAuth> | undefined {
  if (!config) return undefined;
  const out: Record<string, OriginAuth> = {};
  for (const origin of [...new Set(origins)].sort()) if (Object.hasOwn(config, origin)) out[origin] = config[origin]!;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Why an entry's recorded `originAuth` no longer matches the manifest's: a recorded placement
 * changed or removed there, or an origin the entry uses that the manifest now authenticates.
 * Undefined when they agree.
 */
function originAuthMismatch(entry: LockEntry, config: OriginAuthMap | undefined): string | undefined {
  const recorded = entry.originAuth ?? {};
  const wanted = originAuthRecord([...entryOrigins(entry), ...Object.keys(recorded)], config) ?? {};
  const changed = [...new Set([...Object.keys(recorded), ...Object.keys(wanted)])]
    .filter((o) => !sameJson(recorded[o] ?? null, wanted[o] ?? null))
    .sort();
  return changed.length > 0 ? `originAuth changed in the manifest for ${changed.join(', ')}` : undefined;
}
