/** Parsing `a2a.json` and `--profile` text into validated values. Pure; the files are read in `fs/manifest.ts`. */
import { hasUserInfo } from '../card/location.js';
import { InvalidInputError } from '../errors.js';
import { parseJson, validate } from '../json-document.js';
import { formatPath } from '../json-path.js';
import type { ClientProfile } from '../negotiate/types.js';
import { type Manifest, ManifestFormat, ProfileFormat } from './schema.js';

/**
 * Parse and validate manifest text.
 * @throws InvalidInputError `manifest-invalid`
 */
export function parseManifest(text: string, source: string): Manifest {
  const value = parseJson(text, source, 'manifest-invalid', { uniqueKeys: true });
  const agents = (value as { agents?: unknown } | null)?.agents;
  if (agents && typeof agents === 'object' && Object.hasOwn(agents, '__proto__')) {
    throw new InvalidInputError('manifest-invalid', source, 'agent name "__proto__" is not allowed', {
      path: '$.agents["__proto__"]',
    });
  }
  const manifest = validate(ManifestFormat, value, source, 'manifest-invalid');
  checkLocations(manifest, source);
  return manifest;
}

/** True for a manifest `card` or `trust.jwks` value that is an http(s) URL (anything else is a file path). */
function isHttpUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/**
 * Whether a manifest file path stays inside the manifest's folder tree: relative (not `/x`, `\\x`
 * or `C:x`), and no `..` climbing above the folder (`a/../b` is fine, `../b` and `a/../../b` are not).
 * A check on the string (symbolic links inside the folder are followed as the system follows them).
 */
function staysInside(path: string): boolean {
  if (/^([\\/]|[A-Za-z]:)/.test(path)) return false;
  let depth = 0;
  for (const segment of path.split(/[\\/]/)) {
    if (segment === '..') depth--;
    else if (segment !== '' && segment !== '.') depth++;
    if (depth < 0) return false;
  }
  return true;
}

/**
 * The rules on where an agent's `card` and `trust.jwks` point, beyond their schema: a URL holds no
 * user name or password (never printed: the error names the JSON path only), and a file path stays
 * inside the manifest's folder (a pull request must not read any local JSON into the lockfile).
 * @throws InvalidInputError `manifest-invalid`
 */
function checkLocations(manifest: Manifest, source: string): void {
  for (const [name, agent] of Object.entries(manifest.agents)) {
    const places: Array<[string, string[]]> = [[agent.card, ['agents', name, 'card']]];
    if (agent.trust) places.push([agent.trust.jwks, ['agents', name, 'trust', 'jwks']]);
    for (const [location, path] of places) {
      if (hasUserInfo(location)) {
        throw new InvalidInputError(
          'manifest-invalid',
          source,
          'a user name or password in the URL is not allowed (the URL is not shown)',
          {
            path: formatPath(path),
            hint: 'name the scheme the card offers in "credentials" ({"<scheme>": {"env": "VARIABLE"}}) and keep the secret in that environment variable',
          },
        );
      }
      if (!isHttpUrl(location) && !staysInside(location)) {
        throw new InvalidInputError(
          'manifest-invalid',
          source,
          `file path "${location}" leaves the manifest's folder: use a path relative to it, inside it`,
          { path: formatPath(path) },
        );
      }
    }
  }
}

/**
 * Parse and validate a `--profile` document: a JSON object holding a client profile (`$schema` aside).
 * @throws InvalidInputError `profile-invalid`
 */
export function parseProfile(text: string, source: string): ClientProfile {
  const { $schema: _s, ...profile } = validate(
    ProfileFormat,
    parseJson(text, source, 'profile-invalid', { uniqueKeys: true }),
    source,
    'profile-invalid',
  );
  return profile;
}
