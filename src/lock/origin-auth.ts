/**
 * Platform authentication per origin (the manifest's `originAuth`) as the lockfile records it: per
 * agent, the origins its requests go to that have a placement, and that placement (where a
 * platform credential goes and how it is presented, never its value). Pure.
 */
import type { OriginAuth } from '../manifest/schema.js';
import type { LockEntry } from './schema.js';

/** The manifest's `originAuth` map: origin → placement. */
export type OriginAuthMap = Readonly<Record<string, OriginAuth>>;

/** `scheme://host[:port]` of an http(s) URL as a URL parser prints it; undefined for anything else (a file, gRPC's `host:port`). */
export function httpOrigin(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return undefined;
  return new URL(url).origin;
}

/**
 * The origins an entry's requests go to, each once, sorted: where its card answered, its extended
 * card, and every plan's interface and locked fallback (http(s) ones).
 */
export function entryOrigins(entry: { resolved: string; extended?: { resolved: string } | undefined; plans: LockEntry['plans'] }): string[] {
  const urls = [entry.resolved, ...(entry.extended ? [entry.extended.resolved] : [])];
  for (const plan of Object.values(entry.plans)) urls.push(plan.url, ...(plan.fallbacks?.interfaces ?? []).map((i) => i.url));
  const out = new Set<string>();
  for (const url of urls) {
    const origin = httpOrigin(url);
    if (origin !== undefined) out.add(origin);
  }
  return [...out].sort();
}

/**
 * What a lock entry records under `originAuth`: the placement of each origin among `origins`
 * (those of {@link entryOrigins}, and any other this resolution authenticated, a key set say) that
 * `config` names, sorted by origin; undefined when none.
 */
export function originAuthRecord(origins: Iterable<string>, config: OriginAuthMap | undefined): Record<string, OriginAuth> | undefined {
  if (!config) return undefined;
  const out: Record<string, OriginAuth> = {};
  for (const origin of [...new Set(origins)].sort()) if (Object.hasOwn(config, origin)) out[origin] = config[origin]!;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Why an entry's recorded `originAuth` no longer matches the manifest's: a recorded placement
 * changed or removed there, or an origin the entry uses that the manifest now authenticates.
 * Undefined when they agree.
 */
export function originAuthMismatch(entry: LockEntry, config: OriginAuthMap | undefined): string | undefined {
  const recorded = entry.originAuth ?? {};
  const wanted = originAuthRecord([...entryOrigins(entry), ...Object.keys(recorded)], config) ?? {};
  // Described, every field of a placement is in its words (and no package is loaded: the runtime imports this module).
  const words = (auth: OriginAuth | undefined) => (auth ? describeOriginAuth(auth) : '');
  const changed = [...new Set([...Object.keys(recorded), ...Object.keys(wanted)])].filter((o) => words(recorded[o]) !== words(wanted[o])).sort();
  return changed.length > 0 ? `originAuth changed in the manifest for ${changed.join(', ')}` : undefined;
}

/**
 * A placement as a reader sees it, never a value: `Authorization: Bearer $TOKEN`,
 * `X-Serverless-Authorization: Bearer $TOKEN`, `AWS SigV4 (us-west-2, bedrock-agentcore)`.
 */
export function describeOriginAuth(auth: OriginAuth): string {
  if ('bearer' in auth) return `Authorization: Bearer $${auth.bearer.env}`;
  if ('header' in auth) return `${auth.header.name}: ${auth.header.prefix ?? ''}$${auth.header.env}`;
  return `AWS SigV4 (${auth.awsSigV4.region}, ${auth.awsSigV4.service})`;
}

/** {@link describeOriginAuth} of each origin of a recorded `originAuth`. */
export function describeOriginAuths(record: Readonly<Record<string, OriginAuth>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([origin, auth]) => [origin, describeOriginAuth(auth)]));
}

/** The manifest snippet that authenticates `origin` with a bearer token: for the error of a card refused 401/403 without one. */
export function originAuthExample(origin: string): string {
  return `"originAuth": {"${origin}": {"bearer": {"env": "ORIGIN_TOKEN"}}}`;
}
