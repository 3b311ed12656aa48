/**
 * What the enforcing fetch saw of one `createClient()` call: the HTTP status and URL of the
 * agent's last answer. `PlanTransport` runs each call in its own {@link observation} context,
 * so concurrent calls never see each other's answers; `agent.fetch` used directly runs in none
 * and records nothing. Used to type an SDK error that carries no status (the SDK's JSON-RPC
 * transports throw a plain `Error` for a non-2xx answer whose body is not JSON-RPC).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The answer of one call, as far as the enforcing fetch saw it. */
export interface Observed {
  /** HTTP status of the last answer received. */
  status?: number;
  /** Its URL, origin and path only. */
  url?: string;
}

/** The per-call context (see the module comment). */
export const observation = new AsyncLocalStorage<Observed>();
