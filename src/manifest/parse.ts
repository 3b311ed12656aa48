/** Parsing `a2a.json` and `--profile` text into validated values. Pure; the files are read in `fs/manifest.ts`. */
import { InvalidInputError } from '../errors.js';
import { parseJson, validate } from '../json-document.js';
import type { ClientProfile } from '../negotiate/types.js';
import { ManifestSchema, ProfileSchema, type Manifest } from './schema.js';

/**
 * Parse and validate manifest text.
 * @throws InvalidInputError `manifest-invalid`
 */
export function parseManifest(text: string, source: string): Manifest {
  const value = parseJson(text, source, 'manifest-invalid', { uniqueKeys: true });
  const agents = (value as { agents?: unknown } | null)?.agents;
  if (agents && typeof agents === 'object' && Object.hasOwn(agents, '__proto__')) {
    throw new InvalidInputError('manifest-invalid', source, 'agent name "__proto__" is not allowed', { path: '$.agents["__proto__"]' });
  }
  return validate(ManifestSchema, value, source, 'manifest-invalid');
}

/**
 * Parse and validate a `--profile` document: a JSON object holding a client profile (`$schema` aside).
 * @throws InvalidInputError `profile-invalid`
 */
export function parseProfile(text: string, source: string): ClientProfile {
  const { $schema: _s, ...profile } = validate(ProfileSchema, parseJson(text, source, 'profile-invalid', { uniqueKeys: true }), source, 'profile-invalid');
  return profile;
}
