/**
 * `a2a-lock/runtime`: the lockfile enforced on every request. {@link loadLock} reads and checks
 * `a2a.lock.json`; `lock.agent(name, skill)` gives the locked plan, a plan-enforcing `fetch` and
 * `createClient()` (an `@a2a-js/sdk` Client bound to exactly the locked interface, with the
 * locked fallbacks as its only alternatives). The SDK is a peer dependency, loaded only by
 * `createClient()`.
 */
export { loadLock } from './load-lock.js';
export { Lock } from './lock.js';
export {
  A2aLockError,
  PlanViolationError,
  AgentDegradedError,
  AgentCallError,
  DigestMismatchError,
  FetchError,
  isA2aLockError,
  type AgentCallDetails,
} from '../errors.js';
export { classifyAgentError, classifySdkError, type AgentErrorKind, type AgentErrorAnswer } from './classify.js';
export type { AwsCredentials, OriginAuthProvider } from '../http/origin-auth.js';
export type {
  AgentRuntime,
  ChannelCredentials,
  CreateClientOptions,
  CredentialProvider,
  CredentialRequest,
  CredentialsOption,
  DegradedEvent,
  DriftEvent,
  FallbackEvent,
  FallbackReason,
  LoadLockOptions,
  LockedAgent,
  LockedClient,
} from './types.js';
export type { Plan, PlanFallbacks, FallbackInterface } from '../negotiate/types.js';
