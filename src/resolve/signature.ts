/**
 * A card's signature record, with its keys fetched: the operator-pinned `trust.jwks` (a file
 * beside the manifest, or a URL) when set, else the JWS `jku`. The JWKS documents of one run are
 * fetched once each (many agents of one operator share a key set).
 *
 * The work one card can cause is bounded: at most `MAX_SIGNATURES` entries are tried
 * (`card/signature/verify.ts`), a `jku` is fetched only on the card's own origin, every key-set
 * fetch of one card ends inside ONE deadline (the run's `timeoutMs`, counted from the start of
 * the card's signature check, not per fetch), and the JWKS requests of a run share its
 * concurrency bound (`concurrency`, default `DEFAULT_CONCURRENCY`).
 */
import { isCardUrl } from '../card/location.js';
import type { Warning } from '../card/model.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { A2aLockError, FetchError } from '../errors.js';
import { readJwksFile } from '../fs/jwks-file.js';
import { DEFAULT_TIMEOUT_MS } from '../http/network-options.js';
import type { AgentSettings } from '../manifest/schema.js';
import { DEFAULT_CONCURRENCY, type ResolveOptions, requestOptions } from './options.js';

/**
 * The signature record of a card. The verification module (and with it jose) is loaded only
 * when a card carries signatures. Keys that could not be fetched say nothing about the card: that is "could not
 * check" (the fetch error is thrown: exit 3/4/5), never a signature status to lock or to report.
 * @param cardUrls the URLs the card came from (the fetched URL; for an extended card also the
 *   public card's): a `jku` is fetched only on one of their origins. None (a file card): no `jku` is fetched.
 * @throws InvalidInputError `manifest-invalid` for a `trust.jwks` that cannot be read or is no JWKS; FetchError
 *   (`timeout` when the card's key fetches pass its deadline)
 */
export async function signatureOf(
  raw: Record<string, unknown>,
  settings: AgentSettings,
  options: ResolveOptions,
  warnings: Warning[],
  cardUrls: ReadonlyArray<string | undefined> = [],
): Promise<SignatureRecord> {
  // trust.jwks is read even for unsigned cards, so a wrong path is reported at once.
  const trustedJwks = settings.trustJwks ? await trustedKeys(settings.trustJwks, options) : undefined;
  if (!Array.isArray(raw.signatures) || raw.signatures.length === 0) return { status: 'absent' };
  const { verifyCardSignature } = await import('../card/signature/verify.js');
  let deadline = performance.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let unreachable: unknown;
  const result = await verifyCardSignature(raw, {
    ...(trustedJwks !== undefined ? { trustedJwks } : {}),
    jkuOrigins: originsOf(cardUrls),
    fetchJwks: (url) =>
      withinDeadline(url, deadline, () => fetchJwks(url, options, deadline)).catch((error: unknown) => {
        // A key set that timed out spent the card's deadline. Timers count from the event loop's
        // cached time, so one may fire while performance.now() still shows time left: asking the
        // next key set then would be a request past the deadline.
        if (error instanceof FetchError && error.code === 'timeout') deadline = Number.NEGATIVE_INFINITY;
        unreachable ??= error;
        throw error;
      }),
  });
  if (result.record.status !== 'verified' && unreachable instanceof A2aLockError) throw unreachable;
  warnings.push(...result.warnings);
  return result.record;
}

/** The distinct http(s) origins of `urls`. */
function originsOf(urls: ReadonlyArray<string | undefined>): string[] {
  const out = new Set<string>();
  for (const url of urls) {
    if (url === undefined || !isCardUrl(url)) continue;
    try {
      out.add(new URL(url).origin);
    } catch {
      // not a URL: no origin
    }
  }
  return [...out];
}

/**
 * `work()` settled, or a FetchError `timeout` at `deadline` (`performance.now()` ms), whichever is
 * first; past the deadline `work` is not started at all. The fetch itself also stops at the
 * deadline (its `timeoutMs` is the time left), so nothing of it outlives the card's budget.
 */
async function withinDeadline<T>(url: string, deadline: number, work: () => Promise<T>): Promise<T> {
  const left = Math.floor(deadline - performance.now());
  const late = () =>
    new FetchError(
      'timeout',
      url,
      "the card's key sets were not fetched within its deadline (--timeout covers all key fetches of one card)",
    );
  if (left <= 0) throw late();
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(late()), left))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The operator-pinned JWKS of `trust.jwks` (a file relative to the manifest, or a URL), validated. */
async function trustedKeys(location: string, options: ResolveOptions): Promise<unknown> {
  const { loadJwks } = await import('../card/signature/jwks.js');
  const value = isCardUrl(location)
    ? await fetchJwks(location, options)
    : await readJwksFile(location, options.baseDir);
  loadJwks(value, location);
  return value;
}

/** One run's JWKS state: documents by URL, and the slots its requests share. */
interface JwksRun {
  documents: Map<string, Promise<unknown>>;
  slots: Slots;
}

/** JWKS documents fetched during one run (one options object). */
const jwksRuns = new WeakMap<ResolveOptions, JwksRun>();

/**
 * GET a JWKS document once per run and URL, holding one of the run's `concurrency` slots while in
 * flight. With `deadline` (`performance.now()` ms) the request gets only the time left when its
 * slot comes (none left: a `timeout` without a request), and a timed-out document is not kept (the
 * next card asks again, within its own deadline).
 */
async function fetchJwks(url: string, options: ResolveOptions, deadline?: number): Promise<unknown> {
  let run = jwksRuns.get(options);
  if (!run) {
    run = { documents: new Map(), slots: new Slots(options.concurrency ?? DEFAULT_CONCURRENCY) };
    jwksRuns.set(options, run);
  }
  const { documents, slots } = run;
  let pending = documents.get(url);
  if (!pending) {
    pending = slots.run(async () => {
      const network = requestOptions(options);
      let timeoutMs = network.timeoutMs;
      if (deadline !== undefined) {
        timeoutMs = Math.min(timeoutMs ?? DEFAULT_TIMEOUT_MS, Math.floor(deadline - performance.now()));
        if (timeoutMs <= 0)
          throw new FetchError('timeout', url, "no time left in the card's deadline for this key set");
      }
      const { requestJson } = await import('../http/request.js');
      return (
        await requestJson(url, { ...network, ...(timeoutMs !== undefined ? { timeoutMs } : {}), subject: 'JWKS' })
      ).body;
    });
    const kept = pending;
    kept.catch((error: unknown) => {
      if (error instanceof FetchError && error.code === 'timeout' && documents.get(url) === kept) documents.delete(url);
    });
    documents.set(url, pending);
  }
  return pending;
}

/** A counting semaphore: at most `limit` tasks of {@link run} in flight, the rest wait in order. */
class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];
  constructor(limit: number) {
    this.#free = Math.max(1, limit);
  }
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
