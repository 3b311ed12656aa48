/**
 * What a check or a resolution found for one agent, and the rules of its exit code: the code of
 * each report and failure is set here (from its status, or from the error-code → exit-code table
 * in `errors.ts`), as are `--strict` and the overall code of a multi-agent run (the lowest
 * non-zero). `verify`, `install`, `lock`, `update`, `outdated` and the runtime call these; a
 * command with one answer (`plan` refused, `why` inconsistent) returns its exit code itself. Pure.
 */
import type { NormalizedCard, Warning } from '../card/model.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { A2aLockError, type ErrorCode, ExitCode, exitCodeFor, exitCodeOf } from '../errors.js';
import type { Refusal, TraceStep } from '../negotiate/types.js';
import type { CardChange } from './changes.js';
import type { ProbeKind } from './probe.js';
import type { LockEntry } from './schema.js';

/**
 * Per-agent verification status. `unchecked`: part of the agent (its card served now, its extended
 * card) could not be checked in this run and nothing else was found against it (see
 * {@link UncheckedReason}); never `ok`; exit 0, 1 under `--strict` (fails closed).
 */
export type AgentStatus = 'ok' | 'changed' | 'unchecked' | 'drift' | 'out-of-date' | 'error';

/**
 * Why part of an agent was not checked:
 * - `credential-unset`: a credential variable is not set, so the card served now (behind
 *   `originAuth`) or the extended card was not read;
 * - `credential-route-new`: the credential would go along a route (origin, scheme, placement, secret
 *   variable) the base lockfile did not have for this agent, so none was sent (`verify --base`);
 * - `extended-changed`: the lockfile's extended snapshot differs from the base's and the extended
 *   card could not be fetched now (its credential unset);
 * - `base-unreadable`: a pull request whose base is not in the clone, so no credential was sent;
 * - `interface-auth-required`: `verify --probe`: a locked interface answered its probe with an
 *   authentication refusal (alive, not proven served);
 * - `interface-not-probed`: `verify --probe`: a locked interface's probe was not sent (the credential
 *   its plan sends could not be obtained, or the run refused the request), so it was not checked.
 * Each makes an `ok` or `changed` agent `unchecked`, never `ok` (issue 33).
 */
export type UncheckedReason =
  | 'credential-unset'
  | 'credential-route-new'
  | 'extended-changed'
  | 'base-unreadable'
  | 'interface-auth-required'
  | 'interface-not-probed';

/** A credential destination withheld: the origin and the security scheme. */
export interface WithheldRoute {
  origin: string;
  scheme: string;
}

/** A part of an agent that was not checked: why (a stable code), the line to show, and where a withheld credential would have gone. */
export interface Unchecked {
  reason: UncheckedReason;
  message: string;
  routes?: WithheldRoute[];
}

/** One way a fresh card goes beyond a locked plan. */
export interface PlanDrift {
  skill: string;
  /** The plan field that differs (absent when negotiation refused). */
  field?: string;
  locked?: unknown;
  fresh?: unknown;
  /** Set when the narrowed negotiation refused. */
  refusal?: Refusal;
  /** `missing-credential`: the schemes of the first security requirement that applies, not held. */
  schemes?: string[];
  /** The step that resolves the refusal, when `a2a update` alone would not (`lock/hints.ts`). */
  hint?: string;
}

/** A locked verified signature that no longer holds: the card came back unsigned, unverifiable, or signed by another key. */
export interface SignatureDrift {
  snapshot: 'card' | 'extended';
  locked: SignatureRecord;
  fresh: SignatureRecord;
}

/** One probed interface of a `verify --probe` report: the interface, the kind the lockfile records (absent: none), and what answered now. */
export interface InterfaceProbe {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
  /** The outcome kind the lockfile records for this interface; absent when it records none. */
  recorded?: ProbeKind;
  /** The outcome kind of this run's probe; `not-probed`: the probe was not sent (see `reason`). */
  kind: ProbeKind | 'not-probed';
  /** What answered, redacted and bounded (from the probe). */
  answered?: string;
  /** For `not-probed`: why the probe was not sent, in the tool's own words. */
  reason?: string;
}

/** A typed error as a report carries it (JSON-safe). */
export interface ReportedError {
  code: ErrorCode;
  message: string;
  hint?: string;
}

/** What verify/install found for one agent. `exitCode` is this agent's contribution. */
export interface AgentReport {
  status: AgentStatus;
  exitCode: ExitCode;
  /** For `changed` and `drift`: whether any card change can decide a plan. */
  change?: 'structural' | 'descriptive';
  /** Card changes; paths of extended-card changes start with `extended:`. */
  cardChanges?: CardChange[];
  drift?: PlanDrift[];
  signatureDrift?: SignatureDrift[];
  /** Set when part of the agent could not be checked, e.g. "extended card not checked (RESEARCH_TOKEN unset)"; `--strict` fails on it. */
  unchecked?: string;
  /** Why `unchecked` (a stable code). */
  reason?: UncheckedReason;
  /** For `credential-route-new`: the destinations the credential was withheld from. */
  routes?: WithheldRoute[];
  /** For `out-of-date`: why the lock does not match the manifest. */
  reasons?: string[];
  /** For `error`: the typed error. */
  error?: ReportedError;
  /** `verify --probe`: each locked interface probed, the kind the lockfile records and what answered now. */
  probes?: InterfaceProbe[];
  /** Set when every {@link failureCodes} code of a failing report was ignored (`verify --ignore`): shown, not counted for the exit code. */
  ignored?: true;
  warnings: Warning[];
}

/** The agent holds: its lock entry (and, online, the cards served now) agree. Exit 0. */
export function okReport(warnings: Warning[] = [], unchecked?: string): AgentReport {
  return { status: 'ok', exitCode: ExitCode.Ok, warnings, ...(unchecked ? { unchecked } : {}) };
}

/**
 * `report` with `unchecked` recorded on it (its message, reason and routes). Any reason turns an
 * `ok` or `changed` report into `unchecked` (exit 0, 1 under `--strict`): an agent not checked is
 * never `ok`; drift, out-of-date and error keep their status (and exit code). Undefined: `report`.
 */
export function withUnchecked(report: AgentReport, unchecked: Unchecked | undefined): AgentReport {
  if (!unchecked) return report;
  const held = unchecked.routes?.length ? { routes: unchecked.routes } : {};
  const status: AgentStatus = report.status === 'ok' || report.status === 'changed' ? 'unchecked' : report.status;
  return { ...report, status, unchecked: unchecked.message, reason: unchecked.reason, ...held };
}

/** The lock entry does not match the manifest, or its plans not its snapshot. Exit 1. */
export function outOfDateReport(reasons: string[]): AgentReport {
  return { status: 'out-of-date', exitCode: ExitCode.Drift, reasons, warnings: [] };
}

/** The card served now changed but leaves every locked plan equal. Exit 0 (1 under `--strict`, {@link strictExitCode}). */
export function changedReport(
  found: Pick<AgentReport, 'change' | 'cardChanges' | 'unchecked' | 'warnings'>,
): AgentReport {
  return { status: 'changed', exitCode: ExitCode.Ok, ...found };
}

/** The card served now goes beyond a locked plan or signature ("beyond the lockfile"). Exit 1. */
export function driftReport(
  found: Pick<AgentReport, 'change' | 'cardChanges' | 'drift' | 'signatureDrift' | 'unchecked' | 'warnings'>,
): AgentReport {
  const { drift, signatureDrift, ...rest } = found;
  return {
    status: 'drift',
    exitCode: ExitCode.Drift,
    ...rest,
    ...(drift?.length ? { drift } : {}),
    ...(signatureDrift?.length ? { signatureDrift } : {}),
  };
}

/** A typed error as a report: its exit code from the one table. */
export function errorReportOf(error: ReportedError, warnings: Warning[] = []): AgentReport {
  return { status: 'error', exitCode: exitCodeOf(error.code), error, warnings };
}

/**
 * A thrown error as a report. Anything but an {@link A2aLockError} is a bug and is thrown again.
 * @throws the error itself when it is not an A2aLockError
 */
export function errorReport(error: unknown, warnings: Warning[] = []): AgentReport {
  return errorReportOf(reportedError(error), warnings);
}

/** The JSON-safe form of a thrown A2aLockError. @throws the error itself when it is not one (a bug) */
function reportedError(error: unknown): ReportedError {
  if (!(error instanceof A2aLockError)) throw error;
  return { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
}

/** A report's exit code under `strict`: a card change or an unchecked part that leaves plans equal fails (1). */
export function strictExitCode(report: AgentReport, strict: boolean): ExitCode {
  return strict && report.exitCode === ExitCode.Ok && (report.status === 'changed' || report.unchecked !== undefined)
    ? ExitCode.Drift
    : report.exitCode;
}

/**
 * The codes `verify --ignore` takes (docs/reference/commands/verify.md): what an agent's report fails
 * with. `drift`, `out-of-date` and `changed` (under `--strict`) are statuses; the `unchecked` reasons
 * fail under `--strict`; the rest are the error codes an agent can fail with now (its card served
 * now, its signature, its credential). A snapshot that fails its integrity (`lockfile-invalid`) and
 * an error that ends the run are never ignored.
 */
export const VERIFY_FAILURE_CODES = [
  'drift',
  'out-of-date',
  'changed',
  'credential-route-new',
  'extended-changed',
  'base-unreadable',
  'interface-auth-required',
  'interface-not-probed',
  'credential-unset',
  'unreachable',
  'auth-refused',
  'timeout',
  'card-invalid',
  'insecure-url',
  'signature-required',
  'interface-not-served',
] as const;

/** A code of {@link VERIFY_FAILURE_CODES}. */
export type VerifyFailureCode = (typeof VERIFY_FAILURE_CODES)[number];

/**
 * What a report fails with (its `exitCode` already under `--strict`, {@link strictExitCode}): the
 * error's code, `drift`, `out-of-date`, or under `--strict` `changed` and the reason of an unchecked
 * part (`strict`: beside any other code too); none when it passes. A code outside {@link VERIFY_FAILURE_CODES} (`lockfile-invalid`) is
 * returned too, and can never be ignored.
 */
export function failureCodes(
  report: Pick<AgentReport, 'status' | 'exitCode' | 'error' | 'reason' | 'change'>,
  strict = false,
): string[] {
  if (report.exitCode === ExitCode.Ok) return [];
  // Under --strict an unchecked part fails on its own: a report failing otherwise fails with its reason too.
  const unchecked = strict && report.reason ? [report.reason] : [];
  switch (report.status) {
    case 'error':
      return [report.error?.code ?? 'error', ...unchecked];
    case 'drift':
    case 'out-of-date':
      return [report.status, ...unchecked];
    case 'changed':
      return ['changed', ...(report.reason ? [report.reason] : [])];
    default:
      // `unchecked`: failing under --strict for the unchecked part (and a card change it carries).
      return [...(report.change ? ['changed'] : []), ...(report.reason ? [report.reason] : [report.status])];
  }
}

const FAILURE_CODES: ReadonlySet<string> = new Set(VERIFY_FAILURE_CODES);

/**
 * `reports` with each failing report whose every {@link failureCodes} code is in `codes` (and in
 * {@link VERIFY_FAILURE_CODES}: a snapshot failing its integrity is never ignored) marked `ignored`
 * (`verify --ignore`), and the run's exit code from the others ({@link overallExitCode}). Each
 * report keeps its own `exitCode`. `strict`: the run is `--strict` (an unchecked part fails too).
 */
export function ignoreFailures<R extends Pick<AgentReport, 'status' | 'exitCode' | 'error' | 'reason' | 'change'>>(
  reports: Record<string, R>,
  codes: ReadonlySet<string>,
  strict = false,
): { agents: Record<string, R & { ignored?: true }>; exitCode: ExitCode } {
  const agents: Record<string, R & { ignored?: true }> = {};
  for (const [name, r] of Object.entries(reports)) {
    const failed = failureCodes(r, strict);
    const ignorable = failed.length > 0 && failed.every((c) => codes.has(c) && FAILURE_CODES.has(c));
    agents[name] = ignorable ? { ...r, ignored: true } : r;
  }
  const exitCode = overallExitCode(Object.values(agents).flatMap((r) => (r.ignored ? [] : [r.exitCode])));
  return { agents, exitCode };
}

/** The overall exit code of a multi-agent run: the lowest non-zero agent code, else 0. */
export function overallExitCode(codes: Iterable<ExitCode>): ExitCode {
  let worst: ExitCode = ExitCode.Ok;
  for (const code of codes) {
    if (code === ExitCode.Ok) continue;
    if (worst === ExitCode.Ok || code < worst) worst = code;
  }
  return worst;
}

/** The exit code `outdated` gives an agent that `update` would change (1) or leave as it is (0). */
export function outdatedExitCode(wouldChange: boolean): ExitCode {
  return wouldChange ? ExitCode.Drift : ExitCode.Ok;
}

/** A refusal for one skill. */
export interface SkillRefusal {
  skill: string;
  refusal: Refusal;
  /** `missing-credential`: the schemes of the first security requirement that applies, not held (what to hold). */
  schemes?: string[];
  /** How to get past the refusal (a command's flags), when the command knows one. */
  hint?: string;
}

/** Outcome of resolving (or re-planning) one agent. */
export interface Resolution {
  /** The new lock entry; absent when any skill was refused or went beyond its locked plan. */
  entry?: LockEntry;
  refusals: SkillRefusal[];
  /** Skills whose fresh plan differs from the locked one (only when constrained to a locked entry). */
  drift: PlanDrift[];
  /** A locked verified signature that no longer holds (only when constrained). */
  signatureDrift?: SignatureDrift[];
  traces: Record<string, TraceStep[]>;
  warnings: Warning[];
  /** The card negotiated against (the extended card when there is one). */
  card: NormalizedCard;
}

/** Why one agent could not be resolved by lock, add, update or outdated. */
export interface SyncFailure {
  exitCode: ExitCode;
  /** A load/validation error. */
  error?: ReportedError;
  /** Skills negotiation refused. */
  refusals?: SkillRefusal[];
  /** Locked skills whose fresh plan goes beyond the lockfile (run `a2a update`). */
  drift?: PlanDrift[];
  /** A locked verified signature that no longer holds (run `a2a update`). */
  signatureDrift?: SignatureDrift[];
  /** The command that accepts the drift, when it is not `a2a update <agent>` (set by the command that knows it). */
  next?: string;
}

/** A thrown error as a sync failure. @throws the error itself when it is not an A2aLockError (a bug) */
export function errorFailure(error: unknown): SyncFailure {
  return { exitCode: exitCodeFor(error), error: reportedError(error) };
}

/** A resolution without an entry (refused, or beyond the lockfile) as a sync failure. Exit 1. */
export function resolutionFailure(resolution: Resolution): SyncFailure {
  return {
    exitCode: ExitCode.Drift,
    ...(resolution.refusals.length ? { refusals: resolution.refusals } : {}),
    ...(resolution.drift.length ? { drift: resolution.drift } : {}),
    ...(resolution.signatureDrift?.length ? { signatureDrift: resolution.signatureDrift } : {}),
  };
}

/** The `--json` form of a failure: `{status: "error"|"drift"|"refused", exitCode, error?, refusals? (skill → refusal, with its hint), drift?, signatureDrift?}`. */
export function syncFailureJson(f: SyncFailure): Record<string, unknown> {
  return {
    status: f.error ? 'error' : f.drift || f.signatureDrift ? 'drift' : 'refused',
    exitCode: f.exitCode,
    ...(f.error ? { error: f.error } : {}),
    ...(f.refusals
      ? {
          refusals: Object.fromEntries(
            f.refusals.map((r) => [r.skill, r.hint ? { ...r.refusal, hint: r.hint } : r.refusal]),
          ),
        }
      : {}),
    ...(f.drift ? { drift: f.drift } : {}),
    ...(f.signatureDrift ? { signatureDrift: f.signatureDrift } : {}),
    ...(f.next ? { next: f.next } : {}),
  };
}
