/**
 * Fetch an agent's authenticated extended Agent Card through the interface a plan chose
 * (A2A 1.0 §3.1.11, §9.4.8, §11; 0.3 §7.10; notes §4, §6, §8).
 *
 * | binding   | 1.x                                                    | 0.3 (protocolVersion in [0.3, 1.0))     |
 * |-----------|--------------------------------------------------------|------------------------------------------|
 * | JSONRPC   | POST url, method `GetExtendedAgentCard`, params `{tenant?}` | POST url, method `agent/getAuthenticatedExtendedCard` |
 * | HTTP+JSON | GET `url[/{tenant}]/extendedAgentCard`                 | GET `url/v1/card`                         |
 * | GRPC, other | not fetched: `no-extended-card` warning, no network  | same                                      |
 *
 * The request carries `A2A-Version: <protocolVersion>`, `Accept: application/json` and the
 * credentials; a request with credentials never follows a redirect. All the card fetcher's
 * limits apply ({@link requestJson}). "This agent has no extended card" answers are a warning,
 * not an error: ExtendedAgentCardNotConfigured (-32007 / `EXTENDED_AGENT_CARD_NOT_CONFIGURED`),
 * UnsupportedOperation (-32004 / `UNSUPPORTED_OPERATION`) and MethodNotFound (-32601).
 */

import { showLocation } from '../card/location.js';
import type { Warning } from '../card/model.js';
import { versionHeaderLost, versionHeaderLostMessage } from '../card/version-header.js';
import {
  applyCredentials,
  type CredentialPlacement,
  controlsAsSpaces,
  credentialQueryNames,
  hasCredentials,
} from '../credentials.js';
import { FetchError, InvalidInputError } from '../errors.js';
import { placementSecrets, quotesSecret, redactSecrets } from '../redact.js';
import { type JsonResponse, type NetworkOptions, networkOptionsOf, requestJson } from './request.js';

/** What to fetch the extended card through: the chosen interface (a plan's fields) and the credentials. */
export interface ExtendedCardRequest extends NetworkOptions {
  /** The interface URL (A2A AgentInterface.url). */
  url: string;
  /** `JSONRPC`, `HTTP+JSON` (matched case-insensitively), `GRPC` or a custom binding (not fetched). */
  protocolBinding: string;
  /** `Major.Minor` (`1.0`, `0.3`); sent verbatim as `A2A-Version`. */
  protocolVersion: string;
  /** Tenant to route to (A2A 1.0 §8.3.2): JSON-RPC `params.tenant`, REST `/{tenant}` path prefix. Ignored for 0.3. */
  tenant?: string;
  /** Credential placements for the chosen security requirement (from `placeCredential`). */
  credentials: CredentialPlacement[];
}

/**
 * The extended card (parsed, unvalidated JSON object, in whatever shape the agent serves it) and
 * the URL it came from (secret query values shown as `***`); or no card and a warning with code
 * `no-extended-card`.
 */
export type ExtendedCardResult = { card: Record<string, unknown>; url: string } | { card: undefined; warning: Warning };

/** Statuses whose JSON body we read to classify the error (401/403 are never read: auth-refused). */
const ERROR_STATUSES = [400, 404, 405, 409, 412, 415, 422, 429, 500, 501, 502, 503, 504];

/** JSON-RPC codes meaning "no extended card here" (A2A 1.0 §9.5; 0.3 §8; JSON-RPC 2.0). */
const NO_CARD_CODES: Record<number, string> = {
  [-32007]: 'ExtendedAgentCardNotConfigured',
  [-32004]: 'UnsupportedOperation',
  [-32601]: 'MethodNotFound',
};
/** google.rpc.ErrorInfo reasons meaning "no extended card here" (A2A 1.0 §11.6). */
const NO_CARD_REASONS: Record<string, string> = {
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 'ExtendedAgentCardNotConfigured',
  UNSUPPORTED_OPERATION: 'UnsupportedOperation',
};
/** Names for other well-known JSON-RPC codes, for messages. */
const CODE_NAMES: Record<number, string> = {
  [-32700]: 'JSONParseError',
  [-32600]: 'InvalidRequest',
  [-32602]: 'InvalidParams',
  [-32603]: 'InternalError',
  [-32001]: 'TaskNotFound',
  [-32002]: 'TaskNotCancelable',
  [-32003]: 'PushNotificationNotSupported',
  [-32005]: 'ContentTypeNotSupported',
  [-32006]: 'InvalidAgentResponse',
  [-32008]: 'ExtensionSupportRequired',
  [-32009]: 'VersionNotSupported',
};
const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

/**
 * Fetch the authenticated extended Agent Card through the chosen interface (see the module table).
 *
 * @param request The interface, the credential placements and the fetch limits.
 * @returns `{card, url}` with the card as a JSON object; or `{card: undefined, warning}` (code
 *   `no-extended-card`) when the binding is not fetched here (GRPC, custom, a protocol version
 *   outside [0.3, 2.0)) or the agent answers ExtendedAgentCardNotConfigured, UnsupportedOperation
 *   or MethodNotFound.
 * @throws {FetchError} `auth-refused` on HTTP 401/403; `unreachable` for any other JSON-RPC
 *   error or REST error (naming its code or reason), other statuses, a refused redirect, or a
 *   network error; `timeout` past `timeoutMs`.
 * @throws {InvalidInputError} `card-invalid` when the answer (JSON-RPC `result` or REST body) is not
 *   a JSON object, the reply is not JSON-RPC 2.0, or the card holds the credential it was fetched
 *   with (`refuseEcho`); `insecure-url` by the URL policy.
 * @throws {UsageError} from the credentials (conflicting placements, bad header values).
 *
 * Messages name the URL and never contain a credential or any header value; a server error
 * message that echoes a credential has it replaced by `***`.
 */
export async function fetchExtendedCard(request: ExtendedCardRequest): Promise<ExtendedCardResult> {
  const binding = request.protocolBinding.toUpperCase();
  const version = parseMajorMinor(request.protocolVersion);
  if (binding !== 'JSONRPC' && binding !== 'HTTP+JSON') {
    return noCard(
      `the extended card is not fetched over the ${controlsAsSpaces(request.protocolBinding)} binding (only JSONRPC and HTTP+JSON); ${controlsAsSpaces(request.url)} was not contacted`,
    );
  }
  const legacy = version !== undefined && version.major === 0 && version.minor >= 3;
  if (version === undefined || !(legacy || version.major === 1)) {
    return noCard(
      `the extended card is not fetched for protocol version ${controlsAsSpaces(request.protocolVersion)} (only 0.3 and 1.x); ${controlsAsSpaces(request.url)} was not contacted`,
    );
  }

  const secrets = placementSecrets(request.credentials);
  const common = {
    versionHeader: request.protocolVersion,
    followRedirects: !hasCredentials(request.credentials),
    redactQueryParams: credentialQueryNames(request.credentials),
    acceptErrorStatus: ERROR_STATUSES,
    subject: 'extended card',
    ...networkOptionsOf(request),
  };

  if (binding === 'JSONRPC') {
    const method = legacy ? 'agent/getAuthenticatedExtendedCard' : 'GetExtendedAgentCard';
    const body: Record<string, unknown> = { jsonrpc: '2.0', id: 1, method };
    if (!legacy) body.params = request.tenant ? { tenant: request.tenant } : {};
    const { url, headers } = applyCredentials(request.url, {}, request.credentials);
    const response = await requestJson(url, { ...common, method: 'POST', body, headers });
    // The platform credential (originAuth) the request carried is kept out of the agent's words and card too.
    const sent = [...secrets, ...(request.platformAuth?.sentSecrets() ?? [])];
    return refuseEcho(readJsonRpc(response, method, sent, request.protocolVersion), sent);
  }

  const target = restUrl(request.url, legacy ? '/v1/card' : '/extendedAgentCard', legacy ? undefined : request.tenant);
  const { url, headers } = applyCredentials(target, {}, request.credentials);
  const response = await requestJson(url, { ...common, method: 'GET', headers });
  const sent = [...secrets, ...(request.platformAuth?.sentSecrets() ?? [])];
  return refuseEcho(readRest(response, sent, request.protocolVersion), sent);
}

/**
 * `result`, unless its card holds one of `secrets` (the credentials it was fetched with) in any
 * spelling or cut short ({@link redactSecrets}): the card is a snapshot `lock` writes into the
 * lockfile (committed, often public) and `card`, `why` and `diff` print, so such a card is refused.
 * Secrets shorter than 8 characters are not searched for ({@link quotesSecret}).
 * @throws {InvalidInputError} `card-invalid`, naming neither the secret nor where it was found
 */
function refuseEcho(result: ExtendedCardResult, secrets: readonly string[]): ExtendedCardResult {
  if (result.card === undefined || !quotesSecret(result.card, secrets)) return result;
  throw new InvalidInputError(
    'card-invalid',
    result.url,
    'the extended card holds the credential it was fetched with (as sent, in another spelling or cut short): it is neither locked nor shown',
    {
      hint: "the agent echoes its callers' credentials into its card: report it to its operator",
    },
  );
}

// ---------------------------------------------------------------------------------------------

function noCard(message: string): ExtendedCardResult {
  return { card: undefined, warning: { code: 'no-extended-card', message } };
}

/** `<url path without trailing slashes>[/<tenant>]<suffix>`, query kept, fragment dropped. */
function restUrl(base: string, suffix: string, tenant: string | undefined): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new InvalidInputError(
      'insecure-url',
      showLocation(controlsAsSpaces(base.replace(/[?#].*$/s, ''))),
      'not an absolute http(s) URL',
    );
  }
  url.hash = '';
  const prefix = tenant ? `/${encodeURIComponent(tenant)}` : '';
  url.pathname = url.pathname.replace(/\/+$/, '') + prefix + suffix;
  return url.href;
}

function readJsonRpc(response: JsonResponse, method: string, secrets: string[], sent: string): ExtendedCardResult {
  const { url, status } = response;
  const body = response.body as Record<string, unknown>;
  if (body.jsonrpc !== '2.0' || (!('result' in body) && !('error' in body))) {
    if (status < 200 || status >= 300) throw statusError(url, status);
    throw new InvalidInputError('card-invalid', url, `${method}: the answer is not a JSON-RPC 2.0 response`);
  }
  if ('error' in body && body.error !== undefined && body.error !== null) {
    const error = body.error as Record<string, unknown>;
    if (typeof error !== 'object' || Array.isArray(error)) {
      throw new InvalidInputError('card-invalid', url, `${method}: the JSON-RPC error is not an object`);
    }
    const code = typeof error.code === 'number' && Number.isInteger(error.code) ? error.code : undefined;
    const reason = redactedReason(errorInfoReason(error.data), secrets);
    const noCardName =
      (code !== undefined ? NO_CARD_CODES[code] : undefined) ??
      (reason !== undefined ? NO_CARD_REASONS[reason] : undefined);
    const detail = serverMessage(error.message, secrets);
    if (noCardName !== undefined) {
      return noCard(
        `${url}: the agent has no extended card (${method} answered ${code ?? '?'} ${noCardName}${detail})`,
      );
    }
    const name = code !== undefined ? (CODE_NAMES[code] ?? reason ?? 'error') : (reason ?? 'error');
    throw new FetchError(
      'unreachable',
      url,
      `${method} failed: JSON-RPC error ${code ?? '(no code)'} ${name}${detail}`,
      {
        ...statusOption(status),
        ...lostHeaderHint(code === -32009 || reason === 'VERSION_NOT_SUPPORTED', sent, error.message),
      },
    );
  }
  const result = body.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw new InvalidInputError(
      'card-invalid',
      url,
      `${method}: the result is not a JSON object (${describe(result)})`,
    );
  }
  return { card: result as Record<string, unknown>, url };
}

function readRest(response: JsonResponse, secrets: string[], sent: string): ExtendedCardResult {
  const { url, status, body } = response;
  if (status >= 200 && status < 300) return { card: body as Record<string, unknown>, url };

  const record = body as Record<string, unknown>;
  // 1.0: google.rpc.Status JSON `{error: {code, status, message, details: [ErrorInfo]}}` (§11.6).
  const error =
    typeof record.error === 'object' && record.error !== null && !Array.isArray(record.error)
      ? (record.error as Record<string, unknown>)
      : undefined;
  const reason = redactedReason(errorInfoReason(error?.details), secrets);
  // 0.3 (a2a-js legacy REST): a JSON-RPC-style error object `{code: -32007, message}` at the top level.
  const legacyCode = typeof record.code === 'number' && Number.isInteger(record.code) ? record.code : undefined;
  const message = serverMessage(error?.message ?? record.message, secrets);
  const noCardName =
    (reason !== undefined ? NO_CARD_REASONS[reason] : undefined) ??
    (legacyCode !== undefined ? NO_CARD_CODES[legacyCode] : undefined);
  if (noCardName !== undefined) {
    return noCard(
      `${url}: the agent has no extended card (HTTP ${status} ${reason ?? legacyCode} ${noCardName}${message})`,
    );
  }
  if (reason !== undefined) {
    throw new FetchError(
      'unreachable',
      url,
      `extended card request failed: HTTP ${status} ${controlsAsSpaces(reason).slice(0, 64)}${message}`,
      { status, ...lostHeaderHint(reason === 'VERSION_NOT_SUPPORTED', sent, error?.message) },
    );
  }
  if (legacyCode !== undefined) {
    throw new FetchError(
      'unreachable',
      url,
      `extended card request failed: HTTP ${status}, error ${legacyCode} ${CODE_NAMES[legacyCode] ?? 'error'}${message}`,
      { status, ...lostHeaderHint(legacyCode === -32009, sent, record.message) },
    );
  }
  throw statusError(url, status);
}

/**
 * A VersionNotSupported answer whose words name another version than the `A2A-Version` we sent
 * (the header removed or rewritten on the way, `versionHeaderLost`): `{hint}` saying so, else `{}`.
 */
function lostHeaderHint(versionNotSupported: boolean, sent: string, text: unknown): { hint?: string } {
  const lost = versionNotSupported ? versionHeaderLost(sent, text) : undefined;
  return lost ? { hint: versionHeaderLostMessage(sent, lost.seen) } : {};
}

/** The first google.rpc.ErrorInfo `reason` in a `details`/`data` array (an `@type`-less entry with a reason counts too). */
function errorInfoReason(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (typeof detail !== 'object' || detail === null) continue;
    const { '@type': type, reason } = detail as Record<string, unknown>;
    if (typeof reason === 'string' && reason !== '' && (type === undefined || type === ERROR_INFO_TYPE)) return reason;
  }
  return undefined;
}

function statusError(url: string, status: number): FetchError {
  if (status === 404) return new FetchError('unreachable', url, 'not found (404)', { status });
  return new FetchError('unreachable', url, `unexpected status ${status}`, { status });
}

function statusOption(status: number): { status?: number } {
  return status >= 200 && status < 300 ? {} : { status };
}

/** An ErrorInfo reason as the agent sent it, with any echo of a credential as `***` (it is printed). */
function redactedReason(reason: string | undefined, secrets: string[]): string | undefined {
  return reason === undefined ? undefined : redactSecrets(reason, secrets);
}

/** A server's error message as `: <text>` (one line, at most 160 chars, credentials as `***`), or ''. */
function serverMessage(message: unknown, secrets: string[]): string {
  if (typeof message !== 'string' || message.trim() === '') return '';
  let text = redactSecrets(message, secrets);
  text = controlsAsSpaces(text);
  return `: ${text.length > 160 ? `${text.slice(0, 157)}...` : text}`;
}

function parseMajorMinor(version: string): { major: number; minor: number } | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(version.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2] ?? 0) } : undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'undefined' ? 'absent' : `a ${typeof value}`;
}
