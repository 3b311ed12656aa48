/**
 * Whether a lockfile satisfies the manifest: the agents, their card locations, their settings
 * (the effective profile, the credentials held, the version range, the trust settings) and their
 * skills. Pure: the npm `ci` / pnpm `satisfiesPackageManifest` check.
 */
import { sameJson } from '../canonical.js';
import { own } from '../json-path.js';
import { agentSettings, planKeys, profileOf, type AgentSettings, type Manifest } from '../manifest/schema.js';
import { originAuthMismatch } from './origin-auth.js';
import type { Lockfile } from './schema.js';

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
    if (lockedSkills.join('\n') !== wanted.join('\n')) add(name, `skills changed (${lockedSkills.join(', ')} → ${wanted.join(', ')})`);
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
export function sameSettings(a: AgentSettings | undefined, b: AgentSettings): boolean {
  return a !== undefined && sameJson(a, b);
}

/** Whether two settings negotiate alike: the same profile, the same credentials held, the same `allowHttp` and `rebaseInterfaces`. */
export function sameNegotiationInputs(a: AgentSettings, b: AgentSettings): boolean {
  const inputs = (s: AgentSettings) => ({ ...profileOf(s), credentials: s.credentials, allowHttp: s.allowHttp === true, rebaseInterfaces: s.rebaseInterfaces === true });
  return sameJson(inputs(a), inputs(b));
}
