/**
 * The one proxy decision (`src/http/proxy-rule.ts`, issue 33): loopback is never proxied whatever
 * NO_PROXY says, NO_PROXY entries match as curl matches them, and a plain-http request carrying a
 * credential is refused naming the proxy variable. A table of cases; the dispatcher that applies it
 * is tested against real servers in test/e2e/proxy-cleartext.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { cleartextProxyRefusal, noProxyMatches, proxyDecision, proxyVariable } from '../../src/http/proxy-rule.js';

const PROXY = 'http://proxy.example:3128';

describe('proxyDecision', () => {
  it.each([
    // [url, env, expected route / reason or variable]
    ['http://127.0.0.1:8080/card', { HTTP_PROXY: PROXY, NO_PROXY: 'localhost' }, 'direct loopback'],
    ['http://127.9.8.7/', { HTTP_PROXY: PROXY }, 'direct loopback'],
    ['http://[::1]:9/', { HTTP_PROXY: PROXY, NO_PROXY: '' }, 'direct loopback'],
    ['http://localhost:9/', { HTTP_PROXY: PROXY }, 'direct loopback'],
    ['https://LOCALHOST/', { HTTPS_PROXY: PROXY, NO_PROXY: 'example.com' }, 'direct loopback'],
    ['http://0x7f.1/', { HTTP_PROXY: PROXY }, 'direct loopback'],
    ['http://[::ffff:127.0.0.1]/', { HTTP_PROXY: PROXY }, 'direct loopback'],
    // `*.localhost` is not pinned to loopback (isLoopbackHost): proxied like any name.
    ['http://run.localhost/', { HTTP_PROXY: PROXY }, 'proxy HTTP_PROXY'],
    ['http://agent.example/', {}, 'direct no-proxy-variable'],
    ['https://agent.example/', { HTTP_PROXY: PROXY }, 'proxy HTTP_PROXY'],
    ['https://agent.example/', { HTTPS_PROXY: PROXY, HTTP_PROXY: 'http://other:1' }, 'proxy HTTPS_PROXY'],
    ['https://agent.example/', { https_proxy: PROXY, HTTPS_PROXY: 'http://other:1' }, 'proxy https_proxy'],
    ['http://agent.example/', { HTTPS_PROXY: PROXY }, 'direct no-proxy-variable'],
    ['http://agent.example/', { http_proxy: PROXY, HTTP_PROXY: '' }, 'proxy http_proxy'],
    ['https://agent.example/', { HTTPS_PROXY: PROXY, NO_PROXY: 'agent.example' }, 'direct no-proxy'],
    ['https://agent.example/', { HTTPS_PROXY: PROXY, no_proxy: 'agent.example', NO_PROXY: 'x' }, 'direct no-proxy'],
    ['https://agent.example/', { HTTPS_PROXY: PROXY, no_proxy: '', NO_PROXY: 'agent.example' }, 'direct no-proxy'],
  ])('%s under %j: %s', (url, env, expected) => {
    const decision = proxyDecision(new URL(url), env as Record<string, string>);
    expect(decision.route === 'direct' ? `direct ${decision.reason}` : `proxy ${decision.variable}`).toBe(expected);
    if (decision.route === 'proxy') expect(decision.proxy).toBe((env as Record<string, string>)[decision.variable]);
  });
});

describe('NO_PROXY as curl matches it', () => {
  it.each([
    // [hostname, port, NO_PROXY, matches]
    ['example.com', 443, 'example.com', true],
    ['api.example.com', 443, 'example.com', true],
    ['api.example.com', 443, '.example.com', true],
    ['example.com', 443, '.example.com', true],
    ['a.b.example.com', 443, '*.example.com', true],
    ['notexample.com', 443, 'example.com', false],
    ['example.com.evil', 443, 'example.com', false],
    ['EXAMPLE.COM.', 443, 'Example.Com', true],
    ['example.com', 443, ' other.org , example.com ', true],
    ['example.com', 443, 'other.org example.com', true],
    ['example.com', 443, 'other.org', false],
    ['anything.at.all', 80, '*', true],
    ['10.1.2.3', 80, '*', true],
    ['example.com', 8443, 'example.com:8443', true],
    ['example.com', 443, 'example.com:8443', false],
    ['api.example.com', 8443, '.example.com:8443', true],
    ['10.1.2.3', 80, '10.1.2.3', true],
    ['10.1.2.4', 80, '10.1.2.3', false],
    ['10.1.2.3', 80, '10.0.0.0/8', true],
    ['11.1.2.3', 80, '10.0.0.0/8', false],
    ['192.168.7.200', 80, '192.168.7.128/25', true],
    ['192.168.7.100', 80, '192.168.7.128/25', false],
    ['10.1.2.3', 8080, '10.1.2.3:8080', true],
    ['10.1.2.3', 80, '10.1.2.3:8080', false],
    ['10.1.2.3', 80, '0.0.0.0/0', true],
    ['[fd00::1]', 443, 'fd00::1', true],
    ['[fd00::1]', 443, '[fd00::1]', true],
    ['[fd00::1]', 443, '[fd00::1]:443', true],
    ['[fd00::1]', 80, '[fd00::1]:443', false],
    ['[fd00::abcd]', 443, 'fd00::/8', true],
    ['[fe80::1]', 443, 'fd00::/8', false],
    ['[2001:db8::1]', 443, '2001:db8::/32', true],
    ['[::ffff:a01:203]', 443, '::ffff:10.1.2.3', true],
    // An IP entry does not match a name, nor a name entry an IP; the wrong family never matches.
    ['example.com', 443, '10.0.0.0/8', false],
    ['10.1.2.3', 80, 'example.com', false],
    ['10.1.2.3', 80, '::/0', false],
    // Unreadable entries match nothing.
    ['example.com', 443, 'example.com/8', false],
    ['10.1.2.3', 80, '10.0.0.0/33', false],
    ['10.1.2.3', 80, '10.0.0.300', false],
    ['example.com', 443, 'example.com:https', false],
    ['example.com', 443, '', false],
    ['example.com', 443, ',,', false],
  ])('%s:%i with NO_PROXY=%j: %s', (host, port, noProxy, matches) => {
    expect(noProxyMatches(host, port, noProxy)).toBe(matches);
  });

  it('the port compared is the effective one (80 for http, 443 for https) when the URL names none', () => {
    const env = { HTTP_PROXY: PROXY, HTTPS_PROXY: PROXY, NO_PROXY: 'agent.example:443' };
    expect(proxyDecision(new URL('https://agent.example/'), env).route).toBe('direct');
    expect(proxyDecision(new URL('http://agent.example/'), env).route).toBe('proxy');
  });
});

describe('a credential is never sent through a proxy in cleartext', () => {
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

  it('proxyVariable: https falls back to the http proxy; plain http never uses the https one', () => {
    expect(proxyVariable('https:', { HTTP_PROXY: PROXY })).toBe('HTTP_PROXY');
    expect(proxyVariable('http:', { HTTPS_PROXY: PROXY })).toBeUndefined();
  });
});
