/**
 * gRPC plans: the SDK's gRPC transport (`@a2a-js/sdk/client/grpc`, peer `@grpc/grpc-js`) with a
 * call interceptor that refuses off-plan calls and sets the `a2a-version` and `a2a-extensions`
 * metadata and the credential (A2A 1.0 §10: service parameters travel as gRPC metadata), and a
 * check of SendMessage requests (parts, acceptedOutputModes, push config) before the call starts.
 * The channel is TLS unless the host is loopback or the caller opts in to plaintext
 * ({@link grpcChannel}; the SDK's own default is plaintext). An UNAUTHENTICATED answer with OAuth
 * client credentials tokens renews them and sends the call once more, as a 401 does over HTTP.
 */
import type { AgentCard } from '@a2a-js/sdk';
import type { Transport } from '@a2a-js/sdk/client';
import { isLoopbackUrl } from '../card/host.js';
import { mediaTypeIn } from '../card/media.js';
import { PlanViolationError } from '../errors.js';
import type { FallbackInterface, Plan } from '../negotiate/types.js';
import { peer } from './peer.js';
import { checkPushEndpoint } from './request-body.js';
import type { AgentRuntime, ChannelCredentials } from './types.js';

type SendParams = Parameters<Transport['sendMessage']>[0];

/** How a gRPC channel is secured: TLS with the caller's credentials or the system roots, or plaintext. */
export type GrpcChannelSecurity = 'credentials' | 'tls' | 'plaintext';

/**
 * The target (`host:port`) and channel security for a gRPC interface URL:
 * - `credentials` given (`grpcChannelCredentials`): those, always;
 * - `grpcs://` or `https://`: TLS with the system's root certificates;
 * - a loopback host (`localhost`, 127.0.0.0/8, `::1`), bare `host:port` or `grpc://` / `http://`: plaintext;
 * - another host, bare `host:port`: TLS, or plaintext with `allowInsecure`;
 * - another host, `grpc://` / `http://` (plaintext asked for): plaintext with `allowInsecure`, else refused.
 * @throws PlanViolationError (via `violation`) plaintext to a host that is not loopback without `allowInsecure`
 */
export function grpcChannel(
  url: string,
  options: { allowInsecure: boolean; hasCredentials: boolean },
  violation: (message: string) => Error,
): { target: string; security: GrpcChannelSecurity } {
  const target = grpcTarget(url);
  if (options.hasCredentials) return { target, security: 'credentials' };
  if (/^(grpcs|https):\/\//i.test(url)) return { target, security: 'tls' };
  const plaintextAsked = /^(grpc|http):\/\//i.test(url);
  if (isLoopbackUrl(target)) return { target, security: 'plaintext' };
  if (options.allowInsecure) return { target, security: 'plaintext' };
  if (plaintextAsked) {
    throw violation(
      `the gRPC interface ${target} is plaintext (${url.slice(0, url.indexOf(':'))}://) to a host that is not loopback: the credential and the messages would cross the network unencrypted; use TLS (a grpcs:// or host:port interface), or loadLock({ allowInsecureGrpc: true }) for a network that encrypts below gRPC`,
    );
  }
  return { target, security: 'tls' };
}

/** A gRPC transport for `iface` under the plan of `runtime`; `credentials` (createClient's) win over loadLock's. */
export async function grpcTransport(
  runtime: AgentRuntime,
  iface: FallbackInterface,
  card: AgentCard,
  credentials?: ChannelCredentials,
): Promise<Transport> {
  const violation = (message: string) => new PlanViolationError(runtime.name, runtime.skill, message);
  const given = credentials ?? runtime.grpc.credentials;
  // Decided before anything is loaded or connected: a refused plaintext target never sees a packet.
  const channel = grpcChannel(
    iface.url,
    { allowInsecure: runtime.grpc.allowInsecure, hasCredentials: given !== undefined },
    violation,
  );
  const [{ GrpcTransportFactory }, grpc] = await peer(() =>
    Promise.all([import('@a2a-js/sdk/client/grpc'), import('@grpc/grpc-js')]),
  );
  const grpcChannelCredentials =
    channel.security === 'credentials'
      ? (given as import('@grpc/grpc-js').ChannelCredentials)
      : channel.security === 'tls'
        ? grpc.credentials.createSsl()
        : grpc.credentials.createInsecure();
  const { plan } = runtime;
  /** The credential as gRPC metadata `[name, value]` (read now). @throws PlanViolationError an apiKey in a query or cookie */
  const credentialHeaders = async (): Promise<Array<[string, string]>> =>
    (await runtime.placements(iface)).flatMap((p) => {
      if (Object.keys(p.query).length + Object.keys(p.cookies).length > 0)
        throw violation('an apiKey in a query parameter or cookie cannot travel over gRPC');
      return Object.entries(p.headers).map(([name, value]): [string, string] => [name.toLowerCase(), value]);
    });
  const version = iface.protocolVersion;

  const interceptor = planInterceptor(grpc, plan, version, violation, credentialHeaders);

  const inner = await new GrpcTransportFactory({
    grpcChannelCredentials,
    grpcCallOptions: { interceptors: [interceptor] },
    legacyCompat: { enabled: true },
  }).create(channel.target, card);
  const check = (params: SendParams): SendParams => checkSendRequest(runtime, params, violation);
  // The credential is read before a call starts, so an unset one (or an apiKey placement gRPC cannot
  // carry) is our typed error, not a gRPC status; the interceptor then reads it again to place it.
  const credentialsReady = async () => void (await credentialHeaders());
  const streaming = new Set<PropertyKey>(['sendMessageStream', 'resubscribeTask']);
  const unary = new Set<PropertyKey>([
    'getExtendedAgentCard',
    'sendMessage',
    'createTaskPushNotificationConfig',
    'getTaskPushNotificationConfig',
    'listTaskPushNotificationConfig',
    'deleteTaskPushNotificationConfig',
    'getTask',
    'cancelTask',
    'listTasks',
  ]);
  return new Proxy(inner, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || !(streaming.has(key) || unary.has(key)))
        return typeof value === 'function' ? value.bind(target) : value;
      const call = (args: unknown[]) => {
        if (key === 'sendMessage' || key === 'sendMessageStream') args[0] = check(args[0] as SendParams);
        if (key === 'createTaskPushNotificationConfig') checkPushEndpoint(runtime.pushEndpoint, args[0], violation);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
      if (streaming.has(key)) {
        return async function* (...args: unknown[]) {
          for (let renewed = false; ; renewed = true) {
            await credentialsReady();
            let started = false;
            try {
              for await (const event of call(args) as AsyncGenerator<unknown>) {
                started = true;
                yield event;
              }
              return;
            } catch (error) {
              // Refused before its first event: once more with a new OAuth token (as a 401 over HTTP).
              if (started || renewed || !refusedCredential(error) || !runtime.renew()) throw error;
            }
          }
        };
      }
      return async (...args: unknown[]) => {
        await credentialsReady();
        try {
          return await call(args);
        } catch (error) {
          // An OAuth access token refused (revoked, expired early): once more with a new one.
          if (!refusedCredential(error) || !runtime.renew()) throw error;
          await credentialsReady();
          return call(args);
        }
      };
    },
  });
}

/** gRPC status UNAUTHENTICATED (16), as the SDK's gRPC transport reports it (`status`) or grpc-js does (`code`). */
function refusedCredential(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { status?: unknown; code?: unknown; details?: unknown };
  return e.status === 16 || (e.code === 16 && 'details' in e);
}

/** `host:port` for grpc-js from the interface URL (`grpc://`, `grpcs://`, `http(s)://` or already `host:port`). */
function grpcTarget(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/]+)/i.exec(url);
  return m ? m[1]! : url;
}

/** SendMessage (SDK request object): parts in the locked input modes, locked output modes, push only when locked. */
function checkSendRequest(runtime: AgentRuntime, params: SendParams, violation: (m: string) => Error): SendParams {
  for (const part of params.message?.parts ?? []) {
    const c = part.content?.$case;
    const type =
      part.mediaType || (c === 'text' ? 'text/plain' : c === 'data' ? 'application/json' : 'application/octet-stream');
    if (!mediaTypeIn(runtime.inputModes, type))
      throw violation(
        `a message part of type ${type} is not in the locked input modes (${runtime.inputModes.join(', ')})`,
      );
  }
  const configuration = params.configuration;
  if (configuration?.taskPushNotificationConfig && runtime.plan.delivery !== 'push')
    throw violation(`a push notification config, but the locked delivery is ${runtime.plan.delivery}`);
  if (configuration?.taskPushNotificationConfig)
    checkPushEndpoint(runtime.pushEndpoint, configuration.taskPushNotificationConfig, violation);
  const modes = configuration?.acceptedOutputModes ?? [];
  for (const mode of modes) {
    if (!mediaTypeIn(runtime.plan.acceptedOutputModes, mode))
      throw violation(`accepted output mode ${JSON.stringify(mode)} is not locked`);
  }
  if (modes.length > 0) return params;
  return {
    ...params,
    configuration: {
      ...(configuration as NonNullable<SendParams['configuration']>),
      acceptedOutputModes: [...runtime.plan.acceptedOutputModes],
    },
  };
}

/**
 * The interceptor that holds every gRPC call to the plan: a stream or push config call only on a
 * plan of that delivery, the a2a-version and extensions metadata the locked ones (a conflicting
 * one is a violation), and the credential placed (read as the call starts; unset: UNAUTHENTICATED).
 */
function planInterceptor(
  grpc: typeof import('@grpc/grpc-js'),
  plan: Plan,
  version: string,
  violation: (message: string) => PlanViolationError,
  credentialHeaders: () => Promise<Array<[string, string]>>,
): import('@grpc/grpc-js').Interceptor {
  return (options, nextCall) => {
    const path = options.method_definition.path;
    const method = path.slice(path.lastIndexOf('/') + 1);
    if (/^(SendStreamingMessage|SubscribeToTask|TaskSubscription)$/.test(method) && plan.delivery !== 'stream') {
      throw violation(`a streaming call (${method}), but the locked delivery is ${plan.delivery}`);
    }
    if (/^(Create|Set)TaskPushNotificationConfig$/.test(method) && plan.delivery !== 'push') {
      throw violation(`a push notification config (${method}), but the locked delivery is ${plan.delivery}`);
    }
    return new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        const asked = metadata.get('a2a-version').map(String);
        if (asked.some((v) => v.trim() !== version && !v.trim().startsWith(`${version}.`))) {
          throw violation(
            `a2a-version ${JSON.stringify(asked.join(',').slice(0, 20))} conflicts with the locked ${version}`,
          );
        }
        for (const name of ['a2a-extensions', 'x-a2a-extensions']) {
          for (const uri of metadata
            .get(name)
            .flatMap((v) => String(v).split(','))
            .map((s) => s.trim())
            .filter(Boolean)) {
            if (!plan.extensions.includes(uri)) throw violation(`extension ${uri} is not locked`);
          }
          metadata.remove(name);
        }
        metadata.set('a2a-version', version);
        if (plan.extensions.length > 0)
          metadata.set(version.startsWith('0.') ? 'x-a2a-extensions' : 'a2a-extensions', plan.extensions.join(', '));
        // Credentials are read now (they may be async); the call starts only once they are placed.
        credentialHeaders()
          .then((headers) => {
            for (const [name, value] of headers) metadata.set(name, value);
            next(metadata, listener);
          })
          .catch((error: unknown) => {
            listener.onReceiveStatus({
              code: grpc.status.UNAUTHENTICATED,
              details: error instanceof Error ? error.message : String(error),
              metadata: new grpc.Metadata(),
            });
          });
      },
    });
  };
}
