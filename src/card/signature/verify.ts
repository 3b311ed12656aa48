/**
 * Agent Card signatures: verify the detached JWS signatures of an A2A Agent Card and produce the
 * {@link SignatureRecord} the lockfile stores per card snapshot.
 *
 * Spec: A2A 1.0 §8.4 (AgentCardSignature §8.4.2, canonicalisation §8.4.1, verification §8.4.3;
 * proto `lf.a2a.v1.AgentCardSignature`); RFC 7515 (JWS, flattened JSON serialisation with a
 * detached payload), RFC 7517 (JWK Set), RFC 7638 (JWK thumbprint), RFC 8785 (JCS).
 *
 * This folder: `verify.ts` (here) checks the signatures; `payloads.ts` builds the candidate signing
 * payloads (and holds the 1.0 proto field-presence tables); `jwks.ts` reads key sets, leniently
 * during verification and strictly for an operator-pinned `trust.jwks`; `text.ts` has the small
 * helpers they share.
 *
 * Pure apart from the injected {@link VerifySignatureOptions.fetchJwks}: no network, file or
 * clock access here. Nothing in this module throws for a bad card, signature or key set; every
 * such problem becomes `status: 'unverifiable'` with a one-line warning that never contains key
 * material.
 *
 * ## What is signed
 *
 * Signers disagree on the exact payload, so a signature is checked against every distinct
 * candidate from {@link signingPayloadForms}, in this order:
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
 * 4. `a2a-python-1.1`: a known NON-conformant form, what `a2a-sdk` (Python) up to 1.1.x signed
 *    before its RFC 8785 fix: the `sdk` projection written by Python's `json.dumps(sort_keys=True)`
 *    (keys by code point, non-ASCII as `\uXXXX`). A signature that verifies only through it is
 *    verified (the key signed this card; it is not tampered), with a `signature-noncanonical-form`
 *    warning, and the record says so (`canonicalForm`).
 *
 * Forms 2, 3 and 4 do not cover fields outside the 1.0 AgentCard (0.3 fields such as `url` or
 * `security` on a hybrid card, vendor fields). When a signature verifies only through one of them
 * and the card carries such fields, the result has a `signature-partial` warning naming them.
 */

import type { JWK } from 'jose';
import * as jose from 'jose';
import { formatPath, isRecord } from '../../json-path.js';
import type { Warning } from '../model.js';
import { type JwksParse, loadRemoteJwks, parseJwks } from './jwks.js';
import { type PayloadForm, type SigningPayload, signingPayloadForms, uncoveredFields } from './payloads.js';
import { describeType, errorMessage } from './text.js';

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
  /**
   * Only when the signature verified through a known non-conformant canonical form:
   * `a2a-python-1.1` (a2a-sdk for Python up to 1.1.x, before its RFC 8785 fix).
   */
  canonicalForm?: 'a2a-python-1.1';
}

/** The outcome of {@link verifyCardSignature}. */
export interface SignatureResult {
  record: SignatureRecord;
  /**
   * Not stored in the lockfile. `signature-unverifiable` (one per signature entry, only when the
   * status is `unverifiable`, `path` = `$.signatures[i]`) says why that entry did not verify;
   * `signature-partial` (only when verified) names fields the verified payload does not cover;
   * `signatures-truncated` (`path` = `$.signatures`) when the card has more than
   * {@link MAX_SIGNATURES} entries (only the first ones were tried).
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
   * ends up in the warning. Called at most once per distinct URL per verification, and only for
   * a `jku` on one of {@link jkuOrigins}.
   */
  fetchJwks?: (url: string) => Promise<unknown>;
  /**
   * The origins (`scheme://host[:port]`, as `URL.origin` spells them) a `jku` may name: the
   * card's own (the URL it was fetched from). A `jku` on any other origin, or any `jku` when this
   * is `[]` (a card read from a file), is not fetched: that signature is unverifiable with the
   * reason (pin the keys with `trust.jwks`). Absent: any origin (only for callers that police
   * the URL themselves).
   */
  jkuOrigins?: readonly string[];
}

/**
 * At most this many signature entries of one card are tried, in order; the rest are ignored with a
 * `signatures-truncated` warning. Each entry may cost a key-set fetch and a verification per
 * candidate payload, and a 1 MiB card holds thousands of entries.
 */
const MAX_SIGNATURES = 8;

/**
 * Asymmetric JWS algorithms accepted (RFC 7518 §3, RFC 8037, and jose's ML-DSA). `none` and the
 * HMAC algorithms are refused: a symmetric key cannot prove who signed a public card.
 */
const ASYMMETRIC_ALGS: ReadonlySet<string> = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'ML-DSA-44',
  'ML-DSA-65',
  'ML-DSA-87',
]);

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
 *   against every candidate payload of {@link signingPayloadForms}; the first entry that verifies
 *   gives `verified` with its `kid`, `alg` and the RFC 7638 thumbprint of the key.
 * - If none verifies → `unverifiable`, with one `signature-unverifiable` warning per entry.
 *
 * Never throws for a malformed card, signature, header or JWKS, nor when `fetchJwks` throws:
 * those are `unverifiable`. It can only reject on a bug.
 */
export async function verifyCardSignature(
  card: Record<string, unknown>,
  options: VerifySignatureOptions = {},
): Promise<SignatureResult> {
  const entries = card.signatures;
  if (entries === undefined || entries === null || (Array.isArray(entries) && entries.length === 0)) {
    return { record: { status: 'absent' }, warnings: [] };
  }
  if (!Array.isArray(entries)) {
    return {
      record: { status: 'unverifiable' },
      warnings: [
        {
          code: 'signature-unverifiable',
          message: `signatures is ${describeType(entries)}, not an array`,
          path: '$.signatures',
        },
      ],
    };
  }

  const ctx: VerifyContext = {
    options,
    trusted: options.trustedJwks === undefined ? undefined : parseJwks(options.trustedJwks),
    jwksByUrl: new Map(),
    payloads: undefined,
    card,
  };

  const truncated: Warning[] = [];
  if (entries.length > MAX_SIGNATURES) {
    truncated.push({
      code: 'signatures-truncated',
      message: `the card carries ${entries.length} signatures; only the first ${MAX_SIGNATURES} were tried, the other ${entries.length - MAX_SIGNATURES} ignored`,
      path: '$.signatures',
    });
  }
  const warnings: Warning[] = [...truncated];
  let firstHeader: { kid?: string; alg?: string } = {};
  for (const [index, entry] of entries.slice(0, MAX_SIGNATURES).entries()) {
    const outcome = await verifyEntry(entry, ctx);
    if (index === 0) firstHeader = outcome.header;
    if (outcome.ok) {
      const legacy = outcome.form === 'a2a-python-1.1';
      const record: SignatureRecord = {
        status: 'verified',
        kid: outcome.kid,
        alg: outcome.alg,
        thumbprint: outcome.thumbprint,
        ...(legacy ? { canonicalForm: 'a2a-python-1.1' as const } : {}),
      };
      const noncanonical: Warning[] = legacy
        ? [
            {
              code: 'signature-noncanonical-form',
              message: `${entryLabel(index, outcome.header)}: signed with a known non-conformant canonical form (a2a-python ≤ 1.1: keys by code point, non-ASCII as \\uXXXX escapes, not RFC 8785); verified, not tampered; a signer on a2a-sdk ≥ 1.2 writes the RFC 8785 form`,
              path: formatPath(['signatures', index]),
            },
          ]
        : [];
      return { record, warnings: [...truncated, ...noncanonical, ...coverageWarnings(outcome.form, card)] };
    }
    const label = entryLabel(index, outcome.header);
    warnings.push({
      code: 'signature-unverifiable',
      message: oneLine(`${label}: ${outcome.reason}`),
      path: formatPath(['signatures', index]),
    });
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
  | {
      ok: true;
      header: { kid?: string; alg?: string };
      kid: string;
      alg: string;
      thumbprint: string;
      form: PayloadForm;
    }
  | { ok: false; header: { kid?: string; alg?: string }; reason: string };

/** Where an entry's key is looked up: the trusted JWKS, else its `jku` (on an allowed origin, fetched once per URL); `refused`: why there is none. */
async function keySource(
  jku: unknown,
  ctx: VerifyContext,
): Promise<{ source: string; jwks: JwksParse } | { refused: string }> {
  if (ctx.trusted !== undefined) return { source: 'the trusted JWKS', jwks: ctx.trusted };
  if (jku === undefined) return { refused: 'no key source: no trusted JWKS and no "jku" in the protected header' };
  if (typeof jku !== 'string' || jku === '') return { refused: '"jku" in the protected header is not a URL string' };
  const fetchJwks = ctx.options.fetchJwks;
  if (fetchJwks === undefined)
    return { refused: `no key source: "jku" ${quote(jku)} was not fetched (no JWKS fetcher)` };
  const offOrigin = jkuRefusal(jku, ctx.options.jkuOrigins);
  if (offOrigin !== undefined) return { refused: offOrigin };
  let pending = ctx.jwksByUrl.get(jku);
  if (pending === undefined) {
    pending = loadRemoteJwks(jku, fetchJwks);
    ctx.jwksByUrl.set(jku, pending);
  }
  return { source: `the JWKS at ${quote(jku)}`, jwks: await pending };
}

async function verifyEntry(entry: unknown, ctx: VerifyContext): Promise<EntryOutcome> {
  const fail = (reason: string, header: { kid?: string; alg?: string } = {}): EntryOutcome => ({
    ok: false,
    header,
    reason,
  });

  if (!isRecord(entry)) return fail(`entry is ${describeType(entry)}, not an object`);
  if (typeof entry.protected !== 'string' || entry.protected === '') return fail('entry has no "protected" string');
  if (typeof entry.signature !== 'string' || entry.signature === '') return fail('entry has no "signature" string');
  if (entry.header !== undefined && entry.header !== null && !isRecord(entry.header))
    return fail('unprotected "header" is not an object');

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
    return fail(
      `alg ${quote(alg)} is not accepted (only asymmetric algorithms: RS*, PS*, ES*, EdDSA, Ed25519, ML-DSA-*)`,
      header,
    );
  }
  if (kid === undefined || kid === '') return fail('protected header has no "kid"', header);

  // Key source: the pinned JWKS, else the jku in the protected header.
  const keys = await keySource(protectedHeader.jku, ctx);
  if ('refused' in keys) return fail(keys.refused, header);
  const { source, jwks } = keys;
  if (!jwks.ok) return fail(`${source} is unusable: ${jwks.reason}`, header);

  const withKid = jwks.keys.filter((jwk) => jwk.kid === kid);
  if (withKid.length === 0) return fail(`no key with kid ${quote(kid)} in ${source}`, header);
  const usable = withKid.filter((jwk) => keyUsableFor(jwk, alg));
  if (usable.length === 0) {
    return fail(
      `the key with kid ${quote(kid)} in ${source} is not usable for ${alg} (symmetric, or its use/key_ops/alg do not allow it)`,
      header,
    );
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
            ...(isRecord(entry.header) ? { header: entry.header as jose.JWSHeaderParameters } : {}),
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

/**
 * Why `jku` is not fetched, or undefined when it may be: it must parse as a URL whose origin is one
 * of `origins` (the card's own). Anything else would let a card make the run fetch any URL.
 */
function jkuRefusal(jku: string, origins: readonly string[] | undefined): string | undefined {
  if (origins === undefined) return undefined;
  let origin: string;
  try {
    origin = new URL(jku).origin;
  } catch {
    return `"jku" ${quote(jku)} is not an absolute URL; not fetched`;
  }
  if (origins.includes(origin)) return undefined;
  const where =
    origins.length === 0
      ? 'the card was not fetched from a URL, so no jku is fetched'
      : `it is not on the card's origin (${origins.join(', ')})`;
  return `"jku" ${quote(jku)} not fetched: ${where}; pin the signer's keys with trust.jwks`;
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
  const uncovered = uncoveredFields(card);
  if (uncovered.length === 0) return [];
  const shown = uncovered.slice(0, 8).join(', ');
  const more = uncovered.length > 8 ? ` (+${uncovered.length - 8} more)` : '';
  return [
    {
      code: 'signature-partial',
      message: `the signature covers only the A2A 1.0 AgentCard fields (${form === 'spec' ? '§8.4.1 form' : form === 'sdk' ? '@a2a-js/sdk form' : 'a2a-python ≤ 1.1 form'}); not covered: ${shown}${more}`,
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** A JSON-quoted, length-capped rendering of an untrusted string for messages. */
function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

function entryLabel(index: number, header: { kid?: string; alg?: string }): string {
  const parts = [
    header.kid !== undefined ? `kid ${quote(header.kid)}` : undefined,
    header.alg !== undefined ? quote(header.alg) : undefined,
  ].filter(Boolean);
  return `signature ${index}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
