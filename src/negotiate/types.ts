/** Types of the negotiation core: the client profile in, the call plan or a refusal out. */

/**
 * What the client implements, every list in preference order (design doc "Write your client
 * profile down"). Credentials held are passed separately, per agent.
 */
export interface ClientProfile {
  /** Binding strings in preference order, e.g. `["JSONRPC", "HTTP+JSON"]`. */
  bindings: string[];
  /** Protocol versions as Major.Minor in preference order, e.g. `["1.0", "0.3"]`. */
  versions: string[];
  /** Concrete media types the client can consume, most preferred first. */
  accepts: string[];
  /** Media types the client puts in message parts. */
  sends: string[];
  /** Whether the client can hold a stream (SendStreamingMessage / SSE). */
  streaming: boolean;
  /** Webhook URL for push notifications, or null when the client has none. */
  pushEndpoint: string | null;
  /** Extension URIs the client implements. */
  extensions: string[];
}

/**
 * The plan key of an agent-level plan: a manifest entry without skills (or with `[]`) locks one
 * plan under this key, negotiated from the card's default modes and card-level security
 * requirements (frameworks that list no skills for a plain LLM agent). `negotiate(card, "*", ...)`
 * negotiates it.
 */
export const AGENT_LEVEL = '*';

/** How task updates arrive (design doc step 4). */
export type Delivery = 'stream' | 'push' | 'poll';

/**
 * The negotiated call plan for one agent skill: everything the transport applies to each request.
 * This is the JSON stored per skill in `a2a.lock.json`.
 */
export interface Plan {
  /** The chosen interface's URL (A2A 1.0 AgentInterface.url). */
  url: string;
  /** `"JSONRPC"`, `"GRPC"` or `"HTTP+JSON"` (or a custom binding the profile named). */
  protocolBinding: string;
  /** Major.Minor, sent as `A2A-Version`. */
  protocolVersion: string;
  /** Copied from the interface when it has one (A2A 1.0 §8.3.2 rule 4). */
  tenant?: string;
  /** The chosen security requirement: scheme name → required scopes. `{}` when none is needed. */
  security: Record<string, string[]>;
  /** Profile `accepts` ∩ skill output modes, in profile order, in the agent's spelling. */
  acceptedOutputModes: string[];
  delivery: Delivery;
  /** Extension URIs to activate (A2A-Extensions), in card order. */
  extensions: string[];
  /**
   * The locked alternatives the runtime may use, in the order negotiation would pick them next;
   * absent when there are none. Never anything outside this list.
   */
  fallbacks?: PlanFallbacks;
}

/** One interface a plan may fall back to (A2A 1.0 AgentInterface fields). */
export interface FallbackInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
}

/**
 * A plan's ordered locked fallbacks: `interfaces` are the other card interfaces the profile accepts,
 * in version-major profile order (used on VersionNotSupported); `delivery` is `["poll"]` for a
 * `stream` or `push` plan (used when a stream or push config is refused or a stream breaks).
 */
export interface PlanFallbacks {
  interfaces: FallbackInterface[];
  delivery: Array<'poll'>;
}

/** Stable refusal codes: why no plan exists. */
export const RefusalCode = {
  SkillNotFound: 'skill-not-found',
  NoCommonInterface: 'no-common-interface',
  MissingCredential: 'missing-credential',
  InputModeNotAccepted: 'input-mode-not-accepted',
  NoCommonOutputMode: 'no-common-output-mode',
  RequiredExtensionUnsupported: 'required-extension-unsupported',
  VersionOutOfRange: 'version-out-of-range',
  /** The only interfaces (or the push endpoint) the plan could use are plain http to a host that is not loopback. */
  PlainHttp: 'plain-http',
} as const;

export type RefusalCode = (typeof RefusalCode)[keyof typeof RefusalCode];

/** Why negotiation stopped. `message` says what was offered and what was needed. */
export interface Refusal {
  code: RefusalCode;
  message: string;
}

/** The negotiation steps, in order. */
export type StepName = 'skill' | 'version' | 'interface' | 'security' | 'media' | 'delivery' | 'extensions';

/** One step of the negotiation trace (what `a2a why` shows). */
export interface TraceStep {
  step: StepName;
  ok: boolean;
  /** One human line: what was chosen, or why nothing could be. */
  detail: string;
  /** The candidates the step considered, in the order it tried them. */
  candidates?: unknown[];
  /** The value the step chose. */
  chosen?: unknown;
}

/** Result of `negotiate()`: a plan or a refusal, always with the trace. */
export type NegotiationResult =
  | { plan: Plan; refusal?: undefined; trace: TraceStep[] }
  | { plan?: undefined; refusal: Refusal; trace: TraceStep[] };
