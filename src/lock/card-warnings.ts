/**
 * Which warnings a run says about an agent whose cards the lockfile already holds: a warning that
 * reading the locked snapshots gives too (an a2a-sdk card's interfaces without `protocolVersion`,
 * `interface-version-missing`, on every run) was said when that card was locked, and is not said
 * again by `verify`, `outdated`, `update` or `lock`; one the card served now brings (a new interface
 * without a version, a new mode spelt `text`) is. Used where a run's warnings for a locked agent are
 * gathered: the lockfile's assembly (`lock/sync-plan.ts`) and the served-card check
 * (`resolve/check-served.ts`). docs/reference/warnings.md, "When a warning is said". Pure.
 */
import type { Warning } from '../card/model.js';
import { normalizeCard } from '../card/normalize.js';
import { lockedCardSource, type ReadSettings } from './offline.js';
import type { LockEntry } from './schema.js';

/** A warning's identity across two readings: its code and message (its path may shift with the card's arrays). */
function keyOf(w: Warning): string {
  return `${w.code}\n${w.message}`;
}

/**
 * The warnings of reading a locked entry's snapshots (its card, then its extended card) as they
 * were read when locked; none for a snapshot that no longer reads (the check of the entry says so).
 */
function lockedReading(entry: LockEntry, settings: ReadSettings): Warning[] {
  const read = (snapshot: unknown, extended: boolean): Warning[] => {
    try {
      return normalizeCard(snapshot, lockedCardSource(entry, entry.card, settings, extended)).warnings;
    } catch {
      return [];
    }
  };
  return [...read(entry.snapshot, false), ...(entry.extended ? read(entry.extended.snapshot, true) : [])];
}

/**
 * `warnings` (a run's, for one agent) without those its locked entry's snapshots already give:
 * each warning of the locked reading stands for one of the run's with the same code and message
 * (a message names its subject: `interface HTTP+JSON https://… without protocolVersion`), one at
 * the same path first, so an interface moved in its list is still known and another interface
 * without a version is new. Warnings no card reading gives (probes, signatures,
 * credentials) are kept. With no locked entry (a new agent) all are kept.
 * @returns the warnings to say, in their order
 */
export function unlockedWarnings(
  warnings: readonly Warning[],
  locked: LockEntry | undefined,
  settings?: ReadSettings,
): Warning[] {
  if (!locked || warnings.length === 0) return [...warnings];
  const known = lockedReading(locked, settings);
  if (known.length === 0) return [...warnings];
  // Per key the paths of the locked reading not yet matched ('' for a warning without one).
  const left = new Map<string, string[]>();
  for (const w of known) left.set(keyOf(w), [...(left.get(keyOf(w)) ?? []), w.path ?? '']);
  const said = warnings.map(() => true);
  const take = (i: number, samePath: boolean) => {
    const paths = left.get(keyOf(warnings[i]!));
    if (!paths?.length) return;
    const at = samePath ? paths.indexOf(warnings[i]!.path ?? '') : 0;
    if (at < 0) return;
    paths.splice(at, 1);
    said[i] = false;
  };
  warnings.forEach((_, i) => take(i, true));
  warnings.forEach((_, i) => {
    if (said[i]) take(i, false);
  });
  return warnings.filter((_, i) => said[i]);
}
