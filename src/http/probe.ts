/**
 * The wire probe's request (issue 37): one harmless GetTask for a random task id that cannot
 * exist, sent to one locked interface in its own binding and version, and what answered, classified
 * by `lock/probe.ts` ({@link classifyProbe}).
 *
 * | binding   | 1.x                                                       | 0.3 (protocolVersion in [0.3, 1.0))          |
 * |-----------|-----------------------------------------------------------|-----------------------------------------------|
 * | JSONRPC   | POST url, method `GetTask`, params `{id, tenant?}`        | POST url, method `tasks/get`, params `{id}`   |
 * | HTTP+JSON | GET `url[/{tenant}]/tasks/{id}`                           | GET `url/v1/tasks/{id}`                       |
 * | GRPC      | `lf.a2a.v1.A2AService/GetTask` `{tenant?, id}`            | `a2a.v1.A2AService/GetTask` `{name: "tasks/{id}"}` |
 *
 * Every request carries `A2A-Version: <protocolVersion>` and the credential placements given (no
 * more; none over plain http or plaintext gRPC to a host that is not loopback), through the run's dispatcher (proxies, `originAuth`, the URL policy), under the run's
 * timeout; one request, no retry, no redirect followed (a redirect is the answer), and at most
 * {@link PROBE_MAX_BYTES} of the answer read. gRPC goes through `@grpc/grpc-js` (the optional peer the
 * runtime's gRPC plans use), loaded only when a gRPC interface is probed.
 */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { isCleartextOffLoopback, isLoopbackUrl } from '../card/host.js';
import { applyCredentials, type CredentialPlacement, credentialQueryNames } from '../credentials.js';
import { type A2aLockError, FetchError, UsageError } from '../errors.js';
import { classifyProbe, type ProbeAnswer, type ProbeOutcome } from '../lock/probe.js';
import { placementSecrets } from '../redact.js';
import { headerValue } from './body.js';
import { DEFAULT_TIMEOUT_MS } from './network-options.js';
import { checkHeaders, makeContext, type NetworkOptions, networkOptionsOf, send, withDeadline } from './request.js';
import { checkUrlPolicy, parseLocation, printableUrl } from './url-policy.js';

/**
 * At most this many bytes of a probe's answer are read. An A2A error is a few hundred, but a valid
 * TaskNotFound may carry a large `error.data` (details, a trace): a body that goes on beyond the
 * bound is judged by what was read whole (`lock/probe.ts`).
 */
const PROBE_MAX_BYTES = 64 * 1024;

/** One interface to probe (a plan's or a locked fallback's fields) and what to send with it. */
export interface ProbeRequest extends NetworkOptions {
  /** The interface URL (A2A AgentInterface.url). */
  url: string;
  /** `JSONRPC`, `HTTP+JSON` or `GRPC` (matched case-insensitively); another binding is not probed. */
  protocolBinding: string;
  /** `Major.Minor` (`1.0`, `0.3`); sent verbatim as `A2A-Version`. */
  protocolVersion: string;
  /** Tenant (A2A 1.0 §8.3.2): JSON-RPC `params.tenant`, REST `/{tenant}` path prefix, gRPC `tenant`. Ignored for 0.3. */
  tenant?: string;
  /** The credential placements the plan sends to this interface (none when withheld or unset). */
  credentials: CredentialPlacement[];
  /** The task id asked for; default a random `a2a-lock-probe-<uuid>`, which no agent holds. */
  taskId?: string;
}

/**
 * Probe one interface (see the module table).
 * @returns the outcome (`served`, `auth-required`, `not-served` with what answered, credentials
 *   redacted); undefined when the interface is not probed: a binding other than JSONRPC,
 *   HTTP+JSON and GRPC, a protocol version outside 0.3 and 1.x, a gRPC interface without
 *   `@grpc/grpc-js` installed, or a plaintext gRPC interface to a host that is not loopback
 *   without `allowHttp`. Never throws for what the agent does; a connection refused or a timeout
 *   is `not-served`.
 * @throws what stopped the request before it left (the URL policy, a header that cannot be sent: a
 *   value that is not an RFC 9110 field-value, or for gRPC metadata not printable ASCII; a credential
 *   a proxy would carry in clear, an `originAuth` credential that could not be placed): the interface
 *   was not asked, so the caller records nothing for it. Only the exchange's own failure (connect,
 *   TLS, reset, timeout) is an answer: `not-served`.
 */
export async function probeInterface(request: ProbeRequest): Promise<ProbeOutcome | undefined> {
  const binding = request.protocolBinding.toUpperCase();
  const version = /^v?(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(request.protocolVersion.trim());
  if (!version) return undefined;
  const legacy = version[1] === '0' && Number(version[2] ?? 0) >= 3;
  if (!legacy && version[1] !== '1') return undefined;
  // A credential goes only over TLS (loopback aside), even where plain http is allowed (`allowHttp`).
  if (isCleartextOffLoopback(request.url)) request = { ...request, credentials: [] };
  const taskId = request.taskId ?? `a2a-lock-probe-${randomUUID()}`;
  const secrets = [...placementSecrets(request.credentials), ...(request.platformAuth?.sentSecrets() ?? [])];
  const common = { binding: request.protocolBinding, version: request.protocolVersion };
  let answer: ProbeAnswer | undefined;
  if (binding === 'JSONRPC' || binding === 'HTTP+JSON') {
    // A network failure (refused, reset, DNS, TLS, a timeout) is the interface's answer; any other error came before the request left.
    answer = await httpProbe(request, binding, legacy, taskId).catch((error: unknown) => {
      if (!(error instanceof FetchError)) throw error;
      return { transport: 'none' as const, ...common, reason: failure(error) };
    });
  } else if (binding === 'GRPC') {
    answer = await grpcProbe(request, legacy, taskId);
  }
  if (answer === undefined) return undefined;
  // The platform credential is known only once it was sent.
  secrets.push(...(request.platformAuth?.sentSecrets() ?? []));
  return classifyProbe(answer, secrets);
}

/** A request's failure in words, without the URL prefix `FetchError` gives its message. */
function failure(error: A2aLockError): string {
  const url = typeof error.data?.url === 'string' ? error.data.url : undefined;
  return url !== undefined && error.message.startsWith(`${url}: `)
    ? error.message.slice(url.length + 2)
    : error.message;
}

// ---------------------------------------------------------------------------------------------

async function httpProbe(
  request: ProbeRequest,
  binding: 'JSONRPC' | 'HTTP+JSON',
  legacy: boolean,
  taskId: string,
): Promise<ProbeAnswer> {
  const tenant = legacy ? undefined : request.tenant;
  let target: string;
  let body: string | undefined;
  if (binding === 'JSONRPC') {
    target = request.url;
    const params = legacy ? { id: taskId } : { id: taskId, ...(tenant ? { tenant } : {}) };
    body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: legacy ? 'tasks/get' : 'GetTask', params });
  } else {
    target = restUrl(request.url, `${legacy ? '/v1' : ''}/tasks/${encodeURIComponent(taskId)}`, tenant);
  }
  const { url, headers } = applyCredentials(target, {}, request.credentials);
  const context = makeContext(
    { ...networkOptionsOf(request), retries: 0, maxBytes: PROBE_MAX_BYTES },
    {
      versionHeader: request.protocolVersion,
      method: body === undefined ? 'GET' : 'POST',
      body,
      headers: checkHeaders(headers),
      followRedirects: false,
      acceptErrorStatus: new Set(),
      subject: 'probe answer',
      redactQuery: new Set(credentialQueryNames(request.credentials)),
    },
  );
  const start = parseLocation(url, context);
  start.hash = '';
  const shown = printableUrl(start, context.redactQuery);
  checkUrlPolicy(start, shown, context.allowHttp, undefined, context.redactQuery);
  return withDeadline(context, async () => {
    context.inFlight = shown;
    const response = await send(start, context.method, context.body, context, true);
    const contentType = headerValue(response.headers, 'content-type');
    return {
      transport: 'http',
      binding: request.protocolBinding,
      version: request.protocolVersion,
      status: response.statusCode,
      ...(contentType !== undefined ? { contentType } : {}),
      ...(await prefix(response.body)),
    };
  });
}

/**
 * The first {@link PROBE_MAX_BYTES} of a body as text (invalid UTF-8 as U+FFFD), and `cutAt` (the
 * bytes kept) when the body went on beyond them; the rest is not read.
 */
async function prefix(body: Dispatcher.ResponseData['body']): Promise<{ body: string; cutAt?: number }> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      total += chunk.length;
      if (total > PROBE_MAX_BYTES) break;
    }
  } catch {
    // Reset while reading: what came is the answer.
  } finally {
    body.on('error', () => undefined);
    if (total > PROBE_MAX_BYTES) body.destroy();
  }
  const text = new TextDecoder('utf-8').decode(Buffer.concat(chunks, total).subarray(0, PROBE_MAX_BYTES));
  return total > PROBE_MAX_BYTES ? { body: text, cutAt: PROBE_MAX_BYTES } : { body: text };
}

/** `<url path without trailing slashes>[/<tenant>]<suffix>`, query kept, fragment dropped (an invalid URL as it is: the URL policy refuses it). */
function restUrl(base: string, suffix: string, tenant: string | undefined): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return base;
  }
  url.hash = '';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${tenant ? `/${encodeURIComponent(tenant)}` : ''}${suffix}`;
  return url.href;
}

// ---------------------------------------------------------------------------------------------

/** The gRPC probe, or undefined when it is not sent (no `@grpc/grpc-js`; plaintext off loopback). */
async function grpcProbe(request: ProbeRequest, legacy: boolean, taskId: string): Promise<ProbeAnswer | undefined> {
  const common = { binding: request.protocolBinding, version: request.protocolVersion };
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]+)/i.exec(request.url);
  const scheme = m?.[1]?.toLowerCase();
  const target = m ? m[2]! : request.url;
  const loopback = isLoopbackUrl(target);
  const tls = scheme === 'grpcs' || scheme === 'https' || (scheme === undefined && !loopback);
  if (!tls && !loopback && !request.allowHttp) return undefined;
  let grpc: typeof import('@grpc/grpc-js');
  try {
    grpc = await import('@grpc/grpc-js');
  } catch {
    return undefined;
  }
  const metadata = new grpc.Metadata();
  metadata.set('a2a-version', request.protocolVersion);
  for (const placement of tls || loopback ? request.credentials : []) {
    // A credential gRPC cannot carry (a query parameter, a cookie) is not sent.
    for (const [name, value] of Object.entries(placement.headers)) metadata.set(metadataKey(name, value), value);
  }
  const client = new grpc.Client(target, tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': PROBE_MAX_BYTES,
    // Plaintext with a credential never goes through a proxy.
    ...(tls ? {} : { 'grpc.enable_http_proxy': 0 }),
  });
  const path = legacy ? '/a2a.v1.A2AService/GetTask' : '/lf.a2a.v1.A2AService/GetTask';
  const message = legacy
    ? field(1, `tasks/${taskId}`)
    : Buffer.concat([...(request.tenant ? [field(1, request.tenant)] : []), field(2, taskId)]);
  const deadline = Date.now() + (request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    return await new Promise<ProbeAnswer>((resolve) => {
      client.makeUnaryRequest(
        path,
        (b: Buffer) => b,
        (b: Buffer) => b,
        message,
        metadata,
        { deadline },
        (error: import('@grpc/grpc-js').ServiceError | null) => {
          if (!error) return resolve({ transport: 'grpc', ...common, code: 0 });
          const reason = errorInfoReason(error.metadata?.get('grpc-status-details-bin'));
          resolve({
            transport: 'grpc',
            ...common,
            code: error.code,
            ...(error.details ? { details: error.details } : {}),
            ...(reason !== undefined ? { reason } : {}),
          });
        },
      );
    });
  } finally {
    client.close();
  }
}

/** gRPC ASCII metadata (the gRPC over HTTP/2 protocol's Header-Name and ASCII-Value): what grpc-js sends. */
const GRPC_KEY = /^[0-9a-z_.-]+$/;
const GRPC_VALUE = /^[\x20-\x7e]*$/;

/**
 * The metadata key of header `name`, lower-cased, once `name` and `value` can go as gRPC metadata.
 * @throws {UsageError} a name or value gRPC metadata cannot carry (grpc-js would throw with the value
 *   in its message): the probe is not sent; never echoes the value
 */
function metadataKey(name: string, value: string): string {
  const key = name.toLowerCase();
  if (!GRPC_KEY.test(key)) throw new UsageError(`the ${name} header cannot be sent as gRPC metadata (its name)`);
  if (!GRPC_VALUE.test(value))
    throw new UsageError(
      `the value of the ${name} header contains a character gRPC metadata cannot carry (printable ASCII only)`,
    );
  return key;
}

/** A protobuf length-delimited string field (`number` ≤ 15). */
function field(number: number, value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const length: number[] = [];
  for (let n = bytes.length; ; n >>>= 7) {
    if (n < 0x80) {
      length.push(n);
      break;
    }
    length.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([(number << 3) | 2, ...length]), bytes]);
}

/**
 * A google.rpc.ErrorInfo `reason` (A2A 1.0 §11.6) in `grpc-status-details-bin` (a google.rpc.Status),
 * found by its text: an upper-case `A-Z_` word of 6+ characters right after the ErrorInfo type URL's
 * message. Undefined when none.
 */
function errorInfoReason(values: ReadonlyArray<string | Buffer> | undefined): string | undefined {
  for (const value of values ?? []) {
    const text = Buffer.isBuffer(value) ? value.toString('latin1') : value;
    if (!text.includes('google.rpc.ErrorInfo')) continue;
    const reason = /\n[\s\S]([A-Z][A-Z_]{5,63})(?:[\x12\x1a]|$)/.exec(text.slice(text.indexOf('google.rpc.ErrorInfo')));
    if (reason) return reason[1];
  }
  return undefined;
}
