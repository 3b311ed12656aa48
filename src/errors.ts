/**
 * Typed errors with stable codes, and the one table that maps them to process exit codes.
 *
 * Every failure a user can cause (bad input, an agent that is down, a plan beyond the lockfile)
 * is an {@link A2aLockError} whose `code` is stable public API. Anything else that escapes is a
 * bug and exits 70 (sysexits EX_SOFTWARE).
 *
 * Two modules read the table ({@link exitCodeFor}, {@link exitCodeOf}), and only they
 * (test/architecture.test.ts holds this): `src/lock/report.ts`, which gives each agent of a
 * multi-agent run (verify, install, lock, update, outdated) its exit code and the run its overall
 * one, and `src/cli/main.ts`, which maps an error that ends a command.
 */

/** Stable error codes. Kebab-case strings; never renamed once released. */
export const ErrorCode = {
  /** Bad command-line usage (unknown flag, missing argument, unknown agent name). */
  Usage: 'usage',
  /** `a2a.json` is not JSON or fails validation. `data.path` is the JSON path. */
  ManifestInvalid: 'manifest-invalid',
  /** No `a2a.json` in the working directory or any parent up to the git root (or the `--manifest` file does not exist). */
  ManifestNotFound: 'manifest-not-found',
  /** The `a2a.json` the upward search found is owned by another user (git's `safe.directory` rule): not used. */
  ManifestUnsafe: 'manifest-unsafe',
  /** A `--profile` file is invalid. */
  ProfileInvalid: 'profile-invalid',
  /** `a2a.lock.json` is not JSON, fails validation, or a snapshot fails its integrity check. */
  LockfileInvalid: 'lockfile-invalid',
  /** An agent card is not JSON, not an agent card, or fails validation. */
  CardInvalid: 'card-invalid',
  /** A card URL is not allowed (plain http to a non-loopback host without `--allow-http`, https→http redirect). */
  InsecureUrl: 'insecure-url',
  /** The agent could not be reached: DNS, connection refused/reset, 404, 5xx, too many redirects. */
  Unreachable: 'unreachable',
  /** The agent answered 401 or 403. */
  AuthRefused: 'auth-refused',
  /** The card did not arrive within the timeout. */
  Timeout: 'timeout',
  /** Negotiation found no viable plan; `data.refusal` holds the refusal code. */
  Refusal: 'refusal',
  /** A fresh card would change a locked plan ("beyond the lockfile"). */
  Drift: 'drift',
  /** The lockfile is missing or does not match the manifest: run `a2a lock`. */
  LockfileOutOfDate: 'lockfile-out-of-date',
  /** A credential needed now (the extended card) has no value: its environment variable is unset. */
  CredentialUnset: 'credential-unset',
  /** The manifest sets requireSignature and the card's signature is absent or does not verify. */
  SignatureRequired: 'signature-required',
  /** `--expect-digest` / `loadLock({ expectDigest })`: the lockfile is not the one whose digest was given (`data`: `lockfile`, `expected`, `actual`). */
  DigestMismatch: 'digest-mismatch',
  /** A file (lockfile, manifest) could not be written: permissions, disk full, or another a2a run held its lock too long. */
  WriteFailed: 'write-failed',
  /**
   * A credential would go to an origin the manifest's `credentialDestinations` does not list (a
   * plan, a token URL, the extended card request, an `originAuth` origin): nothing is sent or
   * written (`lock`, `update`, `add`), or the locked entry fails (`verify`). `data`: `destination`, `allowed`.
   */
  CredentialDestinationRefused: 'credential-destination-refused',
  /** The runtime refused a request outside the locked plan (nothing was sent). */
  PlanViolation: 'plan-violation',
  /** The agent failed its locked plan and its one locked fallback (or went beyond the lock): degraded. */
  AgentDegraded: 'agent-degraded',
  /**
   * At run time, the agent answered a call with an error that is not one the plan's locked
   * fallbacks answer: an A2A error (`data.a2aCode` / `data.a2aReason`), or an HTTP error
   * (`data.status`) that is not 401/403. The call reached the agent.
   */
  AgentError: 'agent-error',
  /**
   * `verify --probe`: a locked interface the lockfile records as served (or alive behind
   * authentication) answered its probe with something that is not A2A of its binding and version
   * (`data`: `url`, `binding`, `version`, `answered`).
   */
  InterfaceNotServed: 'interface-not-served',
  /** A bug in a2a-lock. */
  Internal: 'internal',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Process exit codes (one table, one place), those of the official `a2a` CLI's specification:
 * 0 ok · 1 drift, refusal, an invalid card, lockfile out of date, or not the expected digest · 2 usage or invalid input
 * (manifest, lockfile, profile) ·
 * 3 agent unreachable · 4 authentication refused · 5 timeout · 6 a locked interface not served
 * (`verify --probe`) · 70 internal error.
 */
export const ExitCode = {
  Ok: 0,
  Drift: 1,
  Invalid: 2,
  Unreachable: 3,
  Auth: 4,
  Timeout: 5,
  NotServed: 6,
  Internal: 70,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

const EXIT_BY_CODE: Record<ErrorCode, ExitCode> = {
  usage: ExitCode.Invalid,
  'manifest-invalid': ExitCode.Invalid,
  'manifest-not-found': ExitCode.Invalid,
  'manifest-unsafe': ExitCode.Invalid,
  'profile-invalid': ExitCode.Invalid,
  'lockfile-invalid': ExitCode.Invalid,
  // The official a2a CLI's specification gives an invalid card exit 1 (A2ACLI_ERR_CARD_INVALID).
  'card-invalid': ExitCode.Drift,
  'insecure-url': ExitCode.Invalid,
  unreachable: ExitCode.Unreachable,
  'auth-refused': ExitCode.Auth,
  timeout: ExitCode.Timeout,
  refusal: ExitCode.Drift,
  drift: ExitCode.Drift,
  'lockfile-out-of-date': ExitCode.Drift,
  'write-failed': ExitCode.Invalid,
  'credential-unset': ExitCode.Invalid,
  'signature-required': ExitCode.Drift,
  'digest-mismatch': ExitCode.Drift,
  'credential-destination-refused': ExitCode.Drift,
  'plan-violation': ExitCode.Drift,
  'agent-degraded': ExitCode.Drift,
  'agent-error': ExitCode.Unreachable,
  'interface-not-served': ExitCode.NotServed,
  internal: ExitCode.Internal,
};

/**
 * Base class of every error a2a-lock throws on purpose.
 *
 * `message` is one line naming the subject (file, URL, agent) and, where it applies, the JSON path.
 * It never contains a secret. `hint` says how to fix it (a command to run).
 */
export class A2aLockError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly data: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string; data?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'A2aLockError';
    this.code = code;
    this.hint = options.hint;
    this.data = options.data;
  }

  /** The JSON form printed under `--json`: `{ code, message, hint?, ...data }`. */
  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, ...(this.hint ? { hint: this.hint } : {}), ...this.data };
  }
}

/** A usage error: bad flags or arguments. Exit 2. */
export class UsageError extends A2aLockError {
  constructor(message: string, options: { hint?: string } = {}) {
    super(ErrorCode.Usage, message, options);
    this.name = 'UsageError';
  }
}

/**
 * `value` when it is a whole number from `min` to `max`, for flags and library options alike.
 * @throws UsageError `<label> must be a whole number from <min> to <max> (got …)`
 */
export function wholeNumberIn(label: string, value: unknown, min: number, max: number): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  const got =
    typeof value === 'number' && !Number.isFinite(value)
      ? Number.isNaN(value)
        ? 'something that is not a number'
        : String(value)
      : JSON.stringify(value);
  throw new UsageError(`${label} must be a whole number from ${min} to ${max} (got ${got})`);
}

/** Invalid input file or document (manifest, profile, lockfile: exit 2; card: exit 1). */
export class InvalidInputError extends A2aLockError {
  /** The file path or URL the input came from. */
  readonly source: string;
  /** The JSON path inside it (`$.agents["x"].skills[0]`), if known. */
  readonly path: string | undefined;

  constructor(
    code: 'manifest-invalid' | 'profile-invalid' | 'lockfile-invalid' | 'card-invalid' | 'insecure-url',
    source: string,
    message: string,
    options: { path?: string; hint?: string; cause?: unknown } = {},
  ) {
    const where = options.path ? `${source} ${options.path}` : source;
    super(code, `${where}: ${message}`, {
      hint: options.hint,
      cause: options.cause,
      data: { source, ...(options.path ? { path: options.path } : {}) },
    });
    this.name = 'InvalidInputError';
    this.source = source;
    this.path = options.path;
  }
}

/** A network failure fetching a card: unreachable (3), auth refused (4) or timeout (5). */
export class FetchError extends A2aLockError {
  readonly url: string;
  readonly status: number | undefined;

  constructor(
    code: 'unreachable' | 'auth-refused' | 'timeout',
    url: string,
    message: string,
    options: { status?: number; cause?: unknown; hint?: string; data?: Record<string, unknown> } = {},
  ) {
    super(code, `${url}: ${message}`, {
      cause: options.cause,
      ...(options.hint ? { hint: options.hint } : {}),
      data: { ...options.data, url, ...(options.status ? { status: options.status } : {}) },
    });
    this.name = 'FetchError';
    this.url = url;
    this.status = options.status;
  }
}

/**
 * A card request refused for its `A2A-Version` header: HTTP 400, or a VersionNotSupported error
 * body (JSON-RPC `{"error":{"code":-32009}}` or a `google.rpc.ErrorInfo` with reason
 * `VERSION_NOT_SUPPORTED`). Code `unreachable` (exit 3) when no other version is left to ask.
 */
export class CardVersionRefusedError extends FetchError {
  /** The `A2A-Version` that was refused. */
  readonly version: string;
  /** What the agent answered, e.g. `HTTP 400: VersionNotSupported (-32009) version 1.1 not supported`. */
  readonly answer: string;

  constructor(url: string, version: string, answer: string, status: number) {
    super('unreachable', url, `A2A-Version ${version} refused (${answer})`, {
      status,
      data: { a2aVersion: version, answer },
    });
    this.name = 'CardVersionRefusedError';
    this.version = version;
    this.answer = answer;
  }
}

/** The lockfile is missing or does not satisfy the manifest. Exit 1. */
export class OutOfDateError extends A2aLockError {
  constructor(message: string, options: { data?: Record<string, unknown> } = {}) {
    super(ErrorCode.LockfileOutOfDate, message, { hint: 'run a2a lock', data: options.data });
    this.name = 'OutOfDateError';
  }
}

/**
 * The lockfile read is not the one whose digest was expected (`a2a verify --expect-digest`,
 * `loadLock({ expectDigest })`): refused before anything is sent. Exit 1.
 */
export class DigestMismatchError extends A2aLockError {
  constructor(lockfile: string, expected: string, actual: string) {
    super(ErrorCode.DigestMismatch, `${lockfile}: digest ${actual}, expected ${expected}`, {
      hint: 'this is not the lockfile that was reviewed; a2a lock digest prints the digest of a lockfile',
      data: { lockfile, expected, actual },
    });
    this.name = 'DigestMismatchError';
  }
}

/**
 * The runtime refused a request the locked plan does not allow; nothing was sent. `retryable` is
 * always `false`: the same request is refused again (clients that retry any error can read it).
 */
export class PlanViolationError extends A2aLockError {
  readonly retryable = false;
  constructor(agent: string, skill: string, message: string) {
    super(ErrorCode.PlanViolation, `${agent} (${skill}): ${message}`, { data: { agent, skill } });
    this.name = 'PlanViolationError';
  }
}

/** What an agent's failed answer carried (all optional: a network failure has none). */
export interface AgentCallDetails {
  /** The locked interface URL the call went to (origin and path only; gRPC `host:port`). */
  url?: string;
  /** The HTTP status of the answer (HTTP bindings). */
  status?: number;
  /** The gRPC status code of the answer (gRPC binding). */
  grpcStatus?: number;
  /** The A2A error code (JSON-RPC `error.code`, e.g. -32001 TaskNotFound), when the agent sent one. */
  a2aCode?: number;
  /** The A2A error reason (`google.rpc.ErrorInfo` reason, e.g. `TASK_NOT_FOUND`), when the agent sent one. */
  a2aReason?: string;
}

/**
 * A call through `createClient()` failed at the agent or on the way to it, and no locked fallback
 * answers it. `code`: `auth-refused` (HTTP 401/403, gRPC UNAUTHENTICATED/PERMISSION_DENIED),
 * `unreachable` (network failure, gRPC UNAVAILABLE), `timeout` (a deadline or timeout signal,
 * gRPC DEADLINE_EXCEEDED), or `agent-error` (any other error answer: an A2A error, an HTTP error,
 * an answer that is not A2A). The message names the agent and skill and never holds a credential
 * (no request header, query or body is quoted); `cause` is the SDK's error.
 */
export class AgentCallError extends A2aLockError {
  readonly agent: string;
  readonly skill: string;
  readonly status: number | undefined;
  readonly grpcStatus: number | undefined;
  readonly a2aCode: number | undefined;
  readonly a2aReason: string | undefined;
  constructor(
    code: 'auth-refused' | 'agent-error' | 'unreachable' | 'timeout',
    agent: string,
    skill: string,
    message: string,
    details: AgentCallDetails = {},
    options: { cause?: unknown; hint?: string } = {},
  ) {
    const data = Object.fromEntries(Object.entries({ agent, skill, ...details }).filter(([, v]) => v !== undefined));
    super(code, `${agent} (${skill}): ${message}`, {
      cause: options.cause,
      data,
      ...(options.hint ? { hint: options.hint } : {}),
    });
    this.name = 'AgentCallError';
    this.agent = agent;
    this.skill = skill;
    this.status = details.status;
    this.grpcStatus = details.grpcStatus;
    this.a2aCode = details.a2aCode;
    this.a2aReason = details.a2aReason;
  }
}

/**
 * An agent failed its locked plan and its one locked fallback, or has no locked alternative for
 * the error it answered, or went beyond the lock while running. `reason` is the classified agent
 * error (`version-not-supported`, ...) or `drift`; `cause` is the error the agent's answer became.
 */
export class AgentDegradedError extends A2aLockError {
  readonly reason: string;
  constructor(agent: string, skill: string, reason: string, message: string, options: { cause?: unknown } = {}) {
    super(ErrorCode.AgentDegraded, `${agent} (${skill}): ${message}`, {
      cause: options.cause,
      data: { agent, skill, reason },
    });
    this.name = 'AgentDegradedError';
    this.reason = reason;
  }
}

/**
 * `verify --probe`: a locked interface whose lockfile records it `served` (or `auth-required`)
 * answered its probe (one GetTask for a task id that cannot exist) with something that is not an
 * A2A answer of its binding and version. Exit 6. `answered` is what answered, redacted and bounded
 * by the probe (never a credential).
 */
export class InterfaceNotServedError extends A2aLockError {
  constructor(
    agent: string,
    iface: { url: string; binding: string; version: string },
    locked: string | undefined,
    answered: string,
  ) {
    super(
      ErrorCode.InterfaceNotServed,
      `${agent}: ${iface.binding} ${iface.version} at ${iface.url} is not served (answered: ${answered})${locked ? `; the lockfile records it ${locked}` : ''}`,
      {
        hint: `the card still names this interface: fix the deployment, or review the agent (a2a update ${agent})`,
        data: { agent, url: iface.url, binding: iface.binding, version: iface.version, answered },
      },
    );
    this.name = 'InterfaceNotServedError';
  }
}

/** Map any thrown value to its process exit code. Non-{@link A2aLockError} values are bugs: 70. */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof A2aLockError) return EXIT_BY_CODE[error.code];
  return ExitCode.Internal;
}

/** Exit code for an error code string. */
export function exitCodeOf(code: ErrorCode): ExitCode {
  return EXIT_BY_CODE[code];
}

/** True for any a2a-lock error, checked by shape so it works across module copies. */
export function isA2aLockError(value: unknown): value is A2aLockError {
  return (
    value instanceof A2aLockError ||
    (typeof value === 'object' &&
      value !== null &&
      'code' in value &&
      (value as { name?: unknown }).name !== undefined &&
      typeof (value as { code: unknown }).code === 'string' &&
      Object.values(ErrorCode).includes((value as { code: ErrorCode }).code))
  );
}
