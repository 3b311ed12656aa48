/** Reading a `trust.jwks` file: the operator-pinned keys a manifest names by a path. */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { InvalidInputError } from '../errors.js';
import { parseJson } from '../json-document.js';

/**
 * The parsed JSON of the `trust.jwks` file at `location` (relative to `baseDir`, the manifest's
 * folder, or absolute). Not checked as a JWKS here (`card/signature/jwks.ts` does that).
 * @throws InvalidInputError `manifest-invalid` naming `location`: unreadable (with the system error code) or not JSON
 */
export async function readJwksFile(location: string, baseDir: string): Promise<unknown> {
  const path = isAbsolute(location) ? location : resolve(baseDir, location);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new InvalidInputError(
      'manifest-invalid',
      location,
      `trust.jwks cannot be read (${error.code ?? String(error)})`,
    );
  });
  return parseJson(text, location, 'manifest-invalid');
}
