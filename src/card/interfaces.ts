/**
 * A card's interfaces: read from its 1.0 (`supportedInterfaces`) or 0.3/0.2 shape (`url`,
 * `preferredTransport`, `additionalInterfaces`), bindings and versions spelled canonically, URLs
 * resolved against where the card came from and checked, hosts warned about. Pure.
 */
import { formatPath } from '../json-path.js';
import { type Fail, parseWith } from './fail.js';
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
import { type AgentInterface, type CardShape, CORE_BINDINGS, type Warning } from './model.js';
import { majorMinor } from './version.js';
import { CardV1Format, CardV03Format, type CommonCard } from './wire.js';

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

/** What a card's shape says of its interfaces, before their URLs are resolved. */
export interface ShapeRead {
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
export function readV1Interfaces(
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
    protocolVersion: interfaceVersion(
      i.protocolVersion,
      `${i.protocolBinding} ${i.url}`,
      ['supportedInterfaces', index, 'protocolVersion'],
      warnings,
    ),
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
export function readLegacyInterfaces(
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
export function placeInterfaces(
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
 * The protocol version an A2A 1.0 interface serves. Absent, null or empty (`a2a-sdk` for Python
 * serves its cards through protobuf's `MessageToDict`, which drops an unset `protocol_version`)
 * is read as the current version, {@link CURRENT_PROTOCOL_VERSION}, as the reference Python
 * client reads it, with an `interface-version-missing` warning naming the interface (`named`:
 * its binding and URL as written, which stay when its place in the list moves) and the path.
 */
function interfaceVersion(
  version: string | null | undefined,
  named: string,
  path: PropertyKey[],
  warnings: Warning[],
): string {
  if (version !== undefined && version !== null && version.trim() !== '') return majorMinor(version, path, warnings);
  warnings.push({
    code: 'interface-version-missing',
    message: `interface ${named} without protocolVersion (required by A2A 1.0; a2a-sdk for Python leaves it out when unset); read as ${CURRENT_PROTOCOL_VERSION}, the current version, as the reference Python client does`,
    path: formatPath(path),
  });
  return CURRENT_PROTOCOL_VERSION;
}

/** The protocol version an interface without one is read as (A2A 1.0). */
const CURRENT_PROTOCOL_VERSION = '1.0';

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
