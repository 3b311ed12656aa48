/**
 * The plan a request is checked against ({@link RequestPlan}), and the same made ready for checking
 * many requests ({@link PreparedPlan}). Pure.
 */
import { mediaTypeKeys } from '../card/media.js';
import { PlanViolationError } from '../errors.js';
import type { FallbackInterface, Plan } from '../negotiate/types.js';

/** What the request check needs: the locked plan of one agent's skill, at one interface. */
export interface RequestPlan {
  agent: string;
  skill: string;
  /** The locked plan (modes, delivery, extensions, security). */
  plan: Plan;
  /** The interface requests go to: the plan's own or one of its locked fallbacks. */
  iface: FallbackInterface;
  /** The skill's locked input modes (from the locked snapshot). */
  inputModes: readonly string[];
  /** The locked `pushEndpoint` (the agent's settings): the only URL a push notification config may name (absent: none). */
  pushEndpoint?: string | null;
}

/** A {@link RequestPlan} with what the check of every request reads of it made once ({@link prepare}). */
export interface PreparedPlan extends RequestPlan {
  /** The comparison keys of the locked input modes ({@link mediaTypeKeys}). */
  inputModeKeys: ReadonlySet<string>;
  /** The comparison keys of the plan's accepted output modes. */
  outputModeKeys: ReadonlySet<string>;
  /** A PlanViolationError of this agent and skill with `message`. */
  violation: (message: string) => PlanViolationError;
}

/** `ctx` prepared for checking requests: once per enforcing fetch, not per request. */
export function prepare<C extends RequestPlan>(ctx: C): C & PreparedPlan {
  return {
    ...ctx,
    inputModeKeys: mediaTypeKeys(ctx.inputModes),
    outputModeKeys: mediaTypeKeys(ctx.plan.acceptedOutputModes),
    violation: (message) => new PlanViolationError(ctx.agent, ctx.skill, message),
  };
}

/** A list for messages: its items joined, or `none`. */
export function list(values: readonly string[]): string {
  return values.length ? values.join(', ') : 'none';
}

/** A URL for messages: origin and path only (a query may carry a credential). */
export function redact(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
