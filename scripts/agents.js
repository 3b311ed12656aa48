/**
 * Real `@a2a-js/sdk` A2A servers for tests and demos (plain ESM JavaScript, no build step).
 *
 * `startAgent()` boots an Express app on 127.0.0.1:<random port> wired with the SDK's own
 * `DefaultRequestHandler` + `InMemoryTaskStore` + a trivial echo `AgentExecutor`, mounted through
 * the SDK's express adapters:
 *
 *   GET  /.well-known/agent-card.json  -> agentCardHandler   (or /.well-known/agent.json, see below)
 *   POST /a2a/jsonrpc                  -> jsonRpcHandler
 *   *    /a2a/rest/...                 -> restHandler
 *
 * No protocol behaviour is hand-rolled; the only harness-owned pieces are request recording,
 * an optional Bearer gate in front of /a2a/*, and the way the card is handed to the SDK (below).
 *
 * How the card is handed to the SDK (and why)
 * -------------------------------------------
 * Cards are given to the harness as A2A 1.0 ProtoJSON (the wire format: `securitySchemes:
 * {bearer: {httpAuthSecurityScheme: {...}}}`, parts with `text`, ...). The SDK works internally
 * with ts-proto objects (`securitySchemes: {bearer: {scheme: {$case: 'httpAuthSecurityScheme',
 * value: {...}}}}`), and SDK 1.3.0's card handlers are inconsistent about which one they get:
 *   - the 1.0 path of `agentCardHandler` serves `JSON.stringify(await provider())` verbatim
 *     (no `AgentCard.toJSON`, no validation, unknown fields kept), so an internal ts-proto card
 *     would be served with `$case` keys, i.e. NOT as valid ProtoJSON;
 *   - the v0.3 compat path (`toCompatAgentCard`) and the JSON-RPC/REST version checks expect the
 *     internal ts-proto shape (a ProtoJSON security scheme there makes the compat card a 500).
 * So the provider returns `AgentCard.fromJSON(card)` (internal shape, for the SDK's logic) carrying
 * a non-enumerable `toJSON()` that returns a snapshot of the card exactly as given. The 1.0 path
 * therefore serves the given JSON byte-for-byte (`JSON.stringify` honours `toJSON`), while the
 * compat translation and transport version negotiation see the shape they expect. Caching headers
 * (Cache-Control, ETag, Vary, 304) are entirely the SDK's.
 *
 * `setCard()` swaps both the served card and the card the request handler uses (for
 * A2A-Version/transport validation), like a redeployed agent.
 *
 * Extended card
 * -------------
 * `extendedCard` is handed to the SDK as `DefaultRequestHandler`'s `extendedAgentCardProvider`
 * (internal shape via the same `toServedCard`), as a plain OBJECT, not a function, so the SDK's
 * own rule applies (SDK 1.3.0 `getAuthenticatedExtendedAgentCard`):
 *   - public card without `capabilities.extendedAgentCard: true` -> UnsupportedOperationError;
 *   - no provider -> ExtendedAgentCardNotConfiguredError;
 *   - `context.user.isAuthenticated` -> the extended card; otherwise -> the PUBLIC card.
 * With `bearerToken`, the harness's `userBuilder` makes a request an authenticated user only
 * when it carries `Authorization: Bearer <token>` (the gate in front of /a2a already 401s the
 * rest). Without `bearerToken` every user is unauthenticated, so the SDK answers the extended-card
 * methods with the public card. The SDK serialises the extended card itself (`AgentCard.toJSON`
 * for 1.0, `toCompatAgentCard` for 0.3), so it is NOT served byte-for-byte like the public card.
 * `setExtendedCard()` swaps (or, with `undefined`, removes) the provider.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { AgentCard as AgentCardCodec, Role, TaskState } from '@a2a-js/sdk';
import { PushNotificationNotSupportedError } from '@a2a-js/sdk/errors';
import {
  AgentEvent,
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';

export const CARD_PATH = '/.well-known/agent-card.json';
export const LEGACY_CARD_PATH = '/.well-known/agent.json';
export const JSONRPC_PATH = '/a2a/jsonrpc';
export const REST_PATH = '/a2a/rest';

/**
 * A valid A2A 1.0 card (ProtoJSON) for an agent served at `origin`.
 *
 * @param {string} origin e.g. `http://127.0.0.1:54321` (a trailing slash is ignored)
 * @param {Record<string, unknown>} [overrides] shallow-merged over the top-level fields
 * @param {{ legacy?: boolean }} [options] `legacy: true` appends a JSONRPC 0.3 interface at the
 *   JSON-RPC URL (needed for v0.3 compat: the SDK only serves a 0.3 card / accepts 0.3 JSON-RPC
 *   when the card declares a 0.3 interface)
 * @returns {Record<string, any>}
 */
export function sampleCard(origin, overrides = {}, options = {}) {
  const base = origin.replace(/\/+$/, '');
  const jsonRpcUrl = base + JSONRPC_PATH;
  const restUrl = base + REST_PATH;
  const supportedInterfaces = [
    { url: jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ];
  if (options.legacy) {
    supportedInterfaces.push({ url: jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' });
  }
  return {
    name: 'Market Research Agent',
    description: 'Sizes markets and produces research briefs with citations.',
    version: '2.4.0',
    supportedInterfaces,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [{ uri: 'https://example.com/ext/citations/v1', required: false }],
    },
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/pdf'],
    skills: [
      {
        id: 'market-size',
        name: 'Market sizing',
        description: 'Estimates total addressable market for a product category and region.',
        tags: ['market', 'research'],
        inputModes: ['text/plain'],
        outputModes: ['application/json', 'application/pdf'],
      },
    ],
    ...overrides,
  };
}

/** Internal ts-proto card for the SDK, serialising (JSON.stringify) to the card exactly as given. */
function toServedCard(card) {
  const snapshot = JSON.parse(JSON.stringify(card));
  let internal;
  try {
    internal = AgentCardCodec.fromJSON(snapshot);
  } catch {
    internal = JSON.parse(JSON.stringify(card));
  }
  Object.defineProperty(internal, 'toJSON', { value: () => snapshot, enumerable: false });
  return internal;
}

/** DefaultRequestHandler whose card can be swapped at runtime (drift). */
class LiveCardRequestHandler extends DefaultRequestHandler {
  /** With `strictPush`: a message carrying a push config, when the live card does not push, is PushNotificationNotSupported. */
  strictPush = false;
  refusePush(params) {
    if (
      this.strictPush &&
      params?.configuration?.taskPushNotificationConfig &&
      !this.liveCard?.capabilities?.pushNotifications
    ) {
      throw new PushNotificationNotSupportedError();
    }
  }
  async sendMessage(params, context) {
    this.refusePush(params);
    return super.sendMessage(params, context);
  }
  async *sendMessageStream(params, context) {
    this.refusePush(params);
    yield* super.sendMessageStream(params, context);
  }
  /** @param {any} card internal card */
  setLiveCard(card) {
    // `agentCard` is TS-private in the SDK but a plain field at runtime; keep it in sync so
    // capability checks that read it directly follow the swap too.
    this.agentCard = card;
    this.liveCard = card;
  }
  async getAgentCard() {
    return this.liveCard ?? super.getAgentCard();
  }
}

/** Echo executor: answers every message with one agent Message `echo: <text of the text parts>`. */
const echoExecutor = {
  async execute(requestContext, eventBus) {
    const text = (requestContext.userMessage?.parts ?? [])
      .filter((p) => p.content?.$case === 'text')
      .map((p) => p.content.value)
      .join('\n');
    eventBus.publish(
      AgentEvent.message({
        messageId: randomUUID(),
        contextId: requestContext.contextId,
        taskId: '',
        role: Role.ROLE_AGENT,
        parts: [
          {
            content: { $case: 'text', value: `echo: ${text}` },
            metadata: undefined,
            filename: '',
            mediaType: 'text/plain',
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      }),
    );
    eventBus.finished();
  },
  async cancelTask() {
    // The task ends in the same call: nothing left to cancel.
  },
};

/**
 * Task executor: publishes a working Task at once, then after `delayMs` a completed status whose
 * message is `done: <text of the text parts>` (a long-running task, to break a stream mid-task).
 */
function taskExecutor(delayMs) {
  return {
    async execute(requestContext, eventBus) {
      const { taskId, contextId } = requestContext;
      const text = (requestContext.userMessage?.parts ?? [])
        .filter((p) => p.content?.$case === 'text')
        .map((p) => p.content.value)
        .join('\n');
      eventBus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
          artifacts: [],
          history: [],
          metadata: undefined,
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const message = {
        messageId: randomUUID(),
        contextId,
        taskId,
        role: Role.ROLE_AGENT,
        parts: [
          {
            content: { $case: 'text', value: `done: ${text}` },
            metadata: undefined,
            filename: '',
            mediaType: 'text/plain',
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      eventBus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_COMPLETED, message, timestamp: undefined },
          metadata: undefined,
        }),
      );
      eventBus.finished();
    },
    async cancelTask() {
      // Not used by the tests: the task runs to its end.
    },
  };
}

/**
 * Start a real SDK A2A server on 127.0.0.1 with a random port.
 *
 * @param {{
 *   card: Record<string, any> | ((origin: string, extra: { grpcUrl: string | undefined }) => Record<string, any>),
 *   legacyCompat?: boolean,
 *   grpc?: boolean,
 *   grpcCredentials?: import('@grpc/grpc-js').ServerCredentials,
 *   taskDelayMs?: number,
 *   strictPush?: boolean,
 *   bearerToken?: string,
 *   serveLegacyPathOnly?: boolean,
 *   cardVersions?: string[],
 *   cardVersionRefusal?: 'http-400' | 'jsonrpc' | 'error-info',
 *   port?: number,
 *   extendedCard?: Record<string, any> | ((origin: string) => Record<string, any>),
 *   perRequestCard?: (card: Record<string, any>) => Record<string, any> | Promise<Record<string, any>>,
 * }} opts  `port`: listen on this port instead of a random one (the demo uses fixed ports so its lockfile is reproducible).
 *   `extendedCard`: served by the SDK's extended-card methods (see "Extended card" above); the public
 *   card must set `capabilities.extendedAgentCard: true` for the SDK to serve it.
 *   `grpc`: also serve the SDK's gRPC service (see startGrpcServer below); its address is `grpcUrl`.
 *   `grpcCredentials`: the gRPC server's `ServerCredentials` (TLS, mutual TLS); default plaintext.
 *   `taskDelayMs`: answer with a working Task that completes this many ms later (see taskExecutor).
 *   `strictPush`: answer SendMessage / SendStreamingMessage carrying a push config with the SDK's
 *   PushNotificationNotSupportedError (-32003) while the served card does not push (the SDK itself
 *   silently ignores such a config); the SDK handlers serialise it per binding.
 *   `perRequestCard`: called with the card as given on every public card request; its result is served
 *   (a framework that signs its card afresh on each request, as Mastra does).
 *   `cardVersions`: the card path refuses a request whose `A2A-Version` is not listed (a version-picky
 *   framework), per `cardVersionRefusal`: `http-400` (default) a 400 with a text body; `jsonrpc` a 200
 *   whose body is the JSON-RPC VersionNotSupported error (-32009); `error-info` a 400 whose body is a
 *   `google.rpc.Status` with an ErrorInfo of reason VERSION_NOT_SUPPORTED.
 */
export async function startAgent(opts) {
  const server = http.createServer();
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(undefined);
    });
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  const origin = `http://127.0.0.1:${address.port}`;
  const grpcServer = opts.grpc ? await startGrpcServer(opts.grpcCredentials) : undefined;
  const grpcUrl = grpcServer ? `127.0.0.1:${grpcServer.port}` : undefined;

  const initial = typeof opts.card === 'function' ? opts.card(origin, { grpcUrl }) : opts.card;
  let served = toServedCard(initial);
  let given = initial;

  const legacyCompat = opts.legacyCompat ? { enabled: true } : undefined;
  const initialExtended = typeof opts.extendedCard === 'function' ? opts.extendedCard(origin) : opts.extendedCard;
  const requestHandler = new LiveCardRequestHandler(
    served,
    new InMemoryTaskStore(),
    opts.taskDelayMs === undefined ? echoExecutor : taskExecutor(opts.taskDelayMs),
    new DefaultExecutionEventBusManager(),
    undefined, // pushNotificationStore
    undefined, // pushNotificationSender
    initialExtended === undefined ? undefined : toServedCard(initialExtended),
  );
  requestHandler.setLiveCard(served);
  requestHandler.strictPush = opts.strictPush === true;

  /** @type {Array<{ method: string; path: string; headers: Record<string, string | string[] | undefined> }>} */
  const requests = [];

  const app = express();
  app.disable('x-powered-by');
  app.use((req, _res, next) => {
    requests.push({ method: req.method, path: req.path, headers: { ...req.headers } });
    next();
  });
  /** Extra node:http handlers by exact path (`serve`), e.g. a JWKS on the card's own origin. */
  const extraRoutes = new Map();
  app.use((req, res, next) => {
    const handler = extraRoutes.get(req.path);
    if (handler) return handler(req, res);
    next();
  });

  if (opts.cardVersions) {
    const accepted = opts.cardVersions;
    app.use([CARD_PATH, LEGACY_CARD_PATH], (req, res, next) => {
      const asked = String(req.headers['a2a-version'] ?? '');
      if (accepted.includes(asked)) return next();
      const message = `A2A-Version ${asked} not supported`;
      if (opts.cardVersionRefusal === 'jsonrpc')
        return res.status(200).json({ jsonrpc: '2.0', id: null, error: { code: -32009, message } });
      if (opts.cardVersionRefusal === 'error-info') {
        return res.status(400).json({
          error: {
            code: 400,
            status: 'FAILED_PRECONDITION',
            message,
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'VERSION_NOT_SUPPORTED',
                domain: 'a2a-protocol.org',
              },
            ],
          },
        });
      }
      res.status(400).type('text/plain').send(message);
    });
  }
  // `perRequestCard`: the card served is made afresh for each request (e.g. signed again).
  const cardRouter = agentCardHandler({
    agentCardProvider: async () => (opts.perRequestCard ? toServedCard(await opts.perRequestCard(given)) : served),
    legacyCompat,
  });
  app.use(opts.serveLegacyPathOnly ? LEGACY_CARD_PATH : CARD_PATH, cardRouter);

  const token = opts.bearerToken;
  /** @type {import('@a2a-js/sdk/server/express').UserBuilder} */
  const userBuilder = token
    ? async (req) => {
        const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
        return m && m[1] === token
          ? { isAuthenticated: true, userName: 'bearer-client' }
          : { isAuthenticated: false, userName: '' };
      }
    : UserBuilder.noAuthentication;
  if (token) {
    app.use('/a2a', (req, res, next) => {
      const auth = req.headers.authorization ?? '';
      const m = /^Bearer\s+(.+)$/i.exec(auth);
      if (m && m[1] === token) return next();
      res.setHeader('WWW-Authenticate', 'Bearer realm="a2a"');
      res.status(401).json({ error: 'unauthorized' });
    });
  }
  app.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler, userBuilder, legacyCompat }));
  app.use(REST_PATH, restHandler({ requestHandler, userBuilder, legacyCompat }));
  if (grpcServer) await grpcServer.serve(requestHandler, requests, token);

  server.on('request', app);

  let closed;
  return {
    origin,
    cardUrl: origin + CARD_PATH,
    legacyCardUrl: origin + LEGACY_CARD_PATH,
    jsonRpcUrl: origin + JSONRPC_PATH,
    restUrl: origin + REST_PATH,
    grpcUrl,
    requests,
    setCard(card) {
      given = card;
      served = toServedCard(card);
      requestHandler.setLiveCard(served);
    },
    serve(path, handler) {
      if (handler) extraRoutes.set(path, handler);
      else extraRoutes.delete(path);
    },
    dropConnections() {
      for (const s of sockets) s.destroy();
    },
    setExtendedCard(card) {
      // `extendedAgentCardProvider` is TS-private in the SDK but a plain field at runtime.
      requestHandler.extendedAgentCardProvider = card === undefined ? undefined : toServedCard(card);
    },
    close() {
      grpcServer?.server.forceShutdown();
      closed ??= new Promise((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve(undefined)));
        server.closeIdleConnections?.();
        server.closeAllConnections?.();
        for (const s of sockets) s.destroy();
      });
      return closed;
    },
  };
}

/**
 * The SDK's own gRPC service (`@a2a-js/sdk/server/grpc`) on 127.0.0.1:<random port>, sharing the
 * HTTP server's request handler. Each call is recorded like an HTTP request: method `GRPC`, path
 * the gRPC method path, headers the call metadata. Needs the optional peer `@grpc/grpc-js`.
 */
async function startGrpcServer(credentials) {
  const grpc = await import('@grpc/grpc-js');
  const { A2AService, grpcService, UserBuilder: GrpcUserBuilder } = await import('@a2a-js/sdk/server/grpc');
  const server = new grpc.Server();
  const port = await new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', credentials ?? grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    server,
    port,
    /**
     * Add the SDK service for `requestHandler`, recording each call into `requests`. With `token`,
     * a call whose `authorization` metadata is not `Bearer <token>` ends with UNAUTHENTICATED
     * (recorded too), as the HTTP gate answers 401.
     */
    async serve(requestHandler, requests, token) {
      const impl = grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication });
      const recorded = {};
      for (const [name, handler] of Object.entries(impl)) {
        recorded[name] = (call, ...rest) => {
          requests.push({ method: 'GRPC', path: A2AService[name].path, headers: call.metadata.getMap() });
          const m = /^Bearer\s+(.+)$/i.exec(String(call.metadata.get('authorization')[0] ?? ''));
          if (token && !(m && m[1] === token)) {
            const refused = { code: grpc.status.UNAUTHENTICATED, details: 'unauthorized' };
            if (A2AService[name].responseStream) return void call.emit('error', refused);
            return void rest[0](refused);
          }
          return handler(call, ...rest);
        };
      }
      server.addService(A2AService, recorded);
    },
  };
}
