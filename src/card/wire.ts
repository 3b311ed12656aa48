/**
 * The zod schemas of the A2A 1.0 / 0.3 wire forms of an agent card: what `normalizeCard`
 * (normalize.ts) validates a card against before reading it (1.0 ProtoJSON with `supportedInterfaces`, 0.3 and
 * 0.2.x JSON with a card-level `url`, both spellings of a security scheme and of a security
 * requirement), and the camelCase keys whose snake_case spelling is a card error. Loose objects:
 * unknown fields pass. Built on first use, once ({@link wireSchemas}). Pure.
 *
 * Spec: A2A 1.0 `specification/a2a.proto` AgentCard (§8.1 of the spec), 0.3 `types/src/types.ts`
 * AgentCard.
 */
import { z } from 'zod/mini';
import { type Format, once } from '../json-document.js';

/** The security scheme schemas, 1.0 wrappers and 0.3 types (see {@link buildSchemas}). */
function schemeSchemas() {
  /** The 1.0 SecurityScheme oneof wrappers, by wrapper key. */
  const SchemeVariants = {
    apiKeySecurityScheme: z.looseObject({ location: z.string(), name: z.string(), description: z.nullish(z.string()) }),
    httpAuthSecurityScheme: z.looseObject({
      scheme: z.string(),
      bearerFormat: z.nullish(z.string()),
      description: z.nullish(z.string()),
    }),
    oauth2SecurityScheme: z.looseObject({
      flows: z.record(z.string(), z.unknown()),
      oauth2MetadataUrl: z.nullish(z.string()),
      description: z.nullish(z.string()),
    }),
    openIdConnectSecurityScheme: z.looseObject({ openIdConnectUrl: z.string(), description: z.nullish(z.string()) }),
    mtlsSecurityScheme: z.looseObject({ description: z.nullish(z.string()) }),
  } as const;

  /** Their 0.3 equivalents, by `type`. */
  const SchemeByType = {
    apiKey: z.looseObject({ in: z.string(), name: z.string(), description: z.nullish(z.string()) }),
    http: z.looseObject({
      scheme: z.string(),
      bearerFormat: z.nullish(z.string()),
      description: z.nullish(z.string()),
    }),
    oauth2: z.looseObject({
      flows: z.record(z.string(), z.unknown()),
      oauth2MetadataUrl: z.nullish(z.string()),
      description: z.nullish(z.string()),
    }),
    openIdConnect: z.looseObject({ openIdConnectUrl: z.string(), description: z.nullish(z.string()) }),
    mutualTLS: z.looseObject({ description: z.nullish(z.string()) }),
  } as const;

  return { SchemeVariants, SchemeByType };
}

/** Build the wire schemas (once: see {@link wireSchemas}). */
function buildSchemas() {
  const { SchemeVariants, SchemeByType } = schemeSchemas();
  const strList = z.array(z.string());
  /** A string of at least one character. */
  const minOne = () => z.string().check(z.minLength(1));

  /** A 1.0 requirement `{schemes: {name: {list: [scopes]}}}` or a 0.3 one `{name: [scopes]}`. */
  const RequirementSchema = z.union([
    z.object({ schemes: z.record(z.string(), z.looseObject({ list: z.nullish(strList) })) }),
    z.record(z.string(), strList),
  ]);

  const ExtensionSchema = z.looseObject({
    uri: minOne(),
    required: z.nullish(z.boolean()),
    description: z.nullish(z.string()),
    params: z.nullish(z.record(z.string(), z.unknown())),
  });

  const CapabilitiesSchema = z.looseObject({
    streaming: z.nullish(z.boolean()),
    pushNotifications: z.nullish(z.boolean()),
    extendedAgentCard: z.nullish(z.boolean()),
    extensions: z.nullish(z.array(ExtensionSchema)),
  });

  const SkillSchema = z.looseObject({
    id: minOne(),
    name: z.string(),
    description: z.string(),
    tags: z.nullish(strList),
    examples: z.nullish(strList),
    inputModes: z.nullish(strList),
    outputModes: z.nullish(strList),
    securityRequirements: z.nullish(z.array(RequirementSchema)),
    security: z.nullish(z.array(RequirementSchema)),
  });

  /** The fields every card shape has, spelt alike in 1.0 and 0.3. */
  const CommonCardSchema = z.looseObject({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    capabilities: z.nullish(CapabilitiesSchema),
    securitySchemes: z.nullish(z.record(z.string(), z.looseObject({}))),
    securityRequirements: z.nullish(z.array(RequirementSchema)),
    security: z.nullish(z.array(RequirementSchema)),
    defaultInputModes: strList,
    defaultOutputModes: strList,
    // Required by the spec, but omitted by frameworks whose plain LLM agent has no tools (Mastra's
    // 1.0 card): read as [] with a `skills-missing` warning. `null` is still an error.
    skills: z.optional(z.array(SkillSchema)),
  });

  /**
   * A2A 1.0 AgentInterface (proto `AgentInterface`). `protocolVersion` is REQUIRED by the spec, but
   * `a2a-sdk` (Python) serves it through `MessageToDict`, which omits an unset (empty) string: an
   * absent, null or empty version is read as the current one (normalize.ts, `interface-version-missing`).
   */
  const InterfaceSchema = z.looseObject({
    url: minOne(),
    protocolBinding: minOne(),
    protocolVersion: z.nullish(z.string()),
    tenant: z.nullish(z.string()),
  });

  /** The 1.0 card: `supportedInterfaces` carries url, binding and version. */
  const AgentCardV1Schema = z.extend(CommonCardSchema, {
    supportedInterfaces: z.array(InterfaceSchema).check(z.minLength(1)),
  });

  /** The 0.3 (and 0.2.x) card: card-level `url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`. */
  const AgentCardV03Schema = z.extend(CommonCardSchema, {
    url: minOne(),
    preferredTransport: z.nullish(minOne()),
    protocolVersion: z.nullish(z.string()),
    additionalInterfaces: z.nullish(z.array(z.looseObject({ url: minOne(), transport: minOne() }))),
    supportsAuthenticatedExtendedCard: z.nullish(z.boolean()),
  });

  return { RequirementSchema, CommonCardSchema, AgentCardV1Schema, AgentCardV03Schema, SchemeVariants, SchemeByType };
}

/** The card's wire schemas, built on the first call. */
const wireSchemas = once(buildSchemas);

type Schemas = ReturnType<typeof buildSchemas>;

/** The fields every card shape has (see `CommonCardSchema`), as parsed. */
export type CommonCard = z.infer<Schemas['CommonCardSchema']>;
/** A security requirement in either spelling, as parsed. */
export type WireRequirement = z.infer<Schemas['RequirementSchema']>;
/** A 1.0 SecurityScheme oneof wrapper key. */
export type SchemeWrapper = keyof Schemas['SchemeVariants'];
/** A 0.3 security scheme `type`. */
export type SchemeType = keyof Schemas['SchemeByType'];
/** The 1.0 wrapper `K`'s content, as parsed. */
export type SchemeVariant<K extends SchemeWrapper> = z.infer<Schemas['SchemeVariants'][K]>;

/** The 1.0 SecurityScheme oneof wrapper keys, in the order they are looked for. */
export function schemeWrappers(): SchemeWrapper[] {
  return Object.keys(wireSchemas().SchemeVariants) as SchemeWrapper[];
}

/** A 1.0 card (see `Format`). */
export const CardV1Format: Format<z.infer<Schemas['AgentCardV1Schema']>> = () => wireSchemas().AgentCardV1Schema;

/** A 0.3 (or 0.2.x) card (see `Format`). */
export const CardV03Format: Format<z.infer<Schemas['AgentCardV03Schema']>> = () => wireSchemas().AgentCardV03Schema;

/** The format of a 1.0 SecurityScheme wrapper's content. */
export function schemeVariantFormat<K extends SchemeWrapper>(key: K): Format<SchemeVariant<K>> {
  return () => wireSchemas().SchemeVariants[key] as never;
}

/** Whether `type` is a 0.3 security scheme type. */
export function isSchemeType(type: string): type is SchemeType {
  return Object.hasOwn(wireSchemas().SchemeByType, type);
}

/** The format of a 0.3 security scheme of `type`. */
export function schemeTypeFormat(type: SchemeType): Format<Record<string, unknown>> {
  return () => wireSchemas().SchemeByType[type] as never;
}

/** camelCase keys whose snake_case spelling is a card error rather than an unknown field. */
const CAMEL_KEYS = [
  'supportedInterfaces',
  'protocolBinding',
  'protocolVersion',
  'securitySchemes',
  'securityRequirements',
  'defaultInputModes',
  'defaultOutputModes',
  'inputModes',
  'outputModes',
  'pushNotifications',
  'extendedAgentCard',
  'preferredTransport',
  'additionalInterfaces',
  'supportsAuthenticatedExtendedCard',
  'documentationUrl',
  'iconUrl',
];
/** snake_case spelling → the camelCase key of {@link CAMEL_KEYS}. */
export const SNAKE_TO_CAMEL = new Map(CAMEL_KEYS.map((k) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), k]));
