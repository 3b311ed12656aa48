/**
 * Where a card's interfaces are (issue 15, "Transport"): interface URL schemes other than http(s)
 * (and gRPC's host:port) are card-invalid; unspecified hosts warn; internationalised hosts are
 * named with their punycode form; labels mixing scripts warn; `a2a card` says when an interface is
 * on another origin than the card.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  contactedHost,
  contactedHostNote,
  hostSentAs,
  internationalHost,
  internationalHostWarnings,
  isCleartextOffLoopback,
  isLoopbackHost,
  isLoopbackUrl,
  isUnspecifiedHost,
  mixedScriptLabels,
  otherOriginWarnings,
  punycodeDecode,
  rebasedInterfaceUrl,
  showHost,
} from '../../src/card/host.js';
import { normalizeCard } from '../../src/card/normalize.js';
import { describeCard } from '../../src/cli/render/card.js';
import { runCard } from '../../src/commands/card.js';
import { type StartedAgent, sampleCard, startAgent } from '../helpers/agents.js';

const card = (url: string, protocolBinding = 'JSONRPC') =>
  sampleCard('https://agent.example', { supportedInterfaces: [{ url, protocolBinding, protocolVersion: '1.0' }] });
const read = (raw: object, baseUrl?: string) =>
  normalizeCard(raw, { source: 'card.json', ...(baseUrl ? { baseUrl } : {}) });
const codes = (raw: object, baseUrl?: string) => read(raw, baseUrl).warnings.map((w) => w.code);

describe('interface URL schemes', () => {
  it.each([
    'ftp://agent.example/a2a',
    'ws://agent.example/a2a',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/plain,x',
    'localhost:8080/rpc',
  ])('%s is card-invalid', (url) => {
    expect(() => read(card(url), 'https://agent.example/.well-known/agent-card.json')).toThrow(
      expect.objectContaining({ code: 'card-invalid', message: expect.stringMatching(/scheme .* not allowed/) }),
    );
  });

  it('keeps http(s), relative URLs, and gRPC host:port, grpc(s):// and http(s)://', () => {
    expect(read(card('https://agent.example/a2a')).card.supportedInterfaces[0]!.url).toBe('https://agent.example/a2a');
    expect(
      read(card('/a2a'), 'https://agent.example/.well-known/agent-card.json').card.supportedInterfaces[0]!.url,
    ).toBe('https://agent.example/a2a');
    for (const url of [
      'agent.example:443',
      'grpcs://agent.example:443',
      'grpc://127.0.0.1:50051',
      'https://agent.example',
    ]) {
      expect(read(card(url, 'GRPC')).card.supportedInterfaces[0]!.url).toBe(url);
    }
  });

  it('a gRPC interface with another scheme, or a user name, is card-invalid', () => {
    expect(() => read(card('ws://agent.example:443', 'GRPC'))).toThrow(
      expect.objectContaining({ code: 'card-invalid', message: expect.stringMatching(/gRPC interface is host:port/) }),
    );
    expect(() => read(card('user:pw@agent.example:443', 'GRPC'))).toThrow(
      expect.objectContaining({ code: 'card-invalid', message: expect.stringMatching(/credentials/) }),
    );
  });
});

describe('interface hosts', () => {
  it.each(['http://0.0.0.0:9999/a2a', 'http://[::]:9999/a2a', 'http://0.1.2.3/a2a', 'http://0/a2a'])(
    '%s warns interface-host-unspecified',
    (url) => {
      const { warnings } = read(card(url));
      expect(warnings).toEqual([
        expect.objectContaining({ code: 'interface-host-unspecified', path: '$.supportedInterfaces[0].url' }),
      ]);
    },
  );

  it('an unspecified gRPC host:port warns too; ordinary hosts do not', () => {
    expect(codes(card('0.0.0.0:50051', 'GRPC'))).toEqual(['interface-host-unspecified']);
    expect(codes(card('https://agent.example/a2a'))).toEqual([]);
    expect(codes(card('http://127.0.0.1:9/a2a'))).toEqual([]);
  });

  it('an internationalised host is named in both forms (host-international), written in Unicode or in punycode', () => {
    const unicode = read(card('https://bücher.example/a2a')).warnings;
    expect(unicode).toEqual([
      expect.objectContaining({
        code: 'host-international',
        message: 'interface host bücher.example is sent as xn--bcher-kva.example',
      }),
    ]);
    const puny = read(card('https://xn--bcher-kva.example/a2a')).warnings;
    expect(puny).toEqual([
      expect.objectContaining({
        code: 'host-international',
        message: 'interface host bücher.example is sent as xn--bcher-kva.example',
      }),
    ]);
  });

  it('a label mixing Cyrillic and Latin letters warns host-mixed-script, naming both forms; so does the card URL itself', () => {
    // "pаypal" with U+0430 CYRILLIC SMALL LETTER A.
    const { warnings } = read(
      card('https://p\u0430ypal.com/a2a'),
      'https://p\u0430ypal.com/.well-known/agent-card.json',
    );
    const mixed = warnings.filter((w) => w.code === 'host-mixed-script');
    expect(mixed).toHaveLength(2);
    expect(mixed[0]!.message).toBe(
      'card URL host p\u0430ypal.com (xn--pypal-4ve.com): label "p\u0430ypal" mixes Latin and Cyrillic letters (a look-alike name?)',
    );
    expect(mixed[1]).toMatchObject({ path: '$.supportedInterfaces[0].url' });
    // The same look-alike written in punycode is caught too.
    expect(codes(card('https://xn--pypal-4ve.com/a2a'))).toEqual(['host-international', 'host-mixed-script']);
  });

  it('single-script names in one script per label do not warn as mixed (Japanese kana and kanji are one group)', () => {
    expect(mixedScriptLabels('例え.テスト')).toEqual([]);
    expect(mixedScriptLabels('пример.рф')).toEqual([]);
    expect(mixedScriptLabels('bücher.example')).toEqual([]);
  });

  it('host helpers: loopback, unspecified, punycode', () => {
    expect(
      ['localhost', 'LOCALHOST', '127.0.0.2', '[::1]', '[::ffff:127.0.0.1]', '127.0.0.1.'].every(isLoopbackHost),
    ).toBe(true);
    // Names Node's resolver sends to DNS (not pinned to loopback as browsers pin them): not loopback.
    expect(
      [
        '127.0.0.1.example',
        'localhost.example',
        '10.0.0.1',
        '[::2]',
        'a.localhost',
        'localhost.',
        'api.LOCALHOST',
      ].some(isLoopbackHost),
    ).toBe(false);
    expect(['0.0.0.0', '[::]', '[::ffff:0.0.0.0]', '255.255.255.255'].every(isUnspecifiedHost)).toBe(true);
    expect(isUnspecifiedHost('10.0.0.1')).toBe(false);
    expect(punycodeDecode('bcher-kva')).toBe('bücher');
    expect(punycodeDecode('80ak6aa92e')).toBe('аррӏе');
    expect(punycodeDecode('!!')).toBeUndefined();
    expect(internationalHost('agent.example')).toBeUndefined();
    expect(showHost('münchen.de')).toBe('münchen.de (xn--mnchen-3ya.de)');
  });

  it('a host written with other full stops (U+3002, U+FF0E, U+FF61) or full-width letters is named as written and as contacted', () => {
    expect(internationalHost('research.example.com\u3002evil.example')).toEqual({
      unicode: 'research.example.com.evil.example',
      ascii: 'research.example.com.evil.example',
      written: 'research.example.com\u3002evil.example',
    });
    expect(internationalHost('a\uff0eb\uff61c')?.ascii).toBe('a.b.c');
    expect(internationalHost('\uff45xample.com')).toMatchObject({ ascii: 'example.com', written: '\uff45xample.com' });
    expect(hostSentAs(internationalHost('bücher\u3002example')!)).toBe(
      'bücher\u3002example is sent as xn--bcher-kva.example (bücher.example)',
    );
    expect(contactedHostNote('https://research.example.com\u3002evil.example:8443/a2a')).toBe(
      ' (host research.example.com\u3002evil.example is sent as research.example.com.evil.example)',
    );
    expect(contactedHostNote('https://research.example.com/a2a')).toBe('');
    expect(contactedHostNote('https://Research.Example.com/a2a')).toBe('');
    expect(
      internationalHostWarnings([
        ['plan s url', 'https://x\u3002y/a'],
        ['plan s fallback', 'https://x\u3002y/a'],
        ['plan t url', 'https://plain.example/'],
      ]),
    ).toEqual([{ code: 'host-international', message: 'plan s url host x\u3002y is sent as x.y' }]);
  });
});

describe('rebaseInterfaces', () => {
  it("rebasedInterfaceUrl: a bind address or loopback interface on a card from another host moves to the card's origin, path and query kept", () => {
    expect(
      rebasedInterfaceUrl('http://0.0.0.0:8080/a2a?x=1', 'https://svc-abc.a.run.app/.well-known/agent-card.json'),
    ).toBe('https://svc-abc.a.run.app/a2a?x=1');
    expect(rebasedInterfaceUrl('http://[::]:8080/', 'https://svc.example:8443/v1/card')).toBe(
      'https://svc.example:8443/',
    );
    expect(rebasedInterfaceUrl('http://localhost:8080/rpc', 'https://svc.example/card.json')).toBe(
      'https://svc.example/rpc',
    );
    // Nothing to rebase: a public host, the card's own host, a gRPC host:port, a card from a file.
    expect(rebasedInterfaceUrl('https://api.example/rpc', 'https://svc.example/')).toBeUndefined();
    expect(rebasedInterfaceUrl('http://127.0.0.1:9/rpc', 'http://127.0.0.1:8/v1/card')).toBeUndefined();
    expect(rebasedInterfaceUrl('0.0.0.0:50051', 'https://svc.example/')).toBeUndefined();
    expect(rebasedInterfaceUrl('http://0.0.0.0:8080/', undefined)).toBeUndefined();
  });
});

describe('interfaces on another origin than the card', () => {
  it('otherOriginWarnings: an http(s) interface by origin, a gRPC host:port by host; none for a card file', () => {
    const interfaces = [
      { url: 'https://agent.example/a2a', protocolBinding: 'JSONRPC' },
      { url: 'https://api.example/a2a', protocolBinding: 'HTTP+JSON' },
      { url: 'http://agent.example/a2a', protocolBinding: 'JSONRPC' },
      { url: 'agent.example:50051', protocolBinding: 'GRPC' },
      { url: 'grpc.example:443', protocolBinding: 'GRPC' },
    ];
    const warnings = otherOriginWarnings(interfaces, 'https://agent.example/.well-known/agent-card.json');
    expect(warnings.map((w) => w.message)).toEqual([
      'HTTP+JSON interface https://api.example/a2a is on another origin (api.example) than the card (https://agent.example): calls and their credential go there',
      'JSONRPC interface http://agent.example/a2a is on another origin (agent.example) than the card (https://agent.example): calls and their credential go there',
      'GRPC interface grpc.example:443 is on another host (grpc.example) than the card (https://agent.example): calls and their credential go there',
    ]);
    expect(warnings.every((w) => w.code === 'interface-other-origin')).toBe(true);
    expect(otherOriginWarnings(interfaces, undefined)).toEqual([]);
  });

  let agent: StartedAgent | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await agent?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a2a card warns interface-other-origin for a served card (and names an internationalised host in both forms)', async () => {
    agent = await startAgent({
      card: (origin) =>
        sampleCard(origin, {
          supportedInterfaces: [
            { url: `${origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
            { url: 'https://bücher.example/a2a', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
          ],
        }),
    });
    dir = await mkdtemp(join(tmpdir(), 'a2a-card-hosts-'));
    const result = await runCard(
      { manifest: join(dir, 'a2a.json'), json: true, verbose: false, cwd: dir, env: {} },
      { card: agent.origin },
    );
    expect(result.warnings.map((w) => w.code)).toEqual(['host-international', 'interface-other-origin']);
    expect(result.warnings[1]!.message).toContain('(bücher.example (xn--bcher-kva.example))');
    expect(describeCard(result.data.card, result.data.resolved)).toContain(
      '    HTTP+JSON 1.0 https://bücher.example/a2a (host bücher.example is sent as xn--bcher-kva.example)',
    );
  });
});

describe('a host as written against the host a URL parser contacts', () => {
  it.each([
    ['http://127.0.0.1\t.evil.example/a2a', '127.0.0.1.evil.example'],
    ['http://127.0.0.1\n.evil.example/a2a', '127.0.0.1.evil.example'],
    ['http://localhost\t.evil.example/a2a', 'localhost.evil.example'],
    ['http://evil.example\\@127.0.0.1/a2a', 'evil.example'],
    ['grpc://127.0.0.1\t.evil.example:50051', '127.0.0.1.evil.example'],
  ])('%j is not loopback: it is contacted as %s', (url, sent) => {
    expect(contactedHost(url)).toBe(sent);
    expect(isLoopbackUrl(url)).toBe(false);
    expect(isCleartextOffLoopback(url)).toBe(true);
  });

  it('loopback as written and as contacted stays loopback', () => {
    for (const url of [
      'http://127.0.0.1:8080/a2a',
      'http://localhost/a2a',
      'http://[::1]:1/',
      '127.0.0.1:50051',
      'http://0x7f.1/',
    ])
      expect(isLoopbackUrl(url), url).toBe(true);
  });

  it('a name written otherwise than contacted is noted; case, a trailing dot and address spellings are not', () => {
    expect(contactedHostNote('https://research.example.com%2eevil.example/a2a')).toBe(
      ' (host research.example.com%2eevil.example is sent as research.example.com.evil.example)',
    );
    expect(contactedHostNote('https://evil.example\\.research.example.com/a2a')).toBe(
      ' (host evil.example\\.research.example.com is sent as evil.example)',
    );
    for (const url of [
      'https://Research.Example.com/a2a',
      'https://research.example.com./a2a',
      'http://0x7f.1/',
      'http://[0:0::1]/',
    ])
      expect(contactedHostNote(url), url).toBe('');
  });
});
