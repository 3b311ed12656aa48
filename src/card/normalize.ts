/**
 * Card reading: validate an agent card as served (A2A 1.0 ProtoJSON, 0.3 JSON in both of its forms,
 * 0.2.x, hybrids) and normalise it to one {@link NormalizedCard}. Pure: values in, values out.
 *
 * Spec: A2A 1.0 `specification/a2a.proto` AgentCard (§8.1 of the spec), 0.3 `types/src/types.ts`
 * AgentCard, and the 0.3 → 1.0 mapping of the 1.0 migration guide.
 */
import { InvalidInputError } from '../errors.js';
import { formatPath, isRecord } from '../json-path.js';
import { type Format, parseFormat, zodMessage } from '../json-document.js';
import {
  CORE_BINDINGS,
  type AgentInterface,
  type AgentSkill,
  type CardShape,
  type NormalizedCard,
  type SecurityRequirement,
  type SecurityScheme,
  type Warning,
} from './model.js';
import {
  hostSentAs,
  isUnspecifiedHost,
  locationHostForms,
  mixedScriptLabels,
  rawHost,
  rebasedInterfaceUrl,
  showHost,
} from './host.js';
import { hasUserInfo } from './location.js';
import { sameMediaType } from './media.js';
import { cardSemver, majorMinor } from './version.js';
import {
  CardV03Format,
  CardV1Format,
  isSchemeType,
  SNAKE_TO_CAMEL,
  schemeTypeFormat,
  schemeWrappers,
  schemeVariantFormat,
  type CommonCard,
  type SchemeVariant,
  type WireRequirement,
} from './wire.js';

/** Where a card came from, for error messages and relative-URL resolution. */
export interface CardSource {
  /** File path or URL shown in messages. */
  source: string;
  /** The URL the card was fetched from; relative interface URLs resolve against it. Absent for files. */
  baseUrl?: string;
  /** The card answered only at the pre-0.3 path `/.well-known/agent.json`: a 0.x card without protocolVersion is read as 0.2. */
  legacyWellKnown?: boolean;
  /**
   * `false`: skip the warnings on hosts (unspecified address, internationalised or mixed-script
   * labels), for a caller that drops the warnings (a locked snapshot read again): they test
   * every label against Unicode script patterns, a cost on a cold start. The card is the same.
   */
  hostWarnings?: boolean;
  /**
   * The manifest's `rebaseInterfaces`: an interface on a bind address or loopback, on a card
   * fetched from another host (`baseUrl`), is read at the card's origin ({@link rebasedInterfaceUrl});
   * an `interface-rebased` warning names the original.
   */
  rebaseInterfaces?: boolean;
}

/** Result of {@link normalizeCard}. */
export interface NormalizeResult {
  card: NormalizedCard;
  warnings: Warning[];
}

/**
 * Validate and normalise an agent card.
 *
 * @param raw the parsed JSON as served (never mutated)
 * @throws InvalidInputError `card-invalid`, one line naming the source and the JSON path
 */
export function normalizeCard(raw: unknown, from: CardSource): NormalizeResult {
  const warnings: Warning[] = [];
  const fail: Fail = (path, message) => {
    throw new InvalidInputError('card-invalid', from.source, message, { path: formatPath(path) });
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail([], 'an agent card must be a JSON object');
  const obj = raw as Record<string, unknown>;
  rejectSnakeCase(obj, fail);
  rejectProtoSchemes(obj, fail);

  const hasV1 = Array.isArray(obj.supportedInterfaces) && obj.supportedInterfaces.length > 0;
  const hasLegacy = 'url' in obj || 'preferredTransport' in obj || 'additionalInterfaces' in obj;
  if (!hasV1 && !hasLegacy) {
    if ('supportedInterfaces' in obj) fail(['supportedInterfaces'], 'must be a non-empty array of interfaces');
    fail(['supportedInterfaces'], 'missing: a card needs supportedInterfaces (A2A 1.0) or url (A2A 0.3)');
  }
  if ('authentication' in obj && !('securitySchemes' in obj)) {
    warnings.push({
      code: 'legacy-authentication-ignored',
      message: 'A2A 0.1 "authentication" is not understood; no security requirement is derived from it',
      path: '$.authentication',
    });
  }

  const read = hasV1
    ? readV1Interfaces(obj, hasLegacy, warnings, fail)
    : readLegacyInterfaces(obj, from, warnings, fail);
  const { shape, base } = read;
  const interfaces = placeInterfaces(read.interfaces, read.urlPaths, from, warnings, fail);

  // fromEntries defines own properties, so even a scheme named "__proto__" stays data.
  const securitySchemes: Record<string, SecurityScheme> = Object.fromEntries(
    Object.entries(base.securitySchemes ?? {}).map(([name, scheme]) => [
      name,
      readScheme(scheme, ['securitySchemes', name], fail),
    ]),
  );

  const { requirements: cardRequirements, paths: cardRequirementPaths } = readRequirements(base, shape, [], warnings);
  checkSchemesKnown(cardRequirements, securitySchemes, cardRequirementPaths, 'the card', fail);

  const defaultInputModes = readModes(base.defaultInputModes, ['defaultInputModes'], warnings, fail);
  const defaultOutputModes = readModes(base.defaultOutputModes, ['defaultOutputModes'], warnings, fail);
  const skills = readSkills(base, shape, securitySchemes, warnings, fail);

  const semver = cardSemver(base.version);
  if (semver?.coerced) {
    warnings.push({
      code: 'version-not-semver',
      message: `card version "${base.version}" is not semver; a manifest version range compares it as ${semver.semver}`,
      path: '$.version',
    });
  }

  const caps = base.capabilities ?? {};
  const card: NormalizedCard = {
    name: base.name,
    description: base.description,
    version: base.version,
    shape,
    supportedInterfaces: interfaces,
    capabilities: {
      streaming: caps.streaming ?? false,
      pushNotifications: caps.pushNotifications ?? false,
      extendedAgentCard: read.extendedFlag ?? false,
      extensions: (caps.extensions ?? []).map((e) => ({
        uri: e.uri,
        required: e.required ?? false,
        ...(e.description ? { description: e.description } : {}),
        ...(e.params ? { params: e.params } : {}),
      })),
    },
    securitySchemes,
    securityRequirements: cardRequirements,
    defaultInputModes,
    defaultOutputModes,
    skills,
  };
  return { card, warnings };
}

/** What a card's shape says of its interfaces, before their URLs are resolved. */
interface ShapeRead {
  shape: CardShape;
  /** The interfaces as the card lists them (urls unresolved). */
  interfaces: AgentInterface[];
  /** JSON path of each interface's url in the card as served (0.3 entries are deduplicated). */
  urlPaths: PropertyKey[][];
  /** The card parsed by its shape's schema: the fields both shapes share. */
  base: CommonCard;
  /** Whether the card says it serves an extended card (absent: it does not say). */
  extendedFlag: boolean | null | undefined;
}

/**
 * An A2A 1.0 card (`supportedInterfaces`, A2A 1.0 §4.4.6): its interfaces as listed, each binding
 * and version read. `hasLegacy`: the card carries 0.3 fields too (a hybrid; `hybrid-card` warned
 * when its 0.3 url is not among the 1.0 interfaces).
 */
function readV1Interfaces(
  obj: Record<string, unknown>,
  hasLegacy: boolean,
  warnings: Warning[],
  fail: Fail,
): ShapeRead {
  const card = parseWith(CardV1Format, obj, fail);
  // SDKs serving 0.3 clients embed the 1.0 interfaces beside the 0.3 fields; only a hybrid whose
  // 0.3 endpoint is not among its supportedInterfaces is worth a warning.
  const legacyUrl = typeof obj.url === 'string' ? obj.url : undefined;
  if (hasLegacy && !card.supportedInterfaces.some((i) => i.url === legacyUrl)) {
    warnings.push({
      code: 'hybrid-card',
      message:
        'card carries A2A 1.0 and 0.3 fields that disagree; supportedInterfaces wins and the 0.3 fields are ignored',
    });
  }
  const interfaces = card.supportedInterfaces.map((i, index) => ({
    url: i.url,
    protocolBinding: canonicalBinding(i.protocolBinding, ['supportedInterfaces', index, 'protocolBinding'], warnings),
    protocolVersion: interfaceVersion(i.protocolVersion, ['supportedInterfaces', index, 'protocolVersion'], warnings),
    ...(i.tenant ? { tenant: i.tenant } : {}),
  }));
  return {
    shape: hasLegacy ? 'hybrid' : '1.0',
    interfaces,
    urlPaths: interfaces.map((_, index) => ['supportedInterfaces', index, 'url']),
    base: card,
    // SDKs serving 0.3 clients say it only with the 0.3 flag; read it when the 1.0 one is absent.
    extendedFlag:
      card.capabilities?.extendedAgentCard ?? (obj.supportsAuthenticatedExtendedCard === true ? true : undefined),
  };
}

/**
 * An A2A 0.3 (or 0.2) card: `url` + `preferredTransport` and `additionalInterfaces`, every
 * interface at the card's one `protocolVersion` (absent: 0.3, or 0.2 for a card found only at the
 * pre-0.3 well-known path). Duplicates are dropped; see {@link legacyPrimaryContradicted}.
 */
function readLegacyInterfaces(
  obj: Record<string, unknown>,
  from: CardSource,
  warnings: Warning[],
  fail: Fail,
): ShapeRead {
  const card = parseWith(CardV03Format, obj, fail);
  const version = card.protocolVersion
    ? majorMinor(card.protocolVersion, ['protocolVersion'], warnings)
    : from.legacyWellKnown
      ? '0.2'
      : '0.3';
  if (/^[1-9]/.test(version)) {
    warnings.push({
      code: 'legacy-shape-claims-version',
      message: `card has the 0.x shape (url, no supportedInterfaces) but declares protocolVersion "${card.protocolVersion}"`,
      path: '$.protocolVersion',
    });
  }
  const shape = version === '0.2' ? '0.2' : '0.3';
  if (shape === '0.3' && !card.protocolVersion) {
    warnings.push({
      code: 'protocol-version-missing',
      message: 'A2A 0.3 card without protocolVersion (required by 0.3); read as 0.3',
      path: '$.protocolVersion',
    });
  }
  const primary: AgentInterface = {
    url: card.url,
    protocolBinding: canonicalBinding(card.preferredTransport ?? 'JSONRPC', ['preferredTransport'], warnings),
    protocolVersion: version,
  };
  const additional = (card.additionalInterfaces ?? []).map((i, index) => ({
    url: i.url,
    protocolBinding: canonicalBinding(i.transport, ['additionalInterfaces', index, 'transport'], warnings),
    protocolVersion: version,
  }));
  const contradicted = legacyPrimaryContradicted(primary, additional, warnings);
  const interfaces: AgentInterface[] = contradicted ? [] : [primary];
  const urlPaths: PropertyKey[][] = contradicted ? [] : [['url']];
  additional.forEach((entry, index) => {
    const duplicate = interfaces.some((e) => e.url === entry.url && e.protocolBinding === entry.protocolBinding);
    if (!duplicate) {
      interfaces.push(entry);
      urlPaths.push(['additionalInterfaces', index, 'url']);
    }
  });
  return {
    shape,
    interfaces,
    urlPaths,
    base: card,
    extendedFlag: card.supportsAuthenticatedExtendedCard ?? card.capabilities?.extendedAgentCard,
  };
}

/**
 * Whether a 0.3 card's explicit entries contradict its url + preferredTransport, and then win
 * (`preferred-transport-contradicted` warned): they list the url under another binding (none under
 * the preferred one) and the preferred binding at another url (url /rpc, preferredTransport
 * HTTP+JSON, while additionalInterfaces lists /rpc as JSONRPC and /rest as HTTP+JSON): the primary
 * is then not an interface of its own. One url listed under a second binding only is an endpoint
 * serving both.
 */
function legacyPrimaryContradicted(
  primary: AgentInterface,
  additional: readonly AgentInterface[],
  warnings: Warning[],
): boolean {
  const sameUrl = additional.filter((e) => e.url === primary.url);
  const contradicted =
    sameUrl.length > 0 &&
    !sameUrl.some((e) => e.protocolBinding === primary.protocolBinding) &&
    additional.some((e) => e.url !== primary.url && e.protocolBinding === primary.protocolBinding);
  if (contradicted) {
    warnings.push({
      code: 'preferred-transport-contradicted',
      message: `url ${primary.url} with preferredTransport ${primary.protocolBinding} contradicts additionalInterfaces, which list it as ${sameUrl.map((e) => e.protocolBinding).join(', ')}; the additionalInterfaces entries win`,
      path: '$.preferredTransport',
    });
  }
  return contradicted;
}

/** The interfaces' urls resolved against where the card came from, rebased when the manifest asks (`interface-rebased`), and their hosts checked. */
function placeInterfaces(
  listed: readonly AgentInterface[],
  urlPaths: PropertyKey[][],
  from: CardSource,
  warnings: Warning[],
  fail: Fail,
): AgentInterface[] {
  let interfaces = listed.map((i, index) => resolveInterfaceUrl(i, urlPaths[index]!, from, warnings, fail));
  if (from.rebaseInterfaces) {
    interfaces = interfaces.map((i, index) => {
      const rebased = rebasedInterfaceUrl(i.url, from.baseUrl);
      if (rebased === undefined) return i;
      warnings.push({
        code: 'interface-rebased',
        message: `interface ${i.url} rebased to ${rebased} (rebaseInterfaces)`,
        path: formatPath(urlPaths[index]!),
      });
      return { ...i, url: rebased };
    });
  }
  if (from.hostWarnings !== false) hostWarnings(interfaces, urlPaths, from, warnings);
  return interfaces;
}

/**
 * The card's skills (absent: `[]`, `skills-missing` warned): ids unique, modes read, each skill's
 * own security requirements checked against the card's schemes.
 */
function readSkills(
  base: CommonCard,
  shape: CardShape,
  securitySchemes: Record<string, SecurityScheme>,
  warnings: Warning[],
  fail: Fail,
): AgentSkill[] {
  if (base.skills === undefined) {
    warnings.push({
      code: 'skills-missing',
      message:
        'card has no "skills" (required by A2A); read as [] (lock the agent with a manifest entry that lists no skills: one agent-level plan "*")',
      path: '$.skills',
    });
  }
  const seen = new Set<string>();
  return (base.skills ?? []).map((s, index) => {
    const path = ['skills', index];
    if (seen.has(s.id)) fail([...path, 'id'], `duplicate skill id "${s.id}"`);
    seen.add(s.id);
    const skill: AgentSkill = { id: s.id, name: s.name, description: s.description, tags: s.tags ?? [] };
    if (s.examples?.length) skill.examples = s.examples;
    if (s.inputModes?.length) skill.inputModes = readModes(s.inputModes, [...path, 'inputModes'], warnings, fail);
    if (s.outputModes?.length) skill.outputModes = readModes(s.outputModes, [...path, 'outputModes'], warnings, fail);
    const { requirements, paths: requirementPaths } = readRequirements(s, shape, path, warnings);
    if (requirements.length) {
      checkSchemesKnown(requirements, securitySchemes, requirementPaths, `skill "${s.id}"`, fail);
      skill.securityRequirements = requirements;
    }
    return skill;
  });
}

type Fail = (path: ReadonlyArray<PropertyKey>, message: string) => never;

/**
 * The protocol version an A2A 1.0 interface serves. Absent, null or empty (`a2a-sdk` for Python
 * serves its cards through protobuf's `MessageToDict`, which drops an unset `protocol_version`)
 * is read as the current version, {@link CURRENT_PROTOCOL_VERSION}, as the reference Python
 * client reads it, with an `interface-version-missing` warning naming the path.
 */
function interfaceVersion(version: string | null | undefined, path: PropertyKey[], warnings: Warning[]): string {
  if (version !== undefined && version !== null && version.trim() !== '') return majorMinor(version, path, warnings);
  warnings.push({
    code: 'interface-version-missing',
    message: `interface without protocolVersion (required by A2A 1.0; a2a-sdk for Python leaves it out when unset); read as ${CURRENT_PROTOCOL_VERSION}, the current version, as the reference Python client does`,
    path: formatPath(path),
  });
  return CURRENT_PROTOCOL_VERSION;
}

/** The protocol version an interface without one is read as (A2A 1.0). */
const CURRENT_PROTOCOL_VERSION = '1.0';

/**
 * A security scheme named `__proto__`, in `securitySchemes` or in a requirement (card or skill, 1.0
 * or 0.3 form), is card-invalid: the schemas below would drop the key, leaving a requirement that
 * needs no credential. Read on the raw card, before any schema sees it.
 */
function rejectProtoSchemes(card: Record<string, unknown>, fail: Fail): void {
  const message = 'security scheme name "__proto__" is not allowed';
  if (isRecord(card.securitySchemes) && Object.hasOwn(card.securitySchemes, '__proto__'))
    fail(['securitySchemes', '__proto__'], message);
  const holders: Array<[Record<string, unknown>, PropertyKey[]]> = [[card, []]];
  if (Array.isArray(card.skills)) card.skills.forEach((s, i) => isRecord(s) && holders.push([s, ['skills', i]]));
  for (const [holder, path] of holders) {
    for (const field of ['securityRequirements', 'security']) {
      const list = holder[field];
      if (!Array.isArray(list)) continue;
      list.forEach((r, i) => {
        if (!isRecord(r)) return;
        if (Object.hasOwn(r, '__proto__')) fail([...path, field, i, '__proto__'], message);
        if (isRecord(r.schemes) && Object.hasOwn(r.schemes, '__proto__'))
          fail([...path, field, i, 'schemes', '__proto__'], message);
      });
    }
  }
}

function parseWith<T>(format: Format<T>, value: unknown, fail: Fail): T {
  const parsed = parseFormat(format, value);
  if ('data' in parsed) return parsed.data;
  fail(parsed.issue.path, zodMessage(parsed.issue));
  throw new Error('unreachable');
}

function rejectSnakeCase(obj: Record<string, unknown>, fail: Fail): void {
  const check = (o: unknown, path: PropertyKey[]): void => {
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return;
    for (const key of Object.keys(o)) {
      const camel = SNAKE_TO_CAMEL.get(key);
      if (camel) fail([...path, key], `snake_case key; A2A JSON uses camelCase "${camel}"`);
    }
  };
  check(obj, []);
  check(obj.capabilities, ['capabilities']);
  for (const list of ['supportedInterfaces', 'additionalInterfaces', 'skills'] as const) {
    const items = obj[list];
    if (Array.isArray(items)) items.forEach((item, i) => check(item, [list, i]));
  }
}

/** Match a binding name to the canonical core spelling, case-insensitively (warning when it differs). */
function canonicalBinding(name: string, path: PropertyKey[], warnings: Warning[]): string {
  if ((CORE_BINDINGS as readonly string[]).includes(name)) return name;
  const canonical = CORE_BINDINGS.find((b) => b.toLowerCase() === name.toLowerCase());
  if (canonical) {
    warnings.push({
      code: 'noncanonical-binding-name',
      message: `binding "${name}" read as "${canonical}"`,
      path: formatPath(path),
    });
    return canonical;
  }
  return name;
}

const ABSOLUTE_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
/** The schemes a gRPC interface may name (A2A 1.0 gives `host:port`; SDKs also write these). */
const GRPC_SCHEMES = /^(grpc|grpcs|http|https):\/\//i;

function resolveInterfaceUrl(
  i: AgentInterface,
  path: PropertyKey[],
  from: CardSource,
  warnings: Warning[],
  fail: Fail,
): AgentInterface {
  // A custom binding (A2A's custom-binding URIs, e.g. SLIMRPC whose `url` is a SLIM name
  // `org/namespace/service`) has its own address form: kept verbatim, never resolved or read as a URL.
  if (!(CORE_BINDINGS as readonly string[]).includes(i.protocolBinding)) return i;
  // gRPC interfaces are `host:port`, not URLs (A2A 1.0 AgentInterface.url); a scheme, when given, is a gRPC or http(s) one.
  if (i.protocolBinding === 'GRPC') {
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(i.url)?.[1];
    if (scheme !== undefined && !GRPC_SCHEMES.test(i.url))
      fail(path, `a gRPC interface is host:port (or a grpc, grpcs, http or https URL), not a ${scheme}: URL`);
    // `host:port` has no `@` at all (a password may hold `/`); a URL is asked as any location is.
    if (scheme === undefined ? i.url.includes('@') : hasUserInfo(i.url))
      fail(path, 'credentials in an interface URL are not allowed (the URL is not shown)');
    return i;
  }
  // As for card URLs: a user name or password in a URL would be sent to, and stored as, plain text;
  // checked on the string too, since one holding a `/` does not parse (and is never echoed).
  if (hasUserInfo(i.url)) fail(path, 'credentials in an interface URL are not allowed (the URL is not shown)');
  if (ABSOLUTE_URL.test(i.url)) {
    const parsed = URL.canParse(i.url) ? new URL(i.url) : undefined;
    if (parsed && parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
      fail(path, `interface URL scheme ${parsed.protocol} is not allowed (http or https)`);
    if (!parsed && !/^https?:\/\//i.test(i.url)) fail(path, 'interface URL scheme is not allowed (http or https)');
    return i;
  }
  // `javascript:x`, `mailto:x`, `data:x`: a scheme without `//` is no relative URL either.
  const opaque = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(i.url)?.[1];
  if (opaque !== undefined && URL.canParse(i.url))
    fail(path, `interface URL scheme ${opaque.toLowerCase()}: is not allowed (http or https)`);
  if (!from.baseUrl) fail(path, `relative URL "${i.url}" in a card read from a file; interface URLs must be absolute`);
  let resolved: string;
  try {
    resolved = new URL(i.url, from.baseUrl).href;
  } catch {
    return fail(path, `"${i.url}" is not a URL`);
  }
  warnings.push({
    code: 'relative-interface-url',
    message: `relative URL "${i.url}" resolved against the card URL to ${resolved}`,
    path: formatPath(path),
  });
  return { ...i, url: resolved };
}

/**
 * Warnings on where the card and its interfaces are: an interface host no client can reach
 * (`interface-host-unspecified`: 0.0.0.0/8, `::`), a host with internationalised labels, named in
 * both forms (`host-international`), a label mixing scripts (`host-mixed-script`).
 */
function hostWarnings(
  interfaces: AgentInterface[],
  paths: PropertyKey[][],
  from: CardSource,
  warnings: Warning[],
): void {
  const places: Array<[string, string | undefined, string]> = [];
  if (from.baseUrl) places.push([from.baseUrl, undefined, 'card URL']);
  interfaces.forEach((i, index) => places.push([i.url, formatPath(paths[index]!), 'interface']));
  for (const [url, path, what] of places) {
    const host = rawHost(url);
    if (host === undefined) continue;
    const at = path !== undefined ? { path } : {};
    if (what === 'interface' && isUnspecifiedHost(host)) {
      warnings.push({
        code: 'interface-host-unspecified',
        message: `interface host ${host} is an unspecified address no client can reach (a server bound to all addresses advertising its bind address?); "rebaseInterfaces": true on the agent locks it at the card's origin`,
        ...at,
      });
    }
    const forms = locationHostForms(url);
    if (forms) warnings.push({ code: 'host-international', message: `${what} host ${hostSentAs(forms)}`, ...at });
    for (const { label, scripts } of mixedScriptLabels(host)) {
      warnings.push({
        code: 'host-mixed-script',
        message: `${what} host ${showHost(host)}: label "${label}" mixes ${scripts.join(' and ')} letters (a look-alike name?)`,
        ...at,
      });
    }
  }
}

function readScheme(raw: Record<string, unknown>, path: PropertyKey[], fail: Fail): SecurityScheme {
  const wrappers = schemeWrappers().filter((k) => k in raw);
  const description = (d: string | null | undefined) => (d ? { description: d } : {});
  if (wrappers.length === 1) {
    const key = wrappers[0]!;
    const inner = parseWith(schemeVariantFormat(key), raw[key], (p, m) => fail([...path, key, ...p], m));
    switch (key) {
      case 'apiKeySecurityScheme': {
        const s = inner as SchemeVariant<'apiKeySecurityScheme'>;
        return { type: 'apiKey', location: s.location, name: s.name, ...description(s.description) };
      }
      case 'httpAuthSecurityScheme': {
        const s = inner as SchemeVariant<'httpAuthSecurityScheme'>;
        return {
          type: 'http',
          scheme: s.scheme,
          ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}),
          ...description(s.description),
        };
      }
      case 'oauth2SecurityScheme': {
        const s = inner as SchemeVariant<'oauth2SecurityScheme'>;
        return {
          type: 'oauth2',
          flows: s.flows,
          ...(s.oauth2MetadataUrl ? { oauth2MetadataUrl: s.oauth2MetadataUrl } : {}),
          ...description(s.description),
        };
      }
      case 'openIdConnectSecurityScheme': {
        const s = inner as SchemeVariant<'openIdConnectSecurityScheme'>;
        return { type: 'openIdConnect', openIdConnectUrl: s.openIdConnectUrl, ...description(s.description) };
      }
      case 'mtlsSecurityScheme': {
        const s = inner as SchemeVariant<'mtlsSecurityScheme'>;
        return { type: 'mtls', ...description(s.description) };
      }
    }
  }
  const type = raw.type;
  if (wrappers.length === 0 && typeof type === 'string' && isSchemeType(type)) {
    const t = type;
    const s = parseWith(schemeTypeFormat(t), raw, (p, m) => fail([...path, ...p], m)) as Record<
      string,
      string | undefined
    > & { flows?: Record<string, unknown> };
    switch (t) {
      case 'apiKey':
        return { type: 'apiKey', location: s.in!, name: s.name!, ...description(s.description) };
      case 'http':
        return {
          type: 'http',
          scheme: s.scheme!,
          ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}),
          ...description(s.description),
        };
      case 'oauth2':
        return {
          type: 'oauth2',
          flows: s.flows!,
          ...(s.oauth2MetadataUrl ? { oauth2MetadataUrl: s.oauth2MetadataUrl } : {}),
          ...description(s.description),
        };
      case 'openIdConnect':
        return { type: 'openIdConnect', openIdConnectUrl: s.openIdConnectUrl!, ...description(s.description) };
      case 'mutualTLS':
        return { type: 'mtls', ...description(s.description) };
    }
  }
  const what =
    wrappers.length > 1
      ? `several variant keys (${wrappers.join(', ')})`
      : typeof type === 'string'
        ? `unknown type "${type}"`
        : 'neither a known type nor a variant key';
  return fail(path, `security-scheme-unrecognized: ${what}`);
}

/**
 * Read the requirement list of a card or skill: 1.0 `securityRequirements`, else 0.3 `security`.
 * `paths[i]` is the JSON path of the scheme-name map of requirement i, as the card spells it.
 */
function readRequirements(
  holder: { securityRequirements?: unknown[] | null; security?: unknown[] | null },
  shape: CardShape,
  path: PropertyKey[],
  warnings: Warning[],
): { requirements: SecurityRequirement[]; paths: PropertyKey[][] } {
  let list = holder.securityRequirements;
  let field = 'securityRequirements';
  if (!list?.length && holder.security?.length) {
    field = 'security';
    if (shape === '1.0') {
      warnings.push({
        code: 'legacy-security-field',
        message: 'A2A 1.0 card uses the 0.3 "security" field; read as securityRequirements',
        path: formatPath([...path, 'security']),
      });
    }
    list = holder.security;
  }
  const raw = (list ?? []) as WireRequirement[];
  return {
    requirements: raw.map(toRequirement),
    paths: raw.map((r, i) => (isWrapped(r) ? [...path, field, i, 'schemes'] : [...path, field, i])),
  };
}

/** True for the proto form `{schemes: {name: {list}}}` (1.0, and 0.3 proto JSON). */
function isWrapped(r: WireRequirement): boolean {
  return 'schemes' in r && typeof r.schemes === 'object' && r.schemes !== null && !Array.isArray(r.schemes);
}

function toRequirement(r: WireRequirement): SecurityRequirement {
  const out: SecurityRequirement = {};
  if (isWrapped(r)) {
    for (const [name, scopes] of Object.entries(r.schemes as Record<string, { list?: string[] | null }>))
      out[name] = [...(scopes.list ?? [])];
  } else {
    for (const [name, scopes] of Object.entries(r as Record<string, string[]>)) out[name] = [...scopes];
  }
  return out;
}

function checkSchemesKnown(
  requirements: SecurityRequirement[],
  schemes: Record<string, SecurityScheme>,
  paths: PropertyKey[][],
  who: string,
  fail: Fail,
): void {
  requirements.forEach((r, i) => {
    for (const name of Object.keys(r)) {
      if (!Object.hasOwn(schemes, name))
        fail(
          [...paths[i]!, name],
          `unknown-security-scheme: ${who} requires scheme "${name}", which securitySchemes does not define`,
        );
    }
  });
}

const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*;.*)?$/;

/**
 * Normalise a list of media types: a bare `text` is kept in the agent's spelling and compared as
 * `text/plain` (`card/media.ts`; warning), so a plan carries what the agent understands; other
 * non-media-type tokens dropped (warning); a mode repeated (as media types compare) kept once.
 */
function readModes(modes: string[], path: PropertyKey[], warnings: Warning[], fail: Fail): string[] {
  const out: string[] = [];
  modes.forEach((mode, i) => {
    const m = mode.trim();
    if (MEDIA_TYPE.test(m)) {
      if (!out.some((o) => sameMediaType(o, m))) out.push(m);
    } else if (m.toLowerCase() === 'text') {
      warnings.push({
        code: 'mode-not-media-type',
        message: `mode "${m}" is not a media type; compared as "text/plain", and plans keep the agent's spelling`,
        path: formatPath([...path, i]),
      });
      if (!out.some((o) => sameMediaType(o, m))) out.push(m);
    } else {
      warnings.push({
        code: 'mode-not-media-type',
        message: `mode "${mode}" is not a media type; dropped`,
        path: formatPath([...path, i]),
      });
    }
  });
  if (modes.length > 0 && out.length === 0) fail(path, 'no valid media type left (every entry was dropped)');
  return out;
}
