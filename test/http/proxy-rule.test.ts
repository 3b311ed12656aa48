/**
 * The one proxy decision (`src/http/proxy-rule.ts`, issue 33) against its definition, the shared
 * vectors `conformance/vectors/proxy.json`, which the Python runtime's tests
 * (python/tests/test_proxy.py) run too: loopback is never proxied whatever NO_PROXY says, NO_PROXY
 * entries match as curl matches them, a proxy variable that is not an http(s) URL refuses what it
 * would carry, and a plain-http request carrying a credential is refused naming the proxy variable.
 * The dispatcher that applies it is tested against real servers in test/e2e/proxy-cleartext.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cleartextProxyRefusal, invalidProxyRefusal, proxyDecision } from '../../src/http/proxy-rule.js';

interface Vector {
  name: string;
  env: Record<string, string>;
  url: string;
  credential: boolean;
  expect: 'direct' | { proxy: string; variable: string } | { refuse: string };
}

const { cases } = JSON.parse(
  readFileSync(new URL('../../conformance/vectors/proxy.json', import.meta.url), 'utf8'),
) as { cases: Vector[] };

/** The JS rule's verdict on one vector, in the vectors' shape (a refusal keeps its message to check). */
function verdict(c: Vector): 'direct' | { proxy: string; variable: string } | { refuse: string; message: string } {
  const target = new URL(c.url);
  const decision = proxyDecision(target, c.env);
  if (decision.route === 'direct') return 'direct';
  const message =
    invalidProxyRefusal(decision) ?? cleartextProxyRefusal(decision, target, c.credential ? 'a credential' : undefined);
  if (message !== undefined) return { refuse: decision.variable, message };
  return { proxy: decision.proxy, variable: decision.variable };
}

const PROXY = 'http://proxy.example:3128';

describe('proxy vectors (conformance/vectors/proxy.json)', () => {
  it('there are vectors, each named once', () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const got = verdict(c);
    if (typeof c.expect === 'object' && 'refuse' in c.expect) {
      expect(got).toMatchObject({ refuse: c.expect.refuse });
      const { message } = got as { message: string };
      expect(message).toContain(c.expect.refuse);
      // The variable's value (it may hold a proxy password) is never quoted.
      expect(message).not.toContain(c.env[c.expect.refuse]);
    } else {
      expect(got).toEqual(c.expect);
    }
  });
});

describe('the refusals name the variable and say what to do', () => {
  const env = { HTTP_PROXY: PROXY, HTTPS_PROXY: PROXY, NO_PROXY: 'localhost' };
  it('plain http through the proxy with a credential: refused naming the variable; without one, or over https, or direct: allowed', () => {
    const plain = new URL('http://agent.example:8080/a2a');
    expect(cleartextProxyRefusal(proxyDecision(plain, env), plain, 'the authorization header')).toBe(
      'a credential is never sent through a proxy in cleartext: this plain-http request carries one (the authorization header) and HTTP_PROXY would send it through the proxy; use https, or list agent.example in NO_PROXY to reach it directly',
    );
    expect(cleartextProxyRefusal(proxyDecision(plain, env), plain, undefined)).toBeUndefined();
    const tls = new URL('https://agent.example/a2a');
    expect(cleartextProxyRefusal(proxyDecision(tls, env), tls, 'the authorization header')).toBeUndefined();
    const loop = new URL('http://127.0.0.1:8080/a2a');
    expect(cleartextProxyRefusal(proxyDecision(loop, env), loop, 'the authorization header')).toBeUndefined();
  });

  it('a proxy variable that is not an http(s) URL: the usage message names it, not its value', () => {
    const target = new URL('https://agent.example/');
    const decision = proxyDecision(target, { https_proxy: 'socks5://u:pw-secret@proxy.example:1080' });
    expect(invalidProxyRefusal(decision)).toBe('https_proxy is set but is not an http:// or https:// proxy URL');
  });
});
