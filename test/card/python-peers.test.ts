/**
 * Issue 23, the card-reading rules the Python peers need (pure; the real servers are in
 * test/e2e/python-*.test.ts): an interface without `protocolVersion` (a2a-sdk's `MessageToDict`)
 * is read as 1.0 with `interface-version-missing`; a custom binding's address is kept verbatim;
 * unknown `capabilities.*` members (A2A 1.1 `bidiStreaming`) are kept and a change to one is
 * structural; a VersionNotSupported naming another version than the one sent is a lost header.
 */
import { describe, expect, it } from 'vitest';
import { normalizeCard } from '../../src/card/normalize.js';
import { versionHeaderLost, versionHeaderLostMessage } from '../../src/card/version-header.js';
import { cardChanges } from '../../src/lock/changes.js';
import { negotiate } from '../../src/negotiate/negotiate.js';
import type { ClientProfile } from '../../src/negotiate/types.js';

const FILE = { source: 'card.json' };
const URL_SOURCE = {
  source: 'https://agent.example.com/.well-known/agent-card.json',
  baseUrl: 'https://agent.example.com/.well-known/agent-card.json',
};
const PROFILE: ClientProfile = {
  bindings: ['JSONRPC', 'HTTP+JSON'],
  versions: ['1.0', '0.3'],
  accepts: ['text/plain'],
  sends: ['text/plain'],
  streaming: true,
  pushEndpoint: null,
  extensions: [],
};

function card(interfaces: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Py',
    description: 'd',
    version: '1.0.0',
    supportedInterfaces: interfaces,
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 's', description: 'd', tags: [] }],
    ...extra,
  };
}

describe('an interface without protocolVersion', () => {
  it('absent, null or empty: read as 1.0 with interface-version-missing naming the path', () => {
    for (const version of [undefined, null, '']) {
      const iface: Record<string, unknown> = { url: 'https://agent.example.com/a2a', protocolBinding: 'JSONRPC' };
      if (version !== undefined) iface.protocolVersion = version;
      const { card: c, warnings } = normalizeCard(card([iface]), FILE);
      expect(c.supportedInterfaces[0]!.protocolVersion).toBe('1.0');
      expect(warnings).toContainEqual(
        expect.objectContaining({
          code: 'interface-version-missing',
          path: '$.supportedInterfaces[0].protocolVersion',
        }),
      );
    }
  });

  it('the a2a-sdk hybrid: the top-level protocolVersion "0.3" does not override the interface', () => {
    const url = 'https://agent.example.com/a2a/jsonrpc';
    const { card: c } = normalizeCard(
      card([{ url, protocolBinding: 'JSONRPC' }], { url, preferredTransport: 'JSONRPC', protocolVersion: '0.3' }),
      FILE,
    );
    expect(c.shape).toBe('hybrid');
    expect(c.supportedInterfaces).toEqual([{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  });
});

describe('custom and unknown bindings', () => {
  const slim = { url: 'org/namespace/service', protocolBinding: 'SLIMRPC', protocolVersion: '1.0' };
  const jsonrpc = { url: 'https://agent.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' };

  it('a SLIMRPC interface whose url is a SLIM name: kept verbatim from a file and from a URL, never resolved, never a refusal', () => {
    for (const from of [FILE, URL_SOURCE]) {
      const { card: c, warnings } = normalizeCard(card([slim, jsonrpc]), from);
      expect(c.supportedInterfaces[0]).toEqual(slim);
      expect(warnings.map((w) => w.code)).not.toContain('relative-interface-url');
    }
    const { card: c } = normalizeCard(card([slim, jsonrpc]), FILE);
    const result = negotiate(c, 's', PROFILE, []);
    expect(result.plan).toMatchObject({ url: 'https://agent.example.com/a2a', protocolBinding: 'JSONRPC' });
  });

  it('any address form of a custom binding URI (spaces, a scheme, an opaque name) is kept as it is', () => {
    for (const url of ['slim://org/ns/svc', 'urn:example:agent', 'not a url at all', 'mailto:x@example.com']) {
      const iface = { url, protocolBinding: 'https://example.com/bindings/custom/v1', protocolVersion: '1.0' };
      expect(normalizeCard(card([iface, jsonrpc]), URL_SOURCE).card.supportedInterfaces[0]).toEqual(iface);
    }
  });
});

describe('unknown capabilities (A2A 1.1 bidiStreaming)', () => {
  it('a card with capabilities.bidiStreaming is read; a change to it is a structural card change', () => {
    const old = card([{ url: 'https://agent.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }], {
      capabilities: { streaming: true, bidiStreaming: false },
    });
    const now = { ...old, capabilities: { streaming: true, bidiStreaming: true } };
    expect(normalizeCard(now, FILE).card.capabilities.streaming).toBe(true);
    const changes = cardChanges({ resolved: 'x', snapshot: old }, { resolved: 'x', snapshot: now });
    expect(changes).toEqual([expect.objectContaining({ path: '$.capabilities.bidiStreaming', structural: true })]);
  });
});

describe('a lost A2A-Version header', () => {
  it('a2a-sdk (Python) and @a2a-js/sdk words naming another version than the one sent', () => {
    expect(
      versionHeaderLost('1.0', "A2A version '0.3' is not supported by this handler. Expected version '1.0'."),
    ).toEqual({ seen: '0.3' });
    expect(
      versionHeaderLost('1.0', "The requested A2A protocol version '0.3' is not supported. Supported versions: 1.0"),
    ).toEqual({ seen: '0.3' });
    expect(versionHeaderLost('1.0', "A2A version '1.0' is not supported by this handler.")).toBeUndefined();
    expect(versionHeaderLost('1.0', 'VersionNotSupported')).toBeUndefined();
    expect(versionHeaderLost('1.0', undefined)).toBeUndefined();
    const message = versionHeaderLostMessage('1.0', '0.3');
    expect(message).toMatch(/A2A-Version: 1\.0/);
    expect(message).toMatch(/removed or rewrote the A2A-Version header/);
    expect(message).toMatch(/AgentCore/);
  });
});
