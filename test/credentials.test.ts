import { beforeAll, describe, expect, it } from 'vitest';
import type { SecurityScheme } from '../src/card/model.js';
import {
  applyCredentials,
  type CredentialPlacement,
  credentialQueryNames,
  hasCredentials,
  placeCredential,
} from '../src/credentials.js';
import { A2aLockError, exitCodeFor, UsageError } from '../src/errors.js';

const SECRET = 's3cr3t-T0KEN-value';
const empty = (): CredentialPlacement => ({ headers: {}, query: {}, cookies: {} });

/** Call fn, expect a UsageError (exit 2) whose message never contains any of `secrets`. */
function usageError(fn: () => unknown, secrets: string[] = [SECRET]): UsageError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(UsageError);
  const error = caught as UsageError;
  expect(error).toBeInstanceOf(A2aLockError);
  expect(error.code).toBe('usage');
  expect(exitCodeFor(error)).toBe(2);
  for (const s of secrets) {
    expect(error.message).not.toContain(s);
    expect(JSON.stringify(error.toJSON())).not.toContain(s);
  }
  return error;
}

describe('placeCredential', () => {
  it('http bearer → Authorization: Bearer, whatever the case of the scheme name', () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      expect(placeCredential({ type: 'http', scheme }, SECRET)).toEqual({
        headers: { Authorization: `Bearer ${SECRET}` },
        query: {},
        cookies: {},
      });
    }
    // bearerFormat is a hint only
    expect(placeCredential({ type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' }, 'a.b.c').headers).toEqual({
      Authorization: 'Bearer a.b.c',
    });
  });

  it('http basic → Authorization: Basic base64(utf8 user:password); the password may contain ":"', () => {
    expect(placeCredential({ type: 'http', scheme: 'Basic' }, 'alice:pa:ss').headers).toEqual({
      Authorization: `Basic ${Buffer.from('alice:pa:ss').toString('base64')}`,
    });
    expect(placeCredential({ type: 'http', scheme: 'basic' }, 'Aladdin:open sesame').headers.Authorization).toBe(
      'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==',
    ); // RFC 7617 §2
    expect(placeCredential({ type: 'http', scheme: 'Basic' }, 'test:123£').headers.Authorization).toBe(
      'Basic dGVzdDoxMjPCow==',
    ); // RFC 7617 §2.1 (UTF-8)
  });

  it('http basic without ":" is a usage error that does not show the secret', () => {
    const error = usageError(() => placeCredential({ type: 'http', scheme: 'Basic' }, SECRET, 'corp'));
    expect(error.message).toBe(
      'security scheme "corp" (http): a Basic credential must be "user:password" (no ":" found)',
    );
  });

  it('other http schemes → Authorization: <Scheme as spelled> <secret>', () => {
    expect(placeCredential({ type: 'http', scheme: 'Digest' }, SECRET).headers).toEqual({
      Authorization: `Digest ${SECRET}`,
    });
    expect(placeCredential({ type: 'http', scheme: 'HOBA' }, SECRET).headers).toEqual({
      Authorization: `HOBA ${SECRET}`,
    });
  });

  it('an http scheme name that is not a token is refused', () => {
    usageError(() => placeCredential({ type: 'http', scheme: 'Bear er' }, SECRET));
    usageError(() => placeCredential({ type: 'http', scheme: '' }, SECRET));
  });

  it('apiKey in a header, the query or a cookie, named by the scheme; location matched case-insensitively', () => {
    expect(placeCredential({ type: 'apiKey', location: 'header', name: 'X-API-Key' }, SECRET)).toEqual({
      headers: { 'X-API-Key': SECRET },
      query: {},
      cookies: {},
    });
    expect(placeCredential({ type: 'apiKey', location: 'Header', name: 'X-API-Key' }, SECRET).headers).toEqual({
      'X-API-Key': SECRET,
    });
    expect(placeCredential({ type: 'apiKey', location: 'query', name: 'api_key' }, SECRET)).toEqual({
      headers: {},
      query: { api_key: SECRET },
      cookies: {},
    });
    expect(placeCredential({ type: 'apiKey', location: 'cookie', name: 'session' }, SECRET)).toEqual({
      headers: {},
      query: {},
      cookies: { session: SECRET },
    });
    // a query value needs no restriction: applyCredentials encodes it
    expect(placeCredential({ type: 'apiKey', location: 'query', name: 'k' }, 'a b&c=d;e').query).toEqual({
      k: 'a b&c=d;e',
    });
  });

  it('apiKey errors: unknown location, empty name, bad header/cookie names, values a cookie cannot carry', () => {
    const bad = usageError(() => placeCredential({ type: 'apiKey', location: 'body', name: 'k' }, SECRET, 'key'));
    expect(bad.message).toBe('security scheme "key" (apiKey): apiKey location "body" is not header, query or cookie');
    usageError(() => placeCredential({ type: 'apiKey', location: 'header', name: '' }, SECRET));
    usageError(() => placeCredential({ type: 'apiKey', location: 'header', name: 'X Key' }, SECRET));
    usageError(() => placeCredential({ type: 'apiKey', location: 'cookie', name: 'a=b' }, SECRET));
    for (const value of ['has space', 'semi;colon', 'com,ma', 'quo"te', 'back\\slash']) {
      usageError(() => placeCredential({ type: 'apiKey', location: 'cookie', name: 'c' }, value), [value]);
    }
  });

  it('oauth2 and openIdConnect → Authorization: Bearer <access token>', () => {
    const oauth: SecurityScheme = {
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: 'https://idp/token', scopes: {} } },
    };
    const oidc: SecurityScheme = {
      type: 'openIdConnect',
      openIdConnectUrl: 'https://idp/.well-known/openid-configuration',
    };
    expect(placeCredential(oauth, SECRET)).toEqual({
      headers: { Authorization: `Bearer ${SECRET}` },
      query: {},
      cookies: {},
    });
    expect(placeCredential(oidc, SECRET)).toEqual({
      headers: { Authorization: `Bearer ${SECRET}` },
      query: {},
      cookies: {},
    });
  });

  it('mtls throws a usage error that says it is unsupported', () => {
    const error = usageError(() => placeCredential({ type: 'mtls' }, SECRET, 'cert'));
    expect(error.message).toMatch(/mutual TLS/);
    expect(error.message).toMatch(/not supported/);
    expect(error.message).toContain('"cert"');
  });

  it('an empty secret, or one with a line break or control character, is refused without echoing it', () => {
    const schemes: SecurityScheme[] = [
      { type: 'http', scheme: 'Bearer' },
      { type: 'http', scheme: 'Basic' },
      { type: 'apiKey', location: 'header', name: 'X-Key' },
      { type: 'apiKey', location: 'query', name: 'k' },
      { type: 'oauth2', flows: {} },
    ];
    for (const scheme of schemes) {
      expect(usageError(() => placeCredential(scheme, '')).message).toMatch(/empty/);
      for (const bad of [`${SECRET}\n`, `user:${SECRET}\r\nX-Evil: 1`, `${SECRET}\u0000`, `${SECRET}\u007f`]) {
        expect(usageError(() => placeCredential(scheme, bad), [SECRET, bad]).message).toMatch(
          /line break or control character/,
        );
      }
    }
  });

  it('for the runtime loaders, a value placed as it is in a header or cookie must be printable ASCII without a leading or trailing space (the Python runtime holds the same rule)', () => {
    const verbatim: SecurityScheme[] = [
      { type: 'http', scheme: 'Bearer' },
      { type: 'http', scheme: 'Digest' },
      { type: 'apiKey', location: 'header', name: 'X-Key' },
      { type: 'apiKey', location: 'cookie', name: 'session' },
      { type: 'oauth2', flows: {} },
      { type: 'openIdConnect', openIdConnectUrl: 'https://idp.example/.well-known/openid-configuration' },
    ];
    const RUNTIME = { owner: 'research (market-size)', headerSafe: true };
    const bad = [
      'S3cret-t\u00f6k-Wq7xz',
      'Tk9w-\u{1f600}-Qz7m',
      ' Lq9wz-Rt8vk',
      'Lq9wz-Rt8vk ',
      'Tb4x\tQz7m',
      '\u00a0Lq9wz',
    ];
    for (const scheme of verbatim) {
      for (const secret of bad) {
        const parts = [secret.trim(), ...secret.split(/[-\t\u00a0 ]/).filter((p) => p.length >= 3)];
        const error = usageError(() => placeCredential(scheme, secret, 'auth', RUNTIME), parts);
        expect(error.message).toMatch(
          /^research \(market-size\): security scheme "auth" \(\w+\): .*not printable ASCII/,
        );
      }
      expect(placeCredential(scheme, 'a~b!c.d:e', 'auth', RUNTIME)).toBeDefined();
      // Without the runtime's rule (the CLI's fetches and probes) a character beyond ASCII is left to checkHeaders.
      expect(placeCredential(scheme, 'S3cret-t\u00f6k', 'auth')).toBeDefined();
    }
    // Basic is base64 (its UTF-8 bytes, RFC 7617) and a query parameter is percent-encoded: both carry any character.
    expect(
      placeCredential({ type: 'http', scheme: 'Basic' }, 'user:p\u00e4ss ', 'b', RUNTIME).headers.Authorization,
    ).toBe(`Basic ${Buffer.from('user:p\u00e4ss ').toString('base64')}`);
    expect(placeCredential({ type: 'apiKey', location: 'query', name: 'k' }, ' k\u00e9y', 'q', RUNTIME).query).toEqual({
      k: ' k\u00e9y',
    });
  });

  it('an unknown scheme type is a usage error', () => {
    usageError(() => placeCredential({ type: 'kerberos' } as unknown as SecurityScheme, SECRET));
  });
});

describe('applyCredentials', () => {
  it('adds query parameters (encoded, replacing same-named ones) and keeps the rest of the URL', () => {
    const p: CredentialPlacement = { ...empty(), query: { api_key: 'a b&c' } };
    const out = applyCredentials('https://agent.example/rpc?x=1&api_key=old#frag', { Accept: 'application/json' }, [p]);
    const url = new URL(out.url);
    expect(url.searchParams.get('api_key')).toBe('a b&c');
    expect(url.searchParams.getAll('api_key')).toHaveLength(1);
    expect(url.searchParams.get('x')).toBe('1');
    expect(url.pathname).toBe('/rpc');
    expect(out.headers).toEqual({ Accept: 'application/json' });
  });

  it('sets headers, replacing same-named ones case-insensitively, without mutating its inputs', () => {
    const headers = { authorization: 'Bearer stale', Accept: 'application/json' };
    const placements = [
      placeCredential({ type: 'http', scheme: 'Bearer' }, SECRET),
      placeCredential({ type: 'apiKey', location: 'header', name: 'X-Key' }, 'k2'),
    ];
    const out = applyCredentials('https://a.example/', headers, placements);
    expect(out).toEqual({
      url: 'https://a.example/',
      headers: { Accept: 'application/json', Authorization: `Bearer ${SECRET}`, 'X-Key': 'k2' },
    });
    expect(headers).toEqual({ authorization: 'Bearer stale', Accept: 'application/json' });
  });

  it('joins all cookies into one Cookie header after any existing one', () => {
    const a = placeCredential({ type: 'apiKey', location: 'cookie', name: 'a' }, '1');
    const b = placeCredential({ type: 'apiKey', location: 'cookie', name: 'b' }, '2');
    expect(applyCredentials('https://a.example/', {}, [a, b]).headers).toEqual({ Cookie: 'a=1; b=2' });
    expect(applyCredentials('https://a.example/', { cookie: 'pre=0' }, [a, b]).headers).toEqual({
      Cookie: 'pre=0; a=1; b=2',
    });
  });

  it('an AND of schemes goes on one request: header + query + cookie together', () => {
    const out = applyCredentials('https://a.example/x', {}, [
      placeCredential({ type: 'http', scheme: 'Bearer' }, 'tok'),
      placeCredential({ type: 'apiKey', location: 'query', name: 'k' }, 'q'),
      placeCredential({ type: 'apiKey', location: 'cookie', name: 'c' }, 'v'),
    ]);
    expect(out).toEqual({ url: 'https://a.example/x?k=q', headers: { Authorization: 'Bearer tok', Cookie: 'c=v' } });
  });

  it('two credentials needing the same header/parameter/cookie are a usage error naming it, never a value', () => {
    const bearer = placeCredential({ type: 'http', scheme: 'Bearer' }, SECRET);
    const basic = placeCredential({ type: 'http', scheme: 'Basic' }, `u:${SECRET}`);
    const e1 = usageError(
      () => applyCredentials('https://a.example/', {}, [bearer, basic]),
      [SECRET, basic.headers.Authorization!],
    );
    expect(e1.message).toBe('two credentials both need the Authorization header; one request cannot carry both');
    const q = placeCredential({ type: 'apiKey', location: 'query', name: 'k' }, SECRET);
    expect(usageError(() => applyCredentials('https://a.example/', {}, [q, q])).message).toContain('"k"');
    const c = placeCredential({ type: 'apiKey', location: 'cookie', name: 'c' }, SECRET);
    expect(usageError(() => applyCredentials('https://a.example/', {}, [c, c])).message).toContain('"c"');
  });

  it('no placements leave the request as it was; a relative URL is a usage error', () => {
    expect(applyCredentials('https://a.example/p?q=1', { A: 'b' }, [])).toEqual({
      url: 'https://a.example/p?q=1',
      headers: { A: 'b' },
    });
    usageError(() => applyCredentials('/relative', {}, []));
  });

  it('helpers: credentialQueryNames and hasCredentials', () => {
    const q = placeCredential({ type: 'apiKey', location: 'query', name: 'k' }, SECRET);
    const h = placeCredential({ type: 'http', scheme: 'Bearer' }, SECRET);
    expect(credentialQueryNames([q, h, q])).toEqual(['k']);
    expect(hasCredentials([])).toBe(false);
    expect(hasCredentials([empty()])).toBe(false);
    expect(hasCredentials([empty(), h])).toBe(true);
  });
});

describe('redactSecrets: the spellings an attack run found in clear', () => {
  it('hex of the bytes (either case) and the secret reversed are masked', async () => {
    const { redactSecrets } = await import('../src/redact.js');
    const secret = 'S3cr3t/Tok+en=zq9';
    const hex = Buffer.from(secret, 'utf8').toString('hex');
    const text = `hex ${hex} HEX ${hex.toUpperCase()} reversed ${[...secret].reverse().join('')}`;
    const out = redactSecrets(text, [secret]);
    expect(out).not.toContain(hex);
    expect(out.toLowerCase()).not.toContain(hex);
    expect(out).not.toContain('9qz=ne+koT/t3rc3S');
    expect(out).toContain('hex ');
  });
});

describe('redactSecrets: a cut-short echo', () => {
  const secret = 'S3cr3t/Tok+en=zq9-Lengthy';
  const run = (text: string) => redactSecrets(text, [secret]);
  let redactSecrets: typeof import('../src/redact.js').redactSecrets;
  beforeAll(async () => {
    ({ redactSecrets } = await import('../src/redact.js'));
  });

  it('a run of 12 or more characters that starts or ends the secret is masked, raw or in any spelling', () => {
    const head = secret.slice(0, -3);
    const tail = secret.slice(4);
    const echoes = [
      head,
      tail,
      secret.slice(0, 12),
      secret.slice(-12),
      head.toUpperCase(),
      encodeURIComponent(head).toLowerCase(),
      encodeURIComponent(encodeURIComponent(tail)),
      new URLSearchParams({ x: head }).toString().slice(2),
      JSON.stringify(tail).slice(1, -1),
      Buffer.from(head).toString('hex'),
      [...head].reverse().join(''),
      Buffer.from(secret.slice(0, -6)).toString('base64'),
      Buffer.from(`user:${secret.slice(0, -6)}`).toString('base64url'),
    ];
    for (const echo of echoes) {
      const out = run(`before ${echo} after`);
      expect(out, echo).toMatch(/^before .{0,8}\*\*\*.{0,8} after$/);
      for (let k = 12; k <= secret.length; k++) {
        expect(out.toLowerCase(), echo).not.toContain(secret.slice(0, k).toLowerCase());
        expect(out.toLowerCase(), echo).not.toContain(secret.slice(-k).toLowerCase());
      }
    }
  });

  it('11 characters of it, or a run from its middle, is left as it is; a secret of 12 or fewer characters is matched whole only', () => {
    expect(run(`x ${secret.slice(0, 11)} y ${secret.slice(3, 20)} z`)).toBe(
      `x ${secret.slice(0, 11)} y ${secret.slice(3, 20)} z`,
    );
    const short = 'abcdefghijkl';
    expect(redactSecrets(`a ${short} b abcdefghijk c`, [short])).toBe('a *** b abcdefghijk c');
  });

  it('masks one whole run, however the echo is cut, and keeps the text around it; unchanged text is returned as is', () => {
    expect(run(`[${secret.slice(0, 15)}][${secret}][${secret.slice(2)}]`)).toBe('[***][***][***]');
    const text = 'nothing secret here';
    expect(run(text)).toBe(text);
  });
});
