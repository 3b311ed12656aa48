/**
 * The one card model negotiation works on, whatever shape the agent served (A2A 1.0 ProtoJSON,
 * 0.3 JSON with a `type` discriminator, 0.3 proto-wrapper JSON, 0.2.x).
 *
 * Names follow the A2A 1.0 specification (`specification/a2a.proto`, AgentCard and friends).
 * Every list keeps the card's order; nothing here is sorted.
 */

/** Canonical core binding strings (A2A 1.0 §5.8, AgentInterface.protocol_binding). */
export const CORE_BINDINGS = ['JSONRPC', 'GRPC', 'HTTP+JSON'] as const;

/** One way to reach the agent (A2A 1.0 AgentInterface). */
export interface AgentInterface {
  /** Absolute URL (HTTP bindings) or `host:port` (gRPC). */
  url: string;
  /** `"JSONRPC"`, `"GRPC"`, `"HTTP+JSON"`, or a custom binding URI. */
  protocolBinding: string;
  /** `Major.Minor`, e.g. `"1.0"`, `"0.3"`. */
  protocolVersion: string;
  /** Opaque routing id to copy into every request to this interface (A2A 1.0 §8.3.2). */
  tenant?: string;
}

/** A security scheme, by variant (A2A 1.0 SecurityScheme oneof; 0.3 `type` discriminator). */
export type SecurityScheme =
  | { type: 'apiKey'; location: string; name: string; description?: string }
  | { type: 'http'; scheme: string; bearerFormat?: string; description?: string }
  | { type: 'oauth2'; flows: Record<string, unknown>; oauth2MetadataUrl?: string; description?: string }
  | { type: 'openIdConnect'; openIdConnectUrl: string; description?: string }
  | { type: 'mtls'; description?: string };

/**
 * One alternative of a security requirement list: every scheme named must be satisfied (AND),
 * each with the scopes listed. A requirement list is an OR of these (A2A 0.3 `security`,
 * 1.0 `securityRequirements`).
 */
export type SecurityRequirement = Record<string, string[]>;

/** A2A 1.0 AgentExtension. */
export interface AgentExtension {
  uri: string;
  required: boolean;
  description?: string;
  params?: Record<string, unknown>;
}

/** A2A 1.0 AgentSkill, the fields negotiation reads plus the descriptive ones. */
export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  /** Overrides the card's `defaultInputModes` when present and non-empty. */
  inputModes?: string[];
  /** Overrides the card's `defaultOutputModes` when present and non-empty. */
  outputModes?: string[];
  /** Overrides the card's `securityRequirements` when present and non-empty. */
  securityRequirements?: SecurityRequirement[];
}

/** A2A 1.0 AgentCapabilities with absent booleans read as false. */
export interface AgentCapabilities {
  streaming: boolean;
  pushNotifications: boolean;
  extendedAgentCard: boolean;
  extensions: AgentExtension[];
}

/** The shape the card was served in. */
export type CardShape = '1.0' | '0.3' | '0.2' | 'hybrid';

/** A normalised agent card (A2A 1.0 AgentCard semantics). */
export interface NormalizedCard {
  name: string;
  description: string;
  /** The agent's own version (not the protocol version). */
  version: string;
  /** The protocol shape the card was written in; `hybrid` carries 1.0 and 0.3 fields. */
  shape: CardShape;
  supportedInterfaces: AgentInterface[];
  capabilities: AgentCapabilities;
  securitySchemes: Record<string, SecurityScheme>;
  securityRequirements: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
}

/** A non-fatal finding while reading a card or a manifest. `code` is stable kebab-case. */
export interface Warning {
  code: string;
  message: string;
  /** JSON path inside the document, when the warning is about one field. */
  path?: string;
}
