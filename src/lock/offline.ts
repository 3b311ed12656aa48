/**
 * A locked entry checked against itself, without network: its snapshots' integrity, that they are
 * still valid cards, and that negotiating them with the locked settings yields exactly the locked
 * plans; and re-planning an entry from its snapshots when it does not. Pure.
 */
import { integrityOf } from '../canonical.js';
import { isCardUrl, isLegacyWellKnown } from '../card/location.js';
import type { NormalizedCard } from '../card/model.js';
import { type CardSource, normalizeCard } from '../card/normalize.js';
import type { AgentSettings } from '../manifest/schema.js';

/** The settings a locked snapshot is read with: `rebaseInterfaces` moves bind-address interfaces to the card's origin. */
export type ReadSettings = Pick<AgentSettings, 'rebaseInterfaces'> | undefined;

/** The {@link CardSource} members of `settings` (`rebaseInterfaces`). */
function rebaseOf(settings: ReadSettings): { rebaseInterfaces?: true } {
  return settings?.rebaseInterfaces ? { rebaseInterfaces: true } : {};
}

import { negotiateSkills } from './drift.js';
import { type AgentReport, errorReport, errorReportOf, outOfDateReport, type Resolution } from './report.js';
import type { LockEntry } from './schema.js';

/**
 * How a locked entry's snapshot is read, as it was when locked: relative interface URLs against
 * `resolved` (when it is a URL), the legacy well-known path's 0.2 reading (the public card only),
 * bind-address interfaces at the card's origin when the agent's `settings` say `rebaseInterfaces`.
 * `source` names it in messages. Whether host warnings are made is the caller's.
 */
export function lockedCardSource(
  entry: LockEntry,
  source: string,
  settings: ReadSettings,
  extended = false,
): CardSource {
  const baseUrl = isCardUrl(entry.resolved) ? entry.resolved : undefined;
  return {
    source,
    ...(baseUrl ? { baseUrl } : {}),
    ...(!extended && isLegacyWellKnown(entry.resolved) ? { legacyWellKnown: true } : {}),
    ...rebaseOf(settings),
  };
}

/**
 * A locked entry's public card snapshot, normalised as it was read ({@link lockedCardSource}).
 * @throws InvalidInputError `card-invalid` when it is no longer a valid card
 */
export function lockedPublicCard(entry: LockEntry, source: string, settings?: ReadSettings): NormalizedCard {
  // Only the card is kept: no host warnings are made for it (see CardSource.hostWarnings).
  return normalizeCard(entry.snapshot, { ...lockedCardSource(entry, source, settings), hostWarnings: false }).card;
}

/**
 * The card a locked entry's plans were negotiated against: its extended snapshot when it has one.
 * @throws InvalidInputError `card-invalid` when a snapshot is no longer a valid card
 */
export function lockedNegotiationCard(entry: LockEntry, source: string, settings?: ReadSettings): NormalizedCard {
  const publicCard = lockedPublicCard(entry, source, settings);
  if (!entry.extended) return publicCard;
  return normalizeCard(entry.extended.snapshot, {
    ...lockedCardSource(entry, `${source}.extended`, settings, true),
    hostWarnings: false,
  }).card;
}

/**
 * Negotiate a locked entry's skills again from its own snapshots, without network (the plans no
 * longer match what the snapshot negotiates with the current settings). The snapshots stay; only
 * plans change, and the caller shows the diff.
 */
export function replanFromSnapshot(
  entry: LockEntry,
  settings: AgentSettings,
  skills: readonly string[],
  source: string,
): Resolution {
  const card = lockedNegotiationCard(entry, source, settings);
  const { plans, refusals, traces } = negotiateSkills(card, skills, settings);
  if (refusals.length > 0) return { refusals, drift: [], traces, warnings: [], card };
  return { entry: { ...entry, plans }, refusals, drift: [], traces, warnings: [], card };
}

/**
 * Which snapshot of a locked entry (the card, or the extended card) does not match its integrity:
 * `snapshot does not match its integrity sha256-…`, or undefined when both match (`a2a export`
 * refuses such an entry as `checkOffline` does).
 */
export function integrityMismatch(entry: LockEntry): string | undefined {
  for (const [what, locked] of [
    ['snapshot', entry],
    ['extended snapshot', entry.extended],
  ] as const) {
    if (locked && integrityOf(locked.snapshot) !== locked.integrity)
      return `${what} does not match its integrity ${locked.integrity}`;
  }
  return undefined;
}

/**
 * The `lockfile-invalid` error report (exit 2, never ignored by `verify --ignore`) of an entry whose
 * snapshot fails its integrity ({@link integrityMismatch}); undefined when every snapshot holds.
 * Checked for every locked agent `verify` reports, its lock entry out of date with the manifest too.
 */
export function tamperedReport(entry: LockEntry, source: string): AgentReport | undefined {
  const tampered = integrityMismatch(entry);
  return tampered ? errorReportOf({ code: 'lockfile-invalid', message: `${source}: ${tampered}` }) : undefined;
}

/**
 * Check a locked agent against its own snapshots, without network: each snapshot's integrity, that
 * it is still a valid card, and that negotiating it with the locked settings yields exactly the
 * locked plans. Returns undefined when all holds; else an `error` report (exit 2) or an
 * `out-of-date` one (exit 1) whose reasons name each skill.
 */
export function checkOffline(entry: LockEntry, settings: AgentSettings, source: string): AgentReport | undefined {
  const tampered = tamperedReport(entry, source);
  if (tampered) return tampered;
  let card: NormalizedCard;
  try {
    card = lockedNegotiationCard(entry, source, settings);
  } catch (error) {
    return errorReport(error);
  }
  const { drift } = negotiateSkills(card, Object.keys(entry.plans), settings, entry.plans);
  const reasons: string[] = [];
  for (const skill of Object.keys(entry.plans)) {
    const mine = drift.filter((d) => d.skill === skill);
    const refused = mine.find((d) => d.refusal);
    if (refused) reasons.push(`skill "${skill}": the snapshot no longer negotiates (${refused.refusal!.code})`);
    else if (mine.length > 0)
      reasons.push(
        `skill "${skill}": locked plan differs from the plan its snapshot negotiates (${mine.map((d) => d.field).join(', ')})`,
      );
  }
  return reasons.length > 0 ? outOfDateReport(reasons) : undefined;
}
