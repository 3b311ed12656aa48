/**
 * The request check: one request to a locked agent (its method, URL, headers and body, already
 * read) against the locked plan, and the request completed from the plan (A2A-Version, the
 * extensions header, acceptedOutputModes). Pure: values in, a {@link CheckedRequest} out, or a
 * {@link PlanViolationError} for anything off-plan. The enforcing fetch (`runtime/enforce.ts`)
 * reads the request, calls it, and sends.
 *
 * The body (which call, its parts, modes and push configuration) is checked in
 * `runtime/request-body.ts`.
 *
 * Spec: A2A 1.0 §3.6 (A2A-Version), §4.6 (A2A-Extensions; 0.3 X-A2A-Extensions).
 */
import { PlanViolationError } from '../errors.js';
import type { FallbackInterface } from '../negotiate/types.js';
import { bodyText, checkBody, checkKind, restKind } from './request-body.js';
import { list, type PreparedPlan, prepare, type RequestPlan, redact } from './request-plan.js';

/** One request to check, as a fetch call gives it. */
export interface OutgoingRequest {
  /** The request URL as given (absolute). */
  url: string;
  /** The method, upper case. */
  method: string;
  /**
   * The headers as a plain record, names in any case. A protocol header (A2A-Version, the
   * extensions header) given under several spellings counts as one, its values joined with ", ".
   */
  headers: Record<string, string>;
  /** The body: JSON text, as a string or bytes (undefined or null: none; anything else is refused). */
  body?: unknown;
}

/** A request the plan allows, completed from it. */
export interface CheckedRequest {
  /** The path below the interface URL (HTTP+JSON), '' for the exact URL: a redirect must keep it. */
  path: string;
  /** The headers to send before the credential is placed: A2A-Version and the extensions header the plan's, the rest as given (names as given). */
  headers: Record<string, string>;
  /** The body to send (`acceptedOutputModes` filled in from the plan when the request gave none). */
  body: string | undefined;
}

/**
 * Check one request against the plan and complete it (see the module comment), without sending
 * anything: the URL is the locked interface (HTTP+JSON: a path below it), the A2A-Version and
 * extensions headers agree with the plan, and the call its body (JSON-RPC) or path (HTTP+JSON)
 * names is one the plan allows, with only locked modes, extensions and push endpoint. Pure.
 *
 * @throws PlanViolationError (code `plan-violation`) for anything off-plan, and for every request
 *   on a binding not carried over fetch (gRPC)
 * @internal
 */
export function checkRequest(ctx: RequestPlan, request: OutgoingRequest): CheckedRequest {
  const refused = bindingViolation(ctx);
  if (refused) throw refused;
  return checkPrepared(prepare(ctx), request);
}

/** The request check on a prepared plan whose binding is carried over fetch. */
export function checkPrepared(ctx: PreparedPlan, request: OutgoingRequest): CheckedRequest {
  const { violation } = ctx;
  const path = checkUrl(ctx.iface, request.url, violation);
  let body = bodyText(request.body, violation);
  const headers = checkHeaders(ctx, request.headers);
  const kind = ctx.iface.protocolBinding === 'HTTP+JSON' ? restKind(path, request.method, violation) : undefined;
  if (body !== undefined) body = checkBody(ctx, kind, body);
  else if (kind) checkKind(ctx, kind);
  // A JSON-RPC call is named by its body: without one there is nothing to check, so nothing is sent.
  else throw violation(`a JSON-RPC request without a body (${request.method}) is not a call this plan can check`);
  return { path, headers, body };
}

/** The violation of every request on a binding not carried over fetch (gRPC); undefined for JSON-RPC and HTTP+JSON. */
export function bindingViolation(ctx: RequestPlan): PlanViolationError | undefined {
  if (ctx.iface.protocolBinding === 'JSONRPC' || ctx.iface.protocolBinding === 'HTTP+JSON') return undefined;
  return new PlanViolationError(
    ctx.agent,
    ctx.skill,
    `the locked binding ${ctx.iface.protocolBinding} is not carried over fetch (use createClient())`,
  );
}

/** The path of `href` below the locked interface (see {@link pathBelow}). @throws PlanViolationError (via `violation`) for a URL off the interface */
function checkUrl(iface: FallbackInterface, href: string, violation: (m: string) => Error): string {
  // The exact locked URL (every JSON-RPC call) needs no parsing.
  if (href === iface.url) return '';
  const base = new URL(iface.url);
  if (href === base.href) return '';
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw violation('the request URL is not an absolute URL');
  }
  const path = pathBelow(iface, base, url);
  if (path === undefined)
    throw violation(
      `${redact(url)} is not the locked interface ${iface.protocolBinding} ${redact(base)}${urlDifference(url, base, iface.protocolBinding === 'HTTP+JSON')}`,
    );
  return path;
}

/** The path of `url` below the interface URL `base` (HTTP+JSON), or '' for the exact URL; undefined when off-plan. */
export function pathBelow(iface: FallbackInterface, base: URL, url: URL): string | undefined {
  if (iface.protocolBinding === 'HTTP+JSON') {
    const basePath = base.pathname.replace(/\/+$/, '');
    if (url.origin !== base.origin || url.username || url.password) return undefined;
    if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return undefined;
    return url.pathname.slice(basePath.length);
  }
  return url.href === base.href ? '' : undefined;
}

/**
 * Check the request's protocol headers and make the headers to send. A2A-Version: the locked
 * Major.Minor (a conflicting value is a violation); the extensions header under either name: only
 * locked extensions. Sent: the locked A2A-Version, the locked extensions under the one header name
 * of the locked version, then the request's other headers as given.
 */
function checkHeaders(ctx: PreparedPlan, headers: Record<string, string>): Record<string, string> {
  const version = ctx.iface.protocolVersion;
  const planned: Record<string, string> = { 'a2a-version': version };
  if (ctx.plan.extensions.length > 0)
    planned[version.startsWith('0.') ? 'x-a2a-extensions' : 'a2a-extensions'] = ctx.plan.extensions.join(', ');
  let asked: string | undefined;
  let extensions: string | undefined;
  let legacyExtensions: string | undefined;
  const names = Object.keys(headers);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const value = headers[name]!;
    // Assigned, an own `__proto__` key (JSON.parse and spreads make one) would set the prototype of the headers to send.
    if (name === '__proto__') throw ctx.violation('a header named "__proto__" is refused');
    const protocol = protocolHeader(name);
    if (protocol === undefined) planned[name] = String(value);
    else if (protocol === 'a2a-version') asked = joined(asked, value);
    else if (protocol === 'a2a-extensions') extensions = joined(extensions, value);
    else legacyExtensions = joined(legacyExtensions, value);
  }
  if (asked !== undefined) {
    const given = asked.trim();
    if (given !== version && !given.startsWith(`${version}.`))
      throw ctx.violation(`A2A-Version ${JSON.stringify(asked.slice(0, 20))} conflicts with the locked ${version}`);
  }
  checkExtensionsHeader(ctx, extensions);
  checkExtensionsHeader(ctx, legacyExtensions);
  return planned;
}

/** Which protocol header `name` is, in any case, else undefined: only a name of one of their lengths is lower-cased. */
function protocolHeader(name: string): 'a2a-version' | 'a2a-extensions' | 'x-a2a-extensions' | undefined {
  if (name.length !== 11 && name.length !== 14 && name.length !== 16) return undefined;
  const lower = name.toLowerCase();
  return lower === 'a2a-version' || lower === 'a2a-extensions' || lower === 'x-a2a-extensions' ? lower : undefined;
}

/** A header's values so far and one more, joined with ", " as `Headers` joins a repeated name. */
function joined(had: string | undefined, value: unknown): string {
  return had === undefined ? String(value) : `${had}, ${String(value)}`;
}

/** An extensions header's value (either name; absent: undefined): only locked extensions. */
function checkExtensionsHeader(ctx: PreparedPlan, listed: string | undefined): void {
  if (listed === undefined) return;
  for (const uri of listed
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (!ctx.plan.extensions.includes(uri))
      throw ctx.violation(`extension ${uri} is not locked (locked: ${list(ctx.plan.extensions)})`);
  }
}

/** Why a URL whose origin and path match the locked one is still not it (never echoing userinfo), else ''. */
function urlDifference(url: URL, base: URL, prefix: boolean): string {
  const basePath = base.pathname.replace(/\/+$/, '');
  const samePath =
    url.pathname === base.pathname ||
    (prefix && (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`)));
  if (url.origin !== base.origin || !samePath) return '';
  const reasons: string[] = [];
  if (url.username || url.password) reasons.push('has userinfo (credentials in the URL)');
  const [query, fragment] = urlMarkers(url);
  const [lockedQuery, lockedFragment] = urlMarkers(base);
  if (!prefix && (url.search !== base.search || query !== lockedQuery))
    reasons.push(query ? 'has a query string' : 'lacks the locked query string');
  if (!prefix && (url.hash !== base.hash || fragment !== lockedFragment))
    reasons.push(fragment ? 'has a fragment' : 'lacks the locked fragment');
  return reasons.length ? `: it ${reasons.join(' and ')}` : '';
}

/** Whether `url` has a query and a fragment, empty ones included (`…/a2a?`: `search` is `''`, the href keeps the `?`). */
function urlMarkers(url: URL): [query: boolean, fragment: boolean] {
  const fragment = url.hash !== '' || url.href.endsWith('#');
  const beforeFragment = url.href.slice(0, url.href.length - (url.hash || (fragment ? '#' : '')).length);
  return [url.search !== '' || beforeFragment.endsWith('?'), fragment];
}
