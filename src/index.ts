/**
 * a2a-lock as a library: the pure core (card reading, negotiation, the lockfile format and its
 * decisions) and the resolve shell the CLI is built on. Re-exports only.
 */

export { canonicalJson, integrityOf } from './canonical.js';
export { sameMediaType } from './card/media.js';
export type {
  AgentCapabilities,
  AgentExtension,
  AgentInterface,
  AgentSkill,
  CardShape,
  NormalizedCard,
  SecurityRequirement,
  SecurityScheme,
  Warning,
} from './card/model.js';
export { type CardSource, type NormalizeResult, normalizeCard } from './card/normalize.js';
export type { SignatureRecord } from './card/signature/verify.js';
export { majorMinor } from './card/version.js';
export {
  A2aLockError,
  DigestMismatchError,
  ErrorCode,
  ExitCode,
  exitCodeFor,
  FetchError,
  InvalidInputError,
  isA2aLockError,
  OutOfDateError,
  UsageError,
} from './errors.js';
export { readLockfile, writeLockfile } from './fs/lockfile.js';
export { readManifest } from './fs/manifest.js';
export type { NetworkOptions } from './http/network-options.js';
export {
  type CardChange,
  type CardSide,
  cardChanges,
  diffCards,
  type EntryChanges,
  type EntrySide,
  entryChanges,
  type PlanChange,
  type SignatureChange,
} from './lock/changes.js';
export { type NegotiatedSkills, negotiateSkills, type ServedCards, servedVerdict } from './lock/drift.js';
export { parseLockfile, serializeLockfile } from './lock/format.js';
export { checkOffline } from './lock/offline.js';
export {
  classifyProbe,
  interfaceKey,
  PROBE_KINDS,
  type ProbeAnswer,
  type ProbedInterface,
  type ProbeKind,
  type ProbeNotSent,
  type ProbeOutcome,
  type ProbeResult,
  probedInterfaces,
} from './lock/probe.js';
export {
  type AgentReport,
  type AgentStatus,
  overallExitCode,
  type PlanDrift,
  type Resolution,
  type SignatureDrift,
  type SyncFailure,
  strictExitCode,
  type UncheckedReason,
} from './lock/report.js';
export { manifestMismatches } from './lock/satisfies.js';
export { LOCKFILE_SCHEMA_REF, LOCKFILE_VERSION, type LockEntry, type Lockfile } from './lock/schema.js';
export { parseManifest } from './manifest/parse.js';
export {
  type AgentEntry,
  type AgentSettings,
  agentSettings,
  DEFAULT_PROFILE,
  MANIFEST_SCHEMA_REF,
  type Manifest,
} from './manifest/schema.js';
export { type Candidate, type ExplainedStep, type Explanation, explainNegotiation } from './negotiate/explain.js';
export { diffPlans, type NegotiateOptions, negotiate } from './negotiate/negotiate.js';
export {
  type ClientProfile,
  type Delivery,
  type NegotiationResult,
  type Plan,
  type Refusal,
  RefusalCode,
  type StepName,
  type TraceStep,
} from './negotiate/types.js';
export { checkOnline, checkServed, type ServedCheck } from './resolve/check-served.js';
export { closeFetcher } from './resolve/load-card.js';
export type { ResolveOptions } from './resolve/options.js';
export { type ProbeSource, probeInterfaces, probeLocked, probeRecord } from './resolve/probe.js';
export { type ResolveAgentOptions, resolveAgent } from './resolve/resolve-agent.js';
export { type SyncRequest, type SyncResult, syncLock } from './resolve/sync.js';
export { type VerifyBase, type VerifyOptions, type VerifyResult, verifyLockfile } from './resolve/verify.js';
export { LockfileSchema, ManifestSchema, ProfileSchema } from './schemas.js';
