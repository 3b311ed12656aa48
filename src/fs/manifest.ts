/** Reading `a2a.json` and `--profile` files from disk: the thin I/O shell around `manifest/parse.ts`. */
import { dirname } from 'node:path';
import { A2aLockError, InvalidInputError } from '../errors.js';
import { parseJson } from '../json-document.js';
import { parseManifest, parseProfile } from '../manifest/parse.js';
import type { Manifest } from '../manifest/schema.js';
import type { ClientProfile } from '../negotiate/types.js';
import { readTextIfExists } from './atomic-write.js';

/**
 * Read and validate the manifest. `lookedUpTo`: the manifest was looked for upward from the
 * working directory (`findManifest`) up to that directory, and not found.
 * @throws A2aLockError `manifest-not-found` (exit 2); InvalidInputError `manifest-invalid` (bad JSON, schema error naming the JSON path)
 */
export async function readManifest(path: string, lookedUpTo?: string): Promise<Manifest> {
  return (await readManifestFile(path, lookedUpTo)).manifest;
}

/**
 * {@link readManifest}, keeping what the file holds: its text and its JSON as written (no
 * defaults filled in, a byte-order mark skipped), for commands that edit the file as the user
 * wrote it (`add`, `update --card`, `remove`).
 * @throws as {@link readManifest}
 */
export async function readManifestFile(
  path: string,
  lookedUpTo?: string,
): Promise<{ manifest: Manifest; text: string; written: Record<string, unknown> }> {
  const text = await readTextIfExists(path, 'manifest-invalid');
  if (text === undefined) {
    if (lookedUpTo !== undefined) {
      throw new A2aLockError(
        'manifest-not-found',
        `no a2a.json in ${dirname(path)}${lookedUpTo === dirname(path) ? '' : ` or any parent directory up to ${lookedUpTo}`}`,
        {
          hint: 'run a2a in the project (or a folder inside it), or pass --manifest <file>; a2a init starts a new project here',
          data: { source: path },
        },
      );
    }
    throw new A2aLockError('manifest-not-found', `${path}: not found`, {
      hint: 'check the --manifest path; a2a init writes a new manifest',
      data: { source: path },
    });
  }
  const manifest = parseManifest(text, path);
  return { manifest, text, written: parseJson(text, path, 'manifest-invalid') as Record<string, unknown> };
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
