/**
 * The bill of agents: a lockfile mapped to a CycloneDX 1.6 JSON BOM (`a2a export --format
 * cyclonedx`). CycloneDX has no agent type, so each locked agent is a `service` (its endpoints, its
 * authentication, whether it crosses the client's trust boundary, the data each skill exchanges)
 * with the lock's facts as `a2a-lock:` properties; `metadata` names the tool and carries the
 * lockfile digest. Deterministic: no random reference, no clock (a timestamp only when given),
 * everything sorted, so the same lockfile gives the same bytes. Card strings are bounded and reach
 * only JSON. Pure: the command shell (`commands/export.ts`) reads the lockfile and writes the text.
 */
import { nameBasedUuid, stableFileJson } from '../canonical.js';
import { grpcDialledUrl, isLoopbackHost } from '../card/host.js';
import { InvalidInputError } from '../errors.js';
import { formatPath, own } from '../json-path.js';
import type { AgentSettings } from '../manifest/schema.js';
import { bounded, UNTRUSTED, unicodeEscape } from '../untrusted.js';
import { credentialRoutes } from './credential-routes.js';
import { lockDigest } from './digest.js';
import { integrityMismatch } from './offline.js';
import type { LockEntry, Lockfile } from './schema.js';

/** The CycloneDX specification version written. */
const CYCLONEDX_SPEC_VERSION = '1.6';

/**
 * The longest card string (name, description, version, scheme names, media types) copied into the BOM; longer ones end in `…`.
 * @internal
 */
export const BOM_TEXT_MAX = 1024;

/** The RFC 9562 URL namespace: the serial number is the version 5 UUID of `a2a-lock:lockfile:<digest>` in it. */
const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/** A CycloneDX `property`: a name in the `a2a-lock:` namespace and its value. */
interface BomProperty {
  name: string;
  value: string;
}

/** A CycloneDX 1.6 `serviceData` entry: one media type one skill exchanges, in one direction relative to the agent. */
interface BomServiceData {
  /** `inbound`: the client sends it to the agent; `outbound`: the agent returns it to the client. */
  flow: 'inbound' | 'outbound';
  /** The media type. */
  classification: string;
  /** The skill id (`*` for an agent-level plan). */
  name: string;
  description: string;
}

/**
 * A CycloneDX 1.6 `service`: one locked agent.
 * @internal
 */
export interface BomService {
  'bom-ref': string;
  name: string;
  version?: string;
  description?: string;
  provider?: { name?: string; url?: string[] };
  endpoints: string[];
  authenticated: boolean;
  'x-trust-boundary': boolean;
  data: BomServiceData[];
  externalReferences?: Array<{ type: 'documentation'; url: string; comment: string }>;
  properties: BomProperty[];
}

/** The CycloneDX 1.6 JSON BOM `a2a export --format cyclonedx` writes (the fields it uses). */
export interface CycloneDxBom {
  $schema: string;
  bomFormat: 'CycloneDX';
  specVersion: typeof CYCLONEDX_SPEC_VERSION;
  serialNumber: string;
  version: 1;
  metadata: {
    timestamp?: string;
    tools: { components: Array<{ type: 'application'; name: string; version: string }> };
    properties: BomProperty[];
  };
  services: BomService[];
}

/** What the BOM says besides the lockfile. */
export interface BomOptions {
  /** a2a-lock's version (`metadata.tools`). */
  toolVersion: string;
  /** Origins (`https://host[:port]`) the client counts as its own; loopback hosts always are. */
  firstParty?: readonly string[];
  /** `metadata.timestamp` (ISO 8601 date-time); absent: none, so the output is reproducible. */
  timestamp?: string;
  /** Where the lockfile was read from (error messages). */
  source: string;
  /** The lockfile's digest when the caller took it as it read the file (`parseLockfileWithDigest`); else {@link lockDigest} of `lock`. */
  digest?: string;
}

/**
 * The CycloneDX 1.6 BOM of a lockfile: each locked agent a `service` (see docs/guide/bill-of-agents.md
 * for the mapping), sorted by agent name; the serial number the version 5 UUID of the lockfile
 * digest ({@link lockDigest}), which `metadata.properties` carries as `a2a-lock:lockfile-digest`.
 * An agent crosses the trust boundary unless every endpoint's origin, and every origin its credentials
 * go to (an OAuth token endpoint, the extended card), is in `firstParty` or on a loopback host.
 * @throws InvalidInputError `lockfile-invalid` when a card snapshot does not match its integrity
 */
export function cycloneDxBom(lock: Lockfile, options: BomOptions): CycloneDxBom {
  const digest = options.digest ?? lockDigest(lock);
  const firstParty = new Set(options.firstParty ?? []);
  const services = Object.keys(lock.agents)
    .sort()
    .map((name) => agentService(name, lock.agents[name]!, own(lock.settings, name), firstParty, options));
  const properties: BomProperty[] = [
    { name: 'a2a-lock:lockfile-digest', value: digest },
    { name: 'a2a-lock:lockfile-version', value: String(lock.lockfileVersion) },
    ...[...firstParty].map((origin) => ({ name: 'a2a-lock:first-party-origin', value: origin })),
  ];
  return {
    $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: CYCLONEDX_SPEC_VERSION,
    serialNumber: `urn:uuid:${nameBasedUuid(URL_NAMESPACE, `a2a-lock:lockfile:${digest}`)}`,
    version: 1,
    metadata: {
      ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
      tools: { components: [{ type: 'application', name: 'a2a-lock', version: options.toolVersion }] },
      properties: sortedProperties(properties),
    },
    services,
  };
}

/**
 * The BOM's text: {@link stableFileJson} (sorted keys, 2-space indent, trailing newline), with
 * DEL, the C1 controls, bidi controls and the line and paragraph separators written as `\uXXXX`
 * escapes (JSON.stringify already escapes C0): the same JSON value, and inert on a terminal.
 */
export function bomText(bom: CycloneDxBom): string {
  // The only C0 characters left in JSON text are its own line breaks (JSON.stringify escapes the rest).
  return stableFileJson(bom).replace(UNTRUSTED, (c) => (c < ' ' ? c : unicodeEscape(c)));
}

/** One locked agent as a service. */
function agentService(
  name: string,
  entry: LockEntry,
  settings: AgentSettings | undefined,
  firstParty: ReadonlySet<string>,
  options: BomOptions,
): BomService {
  const tampered = integrityMismatch(entry);
  if (tampered)
    throw new InvalidInputError('lockfile-invalid', options.source, tampered, {
      path: formatPath(['agents', name]),
      hint: `run a2a update ${name} to fetch the card again`,
    });
  const card = entry.snapshot;
  const plans = Object.entries(entry.plans);
  const interfaces = plans.flatMap(([, plan]) => [plan, ...(plan.fallbacks?.interfaces ?? [])]);
  const uris = interfaces.map((i) => endpointUri(i.url, i.protocolBinding));
  const endpoints = [...new Set(uris.filter((u): u is string => u !== undefined))].sort();
  const origins = endpoints.map((u) => new URL(u));
  const platformAuth = origins.some((u) => own(entry.originAuth, u.origin) !== undefined);
  const ownOrigin = (u: URL) => firstParty.has(u.origin) || isLoopbackHost(u.hostname);
  const sends = settings?.sends ?? [];
  const data: BomServiceData[] = plans.flatMap(([skill, plan]) => [
    ...sends.map((type) => flow('inbound', type, skill, 'input mode the client sends')),
    ...plan.acceptedOutputModes.map((type) => flow('outbound', type, skill, 'output mode the client accepts')),
  ]);
  data.sort(
    (a, b) => compare(a.name, b.name) || compare(a.flow, b.flow) || compare(a.classification, b.classification),
  );
  const distinct = (name: string, values: Iterable<string>) =>
    [...new Set(values)].map((value) => ({ name: `a2a-lock:${name}`, value: bounded(value, BOM_TEXT_MAX) }));
  const plansOf = plans.map(([, plan]) => plan);
  const properties: BomProperty[] = [
    { name: 'a2a-lock:card', value: bounded(entry.card, BOM_TEXT_MAX) },
    { name: 'a2a-lock:card-integrity', value: entry.integrity },
    { name: 'a2a-lock:a2a-version', value: entry.a2aVersion },
    ...(typeof card.name === 'string' ? [{ name: 'a2a-lock:card-name', value: bounded(card.name, BOM_TEXT_MAX) }] : []),
    ...(entry.extended ? [{ name: 'a2a-lock:extended-card-integrity', value: entry.extended.integrity }] : []),
    ...distinct('skill', Object.keys(entry.plans)),
    ...distinct(
      'protocol-binding',
      plansOf.map((p) => p.protocolBinding),
    ),
    ...distinct(
      'protocol-version',
      plansOf.map((p) => p.protocolVersion),
    ),
    ...distinct(
      'delivery',
      plansOf.map((p) => p.delivery),
    ),
    ...distinct(
      'extension',
      plansOf.flatMap((p) => p.extensions),
    ),
    ...distinct(
      'security-scheme',
      plansOf.flatMap((p) => Object.keys(p.security)),
    ),
    ...(entry.signature ? [{ name: 'a2a-lock:signature-status', value: entry.signature.status }] : []),
    ...(entry.signature?.thumbprint ? [{ name: 'a2a-lock:signer-thumbprint', value: entry.signature.thumbprint }] : []),
    ...(entry.signature?.kid
      ? [{ name: 'a2a-lock:signer-kid', value: bounded(entry.signature.kid, BOM_TEXT_MAX) }]
      : []),
  ];
  const cardUrl = absoluteUrl(entry.resolved);
  const version = bounded(entry.version, BOM_TEXT_MAX);
  const provider = providerOf(card.provider);
  return {
    'bom-ref': `a2a-agent:${name}`,
    name,
    ...(version ? { version } : {}),
    ...(typeof card.description === 'string' && card.description
      ? { description: bounded(card.description, BOM_TEXT_MAX) }
      : {}),
    ...(provider ? { provider } : {}),
    endpoints,
    authenticated: plansOf.some((p) => Object.keys(p.security).length > 0) || platformAuth,
    // Over every endpoint; one that cannot be written as a URI is never counted as inside.
    'x-trust-boundary':
      origins.length === 0 ||
      uris.includes(undefined) ||
      !origins.every(ownOrigin) ||
      !credentialsStayInside(entry, settings, ownOrigin),
    data,
    ...(cardUrl ? { externalReferences: [{ type: 'documentation', url: cardUrl, comment: 'A2A agent card' }] } : {}),
    properties: sortedProperties(properties),
  };
}

/**
 * Whether every place the entry's credentials go ({@link credentialRoutes}: an OAuth token endpoint,
 * the extended card request, besides the endpoints) has an origin `inside` says is the client's; false
 * when the routes cannot be read (no settings, a snapshot that is no card).
 */
function credentialsStayInside(
  entry: LockEntry,
  settings: AgentSettings | undefined,
  inside: (u: URL) => boolean,
): boolean {
  if (!settings) return false;
  try {
    // A gRPC target's route is the origin it is dialled at (`https://host:port` over TLS), as any other.
    return credentialRoutes(entry, settings).every((r) => URL.canParse(r.origin) && inside(new URL(r.origin)));
  } catch {
    return false;
  }
}

/** One data flow of one skill. */
function flow(direction: BomServiceData['flow'], type: string, skill: string, description: string): BomServiceData {
  return {
    flow: direction,
    classification: bounded(type, BOM_TEXT_MAX),
    name: bounded(skill, BOM_TEXT_MAX),
    description,
  };
}

/** The card's `provider` (`{organization, url}`, A2A AgentProvider) as an organizational entity; undefined when it has neither. */
function providerOf(value: unknown): BomService['provider'] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { organization, url } = value as { organization?: unknown; url?: unknown };
  const name = typeof organization === 'string' && organization ? bounded(organization, BOM_TEXT_MAX) : undefined;
  const href = typeof url === 'string' ? absoluteUrl(url) : undefined;
  if (name === undefined && href === undefined) return undefined;
  return { ...(name !== undefined ? { name } : {}), ...(href !== undefined ? { url: [href] } : {}) };
}

/** An http(s) URL as a URL parser prints it (a valid IRI reference); undefined for anything else (a file path). */
function absoluteUrl(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
}

/**
 * The URI a BOM lists for a locked interface (`url`, its `binding`): an http(s) URL as a URL parser
 * prints it. A gRPC target (binding `GRPC`: a scheme-less `host:port`, or a `grpc://` / `grpcs://` URL) is
 * written as the HTTP/2 origin the runtime dials, the form A2A 1.0.0 gave gRPC interfaces: `https://host:port/`
 * over TLS (`grpcs://`, or a `host:port` on a host that is not loopback), `http://host:port/` in plaintext
 * (`grpc://`, or a loopback `host:port`). `grpc(s)` is no registered URI scheme, which strict IRI validators
 * refuse. Undefined for anything else.
 */
function endpointUri(url: string, binding: string): string | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'http' || scheme === 'https') return absoluteUrl(url);
  return scheme !== undefined || binding === 'GRPC' ? grpcDialledUrl(url) : undefined;
}

/** Properties by name, then value. */
function sortedProperties(properties: BomProperty[]): BomProperty[] {
  return properties.sort((a, b) => compare(a.name, b.name) || compare(a.value, b.value));
}

/** Code-unit order (the same in every locale). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
