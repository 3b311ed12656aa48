/**
 * Agent Card signatures: verify the detached JWS signatures of an A2A Agent Card and produce the
 * {@link SignatureRecord} the lockfile stores per card snapshot.
 *
 * Spec: A2A 1.0 §8.4 (AgentCardSignature §8.4.2, canonicalisation §8.4.1, verification §8.4.3;
 * proto `lf.a2a.v1.AgentCardSignature`); RFC 7515 (JWS, flattened JSON serialisation with a
 * detached payload), RFC 7517 (JWK Set), RFC 7638 (JWK thumbprint), RFC 8785 (JCS).
 *
 * Pure apart from the injected {@link VerifySignatureOptions.fetchJwks}: no network, file or
 * clock access here. Nothing in this module throws for a bad card, signature or key set; every
 * such problem becomes `status: 'unverifiable'` with a one-line warning that never contains key
 * material.
 *
 * ## What is signed
 *
 * Signers disagree on the exact payload, so a signature is checked against every distinct
 * candidate from {@link signingPayloads}, in this order:
 *
 * 1. `jcs`: RFC 8785 of the card exactly as served, minus `signatures` (what the a2a-lock design
 *    specifies; covers every field).
 * 2. `spec`: the A2A 1.0 §8.4.1 form. The card is projected onto the 1.0 proto AgentCard with
 *    proto field-presence rules (unknown fields dropped; REQUIRED fields kept when present;
 *    proto3 `optional` fields kept when present, even at their default; other fields omitted at
 *    their default), then JCS.
 * 3. `sdk`: what `@a2a-js/sdk` 1.3.0 `generateAgentCardSignature` signs: the same projection with
 *    every empty string, null, empty array and empty object then removed recursively (false is
 *    kept), then JCS.
 *
 * Forms 2 and 3 do not cover fields outside the 1.0 AgentCard (0.3 fields such as `url` or
 * `security` on a hybrid card, vendor fields). When a signature verifies only through one of them
 * and the card carries such fields, the result has a `signature-partial` warning naming them.
 */
import * as jose from 'jose';
import type { JWK } from 'jose';
import { canonicalJson } from '../canonical.js';
import { InvalidInputError } from '../errors.js';
import { formatPath } from '../json-path.js';
import type { Warning } from './model.js';

/** What the lockfile records per card snapshot. Deterministic: no reasons, no timestamps. */
export interface SignatureRecord {
  /**
   * `verified`: one signature verified against a key from the trusted JWKS or the `jku` JWKS.
   * `unverifiable`: the card has signatures but none verified (no key, bad signature, tampered
   * card, unsupported algorithm, malformed entry). `absent`: no signatures (missing or `[]`).
   */
  status: 'verified' | 'unverifiable' | 'absent';
  /** `kid` of the signature that verified, or of the first signature when unverifiable (if it has one). */
  kid?: string;
  /** `alg` of the same signature. */
  alg?: string;
  /** RFC 7638 JWK thumbprint (SHA-256, base64url) of the key that verified; only when verified. */
  thumbprint?: string;
}

/** The outcome of {@link verifyCardSignature}. */
export interface SignatureResult {
  record: SignatureRecord;
  /**
   * Not stored in the lockfile. `signature-unverifiable` (one per signature entry, only when the
   * status is `unverifiable`, `path` = `$.signatures[i]`) says why that entry did not verify;
   * `signature-partial` (only when verified) names fields the verified payload does not cover.
   */
  warnings: Warning[];
}

/** Key sources for {@link verifyCardSignature}. */
export interface VerifySignatureOptions {
  /**
   * Operator-pinned keys (manifest `trust.jwks`), already loaded as a JWKS object
   * (`{"keys": [...]}`). When given, ONLY these keys are used and `jku` is ignored.
   */
  trustedJwks?: unknown;
  /**
   * Fetch a JWKS document from a URL (the JWS protected header's `jku`); injected so this module
   * stays free of network code. It may throw (typed errors such as `FetchError`); the message
   * ends up in the warning. Called at most once per distinct URL per verification.
   */
  fetchJwks?: (url: string) => Promise<unknown>;
}

/** Which canonicalisation a candidate payload comes from (see the module comment). */
export type PayloadForm = 'jcs' | 'spec' | 'sdk';

/** One candidate signing payload. */
export interface SigningPayload {
  form: PayloadForm;
  /** The payload text; its UTF-8 bytes are what the JWS signs. */
  text: string;
}

/**
 * Asymmetric JWS algorithms accepted (RFC 7518 §3, RFC 8037, and jose's ML-DSA). `none` and the
 * HMAC algorithms are refused: a symmetric key cannot prove who signed a public card.
 */
const ASYMMETRIC_ALGS: ReadonlySet<string> = new Set([
  'RS256', 'RS384', 'RS512',
  'PS256', 'PS384', 'PS512',
  'ES256', 'ES384', 'ES512',
  'EdDSA', 'Ed25519',
  'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87',
]);

/** JWK members that carry private or symmetric key material (RFC 7518 §6). Never used, never printed. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'] as const;

// ---------------------------------------------------------------------------------------------
// Verification
// ---------------------------------------------------------------------------------------------

/**
 * Verify the signatures of an Agent Card (A2A 1.0 §8.4.3) and return the lockfile record.
 *
 * - No `signatures` (missing, null or `[]`) → `absent`.
 * - Otherwise the entries are tried in order. For each: decode the protected header; it needs an
 *   asymmetric `alg` and a `kid`. Keys come from `trustedJwks` when given (matched by `kid`),
 *   else from the JWKS at the protected header's `jku` via `fetchJwks` (matched by `kid`). A key
 *   is usable when it is not symmetric, its `use` (if any) is `sig`, its `key_ops` (if any)
 *   include `verify`, and its `alg` (if any) equals the header's. The signature is checked
 *   against every candidate payload of {@link signingPayloads}; the first entry that verifies
 *   gives `verified` with its `kid`, `alg` and the RFC 7638 thumbprint of the key.
 * - If none verifies → `unverifiable`, with one `signature-unverifiable` warning per entry.
 *
 * Never throws for a malformed card, signature, header or JWKS, nor when `fetchJwks` throws:
 * those are `unverifiable`. It can only reject on a bug.
 */
export async function verifyCardSignature(card: Record<string, unknown>, options: VerifySignatureOptions = {}): Promise<SignatureResult> {
  const entries = card.signatures;
  if (entries === undefined || entries === null || (Array.isArray(entries) && entries.length === 0)) {
    return { record: { status: 'absent' }, warnings: [] };
  }
  if (!Array.isArray(entries)) {
    return {
      record: { status: 'unverifiable' },
      warnings: [{ code: 'signature-unverifiable', message: `signatures is ${describeType(entries)}, not an array`, path: '$.signatures' }],
    };
  }

  const ctx: VerifyContext = {
    options,
    trusted: options.trustedJwks === undefined ? undefined : parseJwks(options.trustedJwks),
    jwksByUrl: new Map(),
    payloads: undefined,
    card,
  };

  const warnings: Warning[] = [];
  let firstHeader: { kid?: string; alg?: string } = {};
  for (const [index, entry] of entries.entries()) {
    const outcome = await verifyEntry(entry, ctx);
    if (index === 0) firstHeader = outcome.header;
    if (outcome.ok) {
      const record: SignatureRecord = { status: 'verified', kid: outcome.kid, alg: outcome.alg, thumbprint: outcome.thumbprint };
      return { record, warnings: coverageWarnings(outcome.form, card) };
    }
    const label = entryLabel(index, outcome.header);
    warnings.push({ code: 'signature-unverifiable', message: oneLine(`${label}: ${outcome.reason}`), path: formatPath(['signatures', index]) });
  }
  return { record: { status: 'unverifiable', ...firstHeader }, warnings };
}

interface VerifyContext {
  options: VerifySignatureOptions;
  /** The parsed trusted JWKS, or undefined when none was given. */
  trusted: JwksParse | undefined;
  /** jku → parsed JWKS (or why not), fetched at most once per URL. */
  jwksByUrl: Map<string, Promise<JwksParse>>;
  /** Candidate payloads, computed on first use. */
  payloads: Array<SigningPayload & { encoded: string }> | undefined;
  card: Record<string, unknown>;
}

type EntryOutcome =
  | { ok: true; header: { kid?: string; alg?: string }; kid: string; alg: string; thumbprint: string; form: PayloadForm }
  | { ok: false; header: { kid?: string; alg?: string }; reason: string };

async function verifyEntry(entry: unknown, ctx: VerifyContext): Promise<EntryOutcome> {
  const fail = (reason: string, header: { kid?: string; alg?: string } = {}): EntryOutcome => ({ ok: false, header, reason });

  if (!isPlainObject(entry)) return fail(`entry is ${describeType(entry)}, not an object`);
  if (typeof entry.protected !== 'string' || entry.protected === '') return fail('entry has no "protected" string');
  if (typeof entry.signature !== 'string' || entry.signature === '') return fail('entry has no "signature" string');
  if (entry.header !== undefined && entry.header !== null && !isPlainObject(entry.header)) return fail('unprotected "header" is not an object');

  let protectedHeader: jose.ProtectedHeaderParameters;
  try {
    protectedHeader = jose.decodeProtectedHeader({ protected: entry.protected });
  } catch (error) {
    return fail(`protected header is not base64url-encoded JSON (${errorMessage(error)})`);
  }
  const header: { kid?: string; alg?: string } = {
    ...(typeof protectedHeader.kid === 'string' ? { kid: protectedHeader.kid } : {}),
    ...(typeof protectedHeader.alg === 'string' ? { alg: protectedHeader.alg } : {}),
  };
  const { alg, kid } = header;
  if (alg === undefined) return fail('protected header has no "alg"', header);
  if (!ASYMMETRIC_ALGS.has(alg)) {
    return fail(`alg ${quote(alg)} is not accepted (only asymmetric algorithms: RS*, PS*, ES*, EdDSA, Ed25519, ML-DSA-*)`, header);
  }
  if (kid === undefined || kid === '') return fail('protected header has no "kid"', header);

  // Key source: the pinned JWKS, else the jku in the protected header.
  let source: string;
  let jwks: JwksParse;
  if (ctx.trusted !== undefined) {
    source = 'the trusted JWKS';
    jwks = ctx.trusted;
  } else {
    const jku = protectedHeader.jku;
    if (jku === undefined) return fail('no key source: no trusted JWKS and no "jku" in the protected header', header);
    if (typeof jku !== 'string' || jku === '') return fail('"jku" in the protected header is not a URL string', header);
    const fetchJwks = ctx.options.fetchJwks;
    if (fetchJwks === undefined) return fail(`no key source: "jku" ${quote(jku)} was not fetched (no JWKS fetcher)`, header);
    source = `the JWKS at ${quote(jku)}`;
    let pending = ctx.jwksByUrl.get(jku);
    if (pending === undefined) {
      pending = loadRemoteJwks(jku, fetchJwks);
      ctx.jwksByUrl.set(jku, pending);
    }
    jwks = await pending;
  }
  if (!jwks.ok) return fail(`${source} is unusable: ${jwks.reason}`, header);

  const withKid = jwks.keys.filter((jwk) => jwk.kid === kid);
  if (withKid.length === 0) return fail(`no key with kid ${quote(kid)} in ${source}`, header);
  const usable = withKid.filter((jwk) => keyUsableFor(jwk, alg));
  if (usable.length === 0) {
    return fail(`the key with kid ${quote(kid)} in ${source} is not usable for ${alg} (symmetric, or its use/key_ops/alg do not allow it)`, header);
  }

  ctx.payloads ??= signingPayloadForms(ctx.card).map((payload) => ({
    ...payload,
    encoded: jose.base64url.encode(new TextEncoder().encode(payload.text)),
  }));

  let reason = 'the signature does not match the card';
  for (const jwk of usable) {
    // key_ops was checked above; WebCrypto would refuse a public key whose key_ops also list "sign".
    const { key_ops: _keyOps, ...verifyJwk } = jwk;
    for (const payload of ctx.payloads) {
      try {
        await jose.flattenedVerify(
          {
            payload: payload.encoded,
            protected: entry.protected,
            signature: entry.signature,
            ...(isPlainObject(entry.header) ? { header: entry.header as jose.JWSHeaderParameters } : {}),
          },
          verifyJwk,
          { algorithms: [alg] },
        );
      } catch (error) {
        if (error instanceof jose.errors.JWSSignatureVerificationFailed) continue;
        // Anything else (key import, key/alg mismatch, crit, header clash, bad signature encoding)
        // does not depend on the payload.
        reason = `JWS rejected: ${errorMessage(error)}`;
        break;
      }
      let thumbprint: string;
      try {
        thumbprint = await jose.calculateJwkThumbprint(jwk, 'sha256');
      } catch (error) {
        return fail(`the verifying key has no RFC 7638 thumbprint (${errorMessage(error)})`, header);
      }
      return { ok: true, header, kid, alg, thumbprint, form: payload.form };
    }
  }
  return fail(reason, header);
}

async function loadRemoteJwks(url: string, fetchJwks: (url: string) => Promise<unknown>): Promise<JwksParse> {
  let document: unknown;
  try {
    document = await fetchJwks(url);
  } catch (error) {
    return { ok: false, reason: `fetching it failed: ${errorMessage(error)}` };
  }
  return parseJwks(document);
}

/** Whether a (public, parsed) JWK may verify a JWS with `alg`. */
function keyUsableFor(jwk: JWK, alg: string): boolean {
  if (jwk.kty === 'oct') return false;
  if (jwk.use !== undefined && jwk.use !== 'sig') return false;
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify'))) return false;
  if (jwk.alg !== undefined && jwk.alg !== alg) return false;
  return true;
}

/** A `signature-partial` warning when the verified payload leaves out fields of the card. */
function coverageWarnings(form: PayloadForm, card: Record<string, unknown>): Warning[] {
  if (form === 'jcs') return [];
  const uncovered: string[] = [];
  projectMessage(AGENT_CARD, card, [], uncovered);
  if (uncovered.length === 0) return [];
  const shown = uncovered.slice(0, 8).join(', ');
  const more = uncovered.length > 8 ? ` (+${uncovered.length - 8} more)` : '';
  return [{
    code: 'signature-partial',
    message: `the signature covers only the A2A 1.0 AgentCard fields (${form === 'spec' ? '§8.4.1 form' : '@a2a-js/sdk form'}); not covered: ${shown}${more}`,
  }];
}

// ---------------------------------------------------------------------------------------------
// JWKS
// ---------------------------------------------------------------------------------------------

type JwksParse = { ok: true; keys: JWK[] } | { ok: false; reason: string };

/**
 * Lenient JWKS reading used during verification (RFC 7517 §5): the document must be an object with
 * a `keys` array; entries that are not objects with a string `kty` are ignored; private and
 * symmetric key material is stripped from every key.
 */
function parseJwks(value: unknown): JwksParse {
  if (!isPlainObject(value)) return { ok: false, reason: `it is ${describeType(value)}, not a JWKS object` };
  if (!Array.isArray(value.keys)) return { ok: false, reason: 'it has no "keys" array' };
  const keys: JWK[] = [];
  for (const key of value.keys) {
    if (!isPlainObject(key) || typeof key.kty !== 'string') continue;
    keys.push(publicJwk(key as JWK));
  }
  return { ok: true, keys };
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
    new InvalidInputError('manifest-invalid', source, message, { path: formatPath(path), hint: 'point trust.jwks at a JWK Set {"keys": [...]} of public keys' });
  if (!isPlainObject(value)) throw invalid(`a JWKS must be a JSON object, got ${describeType(value)}`, []);
  if (!Array.isArray(value.keys)) throw invalid('a JWKS needs a "keys" array', ['keys']);
  if (value.keys.length === 0) throw invalid('the JWKS has no keys', ['keys']);
  const keys: JWK[] = [];
  for (const [index, key] of value.keys.entries()) {
    if (!isPlainObject(key)) throw invalid(`a key must be an object, got ${describeType(key)}`, ['keys', index]);
    if (typeof key.kty !== 'string' || key.kty === '') throw invalid('a key needs a "kty" string', ['keys', index, 'kty']);
    if (typeof key.kid !== 'string' || key.kid === '') throw invalid('a key needs a "kid" string (signatures name their key by kid)', ['keys', index, 'kid']);
    const secret = PRIVATE_MEMBERS.find((member) => member in key);
    if (secret !== undefined) {
      throw invalid(`the key carries private or symmetric key material ("${secret}"); pin public keys only`, ['keys', index, secret]);
    }
    keys.push({ ...key } as JWK);
  }
  return keys;
}

// ---------------------------------------------------------------------------------------------
// Signing payloads
// ---------------------------------------------------------------------------------------------

/**
 * The candidate signing payloads of a card (the card without `signatures`, as text whose UTF-8
 * bytes are signed), distinct and in order: RFC 8785 of the card as served; the A2A 1.0 §8.4.1
 * proto-presence form; the `@a2a-js/sdk` 1.3.0 form. See the module comment. Exported for tests.
 */
export function signingPayloads(card: Record<string, unknown>): string[] {
  return signingPayloadForms(card).map((payload) => payload.text);
}

/** {@link signingPayloads} with the form each candidate came from; duplicates keep the first form. */
export function signingPayloadForms(card: Record<string, unknown>): SigningPayload[] {
  const { signatures: _signatures, ...unsigned } = card;
  const projected = projectMessage(AGENT_CARD, card, [], []);
  const candidates: SigningPayload[] = [
    { form: 'jcs', text: canonicalJson(unsigned) },
    { form: 'spec', text: canonicalJson(projected) },
    { form: 'sdk', text: canonicalJson(dropEmpty(projected) ?? {}) },
  ];
  const seen = new Set<string>();
  return candidates.filter((candidate) => {
    if (seen.has(candidate.text)) return false;
    seen.add(candidate.text);
    return true;
  });
}

/**
 * Field presence in the 1.0 proto: `required` = `(google.api.field_behavior) = REQUIRED`;
 * `optional` = proto3 `optional` (presence tracked); `plain` = neither (omitted at its default).
 * REQUIRED and optional fields are kept whenever the card has them (not null), at any value.
 */
type Presence = 'required' | 'optional' | 'plain';

type Kind =
  | { type: 'string' }
  | { type: 'bool' }
  | { type: 'strings' }
  | { type: 'message'; message: MessageSpec }
  | { type: 'messages'; message: MessageSpec }
  | { type: 'map'; value: MessageSpec | 'string' }
  | { type: 'struct' };

interface FieldSpec {
  /** ProtoJSON (lowerCamelCase) name. */
  json: string;
  kind: Kind;
  presence: Presence;
}

interface MessageSpec {
  fields: FieldSpec[];
  /** A proto `oneof` wrapper: only the first member present (in field order) is read, and it is kept even when empty. */
  oneof?: boolean;
  /** Keys read but deliberately not projected (the card's `signatures`). */
  skip?: string[];
}

const STRING: Kind = { type: 'string' };
const BOOL: Kind = { type: 'bool' };
const STRINGS: Kind = { type: 'strings' };
const f = (json: string, kind: Kind, presence: Presence = 'plain'): FieldSpec => ({ json, kind, presence });
const message = (spec: MessageSpec): Kind => ({ type: 'message', message: spec });
const messages = (spec: MessageSpec): Kind => ({ type: 'messages', message: spec });

// The 1.0 AgentCard and the messages it contains (proto `lf.a2a.v1`, A2A-NOTES §2; field order as in the proto).
const FLOW_SCOPES = (presence: Presence): FieldSpec => f('scopes', { type: 'map', value: 'string' }, presence);
const OAUTH_FLOWS: MessageSpec = {
  oneof: true,
  fields: [
    f('authorizationCode', message({ fields: [f('authorizationUrl', STRING, 'required'), f('tokenUrl', STRING, 'required'), f('refreshUrl', STRING), FLOW_SCOPES('required'), f('pkceRequired', BOOL)] })),
    f('clientCredentials', message({ fields: [f('tokenUrl', STRING, 'required'), f('refreshUrl', STRING), FLOW_SCOPES('required')] })),
    f('implicit', message({ fields: [f('authorizationUrl', STRING), f('refreshUrl', STRING), FLOW_SCOPES('plain')] })),
    f('password', message({ fields: [f('tokenUrl', STRING), f('refreshUrl', STRING), FLOW_SCOPES('plain')] })),
    f('deviceCode', message({ fields: [f('deviceAuthorizationUrl', STRING, 'required'), f('tokenUrl', STRING, 'required'), f('refreshUrl', STRING), FLOW_SCOPES('required')] })),
  ],
};
const SECURITY_SCHEME: MessageSpec = {
  oneof: true,
  fields: [
    f('apiKeySecurityScheme', message({ fields: [f('description', STRING), f('location', STRING, 'required'), f('name', STRING, 'required')] })),
    f('httpAuthSecurityScheme', message({ fields: [f('description', STRING), f('scheme', STRING, 'required'), f('bearerFormat', STRING)] })),
    f('oauth2SecurityScheme', message({ fields: [f('description', STRING), f('flows', message(OAUTH_FLOWS), 'required'), f('oauth2MetadataUrl', STRING)] })),
    f('openIdConnectSecurityScheme', message({ fields: [f('description', STRING), f('openIdConnectUrl', STRING, 'required')] })),
    f('mtlsSecurityScheme', message({ fields: [f('description', STRING)] })),
  ],
};
const SECURITY_REQUIREMENT: MessageSpec = {
  fields: [f('schemes', { type: 'map', value: { fields: [f('list', STRINGS)] } })],
};
const AGENT_INTERFACE: MessageSpec = {
  fields: [f('url', STRING, 'required'), f('protocolBinding', STRING, 'required'), f('tenant', STRING), f('protocolVersion', STRING, 'required')],
};
const AGENT_EXTENSION: MessageSpec = {
  fields: [f('uri', STRING), f('description', STRING), f('required', BOOL), f('params', { type: 'struct' })],
};
const AGENT_CAPABILITIES: MessageSpec = {
  fields: [
    f('streaming', BOOL, 'optional'),
    f('pushNotifications', BOOL, 'optional'),
    f('extensions', messages(AGENT_EXTENSION)),
    f('extendedAgentCard', BOOL, 'optional'),
  ],
};
const AGENT_SKILL: MessageSpec = {
  fields: [
    f('id', STRING, 'required'),
    f('name', STRING, 'required'),
    f('description', STRING, 'required'),
    f('tags', STRINGS, 'required'),
    f('examples', STRINGS),
    f('inputModes', STRINGS),
    f('outputModes', STRINGS),
    f('securityRequirements', messages(SECURITY_REQUIREMENT)),
  ],
};
const AGENT_CARD: MessageSpec = {
  skip: ['signatures'],
  fields: [
    f('name', STRING, 'required'),
    f('description', STRING, 'required'),
    f('supportedInterfaces', messages(AGENT_INTERFACE), 'required'),
    f('provider', message({ fields: [f('url', STRING, 'required'), f('organization', STRING, 'required')] })),
    f('version', STRING, 'required'),
    f('documentationUrl', STRING, 'optional'),
    f('capabilities', message(AGENT_CAPABILITIES), 'required'),
    f('securitySchemes', { type: 'map', value: SECURITY_SCHEME }),
    f('securityRequirements', messages(SECURITY_REQUIREMENT)),
    f('defaultInputModes', STRINGS, 'required'),
    f('defaultOutputModes', STRINGS, 'required'),
    f('skills', messages(AGENT_SKILL), 'required'),
    f('iconUrl', STRING, 'optional'),
  ],
};

/** `protocolBinding` → `protocol_binding`: ProtoJSON readers also accept the proto field name. */
function snakeName(json: string): string {
  return json.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Whether a JSON value can be read as `kind` (mirrors a lenient ProtoJSON reader: null means unset). */
function readable(kind: Kind, value: unknown): boolean {
  switch (kind.type) {
    case 'strings':
    case 'messages':
      return Array.isArray(value);
    case 'map':
    case 'struct':
      return typeof value === 'object' && value !== null;
    default:
      return value !== undefined && value !== null;
  }
}

/**
 * Project a JSON value onto a proto message per A2A 1.0 §8.4.1. Scalars are coerced the way a
 * lenient ProtoJSON reader (the SDK's ts-proto `fromJSON`) does (`String(x)`, `Boolean(x)`); a
 * non-object message reads as empty. Keys not read are appended (as JSON paths) to `uncovered`.
 */
function projectMessage(spec: MessageSpec, input: unknown, path: PropertyKey[], uncovered: string[]): Record<string, unknown> {
  const source: Record<string, unknown> = isPlainObject(input) ? input : {};
  const out: Record<string, unknown> = {};
  const read = new Set<string>(spec.skip ?? []);
  for (const field of spec.fields) {
    const names = [field.json, snakeName(field.json)];
    const name = names.find((candidate) => Object.hasOwn(source, candidate) && readable(field.kind, source[candidate]));
    if (name === undefined) continue;
    read.add(name);
    const value = projectField(field.kind, source[name], [...path, name], uncovered);
    if (spec.oneof || field.presence !== 'plain' || !isDefault(value)) put(out, field.json, value);
    if (spec.oneof) break;
  }
  for (const key of Object.keys(source)) {
    if (!read.has(key)) uncovered.push(formatPath([...path, key]));
  }
  return out;
}

function projectField(kind: Kind, value: unknown, path: PropertyKey[], uncovered: string[]): unknown {
  switch (kind.type) {
    case 'string':
      return String(value);
    case 'bool':
      return Boolean(value);
    case 'strings':
      return (value as unknown[]).map((item) => String(item));
    case 'message':
      return projectMessage(kind.message, value, path, uncovered);
    case 'messages':
      return (value as unknown[]).map((item, index) => projectMessage(kind.message, item, [...path, index], uncovered));
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value as object)) {
        put(out, key, kind.value === 'string' ? String(item) : projectMessage(kind.value, item, [...path, key], uncovered));
      }
      return out;
    }
    case 'struct':
      return value;
  }
}

/** Proto3 default values: `""`, `false`, `0`, `[]`, `{}`. */
function isDefault(value: unknown): boolean {
  if (value === '' || value === false || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

/**
 * Remove empty strings, nulls, empty arrays and empty objects recursively (false and 0 are kept);
 * `undefined` when nothing is left. The cleaning step of `@a2a-js/sdk` 1.3.0's canonicalisation.
 */
function dropEmpty(value: unknown): unknown {
  if (value === '' || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(dropEmpty).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const cleaned = dropEmpty(item);
      if (cleaned !== undefined) put(out, key, cleaned);
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** Own enumerable data property, safe for keys such as `__proto__`. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' || typeof value === 'undefined' ? `an ${typeof value}` : `a ${typeof value}`;
}

/** A JSON-quoted, length-capped rendering of an untrusted string for messages. */
function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

function entryLabel(index: number, header: { kid?: string; alg?: string }): string {
  const parts = [header.kid !== undefined ? `kid ${quote(header.kid)}` : undefined, header.alg !== undefined ? quote(header.alg) : undefined].filter(Boolean);
  return `signature ${index}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
