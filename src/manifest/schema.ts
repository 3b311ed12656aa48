/**
 * The manifest `a2a.json`: the client profile and the agents (and skills) it depends on.
 * Strict: an unknown key is an error (typos in a hand-edited file must not pass silently);
 * `$schema` is allowed at the top.
 */
import { z } from 'zod/mini';
import { CONCRETE_MEDIA_TYPE } from '../card/media.js';
import { CORE_BINDINGS } from '../card/model.js';
import { type Format, once } from '../json-document.js';
import { AGENT_LEVEL, type ClientProfile } from '../negotiate/types.js';
import { AGENT_NAME, AGENT_NAME_RULE } from './agent-name.js';
import {
  hasNoRepeats,
  isCanonicalBinding,
  isCardPath,
  isDestinationPattern,
  isMediaType,
  isNonEmpty,
  isNotProto,
  isNotWildcard,
  isOrigin,
  isSemverRange,
  isTlsOrLoopback,
  isTlsOrLoopbackDestination,
} from './rules.js';

/**
 * Unique strings, in preference order; `nonEmpty`: at least one, with that message. The JSON Schema
 * gets `uniqueItems` (and `minItems`) as metadata, since it cannot run refinements.
 */
function orderedSet<T extends z.ZodMiniType<string>>(item: T, nonEmpty?: string) {
  const unique = z.refine<string[]>(hasNoRepeats, { message: 'duplicate entries' });
  return nonEmpty === undefined
    ? z.array(item).check(unique, z.meta({ uniqueItems: true }))
    : z
        .array(item)
        .check(
          unique,
          z.refine<string[]>(isNonEmpty, { message: nonEmpty }),
          z.meta({ uniqueItems: true, minItems: 1 }),
        );
}

/** The profile schemas (see {@link buildSchemas}). */
function profileSchemas() {
  /** A concrete media type: `type/subtype[;params]`, no `*`. */
  const ConcreteMediaType = z.string().check(
    z.refine(isNotWildcard, {
      message: 'wildcards are not allowed: list concrete media types (a profile must not accept anything)',
    }),
    z.refine(isMediaType, { message: 'not a media type (type/subtype)' }),
    // The JSON Schema cannot run the refinements above; the pattern says the same to an editor.
    z.meta({ pattern: CONCRETE_MEDIA_TYPE.source }),
  );

  const MajorMinor = z.string().check(z.regex(/^\d+\.\d+$/, 'must be Major.Minor, e.g. "1.0"'));

  /** A binding string: a core one spelled canonically, or a custom binding (URI) named exactly. */
  const Binding = z.string().check(
    z.minLength(1),
    z.refine(isCanonicalBinding, {
      message: `core bindings are spelled ${CORE_BINDINGS.map((b) => `"${b}"`).join(', ')}`,
    }),
  );

  const profileFields = {
    bindings: orderedSet(Binding, 'must not be empty'),
    versions: orderedSet(MajorMinor, 'must not be empty'),
    accepts: orderedSet(ConcreteMediaType, 'must list at least one concrete media type'),
    sends: orderedSet(ConcreteMediaType),
    streaming: z.boolean(),
    pushEndpoint: z.nullable(z.url({ protocol: /^https?$/ })),
    extensions: orderedSet(z.string().check(z.minLength(1))),
  };

  /** A full client profile (the manifest's top-level `profile`, and `--profile` files). */
  const ProfileSchema = z.strictObject({
    $schema: z.optional(z.string()),
    bindings: profileFields.bindings,
    versions: profileFields.versions,
    accepts: profileFields.accepts,
    sends: z._default(profileFields.sends, []),
    streaming: z._default(profileFields.streaming, false),
    pushEndpoint: z._default(profileFields.pushEndpoint, null),
    extensions: z._default(profileFields.extensions, []),
  });

  /** A partial profile an agent entry may carry; its fields override the top-level profile. */
  const PartialProfileSchema = z.strictObject({
    bindings: z.optional(profileFields.bindings),
    versions: z.optional(profileFields.versions),
    accepts: z.optional(profileFields.accepts),
    sends: z.optional(profileFields.sends),
    streaming: z.optional(profileFields.streaming),
    pushEndpoint: z.optional(profileFields.pushEndpoint),
    extensions: z.optional(profileFields.extensions),
  });

  return { ProfileSchema, PartialProfileSchema };
}

/** Where secrets come from: credential sources and `originAuth` (see {@link buildSchemas}). */
function sourceSchemas() {
  /** A secret read from an environment variable at run time. */
  const EnvSourceSchema = z.strictObject({
    env: z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')),
  });

  /**
   * An OAuth 2.0 client for a card's `oauth2SecurityScheme` with a `clientCredentials` flow: the
   * access token is obtained from the flow's `tokenUrl` as locked (RFC 6749 §4.4), the client
   * authenticated with HTTP Basic (default) or in the form body (`clientAuth: "form"`, §2.3.1).
   */
  const OAuthClientSourceSchema = z.strictObject({
    oauth: z.strictObject({
      clientId: EnvSourceSchema,
      clientSecret: EnvSourceSchema,
      clientAuth: z.optional(z.enum(['basic', 'form'])),
    }),
  });

  /**
   * Where a credential's secret comes from at run time: `{"env": NAME}`, or an OAuth 2.0 client
   * (`{"oauth": {"clientId": {"env": …}, "clientSecret": {"env": …}}}`). Only the source is stored, never a value.
   */
  const CredentialSourceSchema = z.union([EnvSourceSchema, OAuthClientSourceSchema], {
    error:
      'a credential source is {"env": "NAME"} or {"oauth": {"clientId": {"env": "NAME"}, "clientSecret": {"env": "NAME"}}}',
  });

  /** An environment variable name (where a secret is read at request time). */
  const EnvName = z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'));

  /** An HTTP header name (an RFC 9110 token). */
  const HeaderName = z.string().check(z.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name'));

  /**
   * An origin `scheme://host[:port]` as a URL parser prints it (lower case, no default port, no
   * path, no trailing slash): the key of `originAuth`.
   */
  const OriginSchema = z.string().check(
    z.refine(isOrigin, {
      message: 'must be an origin: https://host[:port] (lower case, no path, no trailing slash)',
    }),
    // A platform credential never crosses the network in cleartext.
    z.refine(isTlsOrLoopback, {
      message: 'plain http only to a loopback host: a platform credential is never sent in cleartext',
    }),
    // The JSON Schema cannot run the refinements; the pattern says the shape to an editor.
    z.meta({ pattern: '^https?://[^/?#]+$' }),
  );

  /**
   * How every request to one origin authenticates at the platform in front of the agent (Cloud Run
   * IAM, AgentCore, Gemini Enterprise, Entra ID), whatever the card's own security schemes say:
   * `bearer` (`Authorization: Bearer <$env>`), `header` (`<name>: <prefix><$env>`) or `awsSigV4`
   * (AWS Signature V4 from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`).
   * Only where the value comes from is stored, never a value.
   */
  const OriginAuthSchema = z.union(
    [
      z.strictObject({ bearer: z.strictObject({ env: EnvName }) }),
      // The prefix is part of a header value: printable ASCII, space and tab only (no line break, no escape sequence).
      z.strictObject({
        header: z.strictObject({
          name: HeaderName,
          env: EnvName,
          prefix: z.optional(
            z.string().check(z.regex(/^[\t\x20-\x7e]*$/, 'must be printable ASCII (a header value prefix)')),
          ),
        }),
      }),
      z.strictObject({
        awsSigV4: z.strictObject({
          region: z.string().check(z.regex(/^[a-z0-9-]+$/, 'must be an AWS region')),
          service: z.string().check(z.regex(/^[a-z0-9-]+$/, 'must be an AWS service name')),
        }),
      }),
    ],
    {
      error:
        'an originAuth placement is {"bearer": {"env": "NAME"}}, {"header": {"name": "Header-Name", "env": "NAME"}} or {"awsSigV4": {"region": "…", "service": "…"}}',
    },
  );

  return { CredentialSourceSchema, OriginSchema, OriginAuthSchema };
}

/**
 * The manifest's zod schemas: the one definition of `a2a.json` (and of `--profile` documents), from
 * which `npm run schemas` writes `schemas/a2a.schema.json`, and the one parser of both. Built by
 * {@link manifestSchemas} on first use, once.
 */
function buildSchemas() {
  const { ProfileSchema, PartialProfileSchema } = profileSchemas();
  const { CredentialSourceSchema, OriginSchema, OriginAuthSchema } = sourceSchemas();

  /** Agent names: used on the command line and as lockfile keys. */
  const AgentNameSchema = z.string().check(z.regex(AGENT_NAME, AGENT_NAME_RULE));

  /**
   * A card path (an agent's `cardPath`, `a2a card --card-path`): a path only, no scheme, host,
   * query, fragment or `..` segment, so it can only name a place below the card URL's path.
   */
  const CardPathSchema = z.string().check(
    z.refine(isCardPath, {
      message: 'must be a path (no scheme, host, query, fragment or "..")',
    }),
  );

  /** One `credentialDestinations` entry: `https://host[:port]` or `https://*.domain[:port]`; plain http only to loopback. */
  const CredentialDestinationSchema = z.string().check(
    z.refine(isDestinationPattern, {
      message:
        'must be an origin https://host[:port] or https://*.domain[:port] (lower case, no path, no trailing slash)',
    }),
    z.refine(isTlsOrLoopbackDestination, {
      message: 'plain http only to a loopback host: a credential is never sent in cleartext',
    }),
    z.meta({ pattern: '^https?://(\\*\\.)?[^/?#*]+$' }),
  );

  /** One dependency: an agent card and the skills called on it. */
  const AgentEntrySchema = z.strictObject({
    /** An http(s) URL (a `.json` path is the card; otherwise the well-known path is appended) or a file path relative to the manifest. */
    card: z.string().check(z.minLength(1)),
    /**
     * Skill ids (AgentSkill.id) this client calls. Absent or `[]`: one agent-level plan under the key
     * `"*"` (the card's default modes and card-level security), for agents that list no skills.
     */
    // A skill id keys the lockfile's plans: `__proto__` would not survive as an object key.
    skills: z._default(
      orderedSet(z.string().check(z.minLength(1), z.refine(isNotProto, 'skill id "__proto__" is not supported'))),
      [],
    ),
    /**
     * Scheme name (as in the card's securitySchemes) → where its secret comes from (`{"env": NAME}`, or
     * `{"oauth": …}` for an oauth2 clientCredentials flow). The keys are the credentials held.
     */
    credentials: z._default(z.record(z.string().check(z.minLength(1)), CredentialSourceSchema), {}),
    /** A semver range over the card's `version`. */
    version: z.optional(z.string().check(z.refine(isSemverRange, { message: 'not a semver range' }))),
    /** Overrides of the top-level profile for this agent. */
    profile: z.optional(PartialProfileSchema),
    /** Operator-pinned keys for card signatures: a JWKS file (relative to the manifest) or URL. When set, a card's `jku` is ignored. */
    trust: z.optional(z.strictObject({ jwks: z.string().check(z.minLength(1)) })),
    /** Refuse, at lock time, a card whose signature is absent or does not verify. */
    requireSignature: z.optional(z.boolean()),
    /**
     * Allow plain http to this agent's hosts that are not loopback: its card and key set URLs, its
     * interfaces and the push endpoint (recorded in the lockfile's settings). The runtime still never
     * sends a credential over plain http to such a host.
     */
    allowHttp: z.optional(z.boolean()),
    /**
     * Where the card is, relative to `card`, joined as the SDKs' card resolvers join
     * `relative_card_path` (`<card>/<cardPath>`, one slash between); `""`: the `card` URL is the card
     * itself, whatever its path (`https://…/v1/card`). Absent: a `.json` URL is the card, else the
     * well-known path (then the legacy one).
     */
    cardPath: z.optional(CardPathSchema),
    /**
     * Lock an interface whose host is a bind address (`0.0.0.0`, `::`) or loopback, on a card fetched
     * from another host, at the card's origin (its scheme, host and port; the interface's path kept).
     */
    rebaseInterfaces: z.optional(z.boolean()),
  });

  /** The manifest `a2a.json`. */
  const ManifestSchema = z.strictObject({
    $schema: z.optional(z.string()),
    profile: ProfileSchema,
    agents: z._default(z.record(AgentNameSchema, AgentEntrySchema), {}),
    /** Origin → how every request to it authenticates at the platform (see {@link OriginAuthSchema}). */
    originAuth: z.optional(z.record(OriginSchema, OriginAuthSchema)),
    /**
     * The only origins a credential may be sent to (`credential-destinations.ts`): `lock`, `update`
     * and `add` refuse a plan, token URL, extended card request or `originAuth` elsewhere, and
     * `verify` fails such an entry. Absent: no such limit.
     */
    credentialDestinations: z.optional(orderedSet(CredentialDestinationSchema)),
  });

  return {
    ProfileSchema,
    CredentialSourceSchema,
    OriginSchema,
    OriginAuthSchema,
    AgentNameSchema,
    CardPathSchema,
    AgentEntrySchema,
    ManifestSchema,
  };
}

/** The manifest's zod schemas (see {@link buildSchemas}), built on the first call. */
export const manifestSchemas = once(buildSchemas);

type Schemas = ReturnType<typeof buildSchemas>;

/** The manifest `a2a.json` as parsed (defaults filled in). */
export type Manifest = z.infer<Schemas['ManifestSchema']>;
/** One dependency of the manifest (`agents.<name>`). */
export type AgentEntry = z.infer<Schemas['AgentEntrySchema']>;
/** A full client profile as parsed (the manifest's `profile`, a `--profile` document). */
export type Profile = z.infer<Schemas['ProfileSchema']>;

/** `a2a.json` (see `Format`). */
export const ManifestFormat: Format<Manifest> = () => manifestSchemas().ManifestSchema;

/** A `--profile` document (see `Format`). */
export const ProfileFormat: Format<Profile> = () => manifestSchemas().ProfileSchema;

/** One credential source (see `CredentialSourceSchema` in {@link sourceSchemas}). */
export type CredentialSource = z.infer<Schemas['CredentialSourceSchema']>;

/** The environment variables `source` reads: `[env]`, or an OAuth client's `[clientId.env, clientSecret.env]`. */
export function sourceVariables(source: CredentialSource): string[] {
  return 'env' in source ? [source.env] : [source.oauth.clientId.env, source.oauth.clientSecret.env];
}

/** One `originAuth` value (see `OriginAuthSchema` in {@link sourceSchemas}). */
export type OriginAuth = z.infer<Schemas['OriginAuthSchema']>;

/** The manifest's `originAuth` map: origin → placement. */
export type OriginAuthMap = Readonly<Record<string, OriginAuth>>;

/**
 * The `$schema` `a2a init` writes: the JSON Schema shipped in the package, relative to a manifest
 * at the project root beside `node_modules` (how editors resolve it).
 */
export const MANIFEST_SCHEMA_REF = './node_modules/a2a-lock/schemas/a2a.schema.json';

/**
 * The negotiation inputs recorded per agent in the lockfile's `settings`: the effective profile,
 * the names of the credentials held (never their values) and the version range. A change here
 * makes the lockfile out of date for that agent.
 */
export interface AgentSettings extends ClientProfile {
  /** Scheme names the client holds credentials for, sorted. */
  credentials: string[];
  /** The manifest's semver range over the card version, when it has one. */
  versionRange?: string;
  /** The manifest's `trust.jwks`, when set. */
  trustJwks?: string;
  /** The manifest's `requireSignature`, when true. */
  requireSignature?: true;
  /** The manifest's `allowHttp`, when true: plain http to non-loopback hosts is allowed for this agent. */
  allowHttp?: true;
  /** The manifest's `cardPath`, when set (`""` included). */
  cardPath?: string;
  /** The manifest's `rebaseInterfaces`, when true. */
  rebaseInterfaces?: true;
}

/** The effective settings of one agent: top-level profile overridden by the agent's own. */
export function agentSettings(manifest: Manifest, name: string): AgentSettings {
  const entry = manifest.agents[name];
  if (!entry) throw new Error(`no agent ${name} in manifest`);
  const { $schema: _schema, ...root } = manifest.profile;
  const override = entry.profile ?? {};
  const profile: ClientProfile = {
    bindings: override.bindings ?? root.bindings,
    versions: override.versions ?? root.versions,
    accepts: override.accepts ?? root.accepts,
    sends: override.sends ?? root.sends,
    streaming: override.streaming ?? root.streaming,
    pushEndpoint: override.pushEndpoint !== undefined ? override.pushEndpoint : root.pushEndpoint,
    extensions: override.extensions ?? root.extensions,
  };
  return {
    ...profile,
    credentials: Object.keys(entry.credentials).sort(),
    ...(entry.version !== undefined ? { versionRange: entry.version } : {}),
    ...(entry.trust ? { trustJwks: entry.trust.jwks } : {}),
    ...(entry.requireSignature ? { requireSignature: true } : {}),
    ...(entry.allowHttp ? { allowHttp: true } : {}),
    ...(entry.cardPath !== undefined ? { cardPath: entry.cardPath } : {}),
    ...(entry.rebaseInterfaces ? { rebaseInterfaces: true } : {}),
  };
}

/**
 * The plan keys an agent entry locks: its skills, or, when it lists none (absent or `[]`), the one
 * agent-level plan `"*"` ({@link AGENT_LEVEL}).
 */
export function planKeys(entry: Pick<AgentEntry, 'skills'>): string[] {
  return entry.skills.length > 0 ? entry.skills : [AGENT_LEVEL];
}

/** The profile part of settings (what `negotiate()` takes). */
export function profileOf(settings: AgentSettings): ClientProfile {
  const { bindings, versions, accepts, sends, streaming, pushEndpoint, extensions } = settings;
  return { bindings, versions, accepts, sends, streaming, pushEndpoint, extensions };
}

/** A profile for `a2a plan` when neither `--profile` nor a manifest gives one. */
export const DEFAULT_PROFILE: ClientProfile = {
  bindings: ['JSONRPC', 'HTTP+JSON'],
  versions: ['1.0', '0.3'],
  accepts: ['application/json', 'text/plain'],
  sends: ['text/plain'],
  streaming: true,
  pushEndpoint: null,
  extensions: [],
};
