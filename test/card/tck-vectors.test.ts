/**
 * The a2a-tck conformance vectors as unit tests of the canonical form the signature check uses
 * (issue 23, point 5; the data and where it comes from: test/fixtures/tck/README.md):
 *
 * - `a2a-jcs-v01` (RFC 8785 + the A2A §8.4.1 `signatures` exclusion): 47 MUST-ACCEPT vectors whose
 *   canonical bytes {@link rfc8785} (and the card's `jcs` signing payload) must reproduce, and 10
 *   MUST-REJECT vectors that have no canonical form or whose claimed form still holds `signatures`;
 * - `card_signing_vectors.json` (CARD-SIGN-001/002): the JCS payload of each card, and Ed25519 JWS
 *   signatures that {@link verifyCardSignature} must verify with the published key.
 *
 * Also the a2a-python ≤ 1.1 (pre-RFC 8785) form: what it wrote for the vectors that tell the two apart.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pythonLegacyJson, rfc8785, signingPayloadForms } from '../../src/card/signature/payloads.js';
import { verifyCardSignature } from '../../src/card/signature/verify.js';

const DIR = new URL('../fixtures/tck/', import.meta.url);
interface JcsVector {
  id: string;
  group: string;
  disposition: 'MUST-ACCEPT' | 'MUST-REJECT';
  input?: Record<string, unknown>;
  input_raw?: string;
  expected_canonical_utf8_hex?: string;
}
const jcs = JSON.parse(readFileSync(new URL('a2a-jcs-v01.json', DIR), 'utf8')) as {
  counts: { accept: number; reject: number };
  vectors: JcsVector[];
};
const signing = JSON.parse(readFileSync(new URL('card_signing_vectors.json', DIR), 'utf8')) as {
  public_jwk: Record<string, string>;
  canonicalization_cases: Array<{ id: string; agent_card: Record<string, unknown>; expected_jcs_payload: string }>;
  signing_cases: Array<{
    id: string;
    agent_card: Record<string, unknown>;
    alg: string;
    kid: string;
    expected_protected_b64: string;
    expected_jcs_payload: string;
    expected_signing_input: string;
    signature: string;
  }>;
};

const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
const accept = jcs.vectors.filter((v) => v.disposition === 'MUST-ACCEPT');
const reject = jcs.vectors.filter((v) => v.disposition === 'MUST-REJECT');

/** A MUST-REJECT input as JSON.parse reads it; `undefined` when it is no JSON at all (NaN, Infinity). */
function parsed(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

describe('a2a-tck a2a-jcs-v01', () => {
  it('holds 47 accept and 10 reject vectors', () => {
    expect([accept.length, reject.length]).toEqual([47, 10]);
    expect(jcs.counts).toEqual({ accept: 47, reject: 10 });
  });

  it.each(accept.map((v) => [v.id, v] as const))(
    "%s: the canonical bytes, and the card's jcs signing payload",
    (_id, v) => {
      const input = (v.input ?? JSON.parse(v.input_raw!)) as Record<string, unknown>;
      const { signatures: _excluded, ...unsigned } = input;
      expect(hex(rfc8785(unsigned)!)).toBe(v.expected_canonical_utf8_hex);
      // The signature check's first candidate is this same text (the card minus `signatures`).
      expect(hex(signingPayloadForms(input)[0]!.text)).toBe(v.expected_canonical_utf8_hex);
    },
  );

  it.each(reject.map((v) => [v.id, v] as const))('%s: refused', (_id, v) => {
    const value = parsed(v.input_raw!);
    if (v.group === 'a2-signatures-exclusion') {
      // Valid JSON that still carries `signatures`: no signing payload of it may equal the claimed text.
      expect(value).toHaveProperty('signatures');
      expect(signingPayloadForms(value as Record<string, unknown>).map((p) => p.text)).not.toContain(v.input_raw);
      expect(signingPayloadForms(value as Record<string, unknown>).some((p) => p.text.includes('"signatures"'))).toBe(
        false,
      );
    } else if (value === undefined) {
      // NaN / Infinity: not JSON, so never a card; and no canonical form for the number.
      expect(v.group).toBe('a5-number-serialization');
      expect(
        rfc8785({ n: Number(v.input_raw!.includes('-') ? -Infinity : v.input_raw!.includes('NaN') ? NaN : Infinity) }),
      ).toBeUndefined();
    } else {
      // A lone surrogate in a key or a string: no RFC 8785 form, so no conformant signing payload.
      expect(rfc8785(value)).toBeUndefined();
      expect(signingPayloadForms(value as Record<string, unknown>).map((p) => p.form)).not.toContain('jcs');
    }
  });
});

describe('a2a-tck card_signing_vectors.json', () => {
  it.each(signing.canonicalization_cases.map((c) => [c.id, c] as const))('%s: the jcs signing payload', (_id, c) => {
    expect(signingPayloadForms(c.agent_card)[0]).toEqual({ form: 'jcs', text: c.expected_jcs_payload });
  });

  it.each(signing.signing_cases.map((c) => [c.id, c] as const))(
    '%s: the Ed25519 JWS verifies against the published key',
    async (_id, c) => {
      expect(`${c.expected_protected_b64}.${Buffer.from(c.expected_jcs_payload, 'utf8').toString('base64url')}`).toBe(
        c.expected_signing_input,
      );
      const card = { ...c.agent_card, signatures: [{ protected: c.expected_protected_b64, signature: c.signature }] };
      const result = await verifyCardSignature(card, { trustedJwks: { keys: [signing.public_jwk] } });
      expect(result.record).toMatchObject({ status: 'verified', kid: c.kid, alg: c.alg });
      expect(result.record.canonicalForm).toBeUndefined();
      // One changed byte: not verified.
      const tampered = await verifyCardSignature(
        { ...card, name: `${String(c.agent_card.name)}!` },
        { trustedJwks: { keys: [signing.public_jwk] } },
      );
      expect(tampered.record.status).toBe('unverifiable');
    },
  );
});

describe('the a2a-python ≤ 1.1 form (json.dumps sort_keys, ensure_ascii)', () => {
  it('writes what Python wrote where the vectors tell the forms apart: \\uXXXX escapes and code-point key order', () => {
    const nonAscii = signing.canonicalization_cases.find((c) => c.id === 'cardsign-jcs-nonascii')!.agent_card;
    expect(pythonLegacyJson(nonAscii)).toBe(
      '{"capabilities":{"streaming":true},"description":"Prix 5 euro \\u00e9 \\ud83d\\ude00","name":"Cafe Agent","skills":[{"id":"devis","name":"Devis \\u00e9"}]}',
    );
    const keyOrder = signing.canonicalization_cases.find((c) => c.id === 'cardsign-jcs-keyorder')!.agent_card;
    expect(pythonLegacyJson(keyOrder)).toMatch(/"securitySchemes":\{"\\ufb33":.*"\\ud83d\\ude00":/);
    expect(pythonLegacyJson({ del: 'a\u007fb', ctrl: 'a\u0001b\n' })).toBe('{"ctrl":"a\\u0001b\\n","del":"a\\u007fb"}');
  });
});
