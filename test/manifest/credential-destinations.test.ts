/** The pure matching of `credentialDestinations` entries (manifest/credential-destinations.ts) and their refinements. */
import { describe, expect, it } from 'vitest';
import { isAllowedDestination } from '../../src/manifest/credential-destinations.js';
import { isDestinationPattern, isTlsOrLoopbackDestination } from '../../src/manifest/rules.js';

describe('credentialDestinations', () => {
  const list = ['https://*.run.app', 'https://agents.example.com', 'http://127.0.0.1:8080'];

  it('an origin matches exactly, or a *. entry with one or more labels before its domain (same scheme and port)', () => {
    for (const origin of [
      'https://research-abc123.a.run.app',
      'https://x.run.app',
      'https://agents.example.com',
      'http://127.0.0.1:8080',
    ])
      expect(isAllowedDestination(origin, list), origin).toBe(true);
    for (const origin of [
      'https://run.app',
      'https://evilrun.app',
      'https://x.run.app.evil.com',
      'http://x.run.app',
      'https://x.run.app:8443',
      'https://agents.example.com:444',
      'https://sub.agents.example.com',
      'http://127.0.0.1:8081',
      'grpc://x.run.app:443',
    ])
      expect(isAllowedDestination(origin, list), origin).toBe(false);
    expect(isAllowedDestination('https://a.example.com', [])).toBe(false);
  });

  it('entries: origins as a URL parser prints them, *. only before a name, plain http only to loopback', () => {
    for (const entry of [
      'https://*.run.app',
      'https://agents.example.com:8443',
      'http://127.0.0.1:9000',
      'http://localhost',
    ])
      expect(isDestinationPattern(entry) && isTlsOrLoopbackDestination(entry), entry).toBe(true);
    for (const entry of [
      'https://Agents.example.com',
      'https://a.example.com/',
      'https://a.example.com/x',
      'https://*.1.2.3.4',
      'https://a.*.com',
      '*.run.app',
      'https://*.run.app:443',
    ])
      expect(isDestinationPattern(entry), entry).toBe(false);
    for (const entry of ['http://agents.example.com', 'http://*.localhost'])
      expect(isTlsOrLoopbackDestination(entry), entry).toBe(false);
  });
});
