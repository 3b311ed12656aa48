/**
 * The OAuth client secret stays out of every error, cause and onward request, whatever the token
 * endpoint answers (an endpoint that echoes the secret in `error`, `token_type` or as the
 * `access_token` itself) and whatever the application's own fetch quotes when it fails. A node:http
 * token endpoint on 127.0.0.1 records what it received.
 */
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { ClientCredentialsTokens } from '../../src/http/oauth-token.js';
import { scriptedTokenEndpoint } from '../helpers/http.js';
import { errorText } from '../helpers/secrets.js';

const CLIENT_ID = 'client-7';
const CLIENT_SECRET = 'S3cretValue_42';
const endpoint = scriptedTokenEndpoint();

const json = (status: number, body: unknown) => (res: http.ServerResponse) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const grant = (clientAuth?: 'form') => ({
  tokenUrl: endpoint.url,
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  scopes: ['a2a.read'],
  ...(clientAuth ? { clientAuth } : {}),
});

describe('the client secret in what the token endpoint answers', () => {
  it('an OAuth error code that is the client secret is not quoted', async () => {
    endpoint.answer = json(401, { error: CLIENT_SECRET });
    const error = await new ClientCredentialsTokens(fetch).token(grant()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'auth-refused' });
    expect(errorText(error)).not.toContain(CLIENT_SECRET);
    endpoint.answer = json(500, { error: `x${CLIENT_SECRET}` });
    const other = await new ClientCredentialsTokens(fetch).token(grant()).catch((e: unknown) => e);
    expect(other).toMatchObject({ code: 'unreachable' });
    expect(errorText(other)).not.toContain(CLIENT_SECRET);
  });

  it('a token_type that echoes the client secret is not quoted (not even its first characters)', async () => {
    endpoint.answer = json(200, { access_token: 'issued', token_type: CLIENT_SECRET });
    const error = await new ClientCredentialsTokens(fetch).token(grant('form')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unreachable' });
    expect(errorText(error)).not.toContain(CLIENT_SECRET.slice(0, 8));
  });

  it('an access_token that holds the client secret is refused: it would go to the agent', async () => {
    endpoint.answer = json(200, { access_token: CLIENT_SECRET, token_type: 'Bearer', expires_in: 60 });
    const error = await new ClientCredentialsTokens(fetch).token(grant()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unreachable', message: expect.stringMatching(/access_token/) });
    expect(errorText(error)).not.toContain(CLIENT_SECRET);
    endpoint.answer = json(200, { access_token: `Bearer.${CLIENT_SECRET}`, token_type: 'Bearer' });
    await expect(new ClientCredentialsTokens(fetch).token(grant('form'))).rejects.toMatchObject({
      code: 'unreachable',
    });
  });
});

describe("the client secret in what the application's fetch throws", () => {
  it('an error quoting the request (its Basic header, its form body) is redacted in the cause', async () => {
    const quoting: typeof fetch = async (url, init) => {
      throw new Error(`could not POST ${String(url)} with ${JSON.stringify(init?.headers)} and ${String(init?.body)}`);
    };
    for (const clientAuth of [undefined, 'form'] as const) {
      const error = await new ClientCredentialsTokens(quoting).token(grant(clientAuth)).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'unreachable' });
      const text = errorText(error);
      expect(text).not.toContain(CLIENT_SECRET);
      expect(text).not.toContain(Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64'));
    }
  });
});

describe('the token cache', () => {
  it('a token obtained with one client secret is not handed to a grant with another (same token URL and client id)', async () => {
    let issued = 0;
    endpoint.answer = (res) =>
      json(200, { access_token: `token-${++issued}`, token_type: 'Bearer', expires_in: 3600 })(res);
    const tokens = new ClientCredentialsTokens(fetch);
    const a = await tokens.token(grant());
    const b = await tokens.token({ ...grant(), clientSecret: 'another-secret-of-agent-b' });
    expect([a, b]).toEqual(['token-1', 'token-2']);
    expect(await tokens.token(grant())).toBe('token-1');
  });
});

describe('loopback is what the resolver pins to loopback', () => {
  it('a token URL at http://<name>.localhost or http://localhost. is cleartext off loopback: refused, nothing sent (Node asks DNS for those names)', async () => {
    for (const url of ['http://auth.localhost/token', 'http://localhost./token', 'http://auth.LOCALHOST:8080/token']) {
      let calls = 0;
      const tokens = new ClientCredentialsTokens(async () => {
        calls++;
        return new Response('{}');
      });
      await expect(tokens.token({ ...grant(), tokenUrl: url })).rejects.toMatchObject({ code: 'insecure-url' });
      expect(calls).toBe(0);
    }
    // Loopback itself still is.
    endpoint.answer = json(200, { access_token: 'loop', token_type: 'Bearer' });
    await expect(
      new ClientCredentialsTokens(fetch).token({
        ...grant(),
        tokenUrl: endpoint.url.replace('127.0.0.1', 'localhost'),
      }),
    ).resolves.toBe('loop');
  });
});
