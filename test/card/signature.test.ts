/**
 * Agent Card signatures (src/card/signature/): candidate payloads against RFC 8785 vectors, the
 * A2A 1.0 §8.4.1 worked example and the real `@a2a-js/sdk` canonicaliser; verification of cards
 * signed by the real SDK signer with generated EC and RSA keys, tampering, key sources (pinned JWKS,
 * `jku` through an injected fetcher) and garbage signatures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { canonicalizeAgentCard, generateAgentCardSignature } from '@a2a-js/sdk';
import * as jose from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical.js';
import { loadJwks } from '../../src/card/signature/jwks.js';
import { signingPayloadForms, signingPayloads } from '../../src/card/signature/payloads.js';
import { verifyCardSignature } from '../../src/card/signature/verify.js';
import { FetchError, InvalidInputError } from '../../src/errors.js';
import { sampleCard } from '../helpers/agents.js';

type Card = Record<string, unknown>;
type KeyPair = { publicKey: jose.CryptoKey; privateKey: jose.CryptoKey };

const DIR = fileURLToPath(new URL('../fixtures/cards/real/', import.meta.url));
const FILES = readdirSync(DIR)
  .filter((file) => file.endsWith('.json'))
  .sort();

function fixture(prefix: string): Card {
  const file = FILES.find((name) => name.startsWith(`${prefix}-`));
  if (!file) throw new Error(`no fixture ${prefix}`);
  return JSON.parse(readFileSync(`${DIR}${file}`, 'utf8')) as Card;
}

/** The SDK's signer (the one `AgentCardSignatureGenerator` servers use). */
async function sdkSign(card: Card, privateKey: jose.CryptoKey, header: jose.JWSHeaderParameters): Promise<Card> {
  const signer = generateAgentCardSignature(privateKey, header);
  return (await signer(card as never)) as unknown as Card;
}

/** The SDK's payload for a card (its own canonicaliser). */
function sdkPayload(card: Card): string {
  return canonicalizeAgentCard(card as never);
}

/** Sign an arbitrary payload text the way a signer following only the a2a-lock design would. */
async function signText(
  card: Card,
  text: string,
  privateKey: jose.CryptoKey,
  header: jose.JWSHeaderParameters,
): Promise<Card> {
  const jws = await new jose.FlattenedSign(new TextEncoder().encode(text)).setProtectedHeader(header).sign(privateKey);
  return { ...card, signatures: [{ protected: jws.protected, signature: jws.signature }] };
}

async function publicJwk(pair: KeyPair, kid: string): Promise<jose.JWK> {
  return { ...(await jose.exportJWK(pair.publicKey)), kid };
}

async function thumbprintOf(pair: KeyPair): Promise<string> {
  return jose.calculateJwkThumbprint(await jose.exportJWK(pair.publicKey), 'sha256');
}

function withoutSignatures(card: Card): Card {
  const { signatures: _signatures, ...rest } = card;
  return rest;
}

const ORIGIN = 'https://agent.example.com';

let ec1: KeyPair;
let ec2: KeyPair;
let rsa: KeyPair;
let pss: KeyPair;
let jwks: { keys: jose.JWK[] };

beforeAll(async () => {
  [ec1, ec2, rsa, pss] = await Promise.all([
    jose.generateKeyPair('ES256', { extractable: true }),
    jose.generateKeyPair('ES256', { extractable: true }),
    jose.generateKeyPair('RS256', { extractable: true, modulusLength: 2048 }),
    jose.generateKeyPair('PS256', { extractable: true, modulusLength: 2048 }),
  ]);
  jwks = {
    keys: [
      await publicJwk(ec1, 'ec-1'),
      await publicJwk(ec2, 'ec-2'),
      await publicJwk(rsa, 'rsa-1'),
      await publicJwk(pss, 'pss-1'),
    ],
  };
});

describe('canonicalJson is RFC 8785 (JCS) for JSON values', () => {
  it('matches the RFC 8785 §3.2.2 example (numbers, string escapes, literals)', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3 example, non-ASCII keys)', () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",' +
        '"\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    // Code-point order would put U+FB33 before U+1F600; UTF-16 order puts the surrogate pair (0xD83D) first.
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'], // -0
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['3fb999999999999a', '0.1'],
  ])('serialises the IEEE 754 number 0x%s as %s (RFC 8785 Appendix B)', (bits, expected) => {
    const view = new DataView(new ArrayBuffer(8));
    view.setBigUint64(0, BigInt(`0x${bits}`));
    expect(canonicalJson({ n: view.getFloat64(0) })).toBe(`{"n":${expected}}`);
  });
});

describe('signingPayloads', () => {
  it('produces the A2A 1.0 §8.4.1 worked example for the spec form', () => {
    const card = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    expect(signingPayloads(card)).toContain(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
  });

  it('starts with the RFC 8785 form of the card as served, minus signatures', () => {
    const card = { ...fixture('31'), vendorExtra: { b: 1, a: [] }, signatures: [{ protected: 'x', signature: 'y' }] };
    const [first] = signingPayloads(card);
    expect(first).toBe(canonicalJson(withoutSignatures(card)));
    expect(first).toContain('"vendorExtra":{"a":[],"b":1}');
    expect(first).not.toContain('signatures');
  });

  // All 50 real cards, the 1.0-shaped ones (31, 32, 36-40, 46, 47) included: the SDK's reader
  // accepts anything, so its payload is defined (and must be reproduced) for 0.x cards too.
  it.each(FILES)('contains exactly what @a2a-js/sdk signs for real card %s', (file) => {
    const card = JSON.parse(readFileSync(`${DIR}${file}`, 'utf8')) as Card;
    const forms = signingPayloadForms(card);
    const sdk = sdkPayload(card);
    expect(forms.map((form) => form.text)).toContain(sdk);
    // The SDK's payload is the last conformant candidate: the spec projection with empties removed
    // (after it only the a2a-python ≤ 1.1 form, when it differs).
    expect(forms.filter((form) => form.form !== 'a2a-python-1.1').at(-1)?.text).toBe(sdk);
  });

  it('contains exactly what @a2a-js/sdk signs for the SDK-served sample card', () => {
    for (const card of [sampleCard(ORIGIN) as Card, sampleCard(ORIGIN, {}, { legacy: true }) as Card]) {
      expect(
        signingPayloadForms(card)
          .filter((form) => form.form !== 'a2a-python-1.1')
          .at(-1)?.text,
      ).toBe(sdkPayload(card));
    }
  });

  it('matches the SDK on a card exercising every proto message, snake_case input, oneofs, coercion and empties', () => {
    const card: Card = {
      name: 'Kitchen Sink',
      description: 'All the things',
      version: 7, // coerced to "7" like the SDK's reader
      supported_interfaces: [
        { url: 'https://a.example.com', protocol_binding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      ],
      provider: { organization: 'Org', url: '' },
      documentation_url: '',
      icon_url: 'https://a.example.com/icon.png',
      capabilities: {
        streaming: false,
        push_notifications: true,
        extensions: [
          {
            uri: 'urn:x',
            required: false,
            params: { keep: 0, drop: '', nested: { gone: [], kept: false }, arr: [null, 'x'] },
          },
        ],
        stateTransitionHistory: true,
      },
      securitySchemes: {
        key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key', description: '' } },
        both: { httpAuthSecurityScheme: { scheme: 'Bearer' }, apiKeySecurityScheme: { location: 'query', name: 'k' } },
        oauth: {
          oauth2SecurityScheme: {
            flows: {
              clientCredentials: { tokenUrl: 'https://t', scopes: { read: 'Read', blank: '' } },
              authorizationCode: {
                authorizationUrl: 'https://a',
                tokenUrl: 'https://t',
                scopes: {},
                pkceRequired: true,
              },
            },
          },
        },
        device: {
          oauth2SecurityScheme: {
            flows: { device_code: { device_authorization_url: 'https://d', token_url: 'https://t', scopes: {} } },
            oauth2_metadata_url: 'https://m',
          },
        },
        oidc: { open_id_connect_security_scheme: { open_id_connect_url: 'https://o' } },
        mtls: { mtlsSecurityScheme: {} },
        empty: {},
      },
      securityRequirements: [{ schemes: { key: { list: [] } } }, { schemes: { oauth: { list: ['read'] } } }],
      defaultInputModes: ['text/plain'],
      default_output_modes: ['text/plain'],
      skills: [
        {
          id: 's',
          name: 'S',
          description: 'D',
          tags: ['t'],
          examples: [],
          input_modes: ['application/json'],
          security_requirements: [{ schemes: { oidc: { list: ['openid'] } } }],
          extra: 1,
        },
      ],
      url: 'https://a.example.com/legacy',
      signatures: [],
    };
    expect(signingPayloads(card).at(-1)).toBe(sdkPayload(card));
  });

  it('keeps proto3 optional fields and REQUIRED fields at their defaults in the spec form, unlike the SDK form', () => {
    const card: Card = { ...(sampleCard(ORIGIN) as Card), documentationUrl: '', description: '', unknownField: 'x' };
    const forms = signingPayloadForms(card);
    const spec = forms.find((form) => form.form === 'spec')?.text ?? '';
    expect(spec).toContain('"documentationUrl":""');
    expect(spec).toContain('"description":""');
    expect(spec).toContain('"pushNotifications":false');
    // Plain (non-optional, non-REQUIRED) fields at their default are omitted: `required: false`, `list: []`.
    expect(spec).not.toContain('"required"');
    expect(spec).not.toContain('"list"');
    expect(spec).toContain('"schemes":{"bearer":{}}');
    expect(spec).not.toContain('unknownField');
    const sdk = forms.find((form) => form.form === 'sdk')?.text ?? '';
    expect(sdk).toBe(sdkPayload(card));
    expect(sdk).not.toContain('documentationUrl');
    // The SDK's cleaning drops the whole no-scope requirement.
    expect(sdk).not.toContain('securityRequirements');
    expect(forms.map((form) => form.form)).toEqual(['jcs', 'spec', 'sdk']);
  });

  it('deduplicates candidates', () => {
    const card: Card = {
      name: 'A',
      description: 'B',
      version: '1',
      supportedInterfaces: [{ url: 'https://a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'D', tags: ['t'] }],
    };
    expect(signingPayloads(card)).toEqual([canonicalJson(card)]);
    expect(signingPayloads({ ...card, extra: true })).toHaveLength(2);
  });
});

describe('verifyCardSignature', () => {
  it('reports absent when the card has no signatures (missing, empty or null)', async () => {
    const card = sampleCard(ORIGIN) as Card;
    for (const variant of [card, { ...card, signatures: [] }, { ...card, signatures: null }]) {
      expect(await verifyCardSignature(variant, { trustedJwks: jwks })).toEqual({
        record: { status: 'absent' },
        warnings: [],
      });
    }
  });

  it.each([
    ['ES256', 'ec-1', () => ec1],
    ['RS256', 'rsa-1', () => rsa],
    ['PS256', 'pss-1', () => pss],
  ] as const)('verifies a card signed by the SDK signer with %s', async (alg, kid, pair) => {
    const signed = await sdkSign(sampleCard(ORIGIN) as Card, pair().privateKey, { alg, kid, typ: 'JOSE' });
    const result = await verifyCardSignature(signed, { trustedJwks: jwks });
    expect(result).toEqual({
      record: { status: 'verified', kid, alg, thumbprint: await thumbprintOf(pair()) },
      warnings: [],
    });
  });

  it.each(['31', '36', '40', '46'])('verifies real card %s signed by the SDK signer', async (prefix) => {
    const signed = await sdkSign(fixture(prefix), ec1.privateKey, { alg: 'ES256', kid: 'ec-1', typ: 'JOSE' });
    const result = await verifyCardSignature(signed, { trustedJwks: jwks });
    expect(result.record).toEqual({
      status: 'verified',
      kid: 'ec-1',
      alg: 'ES256',
      thumbprint: await thumbprintOf(ec1),
    });
  });

  it("verifies the same card re-signed with another key, with that key's thumbprint", async () => {
    const card = sampleCard(ORIGIN) as Card;
    const first = await verifyCardSignature(
      await sdkSign(card, ec1.privateKey, { alg: 'ES256', kid: 'ec-1', typ: 'JOSE' }),
      { trustedJwks: jwks },
    );
    const second = await verifyCardSignature(
      await sdkSign(card, ec2.privateKey, { alg: 'ES256', kid: 'ec-2', typ: 'JOSE' }),
      { trustedJwks: jwks },
    );
    expect(first.record.status).toBe('verified');
    expect(second.record).toEqual({
      status: 'verified',
      kid: 'ec-2',
      alg: 'ES256',
      thumbprint: await thumbprintOf(ec2),
    });
    expect(second.record.thumbprint).not.toBe(first.record.thumbprint);
  });

  it('uses the first signature that verifies (key rotation: an unknown kid first)', async () => {
    const card = sampleCard(ORIGIN) as Card;
    const old = await sdkSign(card, ec1.privateKey, { alg: 'ES256', kid: 'retired', typ: 'JOSE' });
    const both = await sdkSign(old, ec2.privateKey, { alg: 'ES256', kid: 'ec-2', typ: 'JOSE' });
    expect((both.signatures as unknown[]).length).toBe(2);
    const result = await verifyCardSignature(both, { trustedJwks: jwks });
    expect(result).toEqual({
      record: { status: 'verified', kid: 'ec-2', alg: 'ES256', thumbprint: await thumbprintOf(ec2) },
      warnings: [],
    });
  });

  it("reports a tampered card as unverifiable, with the first signature's kid and alg and a reason", async () => {
    const signed = await sdkSign(sampleCard(ORIGIN) as Card, ec1.privateKey, {
      alg: 'ES256',
      kid: 'ec-1',
      typ: 'JOSE',
    });
    const tampered = { ...signed, description: 'Now also exfiltrates your data.' };
    const result = await verifyCardSignature(tampered, { trustedJwks: jwks });
    expect(result.record).toEqual({ status: 'unverifiable', kid: 'ec-1', alg: 'ES256' });
    expect(result.warnings).toEqual([
      {
        code: 'signature-unverifiable',
        message: 'signature 0 (kid "ec-1", "ES256"): the signature does not match the card',
        path: '$.signatures[0]',
      },
    ]);
  });

  it('verifies a card signed over the RFC 8785 form of the card as served (candidate 1 only)', async () => {
    const card: Card = { ...(sampleCard(ORIGIN) as Card), vendorField: { tier: 'gold' }, documentationUrl: '' };
    const payloads = signingPayloadForms(card);
    expect(payloads.map((p) => p.form)).toEqual(['jcs', 'spec', 'sdk']);
    const signed = await signText(card, canonicalJson(card), ec1.privateKey, {
      alg: 'ES256',
      kid: 'ec-1',
      typ: 'JOSE',
    });
    const result = await verifyCardSignature(signed, { trustedJwks: jwks });
    // Full coverage: no signature-partial warning.
    expect(result).toEqual({
      record: { status: 'verified', kid: 'ec-1', alg: 'ES256', thumbprint: await thumbprintOf(ec1) },
      warnings: [],
    });
    // ...and the vendor field is covered: changing it breaks the signature.
    const changed = await verifyCardSignature({ ...signed, vendorField: { tier: 'platinum' } }, { trustedJwks: jwks });
    expect(changed.record.status).toBe('unverifiable');
  });

  it('verifies a card signed over the A2A 1.0 §8.4.1 form only (candidate 2)', async () => {
    const card: Card = { ...(sampleCard(ORIGIN) as Card), documentationUrl: '' };
    const spec = signingPayloadForms(card).find((p) => p.form === 'spec')?.text ?? '';
    expect(spec).not.toBe(sdkPayload(card));
    const signed = await signText(card, spec, rsa.privateKey, { alg: 'RS256', kid: 'rsa-1' });
    const result = await verifyCardSignature(signed, { trustedJwks: jwks });
    expect(result.record).toEqual({
      status: 'verified',
      kid: 'rsa-1',
      alg: 'RS256',
      thumbprint: await thumbprintOf(rsa),
    });
  });

  it('warns when the verified payload does not cover fields of the card (SDK signature on a hybrid card)', async () => {
    const card: Card = {
      ...(sampleCard(ORIGIN) as Card),
      url: 'https://evil.example.com/a2a',
      preferredTransport: 'JSONRPC',
    };
    const signed = await sdkSign(card, ec1.privateKey, { alg: 'ES256', kid: 'ec-1', typ: 'JOSE' });
    const result = await verifyCardSignature(signed, { trustedJwks: jwks });
    expect(result.record.status).toBe('verified');
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]?.code).toBe('signature-partial');
    expect(result.warnings[0]?.message).toContain('not covered: $.url, $.preferredTransport');
  });

  it('uses only the trusted JWKS when given: a key reachable through jku does not count', async () => {
    const stranger = await jose.generateKeyPair('ES256', { extractable: true });
    const jku = 'https://keys.example.com/jwks.json';
    const signed = await sdkSign(sampleCard(ORIGIN) as Card, stranger.privateKey, {
      alg: 'ES256',
      kid: 'stranger',
      typ: 'JOSE',
      jku,
    });
    const calls: string[] = [];
    const fetchJwks = async (url: string) => {
      calls.push(url);
      return { keys: [await publicJwk(stranger, 'stranger')] };
    };
    expect((await verifyCardSignature(signed, { fetchJwks })).record.status).toBe('verified');
    calls.length = 0;
    const result = await verifyCardSignature(signed, { trustedJwks: jwks, fetchJwks });
    expect(result.record).toEqual({ status: 'unverifiable', kid: 'stranger', alg: 'ES256' });
    expect(result.warnings[0]?.message).toContain('no key with kid "stranger" in the trusted JWKS');
    expect(calls).toEqual([]);
  });

  it('fetches the key set from jku (once per URL) and verifies', async () => {
    const jku = 'https://agent.example.com/.well-known/jwks.json';
    const card = sampleCard(ORIGIN) as Card;
    const signed = await sdkSign(
      await sdkSign(card, ec1.privateKey, { alg: 'ES256', kid: 'not-there', typ: 'JOSE', jku }),
      ec2.privateKey,
      { alg: 'ES256', kid: 'ec-2', typ: 'JOSE', jku },
    );
    const calls: string[] = [];
    const fetchJwks = async (url: string): Promise<unknown> => {
      calls.push(url);
      return jwks;
    };
    const result = await verifyCardSignature(signed, { fetchJwks });
    expect(result).toEqual({
      record: { status: 'verified', kid: 'ec-2', alg: 'ES256', thumbprint: await thumbprintOf(ec2) },
      warnings: [],
    });
    expect(calls).toEqual([jku]);
  });

  it('reports unverifiable, with the error message, when fetching the jku key set fails', async () => {
    const jku = 'https://keys.example.com/jwks.json';
    const signed = await sdkSign(sampleCard(ORIGIN) as Card, ec1.privateKey, {
      alg: 'ES256',
      kid: 'ec-1',
      typ: 'JOSE',
      jku,
    });
    const fetchJwks = async (url: string): Promise<unknown> => {
      throw new FetchError('unreachable', url, 'connection refused');
    };
    const result = await verifyCardSignature(signed, { fetchJwks });
    expect(result.record).toEqual({ status: 'unverifiable', kid: 'ec-1', alg: 'ES256' });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]?.message).toContain(`${jku}: connection refused`);
  });

  it('a jku off the allowed origins is never fetched: unverifiable with the reason; on them it is fetched', async () => {
    const jku = 'https://keys.example.com/jwks.json';
    const signed = await sdkSign(sampleCard(ORIGIN) as Card, ec1.privateKey, {
      alg: 'ES256',
      kid: 'ec-1',
      typ: 'JOSE',
      jku,
    });
    const calls: string[] = [];
    const fetchJwks = async (url: string): Promise<unknown> => {
      calls.push(url);
      return { keys: [await publicJwk(ec1, 'ec-1')] };
    };
    for (const jkuOrigins of [['https://agent.example.com'], []]) {
      const refused = await verifyCardSignature(signed, { fetchJwks, jkuOrigins });
      expect(refused.record).toEqual({ status: 'unverifiable', kid: 'ec-1', alg: 'ES256' });
      expect(refused.warnings[0]?.message).toMatch(
        /"jku" "https:\/\/keys\.example\.com\/jwks\.json" not fetched: .*pin the signer's keys with trust\.jwks/,
      );
    }
    expect(calls).toEqual([]);
    const allowed = await verifyCardSignature(signed, { fetchJwks, jkuOrigins: ['https://keys.example.com'] });
    expect(allowed.record.status).toBe('verified');
    expect(calls).toEqual([jku]);
  });

  it('at most 8 signature entries are tried; more is a signatures-truncated warning', async () => {
    const entries = Array.from({ length: 12 }, (_, i) => ({
      protected: jose.base64url.encode(
        JSON.stringify({ alg: 'ES256', kid: `k${i}`, jku: `https://agent.example.com/k${i}.json` }),
      ),
      signature: 'c2ln',
    }));
    const calls: string[] = [];
    const result = await verifyCardSignature(
      { ...sampleCard(ORIGIN), signatures: entries },
      {
        fetchJwks: async (url) => {
          calls.push(url);
          return { keys: [] };
        },
      },
    );
    expect(calls).toHaveLength(8);
    expect(result.warnings.filter((w) => w.code === 'signature-unverifiable')).toHaveLength(8);
    expect(result.warnings[0]).toEqual({
      code: 'signatures-truncated',
      message: 'the card carries 12 signatures; only the first 8 were tried, the other 4 ignored',
      path: '$.signatures',
    });
  });

  it('reports unverifiable when there is no key source', async () => {
    const jku = 'https://keys.example.com/jwks.json';
    const withJku = await sdkSign(sampleCard(ORIGIN) as Card, ec1.privateKey, {
      alg: 'ES256',
      kid: 'ec-1',
      typ: 'JOSE',
      jku,
    });
    const noJku = await sdkSign(sampleCard(ORIGIN) as Card, ec1.privateKey, { alg: 'ES256', kid: 'ec-1', typ: 'JOSE' });
    const a = await verifyCardSignature(withJku, {});
    expect(a.record.status).toBe('unverifiable');
    expect(a.warnings[0]?.message).toContain('no JWKS fetcher');
    const b = await verifyCardSignature(noJku, { fetchJwks: async () => jwks });
    expect(b.record.status).toBe('unverifiable');
    expect(b.warnings[0]?.message).toContain('no trusted JWKS and no "jku"');
  });

  it('treats a real signed spec card whose key we do not hold as unverifiable', async () => {
    const card = fixture('13');
    const calls: string[] = [];
    const result = await verifyCardSignature(card, {
      fetchJwks: async (url) => {
        calls.push(url);
        return { keys: [await publicJwk(ec1, 'key-1')] };
      },
    });
    expect(calls).toEqual(['https://example.com/agent/jwks.json']);
    expect(result.record).toEqual({ status: 'unverifiable', kid: 'key-1', alg: 'ES256' });
    expect(result.warnings[0]?.message).toContain('does not match');
  });

  it('verifies with the public part of a trusted key that carries private members, never printing them', async () => {
    const privateJwk = { ...(await jose.exportJWK(ec1.privateKey)), kid: 'ec-1' };
    expect(typeof privateJwk.d).toBe('string');
    const signed = await sdkSign(sampleCard(ORIGIN) as Card, ec1.privateKey, {
      alg: 'ES256',
      kid: 'ec-1',
      typ: 'JOSE',
    });
    const ok = await verifyCardSignature(signed, { trustedJwks: { keys: [privateJwk] } });
    expect(ok.record).toEqual({ status: 'verified', kid: 'ec-1', alg: 'ES256', thumbprint: await thumbprintOf(ec1) });
    const bad = await verifyCardSignature({ ...signed, name: 'x' }, { trustedJwks: { keys: [privateJwk] } });
    expect(bad.record.status).toBe('unverifiable');
    expect(JSON.stringify(bad.warnings)).not.toContain(privateJwk.d);
  });

  describe('garbage in signatures: unverifiable, never throws', () => {
    const b64 = (value: unknown) => jose.base64url.encode(JSON.stringify(value));
    const cases: Array<[string, () => Promise<unknown> | unknown, string]> = [
      [
        'protected is not base64url JSON',
        () => ({ protected: '!!', signature: 'AAAA' }),
        'protected header is not base64url-encoded JSON',
      ],
      [
        'protected decodes to a non-object',
        () => ({ protected: b64([1, 2]), signature: 'AAAA' }),
        'protected header is not base64url-encoded JSON',
      ],
      [
        'no kid',
        async () =>
          (await sdkSign(sampleCard(ORIGIN) as Card, ec1.privateKey, { alg: 'ES256', typ: 'JOSE' })).signatures,
        'no "kid"',
      ],
      ['no alg', () => ({ protected: b64({ kid: 'ec-1' }), signature: 'AAAA' }), 'no "alg"'],
      ['alg none', () => ({ protected: b64({ alg: 'none', kid: 'ec-1' }), signature: '' }), 'no "signature" string'],
      [
        'alg none with a signature',
        () => ({ protected: b64({ alg: 'none', kid: 'ec-1' }), signature: 'AAAA' }),
        'alg "none" is not accepted',
      ],
      ['entry is a string', () => 'eyJhbGciOiJFUzI1NiJ9..AAAA', 'entry is a string, not an object'],
      ['entry is null', () => null, 'entry is null, not an object'],
      ['no protected', () => ({ signature: 'AAAA' }), 'no "protected" string'],
      [
        'unprotected header is an array',
        () => ({ protected: b64({ alg: 'ES256', kid: 'ec-1' }), signature: 'AAAA', header: [1] }),
        '"header" is not an object',
      ],
      [
        'signature is not base64url',
        () => ({ protected: b64({ alg: 'ES256', kid: 'ec-1' }), signature: '***' }),
        'JWS rejected: Failed to base64url decode the signature',
      ],
      [
        'key type does not fit alg',
        () => ({ protected: b64({ alg: 'RS256', kid: 'ec-1' }), signature: 'AAAA' }),
        'JWS rejected: Invalid or unsupported JWK',
      ],
      [
        'unknown crit',
        () => ({ protected: b64({ alg: 'ES256', kid: 'ec-1', crit: ['x-custom'], 'x-custom': 1 }), signature: 'AAAA' }),
        'JWS rejected: Extension Header Parameter "x-custom" is not recognized',
      ],
      [
        'protected and unprotected headers clash',
        () => ({ protected: b64({ alg: 'ES256', kid: 'ec-1' }), signature: 'AAAA', header: { kid: 'ec-1' } }),
        'JWS rejected: JWS Protected and JWS Unprotected Header Parameter names must be disjoint',
      ],
      [
        'wrong signature bytes',
        () => ({ protected: b64({ alg: 'ES256', kid: 'ec-1' }), signature: 'AAAA' }),
        'the signature does not match the card',
      ],
    ];
    it.each(cases)('%s', async (_name, make, reason) => {
      const made = await make();
      const entries = Array.isArray(made) ? made : [made];
      const result = await verifyCardSignature(
        { ...(sampleCard(ORIGIN) as Card), signatures: entries },
        { trustedJwks: jwks },
      );
      expect(result.record.status).toBe('unverifiable');
      expect(result.record.thumbprint).toBeUndefined();
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings[0]?.code).toBe('signature-unverifiable');
      expect(result.warnings[0]?.message).toContain(reason);
      expect(result.warnings[0]?.message).not.toMatch(/\n/);
    });

    it('refuses HS256 even when the key set holds the shared secret', async () => {
      const secret = new TextEncoder().encode('a shared secret that anyone holding the JWKS knows!');
      const card = sampleCard(ORIGIN) as Card;
      const signed = await signText(card, sdkPayload(card), secret as never, { alg: 'HS256', kid: 'shared' });
      const octJwks = { keys: [{ kty: 'oct', kid: 'shared', k: jose.base64url.encode(secret) }] };
      const result = await verifyCardSignature(signed, { trustedJwks: octJwks });
      expect(result.record).toEqual({ status: 'unverifiable', kid: 'shared', alg: 'HS256' });
      expect(result.warnings[0]?.message).toContain('alg "HS256" is not accepted');
      expect(JSON.stringify(result.warnings)).not.toContain(octJwks.keys[0]!.k);
    });

    it('handles signatures that are not an array, and JWKS that are not key sets', async () => {
      const card = sampleCard(ORIGIN) as Card;
      const notArray = await verifyCardSignature({ ...card, signatures: { protected: 'x' } }, { trustedJwks: jwks });
      expect(notArray).toEqual({
        record: { status: 'unverifiable' },
        warnings: [
          { code: 'signature-unverifiable', message: 'signatures is an object, not an array', path: '$.signatures' },
        ],
      });
      const signed = await sdkSign(card, ec1.privateKey, {
        alg: 'ES256',
        kid: 'ec-1',
        typ: 'JOSE',
        jku: 'https://k.example.com/',
      });
      for (const document of [null, 'keys', { keys: 'no' }, [jwks]]) {
        const result = await verifyCardSignature(signed, { fetchJwks: async () => document });
        expect(result.record.status).toBe('unverifiable');
        expect(result.warnings[0]?.message).toContain('is unusable');
      }
      const trustedBad = await verifyCardSignature(signed, { trustedJwks: { keys: [{ kid: 'ec-1' }] } });
      expect(trustedBad.warnings[0]?.message).toContain('no key with kid "ec-1" in the trusted JWKS');
    });

    it('ignores keys whose use, key_ops or alg forbid verifying', async () => {
      const signed = await sdkSign(sampleCard(ORIGIN) as Card, ec1.privateKey, {
        alg: 'ES256',
        kid: 'ec-1',
        typ: 'JOSE',
      });
      const jwk = await publicJwk(ec1, 'ec-1');
      for (const restricted of [
        { ...jwk, use: 'enc' },
        { ...jwk, key_ops: ['encrypt'] },
        { ...jwk, alg: 'ES384' },
      ]) {
        const result = await verifyCardSignature(signed, { trustedJwks: { keys: [restricted] } });
        expect(result.record.status).toBe('unverifiable');
        expect(result.warnings[0]?.message).toContain('is not usable for ES256');
      }
      const allowed = await verifyCardSignature(signed, {
        trustedJwks: { keys: [{ ...jwk, use: 'sig', key_ops: ['verify', 'sign'], alg: 'ES256' }] },
      });
      expect(allowed.record.status).toBe('verified');
    });
  });
});

describe('loadJwks', () => {
  it('returns the keys of a valid public JWKS', async () => {
    expect(loadJwks(jwks)).toEqual(jwks.keys);
  });

  it.each([
    ['not an object', [], '$'],
    ['no keys', {}, '$.keys'],
    ['empty keys', { keys: [] }, '$.keys'],
    ['key not an object', { keys: [1] }, '$.keys[0]'],
    ['no kty', { keys: [{ kid: 'a' }] }, '$.keys[0].kty'],
    ['no kid', { keys: [{ kty: 'EC' }] }, '$.keys[0].kid'],
    ['private key', { keys: [{ kty: 'EC', kid: 'a', crv: 'P-256', x: 'x', y: 'y', d: 'SECRET-d' }] }, '$.keys[0].d'],
    ['symmetric key', { keys: [{ kty: 'oct', kid: 'a', k: 'SECRET-k' }] }, '$.keys[0].k'],
  ])('rejects a JWKS with %s (manifest-invalid, with the path, no key material)', (_name, value, path) => {
    let error: unknown;
    try {
      loadJwks(value, 'keys/jwks.json');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    const invalid = error as InvalidInputError;
    expect(invalid.code).toBe('manifest-invalid');
    expect(invalid.path).toBe(path);
    expect(invalid.message.startsWith(`keys/jwks.json ${path}: `)).toBe(true);
    expect(invalid.message).not.toContain('SECRET');
  });
});
