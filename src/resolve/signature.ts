/**
 * A card's signature record, with its keys fetched: the operator-pinned `trust.jwks` (a file
 * beside the manifest, or a URL) when set, else the JWS `jku`. The JWKS documents of one run are
 * fetched once each (many agents of one operator share a key set).
 */
import { isCardUrl } from '../card/location.js';
import type { Warning } from '../card/model.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { A2aLockError } from '../errors.js';
import { readJwksFile } from '../fs/jwks-file.js';
import type { AgentSettings } from '../manifest/schema.js';
import { requestOptions, type ResolveOptions } from './options.js';

/**
 * The signature record of a card. The verification module (and with it jose) is loaded only
 * when a card carries signatures. Keys that could not be fetched say nothing about the card: that is "could not
 * check" (the fetch error is thrown: exit 3/4/5), never a signature status to lock or to report.
 * @throws InvalidInputError `manifest-invalid` for a `trust.jwks` that cannot be read or is no JWKS; FetchError
 */
export async function signatureOf(raw: Record<string, unknown>, settings: AgentSettings, options: ResolveOptions, warnings: Warning[]): Promise<SignatureRecord> {
  // trust.jwks is read even for unsigned cards, so a wrong path is reported at once.
  const trustedJwks = settings.trustJwks ? await trustedKeys(settings.trustJwks, options) : undefined;
  if (!Array.isArray(raw.signatures) || raw.signatures.length === 0) return { status: 'absent' };
  const { verifyCardSignature } = await import('../card/signature/verify.js');
  let unreachable: unknown;
  const result = await verifyCardSignature(raw, {
    ...(trustedJwks !== undefined ? { trustedJwks } : {}),
    fetchJwks: (url) =>
      fetchJwks(url, options).catch((error: unknown) => {
        unreachable ??= error;
        throw error;
      }),
  });
  if (result.record.status !== 'verified' && unreachable instanceof A2aLockError) throw unreachable;
  warnings.push(...result.warnings);
  return result.record;
}

/** The operator-pinned JWKS of `trust.jwks` (a file relative to the manifest, or a URL), validated. */
async function trustedKeys(location: string, options: ResolveOptions): Promise<unknown> {
  const { loadJwks } = await import('../card/signature/jwks.js');
  const value = isCardUrl(location) ? await fetchJwks(location, options) : await readJwksFile(location, options.baseDir);
  loadJwks(value, location);
  return value;
}

/** JWKS documents fetched during one run (one options object). */
const jwksCache = new WeakMap<ResolveOptions, Map<string, Promise<unknown>>>();

/** GET a JWKS document once per run and URL. */
async function fetchJwks(url: string, options: ResolveOptions): Promise<unknown> {
  let perRun = jwksCache.get(options);
  if (!perRun) jwksCache.set(options, (perRun = new Map()));
  let pending = perRun.get(url);
  if (!pending) {
    pending = import('../http/request.js').then(({ requestJson }) => requestJson(url, { ...requestOptions(options), subject: 'JWKS' })).then((r) => r.body);
    perRun.set(url, pending);
  }
  return pending;
}
