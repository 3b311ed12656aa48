/**
 * `a2a-lock/runtime`: the lockfile enforced on every request. {@link loadLock} reads and checks
 * `a2a.lock.json`; `lock.agent(name, skill)` gives the locked plan, a plan-enforcing `fetch` and
 * `createClient()` (an `@a2a-js/sdk` Client bound to exactly the locked interface, with the
 * locked fallbacks as its only alternatives). The SDK is a peer dependency, loaded only by
 * `createClient()`.
 */

export {
  A2aLockError,
  type AgentCallDetails,
  AgentCallError,
  AgentDegradedError,
  DigestMismatchError,
  FetchError,
  isA2aLockError,
  PlanViolationError,
} from '../errors.js';
export type { AwsCredentials, OriginAuthProvider } from '../http/origin-auth.js';
export type { FallbackInterface, Plan, PlanFallbacks } from '../negotiate/types.js';
export { type AgentErrorAnswer, type AgentErrorKind, classifyAgentError, classifySdkError } from './classify.js';
export { loadLock } from './load-lock.js';
export { Lock } from './lock.js';
// Every type of the runtime's public API (options, events, the locked agent and client).
export type * from './types.js';
