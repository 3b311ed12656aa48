/**
 * a2a-lock as a library: the pure core (card reading, negotiation, lockfile format) and the
 * engine the CLI is built on.
 */
export { normalizeCard, majorMinor, type CardSource, type NormalizeResult } from './card/normalize.js';
export type { NormalizedCard, AgentInterface, AgentSkill, AgentCapabilities, AgentExtension, SecurityScheme, SecurityRequirement, Warning, CardShape } from './card/model.js';
export { negotiate, diffPlans, type NegotiateOptions } from './negotiate/negotiate.js';
export { explainNegotiation, type Explanation, type ExplainedStep, type Candidate } from './negotiate/explain.js';
export { RefusalCode, type StepName, type ClientProfile, type Plan, type Refusal, type Delivery, type NegotiationResult, type TraceStep } from './negotiate/types.js';
export { sameMediaType } from './negotiate/media.js';
export { ManifestSchema, ProfileSchema, MANIFEST_SCHEMA_REF, DEFAULT_PROFILE, agentSettings, type Manifest, type AgentEntry, type AgentSettings } from './manifest/schema.js';
export { readManifest, parseManifest } from './manifest/read.js';
export { LockfileSchema, LOCKFILE_VERSION, LOCKFILE_SCHEMA_REF, type Lockfile, type LockEntry } from './lock/schema.js';
export { readLockfile, parseLockfile, serializeLockfile, writeLockfile } from './lock/io.js';
export { manifestMismatches, checkOffline, checkOnline, resolveAgent, type AgentReport, type AgentStatus, type EngineOptions, type PlanDrift, type SignatureDrift } from './lock/engine.js';
export { verifyLockfile, type VerifyOptions, type VerifyResult } from './lock/verify.js';
export { entryChanges, type EntryChanges, type PlanChange, type SignatureChange } from './lock/changes.js';
export { closeFetcher } from './card/load.js';
export { syncLock, type SyncResult } from './lock/sync.js';
export { diffCards, type CardChange } from './lock/card-diff.js';
export { canonicalJson, integrityOf } from './canonical.js';
export { A2aLockError, UsageError, InvalidInputError, FetchError, OutOfDateError, ErrorCode, ExitCode, exitCodeFor, isA2aLockError } from './errors.js';
export type { SignatureRecord } from './card/signature.js';
