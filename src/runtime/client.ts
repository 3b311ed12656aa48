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
 * `timeout`; see `typedError` in `call-errors.ts`).
 *
 * Loaded lazily by `LockedAgent.createClient()`; the only module that imports the SDK at run time.
 */
import type { Client, RequestOptions, Transport } from '@a2a-js/sdk/client';
import { isA2aLockError, PlanViolationError, UsageError } from '../errors.js';
import type { FallbackInterface } from '../negotiate/types.js';
import { placementSecrets, redactError } from '../redact.js';
import { deadEnd, describe, headerLost, typedError } from './call-errors.js';
import { type AgentErrorKind, classifySdkError } from './classify.js';
import { secretsSentWith } from './enforce.js';
import { peer } from './peer.js';
import type { AgentRuntime, CreateClientOptions } from './types.js';

type StreamEvent = Awaited<ReturnType<ReturnType<Transport['sendMessageStream']>['next']>>['value'] & object;
type MakeTransport = (iface: FallbackInterface) => Promise<Transport>;

/** TaskState values after which polling stops: completed, failed, canceled, input/auth required, rejected. */
const SETTLED = new Set([3, 4, 5, 6, 7, 8]);

/** Build the client (see the module comment). @throws UsageError for a binding the SDK has no transport for, or the SDK not installed */
export async function createLockedClient(runtime: AgentRuntime, options: CreateClientOptions = {}): Promise<Client> {
  const [{ Client, JsonRpcTransportFactory, RestTransportFactory, TenantTransportDecorator }, { AgentCard }] =
    await peer(() => Promise.all([import('@a2a-js/sdk/client'), import('@a2a-js/sdk')]));
  const { plan } = runtime;
  /** A card holding only `iface`, so the SDK can pick nothing else (and the compat transport for 0.x). */
  const cardFor = (iface: FallbackInterface) =>
    AgentCard.fromJSON({
      name: runtime.name,
      description: '',
      version: '',
      supportedInterfaces: [
        {
          url: iface.url,
          protocolBinding: iface.protocolBinding,
          protocolVersion: iface.protocolVersion,
          tenant: iface.tenant ?? '',
        },
      ],
      capabilities: {
        streaming: plan.delivery === 'stream',
        pushNotifications: plan.delivery === 'push',
        extensions: plan.extensions.map((uri) => ({ uri })),
      },
      defaultInputModes: [...runtime.inputModes],
      defaultOutputModes: plan.acceptedOutputModes,
      skills: [],
    });
  const make: MakeTransport = async (iface) => {
    const legacyCompat = { enabled: true };
    let transport: Transport;
    if (iface.protocolBinding === 'JSONRPC')
      transport = await new JsonRpcTransportFactory({ fetchImpl: runtime.fetchFor(iface), legacyCompat }).create(
        iface.url,
        cardFor(iface),
      );
    else if (iface.protocolBinding === 'HTTP+JSON')
      transport = await new RestTransportFactory({ fetchImpl: runtime.fetchFor(iface), legacyCompat }).create(
        iface.url,
        cardFor(iface),
      );
    else if (iface.protocolBinding === 'GRPC')
      transport = await (await import('./grpc.js')).grpcTransport(
        runtime,
        iface,
        cardFor(iface),
        options.grpcChannelCredentials,
      );
    else
      throw new UsageError(
        `${runtime.name} (${runtime.skill}): binding ${iface.protocolBinding} has no @a2a-js/sdk transport`,
      );
    return iface.tenant ? new TenantTransportDecorator(transport, iface.tenant) : transport;
  };
  const transport = new PlanTransport(runtime, await make(plan), make, options);
  // The SDK Client itself refuses push config calls when the card does not push, with its own
  // untyped error; on a plan that does not push they are a typed plan violation instead.
  class LockedSdkClient extends Client {
    private refusePush(method: string): Promise<never> {
      return Promise.reject(
        new PlanViolationError(
          runtime.name,
          runtime.skill,
          `a push notification config call (${method}), but the locked delivery is ${plan.delivery}`,
        ),
      );
    }
    override createTaskPushNotificationConfig(...a: Parameters<Client['createTaskPushNotificationConfig']>) {
      return plan.delivery === 'push'
        ? super.createTaskPushNotificationConfig(...a)
        : this.refusePush('CreateTaskPushNotificationConfig');
    }
    override getTaskPushNotificationConfig(...a: Parameters<Client['getTaskPushNotificationConfig']>) {
      return plan.delivery === 'push'
        ? super.getTaskPushNotificationConfig(...a)
        : this.refusePush('GetTaskPushNotificationConfig');
    }
    override listTaskPushNotificationConfig(...a: Parameters<Client['listTaskPushNotificationConfig']>) {
      return plan.delivery === 'push'
        ? super.listTaskPushNotificationConfig(...a)
        : this.refusePush('ListTaskPushNotificationConfigs');
    }
    override deleteTaskPushNotificationConfig(...a: Parameters<Client['deleteTaskPushNotificationConfig']>) {
      return plan.delivery === 'push'
        ? super.deleteTaskPushNotificationConfig(...a)
        : this.refusePush('DeleteTaskPushNotificationConfig');
    }
  }
  return new LockedSdkClient(transport, cardFor(plan), {
    ...options.clientConfig,
    acceptedOutputModes: [...plan.acceptedOutputModes],
  });
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
  sendMessage(params: Parameters<Transport['sendMessage']>[0], options?: RequestOptions) {
    // push → poll: the same message again without its push config (the locked poll fallback).
    const poll = hasPushConfig(params)
      ? (t: Transport, o?: RequestOptions) => t.sendMessage(withoutPushConfig(params), o)
      : undefined;
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

  async *sendMessageStream(
    params: Parameters<Transport['sendMessageStream']>[0],
    options?: RequestOptions,
  ): AsyncGenerator<StreamEvent, void, undefined> {
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
      const next = kind ? this.versionFallbackFor(kind, 'SendStreamingMessage', error) : undefined;
      if (!seen && kind && next) {
        yield* this.retryOnVersionFallback(kind, 'SendStreamingMessage', next, (t) =>
          t.sendMessageStream(params, withoutPlanHeaders(options)),
        );
        return;
      }
      if (!seen && poll && (kind === 'unsupported-operation' || kind === 'push-notification-not-supported')) {
        const retry = this.retryOnce(
          kind,
          plan.delivery,
          'poll',
          plan,
          `${kind} on the stream, then the locked poll fallback failed too`,
          () => once(() => this.primary.sendMessage(params, options)),
        );
        for await (const result of retry)
          yield 'messageId' in result
            ? { payload: { $case: 'message', value: result } }
            : { payload: { $case: 'task', value: result } };
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
    throw this.runtime.degrade(
      'stream-broken',
      `the stream broke and task ${taskId} did not settle within ${limit} polls`,
    );
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

  /**
   * The version step of a classified error: VersionNotSupported whose words say the agent saw
   * another version than the plan's degrades at once (no fallback can help: the header is lost on
   * the way); otherwise the first locked fallback interface of another protocol version, if any.
   * Undefined for every other kind.
   */
  private versionFallbackFor(kind: AgentErrorKind, name: string, error: unknown): FallbackInterface | undefined {
    if (kind !== 'version-not-supported') return undefined;
    const { plan } = this.runtime;
    const lost = headerLost(plan, error);
    if (lost) throw this.runtime.degrade(kind, `${kind} on ${name} at ${describe(plan)}: ${lost}`, error);
    return plan.fallbacks?.interfaces.find((i) => i.protocolVersion !== plan.protocolVersion);
  }

  /** The locked version fallback `next`: `attempt` once on its transport (without the primary's plan headers). */
  private retryOnVersionFallback<T>(
    kind: AgentErrorKind,
    name: string,
    next: FallbackInterface,
    attempt: (t: Transport) => AsyncIterable<T>,
  ): AsyncGenerator<T, void, undefined> {
    const { plan } = this.runtime;
    const failed = `${kind} on ${name} at ${describe(plan)}, then the locked fallback ${describe(next)} failed too`;
    return this.retryOnce(kind, describe(plan), describe(next), next, failed, () => this.attemptOn(next, attempt));
  }

  /** `attempt` on a transport made for `iface`. */
  private async *attemptOn<T>(
    iface: FallbackInterface,
    attempt: (t: Transport) => AsyncIterable<T>,
  ): AsyncGenerator<T, void, undefined> {
    yield* attempt(await this.make(iface));
  }

  /**
   * The one fallback retry, for every call and the stream: report it (`runtime.fallback`: `from`
   * → `to`), run `retry` once, and when it fails too, degrade the agent with `failed`, the failure
   * typed against `iface` (the interface the retry went to) as its cause.
   */
  private async *retryOnce<T>(
    kind: AgentErrorKind,
    from: string,
    to: string,
    iface: FallbackInterface,
    failed: string,
    retry: () => AsyncIterable<T>,
  ): AsyncGenerator<T, void, undefined> {
    this.runtime.fallback(kind, from, to);
    try {
      yield* retry();
    } catch (second) {
      throw this.runtime.degrade(kind, failed, typedError(this.runtime, iface, await this.scrub(second)));
    }
  }

  /**
   * Run `op` on the locked interface; a failure is answered by {@link recover}. Not an async
   * function: on success the only promise added to the call is the one `catch` makes
   * (docs/explanation/performance.md).
   */
  private call<T>(
    name: string,
    op: (t: Transport, o?: RequestOptions) => Promise<T>,
    options?: RequestOptions,
    poll?: (t: Transport, o?: RequestOptions) => Promise<T>,
  ): Promise<T> {
    let sent: Promise<T>;
    try {
      sent = op(this.primary, options);
    } catch (raw) {
      sent = Promise.reject(raw);
    }
    return sent.catch((raw: unknown) => this.recover(raw, name, op, options, poll));
  }

  /**
   * A failed call `op` on the locked interface. VersionNotSupported: one retry on the locked
   * version fallback. PushNotificationNotSupported with `poll` given and `poll` a locked delivery
   * fallback of a push plan: one retry as `poll`. Any other classified error degrades; anything
   * else is typed.
   */
  private async recover<T>(
    raw: unknown,
    name: string,
    op: (t: Transport, o?: RequestOptions) => Promise<T>,
    options?: RequestOptions,
    poll?: (t: Transport, o?: RequestOptions) => Promise<T>,
  ): Promise<T> {
    const { plan } = this.runtime;
    const error = await this.scrub(raw);
    const kind: AgentErrorKind | undefined = classifySdkError(error);
    if (!kind) throw typedError(this.runtime, plan, error);
    const next = this.versionFallbackFor(kind, name, error);
    if (next)
      return onlyValue(
        this.retryOnVersionFallback(kind, name, next, (t) => once(() => op(t, withoutPlanHeaders(options)))),
      );
    if (
      kind === 'push-notification-not-supported' &&
      poll &&
      plan.delivery === 'push' &&
      plan.fallbacks?.delivery.includes('poll')
    ) {
      const failed = `${kind} on ${name} with a push config, then the locked poll fallback (the same message without it) failed too`;
      return onlyValue(
        this.retryOnce(kind, 'push', 'poll', plan, failed, () => once(() => poll(this.primary, options))),
      );
    }
    throw this.runtime.degrade(kind, deadEnd(plan, kind, name), error);
  }
}

/** A call as a stream of its one result, so a call is retried as the stream is ({@link PlanTransport.retryOnce}). */
async function* once<T>(call: () => Promise<T>): AsyncGenerator<T, void, undefined> {
  yield await call();
}

/** The one value of a stream made by {@link once}. */
async function onlyValue<T>(events: AsyncIterable<T>): Promise<T> {
  for await (const value of events) return value;
  throw new Error('a retried call gave no result');
}

function hasPushConfig(params: Parameters<Transport['sendMessage']>[0]): boolean {
  return params.configuration?.taskPushNotificationConfig !== undefined;
}

function withoutPushConfig(params: Parameters<Transport['sendMessage']>[0]): Parameters<Transport['sendMessage']>[0] {
  const { taskPushNotificationConfig: _dropped, ...configuration } = params.configuration!;
  return {
    ...params,
    configuration: configuration as NonNullable<Parameters<Transport['sendMessage']>[0]['configuration']>,
  };
}

/** The SDK Client stamps A2A-Version and the extensions header of the primary; the fallback's fetch sets its own. */
function withoutPlanHeaders(options?: RequestOptions): RequestOptions | undefined {
  if (!options?.serviceParameters) return options;
  const kept = Object.entries(options.serviceParameters).filter(
    ([k]) => !/^(a2a-version|a2a-extensions|x-a2a-extensions)$/i.test(k),
  );
  return { ...options, serviceParameters: Object.fromEntries(kept) };
}

function taskIdOf(event: StreamEvent): string | undefined {
  const p = event.payload;
  if (!p) return undefined;
  const id = p.$case === 'task' ? p.value.id : p.$case === 'message' ? p.value.taskId : p.value.taskId;
  return id ? id : undefined;
}
