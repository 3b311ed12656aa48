/**
 * Signed cards for tests: ES256 keys, a card signed with the SDK's own `generateAgentCardSignature`
 * (new signature bytes each time), a JWKS served on an agent's own origin, and a real SDK agent
 * serving the sample card signed with a key whose JWKS it serves.
 */
import { generateAgentCardSignature } from '@a2a-js/sdk';
import * as jose from 'jose';
import { type AgentCard, type StartAgentOptions, type StartedAgent, sampleCard } from './agents.js';

/** An ES256 signing key. */
export interface Key {
  kid: string;
  privateKey: jose.CryptoKey;
  /** Public JWK with kid/alg/use, as a JWKS publishes it. */
  jwk: jose.JWK;
  /** RFC 7638 thumbprint of the public key, computed by jose. */
  thumbprint: string;
}

/** A new ES256 key named `kid`. */
export async function newKey(kid: string): Promise<Key> {
  const { publicKey, privateKey } = await jose.generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return { kid, privateKey, jwk, thumbprint: await jose.calculateJwkThumbprint(jwk) };
}

/** Sign `card` with the SDK's generator (ES256, typ JOSE, the key's kid, and `jku` unless empty). */
export async function sign<C extends object = AgentCard>(card: C, key: Key, jku: string): Promise<C> {
  const signer = generateAgentCardSignature(key.privateKey, {
    alg: 'ES256',
    kid: key.kid,
    typ: 'JOSE',
    ...(jku ? { jku } : {}),
  });
  // The SDK canonicalises through AgentCard.fromJSON, so it takes the ProtoJSON card as served.
  const signed = (await signer(card as never)) as unknown as C;
  return JSON.parse(JSON.stringify(signed)) as C; // drop `header: undefined`
}

/** A JWKS served by {@link jwksOn}. */
export interface ServedJwks {
  /** Its URL, for a signature's `jku`. */
  jku: string;
  /** Serve `next` from now on. */
  setKeys(next: Key[]): void;
  /** Down: every request for it has its connection destroyed, until set up again. */
  setUp(up: boolean): void;
  /** How many requests it has had. */
  hits(): number;
}

/** A JWKS at /jwks.json on `agent`'s own origin (a jku must share the card's origin) holding `keys`. */
export function jwksOn(agent: StartedAgent, keys: Key[]): ServedJwks {
  let current = keys;
  let up = true;
  agent.serve('/jwks.json', (req, response) => {
    if (!up) return void req.socket.destroy();
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ keys: current.map((k) => k.jwk) }));
  });
  return {
    jku: `${agent.origin}/jwks.json`,
    setKeys(next) {
      current = next;
    },
    setUp(next) {
      up = next;
    },
    hits: () => agent.requests.filter((r) => r.path === '/jwks.json').length,
  };
}

/**
 * A real SDK agent (started with `start`, e.g. a test's resource tracker, which stops it) serving
 * the sample card signed with `key`, its jku a JWKS on the agent's origin holding `key`. Returns the
 * agent, the JWKS, the unsigned card and the signed one.
 */
export async function signedAgent(start: (options: StartAgentOptions) => Promise<StartedAgent>, key: Key) {
  const agent = await start({ card: (origin) => sampleCard(origin) });
  const jwks = jwksOn(agent, [key]);
  const card = sampleCard(agent.origin);
  const signed = await sign(card, key, jwks.jku);
  agent.setCard(signed);
  return { agent, jwks, card, signed };
}
