/**
 * a2a-lock as a library: the pure core (card reading, negotiation, the lockfile format and its
 * decisions) and the resolve shell the CLI is built on. Re-exports only.
 */
export { normalizeCard, type CardSource, type NormalizeResult } from './card/normalize.js';
export { majorMinor } from './card/version.js';
export type {
  NormalizedCard,
  AgentInterface,
  AgentSkill,
  AgentCapabilities,
  AgentExtension,
  SecurityScheme,
  SecurityRequirement,
  Warning,
  CardShape,
} from './card/model.js';
export type { SignatureRecord } from './card/signature/verify.js';
export { negotiate, diffPlans, type NegotiateOptions } from './negotiate/negotiate.js';
export { explainNegotiation, type Explanation, type ExplainedStep, type Candidate } from './negotiate/explain.js';
export {
  RefusalCode,
  type StepName,
  type ClientProfile,
  type Plan,
  type Refusal,
  type Delivery,
  type NegotiationResult,
  type TraceStep,
} from './negotiate/types.js';
export { sameMediaType } from './card/media.js';
export { ManifestSchema, ProfileSchema, LockfileSchema } from './schemas.js';
export {
  MANIFEST_SCHEMA_REF,
  DEFAULT_PROFILE,
  agentSettings,
  type Manifest,
  type AgentEntry,
  type AgentSettings,
} from './manifest/schema.js';
export { parseManifest } from './manifest/parse.js';
export { readManifest } from './fs/manifest.js';
export { LOCKFILE_VERSION, LOCKFILE_SCHEMA_REF, type Lockfile, type LockEntry } from './lock/schema.js';
export { parseLockfile, serializeLockfile } from './lock/format.js';
export { readLockfile, writeLockfile } from './fs/lockfile.js';
export { manifestMismatches } from './lock/satisfies.js';
export { checkOffline } from './lock/offline.js';
export { negotiateSkills, servedVerdict, type NegotiatedSkills, type ServedCards } from './lock/drift.js';
export {
  overallExitCode,
  strictExitCode,
  type AgentReport,
  type AgentStatus,
  type PlanDrift,
  type SignatureDrift,
  type Resolution,
  type SyncFailure,
  type UncheckedReason,
} from './lock/report.js';
export {
  cardChanges,
  diffCards,
  entryChanges,
  type CardChange,
  type CardSide,
  type EntryChanges,
  type EntrySide,
  type PlanChange,
  type SignatureChange,
} from './lock/changes.js';
export type { NetworkOptions } from './http/network-options.js';
export type { ResolveOptions } from './resolve/options.js';
export { resolveAgent, type ResolveAgentOptions } from './resolve/resolve-agent.js';
export { checkOnline, checkServed, type ServedCheck } from './resolve/check-served.js';
export { syncLock, type SyncRequest, type SyncResult } from './resolve/sync.js';
export { verifyLockfile, type VerifyOptions, type VerifyResult, type VerifyBase } from './resolve/verify.js';
export { closeFetcher } from './resolve/load-card.js';
export { canonicalJson, integrityOf } from './canonical.js';
export {
  A2aLockError,
  UsageError,
  InvalidInputError,
  FetchError,
  OutOfDateError,
  DigestMismatchError,
  ErrorCode,
  ExitCode,
  exitCodeFor,
  isA2aLockError,
} from './errors.js';
