/**
 * The manifest's `credentialDestinations`: the origins a credential may be sent to (a card's
 * scheme on a plan's interface or fallback, the extended card request, an OAuth client secret to a
 * token URL, an `originAuth` platform credential). An entry is an origin `https://host[:port]`, or
 * `https://*.domain[:port]` where `*.` stands for one or more labels (`https://*.run.app` matches
 * `https://a.run.app` and `https://a.b.run.app`, not `https://run.app`); plain `http://` only to a
 * loopback host. Scheme and port compare exactly (no port: the scheme's default). Pure.
 */
/** The `*.` that opens a wildcard entry's host. */
const WILDCARD = '*.';

/** The origin an entry names, its wildcard (when any) spelled as one label `x.`, and whether it had one; undefined when it is not an origin. */
export function parseDestination(entry: string): { origin: string; wildcard: boolean } | undefined {
  const m = /^(https?):\/\/(\*\.)?([^/?#*]*)$/.exec(entry);
  if (!m) return undefined;
  const wildcard = m[2] !== undefined;
  const candidate = `${m[1]}://${wildcard ? 'x.' : ''}${m[3]}`;
  if (!URL.canParse(candidate) || new URL(candidate).origin !== candidate) return undefined;
  return { origin: candidate, wildcard };
}

/**
 * Whether `origin` (`scheme://host[:port]`, lower case, as credential routes spell it) is one the
 * list allows: equal to an entry, or, for a `*.` entry, the same scheme and port with a host that
 * ends in `.` + the entry's domain and has at least one label before it.
 */
export function isAllowedDestination(origin: string, list: readonly string[]): boolean {
  if (!URL.canParse(origin)) return false;
  const u = new URL(origin);
  for (const entry of list) {
    if (entry === origin) return true;
    if (!entry.includes(`://${WILDCARD}`)) continue;
    const parsed = parseDestination(entry);
    if (!parsed?.wildcard) continue;
    const e = new URL(parsed.origin);
    const domain = e.hostname.slice(2);
    if (u.protocol === e.protocol && u.port === e.port && u.hostname.endsWith(`.${domain}`)) return true;
  }
  return false;
}
