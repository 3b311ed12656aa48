/**
 * Reading network failures (undici, sockets, TLS) without loading undici: shared by the card
 * fetcher and the runtime's enforcing fetch. Also the fetcher's mapping of such a failure (or of
 * its deadline) to a {@link FetchError}.
 */

import { FetchError } from '../errors.js';
import { oneLine } from './url-policy.js';

/** undici's timeout codes (connect, headers, body). */
export const UNDICI_TIMEOUTS: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The most specific `code` on an error or its causes (undici wraps socket errors). */
export function errorCode(error: unknown): string | undefined {
  let found: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    // Prefer an OS/TLS code (ECONNRESET, CERT_...) over undici's generic wrapper code.
    if (typeof code === 'string' && code !== '') {
      if (found === undefined || found.startsWith('UND_ERR_')) found = code;
      if (!code.startsWith('UND_ERR_')) break;
    }
    if (current instanceof AggregateError && current.errors.length > 0 && found === undefined) {
      current = current.errors[0];
      continue;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return found;
}

/** What {@link networkError} says for an error code (OS, DNS, undici, llhttp), beyond the generic kinds. */
const NETWORK_MESSAGES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'response body truncated',
  UND_ERR_ABORTED: 'request aborted',
  UND_ERR_INFO: 'protocol error',
  HPE_INVALID_CONSTANT: 'invalid HTTP response',
};

/** What {@link networkError} needs to know about the request that failed. */
export interface FailedRequest {
  /** Noun in the timeout message ("no <subject> within <timeoutMs> ms"). */
  subject: string;
  /** The request's total deadline in ms, named in the timeout message. */
  timeoutMs: number;
  /** The request's abort signal: once it has aborted, any failure is the deadline's. */
  signal: AbortSignal;
  /**
   * The hint to add to a timeout or a plain network error: that a proxy is set, when the request
   * went through the proxy agent; `undefined` otherwise. Called only when the error may carry it.
   */
  proxyHint(): string | undefined;
}

/**
 * Map anything thrown by undici (or the abort) to a FetchError about `shown` (the URL as printed).
 * Never copies header values.
 * @returns `timeout` when the request's signal has aborted, `error` is a {@link DeadlineExceeded}
 *   or an undici timeout; else `unreachable`, naming the error code (and a proxy, too-many-files
 *   or refused-tunnel hint where one helps).
 */
export function networkError(shown: string, error: unknown, request: FailedRequest): FetchError {
  const code = errorCode(error);
  if (
    request.signal.aborted ||
    error instanceof DeadlineExceeded ||
    (code !== undefined && UNDICI_TIMEOUTS.has(code))
  ) {
    return new FetchError('timeout', shown, `no ${request.subject} within ${request.timeoutMs} ms`, {
      cause: error,
      ...proxyHintOf(request),
    });
  }
  if (code === undefined) {
    const name = error instanceof Error ? error.name : typeof error;
    return new FetchError('unreachable', shown, `network error (${oneLine(name)})`, { cause: error });
  }
  // undici's proxy agent reports a refused CONNECT as an abort naming the proxy's status.
  const tunnel =
    code === 'UND_ERR_ABORTED' && error instanceof Error ? /^Proxy response \((\d{3})\)/.exec(error.message) : null;
  if (tunnel) {
    const hint =
      tunnel[1] === '407'
        ? 'the proxy wants credentials: give them in the proxy URL (http://user:password@host:port), or list this host in NO_PROXY'
        : 'check the proxy, or list this host in NO_PROXY';
    return new FetchError('unreachable', shown, `the proxy refused the tunnel (HTTP ${tunnel[1]})`, {
      cause: error,
      hint,
    });
  }
  if (code === 'EMFILE' || code === 'ENFILE') {
    return new FetchError('unreachable', shown, `too many open files (${code})`, {
      cause: error,
      hint: 'each agent in flight holds a connection: lower --concurrency, or raise the open-file limit (ulimit -n)',
    });
  }
  const known = NETWORK_MESSAGES[code];
  const isTls = /CERT|TLS|SSL|EPROTO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code);
  const what = known ?? (isTls ? 'TLS error' : code.startsWith('HPE_') ? 'invalid HTTP response' : 'network error');
  return new FetchError('unreachable', shown, `${what} (${oneLine(code)})`, { cause: error, ...proxyHintOf(request) });
}

/** The request's proxy hint as FetchError options: `{ hint }`, or `{}` when there is none. */
function proxyHintOf(request: FailedRequest): { hint?: string } {
  const hint = request.proxyHint();
  return hint !== undefined ? { hint } : {};
}

/** The abort reason for the deadline; recognised by identity of the signal's state, not by type. */
export class DeadlineExceeded extends Error {
  constructor() {
    super('deadline exceeded');
    this.name = 'DeadlineExceeded';
  }
}
