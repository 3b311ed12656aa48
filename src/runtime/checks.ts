/**
 * The checks of a locked agent that need the lockfile schema, card normalisation and negotiation
 * (zod and the card reader): loaded by the `Lock` on the first `lock.agent()` call, or by
 * `loadLock` with `eager: true`, never by importing `a2a-lock/runtime` or by a lazy `loadLock`.
 */
import { type A2aLockError, InvalidInputError, OutOfDateError } from '../errors.js';
import { zodMessage } from '../json-document.js';
import { formatPath } from '../json-path.js';
import { validateLockfile } from '../lock/format.js';
import { checkOffline, lockedNegotiationCard } from '../lock/offline.js';
import { describeMismatches, manifestMismatches } from '../lock/satisfies.js';
import type { LockEntry, Lockfile } from '../lock/schema.js';
import { lockedAgentIssue } from '../lock/schema.js';
import type { LockfileTop } from '../lock/top.js';
import { parseManifest } from '../manifest/parse.js';
import type { AgentSettings, Manifest } from '../manifest/schema.js';

export { lockedNegotiationCard, validateLockfile };

/** One agent of the lockfile, checked: its entry and settings, or why it cannot be used. */
export type CheckedAgent = { entry: LockEntry; settings: AgentSettings } | { error: A2aLockError };

/**
 * Check one agent of the lockfile: its entry and settings against the lockfile schema, its
 * snapshots' integrity, and that its plans are what its snapshot negotiates with its settings.
 * The error is the one `loadLock` (eager) or the agent's first `lock.agent()` (lazy) throws.
 */
export function checkAgent(lock: LockfileTop, source: string, name: string, manifest?: CheckedManifest): CheckedAgent {
  const parsed = lockedAgentIssue(lock, name);
  if ('issue' in parsed) {
    return {
      error: new InvalidInputError('lockfile-invalid', source, zodMessage(parsed.issue, { showValues: false }), {
        path: formatPath(parsed.path),
      }),
    };
  }
  const mismatch = manifest?.mismatches.get(name);
  if (mismatch)
    return {
      error: new OutOfDateError(
        `${source} does not match ${manifest!.path}: ${describeMismatches(new Map([[name, mismatch]]))}`,
      ),
    };
  const report = checkOffline(parsed.entry, parsed.settings, `agents.${name}`);
  if (report?.status === 'error')
    return {
      error: new InvalidInputError('lockfile-invalid', source, report.error!.message, {
        hint: `run a2a update ${name}`,
      }),
    };
  if (report) return { error: new OutOfDateError(`${source}: agent "${name}": ${(report.reasons ?? []).join('; ')}`) };
  return parsed;
}

/** The manifest, parsed, and the lockfile's mismatches with it per agent name (empty when it matches). */
export interface CheckedManifest {
  manifest: Manifest;
  path: string;
  mismatches: Map<string, string[]>;
}

/**
 * Parse the manifest text and compare the lockfile with it (its agents, their cards, settings
 * and skills). An entry without a string `card` and a `plans` object cannot be compared: it is left
 * out of both sides (its own schema error comes with its check).
 * @throws InvalidInputError `manifest-invalid`
 */
export function checkManifest(text: string, path: string, lock: LockfileTop): CheckedManifest {
  const manifest = parseManifest(text, path);
  const agents: Record<string, unknown> = {};
  const wanted = { ...manifest.agents };
  for (const [name, entry] of Object.entries(lock.agents)) {
    const e = entry as { card?: unknown; plans?: unknown } | null;
    if (
      e &&
      typeof e === 'object' &&
      typeof e.card === 'string' &&
      e.plans &&
      typeof e.plans === 'object' &&
      !Array.isArray(e.plans)
    )
      agents[name] = e;
    else delete wanted[name];
  }
  return {
    manifest,
    path,
    mismatches: manifestMismatches({ ...manifest, agents: wanted }, { ...lock, agents } as Lockfile),
  };
}

/**
 * {@link checkManifest}, every mismatch an error (`loadLock` with `eager`).
 * @throws InvalidInputError `manifest-invalid`; OutOfDateError `lockfile-out-of-date` naming every mismatch
 */
export function checkManifestNow(text: string, path: string, lock: LockfileTop, source: string): CheckedManifest {
  const checked = checkManifest(text, path, lock);
  if (checked.mismatches.size > 0)
    throw new OutOfDateError(`${source} does not match ${path}: ${describeMismatches(checked.mismatches)}`);
  return checked;
}
