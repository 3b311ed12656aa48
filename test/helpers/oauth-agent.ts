/**
 * An agent behind OAuth 2.0 client credentials whose token endpoint fails on demand, for the wire
 * probe's tests (issue 37: a probe whose credential cannot be obtained is not sent). Real servers on
 * 127.0.0.1: a `@a2a-js/sdk` agent that demands the bearer the token endpoint issues, and a node:http
 * token endpoint answering as `state.mode` says:
 *
 * - `ok`: the access token (1 h);
 * - `refuses`: HTTP 401 `invalid_client`; `fails`: HTTP 500; `garbage`: HTTP 200 HTML, no token;
 *   `hangs`: never answers (the run's `--timeout` ends it).
 *
 * Every failure body carries {@link TOKEN_BODY_MARKER}, which no output may show.
 */
import type { resources } from '../e2e/helpers.js';
import { type StartedAgent, sampleCard } from './agents.js';

export const ACCESS_TOKEN = 'probe-access-token-4242';
export const CLIENT_SECRET = 'probe-client-secret-77';
export const TOKEN_BODY_MARKER = 'TOKEN-ENDPOINT-BODY-7c1e';
/** An access token holding U+2028, beyond what an HTTP header value can carry (RFC 9110 field-value is Latin-1). */
export const UNSENDABLE_TOKEN = `${ACCESS_TOKEN}-\u00e9\u2028-unsendable`;

export type TokenMode = 'ok' | 'refuses' | 'fails' | 'garbage' | 'hangs' | 'unsendable';

/** Each failing mode and the words the tool says it in. */
export const TOKEN_FAILURES: ReadonlyArray<[Exclude<TokenMode, 'ok' | 'unsendable'>, string]> = [
  ['refuses', 'the token endpoint refused the client credentials (HTTP 401)'],
  ['fails', 'the token endpoint answered HTTP 500'],
  ['garbage', 'the token endpoint answered no usable access token'],
  ['hangs', 'the token endpoint did not answer in time'],
];

export interface OAuthAgent {
  agent: StartedAgent;
  /** How the token endpoint answers the next request (default `ok`). */
  state: { mode: TokenMode };
  /** The manifest entry: the sample card's `market-size`, the OAuth client from `CID`/`CSECRET`. */
  entry: never;
  /** The environment holding the client credentials. */
  env: Record<string, string>;
}

/** Start the agent and its token endpoint with the test's `resources` (closed when the test ends). */
export async function startOAuthAgent(res: ReturnType<typeof resources>): Promise<OAuthAgent> {
  const state = { mode: 'ok' as TokenMode };
  const tokens = await res.http((req, reply) => {
    req.resume();
    const json = { 'content-type': 'application/json' };
    if (state.mode === 'ok')
      reply
        .writeHead(200, json)
        .end(JSON.stringify({ access_token: ACCESS_TOKEN, token_type: 'Bearer', expires_in: 3600 }));
    else if (state.mode === 'refuses')
      reply.writeHead(401, json).end(JSON.stringify({ error: 'invalid_client', error_description: TOKEN_BODY_MARKER }));
    else if (state.mode === 'fails') reply.writeHead(500, json).end(JSON.stringify({ error: TOKEN_BODY_MARKER }));
    else if (state.mode === 'unsendable')
      reply
        .writeHead(200, json)
        .end(JSON.stringify({ access_token: UNSENDABLE_TOKEN, token_type: 'Bearer', expires_in: 3600 }));
    else if (state.mode === 'garbage')
      reply.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${TOKEN_BODY_MARKER}</p>`);
    // 'hangs': never answers.
  });
  const agent = await res.agent({
    bearerToken: ACCESS_TOKEN,
    card: (origin) => ({
      ...sampleCard(origin),
      securitySchemes: {
        oauth: {
          oauth2SecurityScheme: {
            flows: { clientCredentials: { tokenUrl: `${tokens.origin}/oauth/token`, scopes: { 'a2a.read': 'read' } } },
          },
        },
      },
      securityRequirements: [{ schemes: { oauth: { list: ['a2a.read'] } } }],
    }),
  });
  const entry = {
    card: agent.origin,
    skills: ['market-size'],
    credentials: { oauth: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'CSECRET' } } } },
  } as never;
  return { agent, state, entry, env: { CID: 'probe-client', CSECRET: CLIENT_SECRET } };
}
