/**
 * Check a locked agent against the cards served now ("beyond the lockfile"): fetch the public card,
 * and only what the check needs next (the verified signature's keys again, the extended card along
 * its locked route); the verdict is `lock/drift.ts`'s {@link servedVerdict}.
 */
import { integrityOf, sameJson } from '../canonical.js';
import type { NormalizedCard, Warning } from '../card/model.js';
import { normalizeCard } from '../card/normalize.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { A2aLockError } from '../errors.js';
import {
  baseUnreadable,
  type CredentialGate,
  credentialRouteNew,
  extendedChangedSince,
  extendedUnchecked,
  withheldRoutes,
} from '../lock/base-gate.js';
import { unlockedWarnings } from '../lock/card-warnings.js';
import { cardChanges } from '../lock/changes.js';
import { extendedRoutes } from '../lock/credential-routes.js';
import { servedVerdict, signatureDrift } from '../lock/drift.js';
import { lockedNegotiationCard } from '../lock/offline.js';
import { type AgentReport, driftReport, errorReport, okReport, type Unchecked, withUnchecked } from '../lock/report.js';
import { lockedExtendedRoute } from '../lock/route.js';
import type { LockEntry } from '../lock/schema.js';
import type { AgentEntry, AgentSettings } from '../manifest/schema.js';
import { type ReadCard, readExtended } from './extended.js';
import { cardSourceOf, type LoadedCard, loadAgentCard } from './load-card.js';
import type { ResolveOptions } from './options.js';
import { signatureOf } from './signature.js';

/** One locked agent to check against the cards served now. */
export interface ServedCheck {
  entry: LockEntry;
  settings: AgentSettings;
  /** The manifest's credential sources for this agent (the extended card). Default none. */
  credentials?: AgentEntry['credentials'];
  /**
   * The caller has just checked the entry offline (`checkOffline` found nothing), so each snapshot
   * matches its integrity: a served card equal to its snapshot as JSON then has the locked
   * integrity without being hashed again.
   */
  snapshotsIntact?: boolean;
  /** The public card's load, when the caller has started it ({@link loadServedCard}). */
  served?: Promise<LoadedCard>;
  /**
   * A review run's gate (`verify --base`, `lock/base-gate.ts`): a credential goes only along a
   * route it allows; otherwise nothing is sent and the agent is `unchecked`. Absent: no base (a
   * push, a laptop), credentials go along the locked route as before.
   */
  gate?: CredentialGate;
}

/**
 * Start loading a locked agent's public card as served now, from the manifest's `card` location
 * and with no credentials, asking first with the version that answered `lock` (`versionHeader`): the
 * request {@link checkServed} begins with.
 */
export function loadServedCard(
  entry: LockEntry,
  settings: AgentSettings,
  options: ResolveOptions,
): Promise<LoadedCard> {
  return loadAgentCard(entry.card, settings, agentNetwork(settings, options), entry.versionHeader);
}

/** `options` with plain http allowed when the agent's locked settings allow it (a2a.json `allowHttp`). */
function agentNetwork(settings: AgentSettings, options: ResolveOptions): ResolveOptions {
  return settings.allowHttp ? { ...options, allowHttp: true } : options;
}

/**
 * Whether checking `entry` against its card as served ends with that card: it equals its intact
 * snapshot, from the URL the lock records, and nothing else is fetched (no extended card, no
 * verified signature to check again against its key set).
 */
export function servedCardSettles(entry: LockEntry, loaded: LoadedCard): boolean {
  return (
    !entry.extended &&
    entry.signature?.status !== 'verified' &&
    loaded.resolved === entry.resolved &&
    sameJson(loaded.raw, entry.snapshot)
  );
}

/**
 * Fetch the cards as served now and check them against the lock: each locked plan is
 * re-negotiated with the profile narrowed to its locked choices; a refusal, any differing field,
 * a scheme presented differently, or a locked verified signature that no longer verifies with the
 * same key is drift. A card change that leaves every plan equal is `changed`, structural or
 * descriptive. Fetch and card errors become an `error` report; never throws an A2aLockError.
 */
export async function checkServed(check: ServedCheck, given: ResolveOptions): Promise<AgentReport> {
  const report = await checkServedCards(check, given);
  // What the locked card's reading already said is not said again (lock/card-warnings.ts).
  const warnings = unlockedWarnings(report.warnings, check.entry, check.settings);
  return warnings.length === report.warnings.length ? report : { ...report, warnings };
}

/** {@link checkServed} with every warning the run gives, those the locked card gives too included. */
async function checkServedCards(check: ServedCheck, given: ResolveOptions): Promise<AgentReport> {
  const { entry, settings } = check;
  const options = agentNetwork(settings, given);
  /** Whether a card read now has the integrity `locked` records for `snapshot`. */
  const sameAsLocked = (
    raw: Record<string, unknown>,
    locked: { integrity: string; snapshot: Record<string, unknown> },
  ): boolean =>
    check.snapshotsIntact && sameJson(raw, locked.snapshot) ? true : integrityOf(raw) === locked.integrity;
  const warnings: Warning[] = [];
  let unchecked: Unchecked | undefined;
  let loaded: LoadedCard;
  let fresh: NormalizedCard;
  let extended: ReadCard | undefined;
  let publicSignature: SignatureRecord | undefined;
  try {
    loaded = await (check.served ?? loadServedCard(entry, settings, options));
    warnings.push(...loaded.warnings);
    // Same bytes from the same URL: relative interface URLs resolve against `resolved`, so an
    // edited `resolved` would move them (the offline check takes it as written).
    const publicSame = loaded.resolved === entry.resolved && sameAsLocked(loaded.raw, entry);
    // A verified signature is re-checked even on the same bytes: its key may be gone from the JWKS.
    const recheck = entry.signature?.status === 'verified';
    if (publicSame && !entry.extended && !recheck) return okReport(warnings);
    const normalized = normalizeCard(loaded.raw, cardSourceOf(loaded, settings));
    fresh = normalized.card;
    warnings.push(...normalized.warnings);
    if (!publicSame || recheck)
      publicSignature = await signatureOf(loaded.raw, settings, options, warnings, [loaded.baseUrl]);
    const publicSignatureHolds =
      !publicSignature || signatureDrift('card', entry.signature, publicSignature).length === 0;
    if (publicSame && !entry.extended && publicSignatureHolds) return okReport(warnings);
    if (entry.extended && fresh.capabilities.extendedAgentCard) {
      // The route and schemes `lock` used, if the served card still agrees with them.
      const guarded = lockedExtendedRoute(entry, fresh, settings, warnings);
      if (guarded.drift.length > 0) {
        return driftReport({
          change: 'structural',
          cardChanges: cardChanges(entry, { resolved: entry.resolved, snapshot: loaded.raw, extended: entry.extended }),
          drift: guarded.drift,
          warnings,
        });
      }
      ({ extended, unchecked } = await readExtendedUnderGate(check, guarded, loaded.baseUrl, options, warnings));
      const extendedSame = extended !== undefined && sameAsLocked(extended.raw, entry.extended);
      const extendedSignatureHolds =
        !extended ||
        !extendedSame ||
        signatureDrift('extended', entry.extended.signature, extended.signature).length === 0;
      if (publicSame && publicSignatureHolds && (unchecked || (extendedSame && extendedSignatureHolds)))
        return withUnchecked(okReport(warnings), unchecked);
    }
  } catch (error) {
    return withUnchecked(errorReport(error, warnings), unchecked);
  }
  const lockedCard = lockedNegotiationCard(entry, entry.card, settings);
  // The locked plans are checked against the fresh extended card; the locked one when it could
  // not be checked; the fresh public card when the agent no longer has an extended card.
  const negotiationCard = extended ? extended.card : unchecked && entry.extended ? lockedCard : fresh;
  return withUnchecked(
    servedVerdict(
      entry,
      settings,
      {
        resolved: loaded.resolved,
        raw: loaded.raw,
        signature: publicSignature,
        extended,
        negotiationCard,
        lockedCard,
        unchecked: unchecked?.message,
      },
      warnings,
    ),
    unchecked,
  );
}

/**
 * {@link checkServed} for one locked agent, as the library exported it before: the cards served
 * now against the entry, with the manifest's credential sources for the extended card.
 */
export function checkOnline(
  entry: LockEntry,
  settings: AgentSettings,
  options: ResolveOptions,
  credentials: AgentEntry['credentials'] = {},
): Promise<AgentReport> {
  return checkServed({ entry, settings, credentials }, options);
}

/**
 * The agent's extended card, read with the credential along the locked route; not read (`unchecked`)
 * when a review gate withholds the credential there, or when the credential's variable is unset.
 */
async function readExtendedUnderGate(
  check: ServedCheck,
  guarded: ReturnType<typeof lockedExtendedRoute>,
  baseUrl: string | undefined,
  options: ResolveOptions,
  warnings: Warning[],
): Promise<{ extended: ReadCard | undefined; unchecked: Unchecked | undefined }> {
  const { entry, settings } = check;
  let unchecked: Unchecked | undefined;
  let extended: ReadCard | undefined;
  // Under a review gate the credential goes only where the base lockfile already sent it;
  // checked before any secret is read.
  const withheld =
    guarded.route && check.gate
      ? withheldRoutes(check.gate, extendedRoutes(guarded.route, guarded.schemes), check.credentials ?? {})
      : [];
  if (withheld.length > 0)
    unchecked = check.gate?.kind === 'unreadable' ? baseUnreadable() : credentialRouteNew(withheld);
  else {
    try {
      if (guarded.route)
        extended = await readExtended(
          guarded.route,
          { schemes: guarded.schemes, credentials: check.credentials ?? {}, settings, baseUrl },
          options,
          warnings,
        );
    } catch (error) {
      if (!(error instanceof A2aLockError) || error.code !== 'credential-unset') throw error;
      unchecked = extendedUnchecked(
        String(error.data?.variable),
        check.gate !== undefined && extendedChangedSince(check.gate, entry),
      );
    }
  }
  return { extended, unchecked };
}
