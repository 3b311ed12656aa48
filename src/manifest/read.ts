/** Reading `a2a.json` from disk (the thin I/O shell around {@link ManifestSchema}). */
import { InvalidInputError } from '../errors.js';
import { parseJson, readTextIfExists, validate } from '../json-file.js';
import { ManifestSchema, ProfileSchema, type Manifest } from './schema.js';
import type { ClientProfile } from '../negotiate/types.js';

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

/** Parse and validate manifest text. Pure. @throws InvalidInputError `manifest-invalid` */
export function parseManifest(text: string, source: string): Manifest {
  const value = parseJson(text, source, 'manifest-invalid');
  const agents = (value as { agents?: unknown } | null)?.agents;
  if (agents && typeof agents === 'object' && Object.hasOwn(agents, '__proto__')) {
    throw new InvalidInputError('manifest-invalid', source, 'agent name "__proto__" is not allowed', { path: '$.agents["__proto__"]' });
  }
  return validate(ManifestSchema, value, source, 'manifest-invalid');
}

/**
 * Read a `--profile` file: a JSON object holding a client profile.
 * @throws InvalidInputError `profile-invalid`
 */
export async function readProfile(path: string): Promise<ClientProfile> {
  const text = await readTextIfExists(path, 'profile-invalid');
  if (text === undefined) throw new InvalidInputError('profile-invalid', path, 'not found');
  const { $schema: _s, ...profile } = validate(ProfileSchema, parseJson(text, path, 'profile-invalid'), path, 'profile-invalid');
  return profile;
}
