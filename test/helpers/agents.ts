/**
 * Typed wrapper over `scripts/agents.js`: real `@a2a-js/sdk` (1.3.0) A2A servers on
 * 127.0.0.1:<random port> for integration/e2e tests (and, via the .js file, the demo script).
 * The implementation lives in scripts/agents.js (plain ESM so `node` can run it with no build);
 * read its header for how the card is handed to the SDK.
 *
 * Routes: GET /.well-known/agent-card.json (SDK `agentCardHandler`; with `serveLegacyPathOnly`
 * it is mounted at /.well-known/agent.json instead and agent-card.json is a plain Express 404),
 * POST /a2a/jsonrpc (SDK `jsonRpcHandler`), /a2a/rest/... (SDK `restHandler`). The agent (SDK
 * `DefaultRequestHandler` + `InMemoryTaskStore`) answers every message with one agent Message
 * whose single text part is `echo: <text of the request's text parts>`.
 *
 * Card handler behaviour (SDK 1.3.0, measured in agents.test.ts; our CLI always sends A2A-Version)
 * ----------------------------------------------------------------------------------------------
 * legacyCompat OFF: the `A2A-Version` header is ignored. Every GET returns the card exactly as
 *   given (JSON.stringify of the provider's value: unknown fields kept, no validation, nothing
 *   dropped), `Content-Type: application/json; charset=utf-8`, `Cache-Control: public,
 *   max-age=3600`, a weak ETag `W/"<16 hex of sha256(body)>"`, no `Vary`.
 * legacyCompat ON: the header picks the card shape; `Vary: A2A-Version` on every response and a
 *   separate ETag per shape.
 *   - header absent, empty, or a version in [0.3, 1.0) ("0.3", "0.3.0", "0.9")  -> v0.3-shaped card
 *     made by the SDK's `toCompatAgentCard`: top-level `url`/`preferredTransport`/`protocolVersion`
 *     taken from the FIRST supportedInterfaces entry whose protocolVersion is in [0.3, 1.0);
 *     further 0.3 entries become `additionalInterfaces`; securitySchemes become 0.3 OpenAPI form
 *     (`{type: 'http', scheme: 'Bearer'}`); `securityRequirements` -> `security: [{bearer: []}]`;
 *     `capabilities.extendedAgentCard` -> `supportsAuthenticatedExtendedCard`; unknown fields are
 *     DROPPED; and it also embeds the full 1.0 `supportedInterfaces` array (with `tenant: ""`
 *     added), so the "0.3" card is really a hybrid (the SDK client's own `isLegacyAgentCard()`
 *     returns false for it because supportedInterfaces is non-empty).
 *     If the card declares no interface in [0.3, 1.0) this is HTTP 400 with body
 *     `{"code":-32009,"message":"AgentCard must have at least one interface with a protocol
 *     version in [0.3, 1.0)."}` and no Cache-Control — i.e. a compat-enabled server whose card
 *     lacks a 0.3 interface answers header-less card requests with 400.
 *   - any other value ("1.0", "1.1", "2.0", "0.2", "garbage")  -> the 1.0 card exactly as given.
 *   So a client that sends `A2A-Version: 1.0` always sees the 1.0 card, compat or not.
 * 304: the SDK honours If-None-Match via Express `req.fresh`, which returns false when the request
 *   carries `Cache-Control: no-cache`. Node's global fetch ADDS `Cache-Control: no-cache` and
 *   `Pragma: no-cache` to any request with If-None-Match (fetch spec), so revalidating with
 *   fetch always gets 200; undici `request()` (or fetch with an explicit Cache-Control header,
 *   e.g. `max-age=0`) gets the 304. An ETag from one shape does not match the other shape.
 *
 * JSON-RPC / REST: both check the request's A2A-Version (absent = "0.3") against the
 * supportedInterfaces of the handler's current card for that binding and reject unsupported
 * versions (VersionNotSupported). With legacyCompat the JSON-RPC handler uses the v0.3 dialect
 * (`message/send`, `kind` parts) only when the header is absent or exactly "0.3", and that still
 * needs a JSONRPC 0.3 interface in the card (use `sampleCard(origin, {}, { legacy: true })`).
 * `setCard()` swaps the card used for these checks too.
 */
// @ts-expect-error -- plain ESM JavaScript (no .d.ts, allowJs is off); typed by the declarations below.
import * as impl from '../../scripts/agents.js';

/** A2A 1.0 AgentInterface as ProtoJSON. */
export interface AgentInterfaceJson {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
  [key: string]: unknown;
}

/** A2A 1.0 AgentSkill as ProtoJSON. */
export interface AgentSkillJson {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  securityRequirements?: Array<{ schemes: Record<string, { list: string[] }> }>;
  [key: string]: unknown;
}

/**
 * An A2A 1.0 AgentCard as it appears on the wire (ProtoJSON: `securitySchemes: {x:
 * {httpAuthSecurityScheme: {...}}}`, `securityRequirements: [{schemes: {x: {list: []}}}]`).
 * Not the SDK's `AgentCard` type, which is the internal ts-proto shape (`scheme.$case`).
 */
export interface AgentCard {
  name: string;
  description: string;
  version: string;
  supportedInterfaces: AgentInterfaceJson[];
  capabilities: {
    streaming?: boolean;
    pushNotifications?: boolean;
    extendedAgentCard?: boolean;
    extensions?: Array<{ uri: string; description?: string; required?: boolean; params?: Record<string, unknown> }>;
    [key: string]: unknown;
  };
  securitySchemes?: Record<string, Record<string, unknown>>;
  securityRequirements?: Array<{ schemes: Record<string, { list: string[] }> }>;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkillJson[];
  [key: string]: unknown;
}

/**
 * What the harness will serve: a well-formed {@link AgentCard} or any other JSON object
 * (a 0.3-shaped card, a deliberately broken one, ...). It is served verbatim either way.
 */
export type ServableCard = AgentCard | object;

export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/.well-known/agent-card.json`. */
  path: string;
  /** Node's incoming headers: names lower-cased. */
  headers: Record<string, string | string[] | undefined>;
}

export interface StartedAgent {
  /** e.g. http://127.0.0.1:54321 */
  origin: string;
  /** origin + '/.well-known/agent-card.json' (a 404 when `serveLegacyPathOnly`). */
  cardUrl: string;
  /** origin + '/.well-known/agent.json' (served only when `serveLegacyPathOnly`). */
  legacyCardUrl: string;
  /** origin + '/a2a/jsonrpc' */
  jsonRpcUrl: string;
  /** origin + '/a2a/rest' */
  restUrl: string;
  /** `127.0.0.1:<port>` of the SDK gRPC service, with `grpc: true`. */
  grpcUrl: string | undefined;
  /** Replace the served card (and the card the A2A handlers validate against); the next request sees it. */
  setCard(card: ServableCard): void;
  /**
   * Replace the extended card the SDK serves to authenticated users (`undefined`: none configured,
   * so the SDK answers ExtendedAgentCardNotConfigured). The next request sees it.
   */
  setExtendedCard(card: ServableCard | undefined): void;
  /**
   * Answer requests for exactly `path` with `handler` (a plain node:http listener, before the SDK
   * routes; still recorded in `requests`); `undefined` removes it. For documents an agent serves
   * beside its card, such as a JWKS at its own origin.
   */
  serve(path: string, handler: import('node:http').RequestListener | undefined): void;
  /** Destroy every open connection (a network break mid-stream); the server keeps listening. */
  dropConnections(): void;
  /** Every HTTP request received, in arrival order (including 401s and 404s). */
  requests: RecordedRequest[];
  /** Stops listening and destroys all sockets (idle keep-alive ones included). Idempotent. */
  close(): Promise<void>;
}

export interface StartAgentOptions {
  /** The card, or a function of the server origin (and the gRPC address) so it can embed the real URLs. */
  card: ServableCard | ((origin: string, extra: { grpcUrl: string | undefined }) => ServableCard);
  /**
   * Also serve the SDK's gRPC service (`@a2a-js/sdk/server/grpc`, same request handler) on
   * 127.0.0.1:<random port> (`grpcUrl`); each call is recorded with method `GRPC`, the gRPC method
   * path and the call metadata as headers.
   */
  grpc?: boolean;
  /** The gRPC server's credentials (TLS, mutual TLS: `ServerCredentials.createSsl`); default plaintext. */
  grpcCredentials?: import('@grpc/grpc-js').ServerCredentials;
  /**
   * Answer every message with a working Task that completes (`done: <text>`) this many ms later,
   * instead of the echo Message: a long-running task, to break a stream mid-task.
   */
  taskDelayMs?: number;
  /**
   * Answer SendMessage / SendStreamingMessage carrying a push config with the SDK's own
   * PushNotificationNotSupportedError (-32003) while the served card does not push
   * (`setCard`); the SDK by itself ignores such a config.
   */
  strictPush?: boolean;
  /** Enable the SDK's v0.3 compat on the card handler, JSON-RPC and REST handlers. */
  legacyCompat?: boolean;
  /**
   * If set, everything under /a2a (JSON-RPC and REST, not the public card) requires
   * `Authorization: Bearer <token>`; otherwise 401 `{"error":"unauthorized"}` with
   * `WWW-Authenticate: Bearer realm="a2a"`; with `grpc`, every gRPC call requires the metadata
   * `authorization: Bearer <token>`, otherwise status UNAUTHENTICATED.
   */
  bearerToken?: string;
  /** Serve the card ONLY at /.well-known/agent.json (the 0.2 path); agent-card.json is a 404. */
  serveLegacyPathOnly?: boolean;
  /** Listen on this port instead of a random one (an agent restarted on the same origin). */
  port?: number;
  /** The card paths refuse a request whose `A2A-Version` header is not listed here (a version-picky framework). */
  cardVersions?: string[];
  /**
   * How {@link cardVersions} refuses: `http-400` (default) a 400 with a text body; `jsonrpc` a 200
   * with the JSON-RPC VersionNotSupported error (-32009); `error-info` a 400 with a
   * `google.rpc.Status` whose ErrorInfo reason is VERSION_NOT_SUPPORTED.
   */
  cardVersionRefusal?: 'http-400' | 'jsonrpc' | 'error-info';
  /**
   * The authenticated extended card, served by the SDK's own support (`DefaultRequestHandler`'s
   * `extendedAgentCardProvider`): JSON-RPC `GetExtendedAgentCard`, REST `GET /extendedAgentCard`,
   * and with `legacyCompat` (and a 0.3 interface of that binding in the card) JSON-RPC
   * `agent/getAuthenticatedExtendedCard` and REST `GET /v1/card`. The public card must set
   * `capabilities.extendedAgentCard: true` (else the SDK answers UnsupportedOperation). The SDK
   * returns it only to authenticated users: with `bearerToken`, requests carrying that token;
   * anyone else gets the PUBLIC card from these methods (SDK 1.3.0 behaviour). Without this
   * option the SDK answers ExtendedAgentCardNotConfigured. Served as the SDK serialises it
   * (1.0: `AgentCard.toJSON`, unknown fields dropped; 0.3: `toCompatAgentCard`), not verbatim.
   */
  extendedCard?: ServableCard | ((origin: string) => ServableCard);
  /**
   * Called on every public card request with the card as given (or last `setCard`); the card it
   * resolves to is served instead (a framework that signs its card afresh per request). The SDK
   * request handler keeps the card as given.
   */
  perRequestCard?: (card: ServableCard) => ServableCard | Promise<ServableCard>;
}

export interface SampleCardOptions {
  /** Append a `JSONRPC` `0.3` interface at the JSON-RPC URL (needed for v0.3 compat). */
  legacy?: boolean;
}

/** '/.well-known/agent-card.json' */
export const CARD_PATH: string = impl.CARD_PATH;
/** '/.well-known/agent.json' */
export const LEGACY_CARD_PATH: string = impl.LEGACY_CARD_PATH;
/** '/a2a/jsonrpc' */
export const JSONRPC_PATH: string = impl.JSONRPC_PATH;
/** '/a2a/rest' */
export const REST_PATH: string = impl.REST_PATH;

/** Start a real SDK A2A server on 127.0.0.1 with a random port. Always `close()` it. */
export const startAgent: (opts: StartAgentOptions) => Promise<StartedAgent> = impl.startAgent;

/**
 * A valid A2A 1.0 card (ProtoJSON) for an agent at `origin`: "Market Research Agent" 2.4.0,
 * JSONRPC 1.0 at origin/a2a/jsonrpc, HTTP+JSON 1.0 at origin/a2a/rest (+ JSONRPC 0.3 at the
 * JSON-RPC URL with `{legacy: true}`), bearer security, one skill `market-size`.
 * `overrides` are shallow-merged over the top-level fields (they replace whole values).
 */
export const sampleCard: (origin: string, overrides?: Partial<AgentCard>, options?: SampleCardOptions) => AgentCard =
  impl.sampleCard;

/**
 * The `card` of {@link startAgent} for a gRPC agent: {@link sampleCard} with its gRPC 1.0 interface first
 * (at the server's `grpcUrl`, or `grpc://<grpcUrl>` with `scheme`), then the HTTP ones.
 */
export function grpcFirstCard(scheme = '') {
  return (origin: string, { grpcUrl }: { grpcUrl: string | undefined }): AgentCard => {
    const card = sampleCard(origin);
    return {
      ...card,
      supportedInterfaces: [
        { url: `${scheme}${grpcUrl!}`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
        ...card.supportedInterfaces,
      ],
    };
  };
}
