/**
 * `createClient()`: an `@a2a-js/sdk` Client bound to exactly the locked interface, whose transport
 * sends through the plan's enforcing fetch (or, for gRPC, a call interceptor) and answers the five
 * classified agent errors with one bounded action each (README "Runtime loader"):
 *
 * - VersionNotSupported: retry once on the first locked fallback interface of another version;
 * - UnsupportedOperation / PushNotificationNotSupported on a stream: retry once as SendMessage
 *   (the locked `poll` fallback, stream → poll);
 * - PushNotificationNotSupported on a SendMessage carrying a push config (push plan): retry once
 *   without it (the locked `poll` fallback, push → poll);
 * - a stream that breaks after a task id was seen: poll GetTask with that id (locked `poll`);
 * - a failed retry, or an error with no locked alternative (ContentTypeNotSupported,
 *   ExtensionSupportRequired, the rest): the agent is degraded and an AgentDegradedError thrown,
 *   its message naming the locked fallbacks and why none applies.
 *
 * Each alternative taken is reported (`runtime.fallback`: the `fallback` event, `fallbacksTaken`).
 * Every other failure leaves as an AgentCallError (`auth-refused`, `agent-error`, `unreachable`,
 * `timeout`; see {@link typedError}).
 *
 * Loaded lazily by `LockedAgent.createClient()`; the only module that imports the SDK at run time.
 */
import type { Client, RequestOptions, Transport } from '@a2a-js/sdk/client';
import { AgentCallError, FetchError, isA2aLockError, PlanViolationError, UsageError, type A2aLockError } from '../errors.js';
import type { FallbackInterface, Plan } from '../negotiate/types.js';
import { placementSecrets, redactError } from '../credentials.js';
import { versionHeaderLost, versionHeaderLostMessage } from '../card/version-header.js';
import { classifySdkError, type AgentErrorKind } from './classify.js';
import { secretsSentWith } from './enforce.js';
import { peer } from './peer.js';
import type { AgentRuntime, CreateClientOptions } from './types.js';

type StreamEvent = Awaited<ReturnType<ReturnType<Transport['sendMessageStream']>['next']>>['value'] & object;
type MakeTransport = (iface: FallbackInterface) => Promise<Transport>;

/** TaskState values after which polling stops: completed, failed, canceled, input/auth required, rejected. */
const SETTLED = new Set([3, 4, 5, 6, 7, 8]);

/** Build the client (see the module comment). @throws UsageError for a binding the SDK has no transport for, or the SDK not installed */
export async function createLockedClient(runtime: AgentRuntime, options: CreateClientOptions = {}): Promise<Client> {
  const [{ Client, JsonRpcTransportFactory, RestTransportFactory, TenantTransportDecorator }, { AgentCard }] = await peer(() =>
    Promise.all([import('@a2a-js/sdk/client'), import('@a2a-js/sdk')]),
  );
  const { plan } = runtime;
  /** A card holding only `iface`, so the SDK can pick nothing else (and the compat transport for 0.x). */
  const cardFor = (iface: FallbackInterface) =>
    AgentCard.fromJSON({
      name: runtime.name,
      description: '',
      version: '',
      supportedInterfaces: [{ url: iface.url, protocolBinding: iface.protocolBinding, protocolVersion: iface.protocolVersion, tenant: iface.tenant ?? '' }],
      capabilities: { streaming: plan.delivery === 'stream', pushNotifications: plan.delivery === 'push', extensions: plan.extensions.map((uri) => ({ uri })) },
      defaultInputModes: runtime.inputModes,
      defaultOutputModes: plan.acceptedOutputModes,
      skills: [],
    });
  const make: MakeTransport = async (iface) => {
    const legacyCompat = { enabled: true };
    let transport: Transport;
    if (iface.protocolBinding === 'JSONRPC') transport = await new JsonRpcTransportFactory({ fetchImpl: runtime.fetchFor(iface), legacyCompat }).create(iface.url, cardFor(iface));
    else if (iface.protocolBinding === 'HTTP+JSON') transport = await new RestTransportFactory({ fetchImpl: runtime.fetchFor(iface), legacyCompat }).create(iface.url, cardFor(iface));
    else if (iface.protocolBinding === 'GRPC') transport = await (await import('./grpc.js')).grpcTransport(runtime, iface, cardFor(iface), options.grpcChannelCredentials);
    else throw new UsageError(`${runtime.name} (${runtime.skill}): binding ${iface.protocolBinding} has no @a2a-js/sdk transport`);
    return iface.tenant ? new TenantTransportDecorator(transport, iface.tenant) : transport;
  };
  const transport = new PlanTransport(runtime, await make(plan), make, options);
  // The SDK Client itself refuses push config calls when the card does not push, with its own
  // untyped error; on a plan that does not push they are a typed plan violation instead.
  class LockedSdkClient extends Client {
    private refusePush(method: string): Promise<never> {
      return Promise.reject(new PlanViolationError(runtime.name, runtime.skill, `a push notification config call (${method}), but the locked delivery is ${plan.delivery}`));
    }
    override createTaskPushNotificationConfig(...a: Parameters<Client['createTaskPushNotificationConfig']>) {
      return plan.delivery === 'push' ? super.createTaskPushNotificationConfig(...a) : this.refusePush('CreateTaskPushNotificationConfig');
    }
    override getTaskPushNotificationConfig(...a: Parameters<Client['getTaskPushNotificationConfig']>) {
      return plan.delivery === 'push' ? super.getTaskPushNotificationConfig(...a) : this.refusePush('GetTaskPushNotificationConfig');
    }
    override listTaskPushNotificationConfig(...a: Parameters<Client['listTaskPushNotificationConfig']>) {
      return plan.delivery === 'push' ? super.listTaskPushNotificationConfig(...a) : this.refusePush('ListTaskPushNotificationConfigs');
    }
    override deleteTaskPushNotificationConfig(...a: Parameters<Client['deleteTaskPushNotificationConfig']>) {
      return plan.delivery === 'push' ? super.deleteTaskPushNotificationConfig(...a) : this.refusePush('DeleteTaskPushNotificationConfig');
    }
  }
  return new LockedSdkClient(transport, cardFor(plan), { ...options.clientConfig, acceptedOutputModes: [...plan.acceptedOutputModes] });
}

/** Delegates to the locked interface's transport; recovers only onto locked fallbacks, each taken once. */
class PlanTransport implements Transport {
  constructor(
    private readonly runtime: AgentRuntime,
    private readonly primary: Transport,
    private readonly make: MakeTransport,
    private readonly options: CreateClientOptions,
  ) {}

  get protocolName(): string {
    return this.primary.protocolName;
  }

  get protocolVersion(): string {
    return this.primary.protocolVersion;
  }

  getExtendedAgentCard(...a: Parameters<Transport['getExtendedAgentCard']>) {
    return this.call('GetExtendedAgentCard', (t, o) => t.getExtendedAgentCard(a[0], o), a[1]);
  }
  sendMessage(...a: Parameters<Transport['sendMessage']>) {
    const [params, options] = a;
    // push → poll: the same message again without its push config (the locked poll fallback).
    const poll = hasPushConfig(params) ? (t: Transport, o?: RequestOptions) => t.sendMessage(withoutPushConfig(params), o) : undefined;
    return this.call('SendMessage', (t, o) => t.sendMessage(params, o), options, poll);
  }
  getTask(...a: Parameters<Transport['getTask']>) {
    return this.call('GetTask', (t, o) => t.getTask(a[0], o), a[1]);
  }
  cancelTask(...a: Parameters<Transport['cancelTask']>) {
    return this.call('CancelTask', (t, o) => t.cancelTask(a[0], o), a[1]);
  }
  listTasks(...a: Parameters<Transport['listTasks']>) {
    return this.call('ListTasks', (t, o) => t.listTasks(a[0], o), a[1]);
  }
  createTaskPushNotificationConfig(...a: Parameters<Transport['createTaskPushNotificationConfig']>) {
    return this.call('CreateTaskPushNotificationConfig', (t, o) => t.createTaskPushNotificationConfig(a[0], o), a[1]);
  }
  getTaskPushNotificationConfig(...a: Parameters<Transport['getTaskPushNotificationConfig']>) {
    return this.call('GetTaskPushNotificationConfig', (t, o) => t.getTaskPushNotificationConfig(a[0], o), a[1]);
  }
  listTaskPushNotificationConfig(...a: Parameters<Transport['listTaskPushNotificationConfig']>) {
    return this.call('ListTaskPushNotificationConfigs', (t, o) => t.listTaskPushNotificationConfig(a[0], o), a[1]);
  }
  deleteTaskPushNotificationConfig(...a: Parameters<Transport['deleteTaskPushNotificationConfig']>) {
    return this.call('DeleteTaskPushNotificationConfig', (t, o) => t.deleteTaskPushNotificationConfig(a[0], o), a[1]);
  }
  async *resubscribeTask(...a: Parameters<Transport['resubscribeTask']>): AsyncGenerator<StreamEvent, void, undefined> {
    try {
      yield* this.primary.resubscribeTask(...a);
    } catch (raw) {
      throw typedError(this.runtime, this.runtime.plan, await this.scrub(raw));
    }
  }

  async *sendMessageStream(params: Parameters<Transport['sendMessageStream']>[0], options?: RequestOptions): AsyncGenerator<StreamEvent, void, undefined> {
    const { plan } = this.runtime;
    let taskId: string | undefined;
    let seen = false;
    try {
      for await (const event of this.primary.sendMessageStream(params, options)) {
        seen = true;
        taskId ??= taskIdOf(event);
        yield event;
      }
      return;
    } catch (raw) {
      const error = await this.scrub(raw);
      const kind = classifySdkError(error);
      const poll = plan.fallbacks?.delivery.includes('poll') ?? false;
      const lost = kind === 'version-not-supported' ? headerLost(plan, error) : undefined;
      if (kind && lost) throw this.runtime.degrade(kind, `${kind} on SendStreamingMessage at ${describe(plan)}: ${lost}`, error);
      if (!seen && kind === 'version-not-supported') {
        const next = this.versionFallback();
        if (next) {
          this.runtime.fallback(kind, describe(plan), describe(next));
          try {
            yield* (await this.make(next)).sendMessageStream(params, withoutPlanHeaders(options));
            return;
          } catch (second) {
            throw this.runtime.degrade(kind, `${kind} on SendStreamingMessage at ${describe(plan)}, then the locked fallback ${describe(next)} failed too`, typedError(this.runtime, next, await this.scrub(second)));
          }
        }
      }
      if (!seen && poll && (kind === 'unsupported-operation' || kind === 'push-notification-not-supported')) {
        this.runtime.fallback(kind, plan.delivery, 'poll');
        let result;
        try {
          result = await this.primary.sendMessage(params, options);
        } catch (second) {
          throw this.runtime.degrade(kind, `${kind} on the stream, then the locked poll fallback failed too`, typedError(this.runtime, plan, await this.scrub(second)));
        }
        yield 'messageId' in result ? { payload: { $case: 'message', value: result } } : { payload: { $case: 'task', value: result } };
        return;
      }
      if (seen && kind === undefined && taskId !== undefined && poll && !isA2aLockError(error)) {
        this.runtime.fallback('stream-broken', plan.delivery, 'poll');
        yield* this.pollTask(taskId, options);
        return;
      }
      if (kind) throw this.runtime.degrade(kind, deadEnd(plan, kind, 'SendStreamingMessage'), error);
      throw typedError(this.runtime, plan, error);
    }
  }

  /** GetTask until the task settles (bounded by `maxPolls`). */
  private async *pollTask(taskId: string, options?: RequestOptions): AsyncGenerator<StreamEvent, void, undefined> {
    const limit = this.options.maxPolls ?? 300;
    for (let i = 0; i < limit; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, this.options.pollIntervalMs ?? 1000));
      let task;
      try {
        task = await this.primary.getTask({ id: taskId, tenant: '' } as Parameters<Transport['getTask']>[0], options);
      } catch (error) {
        throw typedError(this.runtime, this.runtime.plan, await this.scrub(error));
      }
      yield { payload: { $case: 'task', value: task } };
      if (SETTLED.has(task.status?.state ?? 0)) return;
    }
    throw this.runtime.degrade('stream-broken', `the stream broke and task ${taskId} did not settle within ${limit} polls`);
  }

  /**
   * `error` with every spelling of the credential redacted (`redactError`): what was sent
   * (`secretsSentWith`), else (nothing sent through fetch yet, or gRPC) the placements read now.
   * Every error, cause and event the runtime emits is built from this copy, never the raw one.
   */
  private async scrub(error: unknown): Promise<unknown> {
    const secrets = new Set(secretsSentWith(this.runtime.placements));
    if (secrets.size === 0 && Object.keys(this.runtime.plan.security).length > 0) {
      try {
        for (const secret of placementSecrets(await this.runtime.placements())) secrets.add(secret);
      } catch {
        // no credential to read: none can be echoed
      }
    }
    // And the platform credential (originAuth) the requests carried.
    for (const secret of this.runtime.platformSecrets()) secrets.add(secret);
    return redactError(error, [...secrets]);
  }

  /** The first locked fallback interface of another protocol version. */
  private versionFallback(): FallbackInterface | undefined {
    return this.runtime.plan.fallbacks?.interfaces.find((i) => i.protocolVersion !== this.runtime.plan.protocolVersion);
  }

  /**
   * Run `op` on the locked interface. VersionNotSupported: one retry on the locked version
   * fallback. PushNotificationNotSupported with `poll` given and `poll` a locked delivery fallback
   * of a push plan: one retry as `poll`. Any other classified error degrades; anything else is typed.
   */
  private async call<T>(name: string, op: (t: Transport, o?: RequestOptions) => Promise<T>, options?: RequestOptions, poll?: (t: Transport, o?: RequestOptions) => Promise<T>): Promise<T> {
    const { plan } = this.runtime;
    try {
      return await op(this.primary, options);
    } catch (raw) {
      const error = await this.scrub(raw);
      const kind: AgentErrorKind | undefined = classifySdkError(error);
      if (!kind) throw typedError(this.runtime, plan, error);
      const lost = kind === 'version-not-supported' ? headerLost(plan, error) : undefined;
      if (lost) throw this.runtime.degrade(kind, `${kind} on ${name} at ${describe(plan)}: ${lost}`, error);
      const next = kind === 'version-not-supported' ? this.versionFallback() : undefined;
      if (next) {
        this.runtime.fallback(kind, describe(plan), describe(next));
        try {
          return await op(await this.make(next), withoutPlanHeaders(options));
        } catch (second) {
          throw this.runtime.degrade(kind, `${kind} on ${name} at ${describe(plan)}, then the locked fallback ${describe(next)} failed too`, typedError(this.runtime, next, await this.scrub(second)));
        }
      }
      if (kind === 'push-notification-not-supported' && poll && plan.delivery === 'push' && plan.fallbacks?.delivery.includes('poll')) {
        this.runtime.fallback(kind, 'push', 'poll');
        try {
          return await poll(this.primary, options);
        } catch (second) {
          throw this.runtime.degrade(kind, `${kind} on ${name} with a push config, then the locked poll fallback (the same message without it) failed too`, typedError(this.runtime, plan, await this.scrub(second)));
        }
      }
      throw this.runtime.degrade(kind, deadEnd(plan, kind, name), error);
    }
  }
}

/**
 * A VersionNotSupported whose words say the agent saw another version than the plan's (the
 * `A2A-Version` header removed or rewritten on the way, see {@link versionHeaderLost}): the
 * explanation; no version fallback is taken for it. `undefined` otherwise.
 */
function headerLost(plan: Plan, error: unknown): string | undefined {
  const text = error instanceof Error ? error.message : (error as { details?: unknown } | null)?.details;
  const lost = versionHeaderLost(plan.protocolVersion, text);
  return lost ? versionHeaderLostMessage(plan.protocolVersion, lost.seen) : undefined;
}

/**
 * The HTTP status of an SDK transport error that carries none as a field: the SDK's JSON-RPC and
 * REST transports throw `HTTP error for <method>! Status: <n> …` (or `HTTP error establishing
 * stream for <method>: <n> …`). Only the number at that fixed start is read; the agent's own text
 * comes after `Response:` and is never parsed. Undefined for anything else, or a status below 400.
 */
function sdkHttpStatus(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const found = /^HTTP error (?:for [^!\n]{1,200}! Status: |establishing stream for [^:\n]{1,200}: )(\d{3})\b/.exec(error.message);
  const status = found ? Number(found[1]) : undefined;
  return status !== undefined && status >= 400 ? status : undefined;
}

/**
 * The A2A error code of a 0.3 HTTP+JSON error body the SDK's v0.3 REST transport could not map to
 * an error class: it throws `REST error: <message> (Code: <code>)[ Data: <json>]` (ADK answers a
 * missing task with HTTP 500 and code -32603). The code is the last `(Code: n)` before the optional
 * data; undefined for any other error.
 */
function legacyRestCode(error: unknown): number | undefined {
  if (!(error instanceof Error) || !error.message.startsWith('REST error: ')) return undefined;
  const found = /\(Code: (-?\d{1,9})\)(?: Data: [\s\S]*)?$/.exec(error.message.slice(0, 100_000));
  return found ? Number(found[1]) : undefined;
}

/**
 * The message of an agent error no locked fallback answers, true to the lockfile: it names the
 * locked fallbacks (if any) and why none applies to this call.
 */
function deadEnd(plan: Plan, kind: AgentErrorKind, call: string): string {
  const locked = [...(plan.fallbacks?.interfaces ?? []).map(describe), ...(plan.fallbacks?.delivery ?? []).map((d) => `delivery ${d}`)];
  const head = `${kind} on ${call} at ${describe(plan)}`;
  if (locked.length === 0) return `${head}; the plan has no locked fallback`;
  const why =
    kind === 'version-not-supported'
      ? 'none is of another protocol version'
      : kind === 'push-notification-not-supported' && /PushNotificationConfig/.test(call)
        ? 'a push config call has no poll equivalent (send without a push config and poll GetTask)'
        : kind === 'push-notification-not-supported' || kind === 'unsupported-operation'
          ? call === 'SendStreamingMessage' || call === 'SendMessage' ? 'the locked poll fallback was not applicable to this request' : 'a poll fallback applies only to sending'
          : 'the locked fallbacks answer only VersionNotSupported (another version) and a refused stream or push (poll)';
  return `${head}; locked fallbacks: ${locked.join(', ')}; ${why}`;
}

/** gRPC status codes (grpc-js `status`) the runtime maps: 4 DEADLINE_EXCEEDED, 7 PERMISSION_DENIED, 14 UNAVAILABLE, 16 UNAUTHENTICATED. */
const GRPC_TIMEOUT = 4;
const GRPC_DENIED = 7;
const GRPC_UNAVAILABLE = 14;
const GRPC_UNAUTHENTICATED = 16;

/**
 * Any failure of a call as the error that leaves the runtime: a2a-lock errors and the caller's
 * own abort as they are (a network FetchError of the enforcing fetch becomes an AgentCallError
 * naming agent and skill), every other error an {@link AgentCallError}: `auth-refused` (HTTP
 * 401/403, gRPC 16/7), `unreachable` (gRPC 14), `timeout` (TimeoutError, gRPC 4), else
 * `agent-error` with the HTTP status, the JSON-RPC error code or the ErrorInfo reason. The SDK's
 * text (which may quote the agent's answer) is only in `cause`.
 */
function typedError(runtime: AgentRuntime, iface: FallbackInterface, error: unknown): unknown {
  const { name, skill } = runtime;
  const url = shownUrl(iface.url);
  const where = describe(iface);
  const inner = isA2aLockError(error) ? error : isA2aLockError((error as { cause?: unknown } | null)?.cause) ? ((error as { cause: unknown }).cause as A2aLockError) : undefined;
  if (inner) {
    if (inner instanceof FetchError && (inner.code === 'unreachable' || inner.code === 'timeout')) {
      return new AgentCallError(inner.code, name, skill, `${where}: ${inner.code === 'timeout' ? 'no answer in time' : 'not reachable'} (${inner.message})`, { url }, { cause: error });
    }
    return inner;
  }
  if (error instanceof Error && error.name === 'AbortError') return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as { transport?: unknown; statusCode?: unknown; status?: unknown; code?: unknown; envelopeCode?: unknown; reason?: unknown; name?: unknown; details?: unknown };
  const status = typeof e.statusCode === 'number' ? e.statusCode : sdkHttpStatus(error);
  const grpcStatus = e.transport === 'grpc' && typeof e.status === 'number' ? e.status : iface.protocolBinding === 'GRPC' && typeof e.code === 'number' && 'details' in e ? e.code : undefined;
  const a2aCode = e.transport === 'jsonrpc' && typeof e.envelopeCode === 'number' ? e.envelopeCode : iface.protocolBinding === 'HTTP+JSON' ? legacyRestCode(error) : undefined;
  const a2aReason = typeof e.reason === 'string' && e.name !== 'A2AError' ? e.reason : undefined;
  const details = { url, ...(status !== undefined ? { status } : {}), ...(grpcStatus !== undefined ? { grpcStatus } : {}), ...(a2aCode !== undefined ? { a2aCode } : {}), ...(a2aReason !== undefined ? { a2aReason } : {}) };
  const answered = [status !== undefined ? `HTTP ${status}` : '', grpcStatus !== undefined ? `gRPC status ${grpcStatus}` : '', a2aCode !== undefined ? `A2A error ${a2aCode}` : '', a2aReason ?? ''].filter(Boolean).join(', ');
  const options = { cause: error };
  if (status === 401 || status === 403 || grpcStatus === GRPC_UNAUTHENTICATED || grpcStatus === GRPC_DENIED) {
    // A plan that sends no credential was refused for the lack of one (issue 14: a card that
    // declares no security, an agent that authenticates outside A2A): say so, not "the credential".
    const none = Object.keys(runtime.plan.security).length === 0;
    const why = !none
      ? 'the agent refused the credential'
      : Object.keys(runtime.card.securitySchemes).length === 0
        ? 'the agent refused the request, and the locked plan sends no credential: the card declares no securitySchemes (the agent may authenticate outside A2A)'
        : 'the agent refused the request, and the locked plan sends no credential (its security requirement needs none)';
    return new AgentCallError('auth-refused', name, skill, `${where}: ${why} (${answered})`, details, options);
  }
  if (grpcStatus === GRPC_UNAVAILABLE) return new AgentCallError('unreachable', name, skill, `${where}: not reachable (${answered})`, details, options);
  if (grpcStatus === GRPC_TIMEOUT || (error instanceof Error && error.name === 'TimeoutError')) return new AgentCallError('timeout', name, skill, `${where}: no answer in time${answered ? ` (${answered})` : ''}`, details, options);
  const what = a2aCode !== undefined || a2aReason !== undefined ? 'the agent answered an A2A error' : answered ? 'the agent answered an error that is not an A2A error' : 'the agent\'s answer could not be read as A2A';
  return new AgentCallError('agent-error', name, skill, `${where}: ${what}${answered ? ` (${answered})` : ''}`, details, options);
}

/** A URL for messages: origin and path only (a query may carry a credential); `host:port` as it is. */
function shownUrl(url: string): string {
  if (!url.includes('://')) return url;
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

function hasPushConfig(params: Parameters<Transport['sendMessage']>[0]): boolean {
  return params.configuration?.taskPushNotificationConfig !== undefined;
}

function withoutPushConfig(params: Parameters<Transport['sendMessage']>[0]): Parameters<Transport['sendMessage']>[0] {
  const { taskPushNotificationConfig: _dropped, ...configuration } = params.configuration!;
  return { ...params, configuration: configuration as NonNullable<Parameters<Transport['sendMessage']>[0]['configuration']> };
}

/** The SDK Client stamps A2A-Version and the extensions header of the primary; the fallback's fetch sets its own. */
function withoutPlanHeaders(options?: RequestOptions): RequestOptions | undefined {
  if (!options?.serviceParameters) return options;
  const kept = Object.entries(options.serviceParameters).filter(([k]) => !/^(a2a-version|a2a-extensions|x-a2a-extensions)$/i.test(k));
  return { ...options, serviceParameters: Object.fromEntries(kept) };
}

function taskIdOf(event: StreamEvent): string | undefined {
  const p = event.payload;
  if (!p) return undefined;
  const id = p.$case === 'task' ? p.value.id : p.$case === 'message' ? p.value.taskId : p.value.taskId;
  return id ? id : undefined;
}

function describe(iface: FallbackInterface): string {
  return `${iface.protocolBinding} ${iface.protocolVersion} ${shownUrl(iface.url)}`;
}
