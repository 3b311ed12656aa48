/**
 * Load an agent card from where the manifest says it is: an http(s) URL (fetched) or a file path
 * relative to the manifest (read). The I/O edge in front of {@link normalizeCard}.
 */
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Dispatcher } from 'undici';
import { FetchError, InvalidInputError } from '../errors.js';
import { parseJson } from '../json-file.js';
import { formatPath, MAX_JSON_DEPTH, tooDeep } from '../json-path.js';
import type { Warning } from './model.js';
import { normalizeCard, type CardSource, type NormalizeResult } from './normalize.js';

/** Where cards are fetched from and how. */
export interface LoadCardOptions {
  /** Directory of the manifest; file locations are relative to it. */
  baseDir: string;
  /** Sent as `A2A-Version` on card requests (the agent profile's first version). */
  a2aVersion: string;
  /** Total deadline per card (ms). Default 10 000. */
  timeoutMs?: number;
  /** Allow plain http to non-loopback hosts. */
  allowHttp?: boolean;
  /** Retries of a card request answered 429/500/502/503/504 (default 2; see `FetchCardOptions.retries`). */
  retries?: number;
  dispatcher?: Dispatcher;
  /** Without `dispatcher`: connections per origin of the shared one (the caller's concurrency). */
  connections?: number;
}

/** A card as loaded, before validation. */
export interface LoadedCard {
  /** The URL that answered, or the file path relative to `baseDir` (POSIX separators). */
  resolved: string;
  /** The parsed JSON object. */
  raw: Record<string, unknown>;
  /** Set for fetched cards: relative interface URLs resolve against it. */
  baseUrl?: string;
  /** What to name in messages: the URL or the file path as given. */
  source: string;
  /** True when only the pre-0.3 path `/.well-known/agent.json` answered. */
  legacyWellKnown?: boolean;
  warnings: Warning[];
}

let fetchModule: Promise<typeof import('./fetch.js')> | undefined;

/** Close the shared HTTP connection pool if any card was fetched (lets the process exit at once). */
export async function closeFetcher(): Promise<void> {
  if (fetchModule) await (await fetchModule).closeDefaultDispatcher();
}

/** Card files larger than this are refused, as for fetched cards (bytes). */
export const MAX_CARD_BYTES = 1_048_576;

/** The origin a manifest `card` value is fetched from (`''` for a file path or a malformed URL). */
export function cardOrigin(location: string): string {
  if (!isCardUrl(location)) return '';
  try {
    return new URL(location).origin;
  } catch {
    return '';
  }
}

/** True when a manifest `card` value is a URL (http or https) rather than a file path. */
export function isCardUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/**
 * Load a card from a URL or a file.
 * @throws InvalidInputError `card-invalid` / `insecure-url`, FetchError `unreachable` / `auth-refused` / `timeout`
 */
export async function loadCard(location: string, options: LoadCardOptions): Promise<LoadedCard> {
  if (isCardUrl(location)) {
    fetchModule ??= import('./fetch.js');
    const { fetchCard } = await fetchModule;
    const fetched = await fetchCard(location, {
      a2aVersion: options.a2aVersion,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.allowHttp !== undefined ? { allowHttp: options.allowHttp } : {}),
      ...(options.retries !== undefined ? { retries: options.retries } : {}),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...(options.connections !== undefined ? { connections: options.connections } : {}),
    });
    const legacyWellKnown = fetched.warnings.some((w) => w.code === 'legacy-well-known-path');
    assertShallow(fetched.body, fetched.url);
    return { resolved: fetched.url, raw: fetched.body as Record<string, unknown>, baseUrl: fetched.url, source: fetched.url, warnings: fetched.warnings, ...(legacyWellKnown ? { legacyWellKnown } : {}) };
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(location)) {
    throw new InvalidInputError('card-invalid', location, 'only http(s) URLs and file paths are supported');
  }
  const path = isAbsolute(location) ? location : resolve(options.baseDir, location);
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new InvalidInputError('card-invalid', location, 'not a regular file');
    size = info.size;
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new FetchError('unreachable', location, code === 'ENOENT' ? 'no such file' : `cannot read (${code})`, { cause: error });
  }
  if (size > MAX_CARD_BYTES) throw new InvalidInputError('card-invalid', location, `card larger than ${MAX_CARD_BYTES} bytes`);
  const raw = parseJson(await readFile(path, 'utf8'), location, 'card-invalid');
  assertShallow(raw, location);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new InvalidInputError('card-invalid', location, 'card is not a JSON object');
  }
  const rel = relative(options.baseDir, path).split(sep).join('/');
  return { resolved: isAbsolute(location) ? location : rel, raw: raw as Record<string, unknown>, source: location, warnings: [] };
}

/**
 * Refuse a card nested deeper than {@link MAX_JSON_DEPTH} levels before anything walks it recursively.
 * @throws InvalidInputError `card-invalid` naming the path where the limit is crossed
 */
export function assertShallow(value: unknown, source: string): void {
  const path = tooDeep(value, MAX_JSON_DEPTH);
  if (path) throw new InvalidInputError('card-invalid', source, `nested deeper than ${MAX_JSON_DEPTH} levels`, { path: formatPath(path) });
}

/** The {@link CardSource} of a loaded card, for {@link normalizeCard}. */
export function cardSourceOf(loaded: LoadedCard): { source: string; baseUrl?: string; legacyWellKnown?: boolean } {
  return { source: loaded.source, ...(loaded.baseUrl ? { baseUrl: loaded.baseUrl } : {}), ...(loaded.legacyWellKnown ? { legacyWellKnown: true } : {}) };
}

/**
 * Read card JSON text as a served card is read: refuse more than {@link MAX_CARD_BYTES} bytes of
 * UTF-8, parse, refuse nesting deeper than {@link MAX_JSON_DEPTH}, validate and normalise. Pure
 * (no I/O); the card reader the fuzz drives.
 * @throws InvalidInputError `card-invalid` naming `from.source` (and the JSON path where known)
 */
export function readCardText(text: string, from: CardSource): NormalizeResult {
  if (Buffer.byteLength(text, 'utf8') > MAX_CARD_BYTES) throw new InvalidInputError('card-invalid', from.source, `card larger than ${MAX_CARD_BYTES} bytes`);
  const raw = parseJson(text, from.source, 'card-invalid');
  assertShallow(raw, from.source);
  return normalizeCard(raw, from);
}
