/**
 * The lockfile `a2a.lock.json`: per agent, the card snapshot as fetched (with its integrity hash)
 * and the negotiated plan per skill; per agent settings (the effective profile and the names of the
 * credentials held). Never a secret, never a timestamp.
 */
import { z } from 'zod/mini';
import { type Format, once, parseFormat } from '../json-document.js';
import { manifestSchemas } from '../manifest/schema.js';
import { PROBE_KINDS } from './probe.js';
import { LOCKFILE_VERSION, type LockfileTop } from './top.js';

export { LOCKFILE_VERSION } from './top.js';

/**
 * The `$schema` a new lockfile gets: the JSON Schema shipped in the package, relative to a
 * lockfile at the project root beside `node_modules` (how editors resolve it). An existing
 * lockfile's `$schema` is kept.
 */
export const LOCKFILE_SCHEMA_REF = './node_modules/a2a-lock/schemas/a2a-lock.schema.json';

/** A string of at least one character. */
const filled = () => z.string().check(z.minLength(1));

/** The schemas of what the lockfile records per agent and skill: a plan, the settings (see {@link buildSchemas}). */
function planSchemas() {
  /** A negotiated plan as stored (see `Plan`). */
  const PlanSchema = z.strictObject({
    url: filled(),
    protocolBinding: filled(),
    protocolVersion: filled(),
    tenant: z.optional(filled()),
    security: z.record(z.string(), z.array(z.string())),
    acceptedOutputModes: z.array(z.string()).check(z.minLength(1)),
    delivery: z.enum(['stream', 'push', 'poll']),
    extensions: z.array(z.string()),
    /** The ordered locked alternatives (see `PlanFallbacks`); absent when there are none. */
    fallbacks: z.optional(
      z.strictObject({
        interfaces: z.array(
          z.strictObject({
            url: filled(),
            protocolBinding: filled(),
            protocolVersion: filled(),
            tenant: z.optional(filled()),
          }),
        ),
        delivery: z.array(z.literal('poll')),
      }),
    ),
  });

  /** Per-agent negotiation inputs (see `AgentSettings`). */
  const SettingsSchema = z.strictObject({
    bindings: z.array(z.string()).check(z.minLength(1)),
    versions: z.array(z.string()).check(z.minLength(1)),
    accepts: z.array(z.string()).check(z.minLength(1)),
    sends: z.array(z.string()),
    streaming: z.boolean(),
    pushEndpoint: z.nullable(z.string()),
    extensions: z.array(z.string()),
    credentials: z.array(z.string()),
    versionRange: z.optional(z.string()),
    trustJwks: z.optional(z.string()),
    requireSignature: z.optional(z.literal(true)),
    /** The manifest's per-agent `allowHttp` (absent: plain http to non-loopback hosts refused). */
    allowHttp: z.optional(z.literal(true)),
    /** The manifest's per-agent `cardPath` (absent: the `.json` / well-known rules). */
    cardPath: z.optional(z.string()),
    /** The manifest's per-agent `rebaseInterfaces` (absent: a bind-address interface is refused). */
    rebaseInterfaces: z.optional(z.literal(true)),
  });

  return { PlanSchema, SettingsSchema };
}

/**
 * The lockfile's zod schemas: the one definition of `a2a.lock.json`, from which `npm run schemas`
 * writes `schemas/a2a-lock.schema.json`, and its one parser. Built by {@link lockSchemas} on first
 * use, once.
 */
function buildSchemas() {
  const { AgentNameSchema, OriginAuthSchema } = manifestSchemas();

  const { PlanSchema, SettingsSchema } = planSchemas();

  /** The signature status of one card snapshot (see `SignatureRecord`). */
  const SignatureRecordSchema = z.strictObject({
    status: z.enum(['verified', 'unverifiable', 'absent']),
    kid: z.optional(z.string()),
    alg: z.optional(z.string()),
    /** RFC 7638 thumbprint (SHA-256, base64url) of the key that verified. */
    thumbprint: z.optional(z.string()),
    /** Only when the signature verified through a known non-conformant canonical form (a2a-python ≤ 1.1). */
    canonicalForm: z.optional(z.literal('a2a-python-1.1')),
  });

  const Integrity = z.string().check(z.regex(/^sha256-[A-Za-z0-9+/]{43}=$/, 'must be sha256-<base64>'));

  /** The authenticated extended card, locked as a second snapshot (A2A 1.0 GetExtendedAgentCard). */
  const ExtendedSnapshotSchema = z.strictObject({
    /** The interface URL it was fetched through. */
    resolved: filled(),
    integrity: Integrity,
    snapshot: z.record(z.string(), z.unknown()),
    signature: z.optional(SignatureRecordSchema),
  });

  /** One locked agent. Unknown keys are kept on rewrite (a newer minor tool may add some). */
  const LockEntrySchema = z.looseObject({
    /** The manifest's `card` value, as written there. */
    card: filled(),
    /** The URL (or manifest-relative file path) that answered with the card. */
    resolved: filled(),
    /**
     * The `A2A-Version` the card request was answered with, only when the agent refused the profile's
     * first version (absent: the first answered); `verify` asks with it first.
     */
    versionHeader: z.optional(z.string()),
    /** The protocol shape the card was served in: "1.0", "0.3", "0.2" or "hybrid". */
    a2aVersion: z.string(),
    /** The card's own `version`. */
    version: z.string(),
    /** `sha256-<base64>` of the canonical JSON of `snapshot`. */
    integrity: Integrity,
    /** The card as fetched. */
    snapshot: z.record(z.string(), z.unknown()),
    /** The signature status of `snapshot`. */
    signature: z.optional(SignatureRecordSchema),
    /** The extended card, when the agent has one and it was fetched; plans are negotiated against it. */
    extended: z.optional(ExtendedSnapshotSchema),
    /** Skill id → locked plan. */
    plans: z.record(filled(), PlanSchema),
    /**
     * Origin → the manifest's `originAuth` placement used for this agent's requests there (the card,
     * the extended card, key sets, the plans' interfaces): where a platform credential goes, never
     * its value. Absent: none.
     */
    originAuth: z.optional(z.record(filled(), OriginAuthSchema)),
    /**
     * Interface key (`lock/probe.ts` interfaceKey: `<binding> <version> <url>[ tenant=<t>]`) → what the
     * wire probe found there at lock time: `served`, `auth-required` or `not-served` (the kind only).
     * Absent: not probed (`--no-probe`, or a lockfile written before the probe).
     */
    probe: z.optional(z.record(filled(), z.enum(PROBE_KINDS))),
  });

  /** The whole `a2a.lock.json`: per agent its settings and its entry. Unknown top-level keys are kept on rewrite. */
  const LockfileSchema = z.looseObject({
    $schema: z.optional(z.string()),
    lockfileVersion: z.literal(LOCKFILE_VERSION),
    settings: z.record(AgentNameSchema, SettingsSchema),
    agents: z.record(AgentNameSchema, LockEntrySchema),
  });

  return { SettingsSchema, LockEntrySchema, LockfileSchema };
}

/** The lockfile's zod schemas (see {@link buildSchemas}), built on the first call. */
export const lockSchemas = once(buildSchemas);

type Schemas = ReturnType<typeof buildSchemas>;

/** A parsed, validated lockfile (see `LockfileSchema` in {@link buildSchemas}). */
export type Lockfile = z.infer<Schemas['LockfileSchema']>;
/** One locked agent (see `LockEntrySchema`). */
export type LockEntry = z.infer<Schemas['LockEntrySchema']>;
/** One agent's locked settings (see `SettingsSchema`). */
export type LockedSettings = z.infer<Schemas['SettingsSchema']>;

/** `a2a.lock.json` (see `Format`). */
export const LockfileFormat: Format<Lockfile> = () => lockSchemas().LockfileSchema;

/** One locked agent (see `Format`). */
const LockEntryFormat: Format<LockEntry> = () => lockSchemas().LockEntrySchema;

/** One agent's settings (see `Format`). */
const SettingsFormat: Format<LockedSettings> = () => lockSchemas().SettingsSchema;

/**
 * Check one agent of a top-level-checked lockfile: its entry against `LockEntrySchema` and
 * its settings against `SettingsSchema`, as the whole-file `LockfileSchema` would.
 * Returns the parsed pair, or the first zod issue with its path from the lockfile's root
 * (`["agents", name, …]` or `["settings", name, …]`). Pure.
 */
export function lockedAgentIssue(
  lock: LockfileTop,
  name: string,
): { entry: LockEntry; settings: LockedSettings } | { issue: z.core.$ZodIssue; path: PropertyKey[] } {
  const settings = parseFormat(SettingsFormat, lock.settings[name]);
  const entry = parseFormat(LockEntryFormat, lock.agents[name]);
  // The whole-file schema reports `settings` issues first (it is validated before `agents`).
  if ('issue' in settings) return { issue: settings.issue, path: ['settings', name, ...settings.issue.path] };
  if ('issue' in entry) return { issue: entry.issue, path: ['agents', name, ...entry.issue.path] };
  return { entry: entry.data, settings: settings.data };
}
