/**
 * The built CLI against an agent whose extended card needs an OAuth access token (client credentials), from a
 * node:http token endpoint on 127.0.0.1 that fails: `a2a lock` (text and --json) says so in the tool's own words
 * (conformance/vectors/oauth-token-errors.json) and prints no spelling of the client secret the endpoint echoes in
 * its `error`, `error_description`, `error_uri` or `token_type`; an endpoint that drips its body past `--timeout` is
 * the error `timeout` (exit 5), as one that never answers. Real `@a2a-js/sdk` agent.
 */
import { describe, expect, it } from 'vitest';
import { sampleCard } from '../helpers/agents.js';
import { expectNoCutShortEcho } from '../helpers/secrets.js';
import { allOutput, jsonOf, manifest, readLockBytes, resources, runCli, SLOW, show } from './helpers.js';

const SECRET = 'cli-Client-Secret-0123456789abcdef';
const ACCESS_TOKEN = 'cli-access-token-5150';
const reversed = [...SECRET].reverse().join('');

/** How the token endpoint answers: each a failure. */
const MODES = {
  'echoes the secret in its OAuth error': {
    status: 401,
    body: {
      error: SECRET.toUpperCase(),
      error_description: `bad client secret ${SECRET} (${encodeURIComponent(SECRET)})`,
      error_uri: `https://idp.example/e?s=${reversed}&b=${Buffer.from(SECRET).toString('base64')}`,
    },
    exit: 4,
    code: 'auth-refused',
    words:
      "the token endpoint refused the client credentials (HTTP 401 with an error code that is not one of RFC 6749's)",
  },
  'echoes a middle slice of the secret as a server error': {
    status: 500,
    body: { error: SECRET.slice(8, 28), error_description: reversed.toUpperCase() },
    exit: 3,
    code: 'unreachable',
    words: "the token endpoint answered HTTP 500 with an error code that is not one of RFC 6749's",
  },
  'answers a token whose token_type is a prefix of the secret': {
    status: 200,
    body: { access_token: ACCESS_TOKEN, token_type: SECRET.slice(0, 16) },
    exit: 3,
    code: 'unreachable',
    words: 'the token endpoint answered an unsupported token_type, not Bearer',
  },
  'sends its headers, then drips its body past --timeout': {
    status: 200,
    body: undefined,
    exit: 5,
    code: 'timeout',
    words: 'the token endpoint did not answer in time',
  },
} as const;

describe.concurrent('a2a lock, a failing OAuth token endpoint for the extended card', { timeout: SLOW }, () => {
  it.for(Object.entries(MODES))('%s', async ([, mode], { onTestFinished }) => {
    const res = resources(onTestFinished);
    const tokens = await res.http((req, reply) => {
      req.resume();
      req.on('end', () => {
        reply.writeHead(mode.status, { 'content-type': 'application/json' });
        if (mode.body) return reply.end(JSON.stringify(mode.body));
        reply.write('{"access_token":"');
        const timer = setInterval(() => reply.write('a'), 50);
        reply.on('close', () => clearInterval(timer));
      });
    });
    const tokenUrl = `${tokens.origin}/oauth/token`;
    const oauthCard = (origin: string) => {
      const card = sampleCard(origin);
      return {
        ...card,
        capabilities: { ...card.capabilities, extendedAgentCard: true },
        securitySchemes: {
          oauth: {
            oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl, scopes: { 'a2a.read': 'read' } } } },
          },
        },
        securityRequirements: [{ schemes: { oauth: { list: ['a2a.read'] } } }],
      };
    };
    const agent = await res.agent({ card: oauthCard, extendedCard: oauthCard, bearerToken: ACCESS_TOKEN });
    const dir = await res.dir(
      manifest({
        research: {
          card: agent.origin,
          skills: ['market-size'],
          // An OAuth client source (the helper's type knows only {env}).
          credentials: { oauth: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'CSECRET' } } } } as never,
        },
      }),
    );
    const env = { CID: 'cli-client', CSECRET: SECRET };
    const [text, json] = await Promise.all([
      runCli(['lock', '--timeout', '1500'], { cwd: dir, env }),
      runCli(['lock', '--json', '--timeout', '1500'], { cwd: dir, env }),
    ]);
    expect(text.code, show(text)).toBe(mode.exit);
    expect(json.code, show(json)).toBe(mode.exit);
    expect(text.stdout + text.stderr).toContain(`${mode.code}: ${tokenUrl}: ${mode.words}`);
    expect(JSON.stringify(jsonOf(json))).toContain(JSON.stringify(`${tokenUrl}: ${mode.words}`).slice(1, -1));
    expect(await readLockBytes(dir)).toBeUndefined();
    const printed = { 'lock output': allOutput(text), 'lock --json output': allOutput(json) };
    await expectNoCutShortEcho(SECRET, printed);
    // No run of 10 of the secret's characters, forwards or reversed, in any case (a middle slice, a prefix).
    for (const s of [SECRET, reversed])
      for (let i = 0; i + 10 <= s.length; i++)
        for (const [where, out] of Object.entries(printed))
          expect(out.toLowerCase(), `${s.slice(i, i + 10)} in ${where}`).not.toContain(
            s.slice(i, i + 10).toLowerCase(),
          );
  });
});
