/**
 * What the runtime's per-agent check skips on a cold start changes nothing it reads: a locked
 * snapshot is normalised without its host warnings (`CardSource.hostWarnings: false`, which
 * `lock/offline.ts` passes, since it keeps only the card), and that card is the one the full read
 * gives; the warnings it still makes are the others.
 */
import { describe, expect, it } from 'vitest';
import { normalizeCard } from '../../src/card/normalize.js';
import { lockedNegotiationCard } from '../../src/lock/offline.js';
import { sampleCard } from '../helpers/agents.js';

/** A card whose interfaces sit on an unspecified address, a mixed-script host and an internationalised one; one URL relative. */
const hostile = () =>
  sampleCard('https://agent.example', {
    supportedInterfaces: [
      { url: 'http://0.0.0.0:9999/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://p\u0430ypal.com/a2a', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'https://bücher.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: '/relative', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ],
  });
const cardUrl = 'https://p\u0430ypal.com/.well-known/agent-card.json';

describe('host warnings off for a locked snapshot', () => {
  it('the same card as the full read, without the host warnings; the other warnings stay', () => {
    const full = normalizeCard(hostile(), { source: 'card', baseUrl: cardUrl });
    const skipped = normalizeCard(hostile(), { source: 'card', baseUrl: cardUrl, hostWarnings: false });
    expect(full.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(['interface-host-unspecified', 'host-mixed-script', 'host-international', 'relative-interface-url']));
    expect(skipped.card).toEqual(full.card);
    expect(skipped.warnings).toEqual(full.warnings.filter((w) => !/^(interface-host-unspecified|host-)/.test(w.code)));
    expect(skipped.warnings.map((w) => w.code)).toContain('relative-interface-url');
  });

  it('a locked entry reads the card the full read gives', () => {
    const snapshot = hostile();
    const entry = { card: cardUrl, resolved: cardUrl, a2aVersion: '1.0', version: '1', integrity: '', snapshot, plans: {} };
    expect(lockedNegotiationCard(entry, 'agents.x')).toEqual(normalizeCard(snapshot, { source: 'agents.x', baseUrl: cardUrl }).card);
  });
});
