/**
 * Cards and signing keys the end-to-end tests share: the sample card advertising an extended card,
 * the extended card (the public one plus the paid `deep-research` skill), and ES256 keys that sign
 * a card with the SDK's own generator (new signature bytes each time).
 */
import { generateAgentCardSignature } from '@a2a-js/sdk';
import * as jose from 'jose';
import { sampleCard } from './helpers.js';

export type Card = ReturnType<typeof sampleCard>;

/** The skill only the extended card lists. */
export const DEEP = {
  id: 'deep-research',
  name: 'Deep research',
  description: 'Long-form research briefs for paying customers.',
  tags: ['research'],
  inputModes: ['text/plain'],
  outputModes: ['application/json', 'text/markdown'],
};

/** The sample card advertising an extended card (bearer security comes with the sample card). */
export function publicCard(origin: string): Card {
  const card = sampleCard(origin);
  card.capabilities = { ...card.capabilities, extendedAgentCard: true };
  return card;
}

/** The extended card: the public one plus `deep-research` (with `outputModes` overridable). */
export function extendedCard(origin: string, outputModes: string[] = DEEP.outputModes): Card {
  const card = publicCard(origin);
  return {
    ...card,
    description: 'Extended: includes the paid skills.',
    skills: [...card.skills, { ...DEEP, outputModes }],
  };
}

/** An ES256 signing key. */
export interface Key {
  kid: string;
  privateKey: jose.CryptoKey;
  /** Public JWK with kid/alg/use, as a JWKS publishes it. */
  jwk: jose.JWK;
  /** RFC 7638 thumbprint of the public key, computed by jose. */
  thumbprint: string;
}

export async function newKey(kid: string): Promise<Key> {
  const { publicKey, privateKey } = await jose.generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return { kid, privateKey, jwk, thumbprint: await jose.calculateJwkThumbprint(jwk) };
}

/** Sign `card` with the SDK's generator (ES256, typ JOSE, the key's kid, and `jku` unless empty). */
export async function sign(card: Card, key: Key, jku: string): Promise<Card> {
  const signer = generateAgentCardSignature(key.privateKey, {
    alg: 'ES256',
    kid: key.kid,
    typ: 'JOSE',
    ...(jku ? { jku } : {}),
  });
  // The SDK canonicalises through AgentCard.fromJSON, so it takes the ProtoJSON card as served.
  const signed = (await signer(card as never)) as unknown as Card;
  return JSON.parse(JSON.stringify(signed)) as Card; // drop `header: undefined`
}
