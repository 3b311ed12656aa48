/** Reading an agent card from a file (a manifest `card` that is a path, `a2a card ./card.json`). */
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { MAX_CARD_BYTES, parseCardJson } from '../card/read.js';
import { FetchError, InvalidInputError } from '../errors.js';

/** A card read from a file: its parsed JSON object and the path to record. */
export interface CardFile {
  /** The path relative to `baseDir` (POSIX separators), or the absolute path as given. */
  resolved: string;
  raw: Record<string, unknown>;
}

/**
 * Read the card at `location`, a path relative to `baseDir` or absolute: a regular file of at most
 * {@link MAX_CARD_BYTES} bytes holding a JSON object.
 * @throws FetchError `unreachable` (no such file, unreadable); InvalidInputError `card-invalid`
 */
export async function readCardFile(location: string, baseDir: string): Promise<CardFile> {
  const path = isAbsolute(location) ? location : resolve(baseDir, location);
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new InvalidInputError('card-invalid', location, 'not a regular file');
    size = info.size;
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new FetchError('unreachable', location, code === 'ENOENT' ? 'no such file' : `cannot read (${code})`, {
      cause: error,
    });
  }
  if (size > MAX_CARD_BYTES)
    throw new InvalidInputError('card-invalid', location, `card larger than ${MAX_CARD_BYTES} bytes`);
  const raw = parseCardJson(await readFile(path, 'utf8'), location);
  const rel = relative(baseDir, path).split(sep).join('/');
  return { resolved: isAbsolute(location) ? location : rel, raw };
}
