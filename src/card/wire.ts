/**
 * The zod schemas of the A2A 1.0 / 0.3 wire forms of an agent card: what `normalizeCard`
 * (normalize.ts) validates a card against before reading it (1.0 ProtoJSON with `supportedInterfaces`, 0.3 and
 * 0.2.x JSON with a card-level `url`, both spellings of a security scheme and of a security
 * requirement), and the camelCase keys whose snake_case spelling is a card error. Loose objects:
 * unknown fields pass. Pure.
 *
 * Spec: A2A 1.0 `specification/a2a.proto` AgentCard (§8.1 of the spec), 0.3 `types/src/types.ts`
 * AgentCard.
 */
import { z } from 'zod';

const strList = z.array(z.string());

/** A 1.0 requirement `{schemes: {name: {list: [scopes]}}}` or a 0.3 one `{name: [scopes]}`. */
export const RequirementSchema = z.union([
  z.object({ schemes: z.record(z.string(), z.looseObject({ list: strList.nullish() })) }),
  z.record(z.string(), strList),
]);

const ExtensionSchema = z.looseObject({
  uri: z.string().min(1),
  required: z.boolean().nullish(),
  description: z.string().nullish(),
  params: z.record(z.string(), z.unknown()).nullish(),
});

const CapabilitiesSchema = z.looseObject({
  streaming: z.boolean().nullish(),
  pushNotifications: z.boolean().nullish(),
  extendedAgentCard: z.boolean().nullish(),
  extensions: z.array(ExtensionSchema).nullish(),
});

const SkillSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  description: z.string(),
  tags: strList.nullish(),
  examples: strList.nullish(),
  inputModes: strList.nullish(),
  outputModes: strList.nullish(),
  securityRequirements: z.array(RequirementSchema).nullish(),
  security: z.array(RequirementSchema).nullish(),
});

/** The fields every card shape has, spelt alike in 1.0 and 0.3. */
export const CommonCardSchema = z.looseObject({
  name: z.string(),
  description: z.string(),
  version: z.string(),
  capabilities: CapabilitiesSchema.nullish(),
  securitySchemes: z.record(z.string(), z.looseObject({})).nullish(),
  securityRequirements: z.array(RequirementSchema).nullish(),
  security: z.array(RequirementSchema).nullish(),
  defaultInputModes: strList,
  defaultOutputModes: strList,
  // Required by the spec, but omitted by frameworks whose plain LLM agent has no tools (Mastra's
  // 1.0 card): read as [] with a `skills-missing` warning. `null` is still an error.
  skills: z.array(SkillSchema).optional(),
});

/** A2A 1.0 AgentInterface (proto `AgentInterface`). */
const InterfaceSchema = z.looseObject({
  url: z.string().min(1),
  protocolBinding: z.string().min(1),
  protocolVersion: z.string().min(1),
  tenant: z.string().nullish(),
});

/** The 1.0 card: `supportedInterfaces` carries url, binding and version. */
export const AgentCardV1Schema = CommonCardSchema.extend({
  supportedInterfaces: z.array(InterfaceSchema).min(1),
});

/** The 0.3 (and 0.2.x) card: card-level `url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`. */
export const AgentCardV03Schema = CommonCardSchema.extend({
  url: z.string().min(1),
  preferredTransport: z.string().min(1).nullish(),
  protocolVersion: z.string().nullish(),
  additionalInterfaces: z.array(z.looseObject({ url: z.string().min(1), transport: z.string().min(1) })).nullish(),
  supportsAuthenticatedExtendedCard: z.boolean().nullish(),
});

/** The 1.0 SecurityScheme oneof wrappers, by wrapper key. */
export const SchemeVariants = {
  apiKeySecurityScheme: z.looseObject({ location: z.string(), name: z.string(), description: z.string().nullish() }),
  httpAuthSecurityScheme: z.looseObject({ scheme: z.string(), bearerFormat: z.string().nullish(), description: z.string().nullish() }),
  oauth2SecurityScheme: z.looseObject({ flows: z.record(z.string(), z.unknown()), oauth2MetadataUrl: z.string().nullish(), description: z.string().nullish() }),
  openIdConnectSecurityScheme: z.looseObject({ openIdConnectUrl: z.string(), description: z.string().nullish() }),
  mtlsSecurityScheme: z.looseObject({ description: z.string().nullish() }),
} as const;

/** Their 0.3 equivalents, by `type`. */
export const SchemeByType = {
  apiKey: z.looseObject({ in: z.string(), name: z.string(), description: z.string().nullish() }),
  http: z.looseObject({ scheme: z.string(), bearerFormat: z.string().nullish(), description: z.string().nullish() }),
  oauth2: z.looseObject({ flows: z.record(z.string(), z.unknown()), oauth2MetadataUrl: z.string().nullish(), description: z.string().nullish() }),
  openIdConnect: z.looseObject({ openIdConnectUrl: z.string(), description: z.string().nullish() }),
  mutualTLS: z.looseObject({ description: z.string().nullish() }),
} as const;

/** camelCase keys whose snake_case spelling is a card error rather than an unknown field. */
const CAMEL_KEYS = [
  'supportedInterfaces', 'protocolBinding', 'protocolVersion', 'securitySchemes', 'securityRequirements',
  'defaultInputModes', 'defaultOutputModes', 'inputModes', 'outputModes', 'pushNotifications',
  'extendedAgentCard', 'preferredTransport', 'additionalInterfaces', 'supportsAuthenticatedExtendedCard',
  'documentationUrl', 'iconUrl',
];
/** snake_case spelling → the camelCase key of {@link CAMEL_KEYS}. */
export const SNAKE_TO_CAMEL = new Map(CAMEL_KEYS.map((k) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), k]));
