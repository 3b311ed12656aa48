/** Reading `a2a.json` and `--profile` files from disk: the thin I/O shell around `manifest/parse.ts`. */
import { InvalidInputError } from '../errors.js';
import { parseManifest, parseProfile } from '../manifest/parse.js';
import type { Manifest } from '../manifest/schema.js';
import type { ClientProfile } from '../negotiate/types.js';
import { readTextIfExists } from './atomic-write.js';

/**
 * Read and validate the manifest.
 * @throws InvalidInputError `manifest-invalid` (missing file, bad JSON, schema error naming the JSON path)
 */
export async function readManifest(path: string): Promise<Manifest> {
  const text = await readTextIfExists(path, 'manifest-invalid');
  if (text === undefined) {
    throw new InvalidInputError('manifest-invalid', path, 'not found', { hint: 'run a2a init to create one, or pass --manifest <file>' });
  }
  return parseManifest(text, path);
}

/**
 * Read a `--profile` file: a JSON object holding a client profile.
 * @throws InvalidInputError `profile-invalid`
 */
export async function readProfile(path: string): Promise<ClientProfile> {
  const text = await readTextIfExists(path, 'profile-invalid');
  if (text === undefined) throw new InvalidInputError('profile-invalid', path, 'not found');
  return parseProfile(text, path);
}
