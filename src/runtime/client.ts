/**
 * `createClient()`: an `@a2a-js/sdk` Client bound to exactly the locked interface, whose transport
 * sends through the plan's enforcing fetch (or, for gRPC, a call interceptor) and answers the five
 * classified agent errors with one bounded action each (README "Runtime loader"):
 *
 * - VersionNotSupported: retry once on the first locked fallback interface of another version;
 * - UnsupportedOperation / PushNotificationNotSupported on a stream: retry once as SendMessage
 *   (the locked `poll` fallback);
 * - a stream that breaks after a task id was seen: poll GetTask with that id (locked `poll`);
 * - a failed retry, or an error with no locked alternative (ContentTypeNotSupported,
 *   ExtensionSupportRequired, the rest): the agent is degraded and an AgentDegradedError thrown.
 *
 * Loaded lazily by `LockedAgent.createClient()`; the only module that imports the SDK at run time.
 */
import type { Client, RequestOptions, Transport } from '@a2a-js/sdk/client';
import { UsageError } from '../errors.js';
import type { FallbackInterface } from '../negotiate/types.js';
import { classifySdkError, type AgentErrorKind } from './classify.js';
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
    else if (iface.protocolBinding === 'GRPC') transport = await (await import('./grpc.js')).grpcTransport(runtime, iface, cardFor(iface));
    else throw new UsageError(`${runtime.name} (${runtime.skill}): binding ${iface.protocolBinding} has no @a2a-js/sdk transport`);
    return iface.tenant ? new TenantTransportDecorator(transport, iface.tenant) : transport;
  };
  const transport = new PlanTransport(runtime, await make(plan), make, options);
  return new Client(transport, cardFor(plan), { ...options.clientConfig, acceptedOutputModes: [...plan.acceptedOutputModes] });
}

/** Delegates to the locked interface's transport; recovers only onto locked fallbacks. */
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
    return this.call((t, o) => t.getExtendedAgentCard(a[0], o), a[1]);
  }
  sendMessage(...a: Parameters<Transport['sendMessage']>) {
    return this.call((t, o) => t.sendMessage(a[0], o), a[1]);
  }
  getTask(...a: Parameters<Transport['getTask']>) {
    return this.call((t, o) => t.getTask(a[0], o), a[1]);
  }
  cancelTask(...a: Parameters<Transport['cancelTask']>) {
    return this.call((t, o) => t.cancelTask(a[0], o), a[1]);
  }
  listTasks(...a: Parameters<Transport['listTasks']>) {
    return this.call((t, o) => t.listTasks(a[0], o), a[1]);
  }
  createTaskPushNotificationConfig(...a: Parameters<Transport['createTaskPushNotificationConfig']>) {
    return this.call((t, o) => t.createTaskPushNotificationConfig(a[0], o), a[1]);
  }
  getTaskPushNotificationConfig(...a: Parameters<Transport['getTaskPushNotificationConfig']>) {
    return this.call((t, o) => t.getTaskPushNotificationConfig(a[0], o), a[1]);
  }
  listTaskPushNotificationConfig(...a: Parameters<Transport['listTaskPushNotificationConfig']>) {
    return this.call((t, o) => t.listTaskPushNotificationConfig(a[0], o), a[1]);
  }
  deleteTaskPushNotificationConfig(...a: Parameters<Transport['deleteTaskPushNotificationConfig']>) {
    return this.call((t, o) => t.deleteTaskPushNotificationConfig(a[0], o), a[1]);
  }
  resubscribeTask(...a: Parameters<Transport['resubscribeTask']>) {
    return this.primary.resubscribeTask(...a);
  }

  async *sendMessageStream(params: Parameters<Transport['sendMessageStream']>[0], options?: RequestOptions): AsyncGenerator<StreamEvent, void, undefined> {
    let taskId: string | undefined;
    let seen = false;
    try {
      for await (const event of this.primary.sendMessageStream(params, options)) {
        seen = true;
        taskId ??= taskIdOf(event);
        yield event;
      }
      return;
    } catch (error) {
      const kind = classifySdkError(error);
      const poll = this.runtime.plan.fallbacks?.delivery.includes('poll') ?? false;
      if (!seen && kind === 'version-not-supported') {
        const next = this.versionFallback();
        if (next) {
          try {
            yield* (await this.make(next)).sendMessageStream(params, withoutPlanHeaders(options));
            return;
          } catch (second) {
            throw this.runtime.degrade(kind, `${kind} on ${describe(this.runtime.plan)}, then the locked fallback ${describe(next)} failed too`, second);
          }
        }
      }
      if (!seen && poll && (kind === 'unsupported-operation' || kind === 'push-notification-not-supported')) {
        let result;
        try {
          result = await this.primary.sendMessage(params, options);
        } catch (second) {
          throw this.runtime.degrade(kind, `${kind} on the stream, then the locked poll fallback failed too`, second);
        }
        yield 'messageId' in result ? { payload: { $case: 'message', value: result } } : { payload: { $case: 'task', value: result } };
        return;
      }
      if (seen && kind === undefined && taskId !== undefined && poll) {
        yield* this.pollTask(taskId, options);
        return;
      }
      if (kind) throw this.runtime.degrade(kind, `${kind} on ${describe(this.runtime.plan)}; the plan has no locked alternative for it`, error);
      throw error;
    }
  }

  /** GetTask until the task settles (bounded by `maxPolls`). */
  private async *pollTask(taskId: string, options?: RequestOptions): AsyncGenerator<StreamEvent, void, undefined> {
    const limit = this.options.maxPolls ?? 300;
    for (let i = 0; i < limit; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, this.options.pollIntervalMs ?? 1000));
      const task = await this.primary.getTask({ id: taskId, tenant: '' } as Parameters<Transport['getTask']>[0], options);
      yield { payload: { $case: 'task', value: task } };
      if (SETTLED.has(task.status?.state ?? 0)) return;
    }
    throw this.runtime.degrade('stream-broken', `the stream broke and task ${taskId} did not settle within ${limit} polls`);
  }

  /** The first locked fallback interface of another protocol version. */
  private versionFallback(): FallbackInterface | undefined {
    return this.runtime.plan.fallbacks?.interfaces.find((i) => i.protocolVersion !== this.runtime.plan.protocolVersion);
  }

  /** Run `op` on the locked interface; one retry on the locked version fallback; otherwise degrade. */
  private async call<T>(op: (t: Transport, o?: RequestOptions) => Promise<T>, options?: RequestOptions): Promise<T> {
    try {
      return await op(this.primary, options);
    } catch (error) {
      const kind: AgentErrorKind | undefined = classifySdkError(error);
      if (!kind) throw error;
      const next = kind === 'version-not-supported' ? this.versionFallback() : undefined;
      if (!next) throw this.runtime.degrade(kind, `${kind} on ${describe(this.runtime.plan)}; the plan has no locked alternative for it`, error);
      try {
        return await op(await this.make(next), withoutPlanHeaders(options));
      } catch (second) {
        throw this.runtime.degrade(kind, `${kind} on ${describe(this.runtime.plan)}, then the locked fallback ${describe(next)} failed too`, second);
      }
    }
  }
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
  return `${iface.protocolBinding} ${iface.protocolVersion} at ${iface.url}`;
}
