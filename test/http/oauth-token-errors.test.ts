/**
 * What the tool says when an OAuth token endpoint fails, against a real node:http token endpoint on 127.0.0.1: every
 * case of conformance/vectors/oauth-token-errors.json (python/tests/test_oauth.py runs the same cases against the
 * Python runtime) gives its code and exactly its words, and no spelling of the client secret the endpoint echoes
 * reaches the error (message, stack, cause, data, inspect()). A token endpoint that sends its headers and then drips
 * its body until the deadline is a typed timeout, as one that never answers.
 */
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FetchError } from '../../src/errors.js';
import { ClientCredentialsTokens } from '../../src/http/oauth-token.js';
import { scriptedTokenEndpoint } from '../helpers/http.js';
import { errorText, secretForms } from '../helpers/secrets.js';

interface Vector {
  name: string;
  status: number;
  body?: unknown;
  bodyText?: string;
  /** The client secret of this case, when not the file's `clientSecret`. */
  clientSecret?: string;
  code: string;
  message: string;
}
const VECTORS = JSON.parse(readFileSync('conformance/vectors/oauth-token-errors.json', 'utf8')) as {
  clientId: string;
  clientSecret: string;
  cases: Vector[];
};

/**
 * Every spelling of the client secret `secret` found in `text`, ignoring case: each run of 10 of its characters (a
 * prefix, a middle slice, the whole), the same of it reversed, and its encoded forms (percent, form, JSON, base64 at
 * each byte alignment: {@link secretForms}).
 */
function secretIn(text: string, secret: string): string[] {
  const lower = text.toLowerCase();
  const reversed = [...secret].reverse().join('');
  const runs = [secret, reversed].flatMap((s) => Array.from({ length: s.length - 9 }, (_, i) => s.slice(i, i + 10)));
  return [...runs, ...secretForms(secret).map(([, form]) => form)].filter((s) => lower.includes(s.toLowerCase()));
}

const endpoint = scriptedTokenEndpoint();

const grant = (clientSecret = VECTORS.clientSecret) => ({
  tokenUrl: endpoint.url,
  clientId: VECTORS.clientId,
  clientSecret,
  scopes: ['a2a.read'],
});

describe('a failing token endpoint, in the words of conformance/vectors/oauth-token-errors.json', () => {
  it.each(VECTORS.cases.map((c) => [c.name, c] as const))('%s', async (_name, vector) => {
    endpoint.answer = (res) =>
      res
        .writeHead(vector.status, { 'content-type': 'application/json' })
        .end(vector.bodyText ?? JSON.stringify(vector.body));
    const secret = vector.clientSecret ?? VECTORS.clientSecret;
    const error = await new ClientCredentialsTokens(fetch).token(grant(secret)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ code: vector.code, message: `${endpoint.url}: ${vector.message}` });
    expect(secretIn(`${errorText(error)}\n${inspect(error, { depth: 8 })}`, secret)).toEqual([]);
  });
});

describe('a token endpoint that drips its body until the deadline', () => {
  /** Headers at once, then `{"access_token":"` and one more character every 50 ms, never the end. */
  const drip = (res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"access_token":"');
    const timer = setInterval(() => res.write('a'), 50);
    res.on('close', () => clearInterval(timer));
  };

  it('is a timeout (code timeout, the words of an endpoint that never answers), not a raw TimeoutError', async () => {
    endpoint.answer = drip;
    const started = Date.now();
    const error = await new ClientCredentialsTokens(fetch, { timeoutMs: 400 }).token(grant()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({
      code: 'timeout',
      message: `${endpoint.url}: the token endpoint did not answer in time`,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    // One that never answers says the same.
    endpoint.answer = () => undefined;
    await expect(new ClientCredentialsTokens(fetch, { timeoutMs: 300 }).token(grant())).rejects.toMatchObject({
      code: 'timeout',
      message: `${endpoint.url}: the token endpoint did not answer in time`,
    });
  });

  it("the deadline holds for the body even when the application's fetch does not pass the signal on", async () => {
    endpoint.answer = drip;
    const ignoring: typeof fetch = (url, init) => fetch(url, { ...init, signal: null });
    await expect(new ClientCredentialsTokens(ignoring, { timeoutMs: 400 }).token(grant())).rejects.toMatchObject({
      code: 'timeout',
      message: `${endpoint.url}: the token endpoint did not answer in time`,
    });
  });
});
