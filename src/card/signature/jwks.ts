/**
 * Reading JWK Sets (RFC 7517 §5) for Agent Card signatures: the lenient reading of a key set
 * during verification ({@link parseJwks}, {@link loadRemoteJwks}: a bad set becomes a reason, never
 * an exception) and the strict check of an operator-pinned `trust.jwks` when the manifest is read
 * ({@link loadJwks}). Private and symmetric key material is never used and never printed. Pure
 * apart from the injected fetcher of {@link loadRemoteJwks}.
 */
import type { JWK } from 'jose';
import { InvalidInputError } from '../../errors.js';
import { formatPath, isRecord } from '../../json-path.js';
import { describeType, errorMessage } from './text.js';

/** JWK members that carry private or symmetric key material (RFC 7518 §6). Never used, never printed. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'] as const;

/** A key set read for verification: its public keys, or why it is unusable. */
export type JwksParse = { ok: true; keys: JWK[] } | { ok: false; reason: string };

/**
 * Lenient JWKS reading used during verification (RFC 7517 §5): the document must be an object with
 * a `keys` array; entries that are not objects with a string `kty` are ignored; private and
 * symmetric key material is stripped from every key.
 */
export function parseJwks(value: unknown): JwksParse {
  if (!isRecord(value)) return { ok: false, reason: `it is ${describeType(value)}, not a JWKS object` };
  if (!Array.isArray(value.keys)) return { ok: false, reason: 'it has no "keys" array' };
  const keys: JWK[] = [];
  for (const key of value.keys) {
    if (!isRecord(key) || typeof key.kty !== 'string') continue;
    keys.push(publicJwk(key as JWK));
  }
  return { ok: true, keys };
}

/** Fetch the JWKS at `url` (a JWS `jku`) with the injected fetcher and read it; a failed fetch is a reason, not an exception. */
export async function loadRemoteJwks(url: string, fetchJwks: (url: string) => Promise<unknown>): Promise<JwksParse> {
  let document: unknown;
  try {
    document = await fetchJwks(url);
  } catch (error) {
    return { ok: false, reason: `fetching it failed: ${errorMessage(error)}` };
  }
  return parseJwks(document);
}

/** A copy of `jwk` without private or symmetric key members. */
function publicJwk(jwk: JWK): JWK {
  const copy: Record<string, unknown> = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  return copy as JWK;
}

/**
 * Validate a JWKS document (RFC 7517 §5) an operator pinned (manifest `trust.jwks`) and return its
 * keys. Strict, for use when the manifest is read: it must be an object with a non-empty `keys`
 * array whose entries are objects with a string `kty` and a string `kid`, and no entry may carry
 * private or symmetric key material (`d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`, `k`, `priv`). The
 * returned keys keep their `use`/`key_ops`/`alg`.
 *
 * @param source where the document came from (file path or URL), used in the error message
 * @throws {InvalidInputError} code `manifest-invalid`, `path` = the JSON path of the problem;
 *   the message names the member, never its value
 */
export function loadJwks(value: unknown, source = 'trust.jwks'): JWK[] {
  const invalid = (message: string, path: PropertyKey[]): InvalidInputError =>
    new InvalidInputError('manifest-invalid', source, message, {
      path: formatPath(path),
      hint: 'point trust.jwks at a JWK Set {"keys": [...]} of public keys',
    });
  if (!isRecord(value)) throw invalid(`a JWKS must be a JSON object, got ${describeType(value)}`, []);
  if (!Array.isArray(value.keys)) throw invalid('a JWKS needs a "keys" array', ['keys']);
  if (value.keys.length === 0) throw invalid('the JWKS has no keys', ['keys']);
  const keys: JWK[] = [];
  for (const [index, key] of value.keys.entries()) {
    if (!isRecord(key)) throw invalid(`a key must be an object, got ${describeType(key)}`, ['keys', index]);
    if (typeof key.kty !== 'string' || key.kty === '')
      throw invalid('a key needs a "kty" string', ['keys', index, 'kty']);
    if (typeof key.kid !== 'string' || key.kid === '')
      throw invalid('a key needs a "kid" string (signatures name their key by kid)', ['keys', index, 'kid']);
    const secret = PRIVATE_MEMBERS.find((member) => member in key);
    if (secret !== undefined) {
      throw invalid(`the key carries private or symmetric key material ("${secret}"); pin public keys only`, [
        'keys',
        index,
        secret,
      ]);
    }
    keys.push({ ...key } as JWK);
  }
  return keys;
}
