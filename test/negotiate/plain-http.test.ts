/**
 * The plain-http rule in negotiation (issue 15, "Transport"): an `http://` or `grpc://` interface
 * on a host that is not loopback is no candidate without `allowHttp`, nor a fallback; only such
 * interfaces (or such a push endpoint) give the refusal `plain-http`.
 */
import { describe, expect, it } from 'vitest';
import { normalizeCard } from '../../src/card/normalize.js';
import { negotiate } from '../../src/negotiate/negotiate.js';
import type { ClientProfile } from '../../src/negotiate/types.js';

const PROFILE: ClientProfile = {
  bindings: ['JSONRPC', 'GRPC'],
  versions: ['1.0'],
  accepts: ['application/json'],
  sends: [],
  streaming: false,
  pushEndpoint: null,
  extensions: [],
};

function cardWith(interfaces: Array<[string, string]>, push = false) {
  return normalizeCard(
    {
      name: 'a',
      description: 'd',
      version: '1.0.0',
      supportedInterfaces: interfaces.map(([url, protocolBinding]) => ({
        url,
        protocolBinding,
        protocolVersion: '1.0',
      })),
      capabilities: { pushNotifications: push },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['application/json'],
      skills: [{ id: 's', name: 's', description: 'd', tags: [] }],
    },
    { source: 'card.json' },
  ).card;
}

describe('negotiate and plain http', () => {
  it('refuses plain-http when the only matching interfaces are http or grpc:// off loopback, naming them and allowHttp', () => {
    const result = negotiate(
      cardWith([
        ['http://agent.example/a2a', 'JSONRPC'],
        ['grpc://agent.example:50051', 'GRPC'],
      ]),
      's',
      PROFILE,
      [],
    );
    expect(result.refusal?.code).toBe('plain-http');
    expect(result.refusal?.message).toContain(
      'JSONRPC 1.0 at http://agent.example/a2a; GRPC 1.0 at grpc://agent.example:50051',
    );
    expect(result.refusal?.message).toContain('"allowHttp": true');
  });

  it('passes over an http interface for the next candidate (said in the trace), and keeps it out of the fallbacks', () => {
    const result = negotiate(
      cardWith([
        ['http://agent.example/a2a', 'JSONRPC'],
        ['agent.example:443', 'GRPC'],
      ]),
      's',
      PROFILE,
      [],
    );
    expect(result.plan).toMatchObject({ url: 'agent.example:443', protocolBinding: 'GRPC' });
    expect(result.plan?.fallbacks).toBeUndefined();
    expect(result.trace.find((t) => t.step === 'interface')?.detail).toContain(
      'passed over, plain http to a host that is not loopback: http://agent.example/a2a',
    );
  });

  it('with allowHttp takes it, with the other as a fallback; loopback http needs nothing', () => {
    const card = cardWith([
      ['http://agent.example/a2a', 'JSONRPC'],
      ['agent.example:443', 'GRPC'],
    ]);
    const allowed = negotiate(card, 's', PROFILE, [], { allowHttp: true });
    expect(allowed.plan).toMatchObject({
      url: 'http://agent.example/a2a',
      fallbacks: { interfaces: [{ url: 'agent.example:443' }] },
    });
    expect(negotiate(cardWith([['http://127.0.0.1:9/a2a', 'JSONRPC']]), 's', PROFILE, []).plan?.url).toBe(
      'http://127.0.0.1:9/a2a',
    );
    expect(negotiate(cardWith([['http://localhost:9/a2a', 'JSONRPC']]), 's', PROFILE, []).plan?.url).toBe(
      'http://localhost:9/a2a',
    );
  });

  it('refuses a push plan whose push endpoint is plain http off loopback, unless allowHttp; a loopback endpoint is fine', () => {
    const card = cardWith([['https://agent.example/a2a', 'JSONRPC']], true);
    const profile = { ...PROFILE, pushEndpoint: 'http://client.example/hook' };
    expect(negotiate(card, 's', profile, []).refusal?.code).toBe('plain-http');
    expect(negotiate(card, 's', profile, [], { allowHttp: true }).plan?.delivery).toBe('push');
    expect(negotiate(card, 's', { ...PROFILE, pushEndpoint: 'http://127.0.0.1:8/hook' }, []).plan?.delivery).toBe(
      'push',
    );
  });
});
