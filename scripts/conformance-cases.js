// The runtime conformance corpus as code: the fixtures (cards and manifests that scripts/conformance.js
// locks with the CLI) and the cases it writes to conformance/runtime/<rule>/<name>.json. The JSON
// files are the source of truth both runners read; this file is how they are made. Read
// conformance/README.md for the case format.

/** The loopback origins the fixtures are locked with; the written files spell them {{recorder}} / {{other}}. */
export const RECORDER = 'http://127.0.0.1:59001';
export const OTHER = 'http://127.0.0.1:59002';

const CITATIONS = 'https://example.com/ext/citations/v1';
const TRACE = 'https://example.com/ext/trace/v1';
const UNLOCKED_EXT = 'https://example.com/ext/unlocked/v1';

/** A 1.0 card (ProtoJSON) on `interfaces`, with `security` (scheme name → ProtoJSON scheme; {} for none). */
function card({
  interfaces,
  security = {},
  streaming = false,
  push = false,
  skills,
  extensions = [CITATIONS, TRACE, UNLOCKED_EXT],
}) {
  const names = Object.keys(security);
  return {
    name: 'Conformance Agent',
    description: 'A card for the runtime conformance corpus.',
    version: '1.0.0',
    supportedInterfaces: interfaces.map(([url, protocolBinding, protocolVersion = '1.0']) => ({
      url,
      protocolBinding,
      protocolVersion,
    })),
    capabilities: {
      streaming,
      pushNotifications: push,
      extensions: extensions.map((uri) => ({ uri, required: false })),
    },
    securitySchemes: security,
    securityRequirements: names.length
      ? [
          {
            schemes: Object.fromEntries(
              names.map((n) => [n, { list: security[n].oauth2SecurityScheme ? ['a2a.read'] : [] }]),
            ),
          },
        ]
      : [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: skills ?? [
      {
        id: 'market-size',
        name: 'Market sizing',
        description: 'Estimates a market.',
        tags: ['market'],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['application/json', 'application/pdf', 'text/plain'],
      },
      {
        id: 'summarize',
        name: 'Summarize',
        description: 'Summarizes text.',
        tags: ['text'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
      },
    ],
  };
}

const BEARER = { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } };
const RPC = `${RECORDER}/a2a/jsonrpc`;
const REST = `${RECORDER}/a2a/rest`;
const V03 = `${RECORDER}/a2a/v03`;
const V03_REST = `${RECORDER}/a2a/v03rest`;
const PUSH_ENDPOINT = `${RECORDER}/hooks/a2a`;
const CLEARTEXT = 'http://agent.example:8080/a2a/jsonrpc';
const TOKEN_URL = `${RECORDER}/oauth/token`;

const PROFILE = {
  bindings: ['JSONRPC', 'HTTP+JSON'],
  versions: ['1.0'],
  accepts: ['application/json', 'text/plain'],
  sends: ['text/plain'],
  streaming: false,
  pushEndpoint: null,
  extensions: [CITATIONS, TRACE],
};

const env = (name) => ({ env: name });
const SKILLS = ['market-size', 'summarize'];

export const FIXTURES = {
  main: {
    cards: {
      rpc: card({
        interfaces: [
          [RPC, 'JSONRPC'],
          [REST, 'HTTP+JSON'],
        ],
        security: BEARER,
      }),
      stream: card({
        interfaces: [
          [RPC, 'JSONRPC'],
          [REST, 'HTTP+JSON'],
        ],
        streaming: true,
      }),
      push: card({ interfaces: [[RPC, 'JSONRPC']], push: true }),
      rest: card({ interfaces: [[REST, 'HTTP+JSON']], security: BEARER }),
      'rest-stream': card({ interfaces: [[REST, 'HTTP+JSON']], streaming: true }),
      'rest-push': card({ interfaces: [[REST, 'HTTP+JSON']], push: true }),
      legacy: card({ interfaces: [[V03, 'JSONRPC', '0.3']], security: BEARER, streaming: true }),
      'legacy-rest': card({ interfaces: [[V03_REST, 'HTTP+JSON', '0.3']], security: BEARER }),
      'key-header': card({
        interfaces: [[RPC, 'JSONRPC']],
        security: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } },
      }),
      'key-query': card({
        interfaces: [[RPC, 'JSONRPC']],
        security: { key: { apiKeySecurityScheme: { location: 'query', name: 'api_key' } } },
      }),
      'key-cookie': card({
        interfaces: [[RPC, 'JSONRPC']],
        security: { key: { apiKeySecurityScheme: { location: 'cookie', name: 'session' } } },
      }),
      basic: card({
        interfaces: [[RPC, 'JSONRPC']],
        security: { basic: { httpAuthSecurityScheme: { scheme: 'Basic' } } },
      }),
      oauth: card({
        interfaces: [[RPC, 'JSONRPC']],
        security: {
          oauth: {
            oauth2SecurityScheme: {
              flows: { clientCredentials: { tokenUrl: TOKEN_URL, scopes: { 'a2a.read': 'read' } } },
            },
          },
        },
      }),
      open: card({ interfaces: [[RPC, 'JSONRPC']] }),
      cleartext: card({ interfaces: [[CLEARTEXT, 'JSONRPC']], security: BEARER }),
    },
    manifest: {
      profile: PROFILE,
      agents: {
        rpc: { card: 'cards/rpc.json', skills: SKILLS, credentials: { bearer: env('RPC_TOKEN') } },
        stream: { card: 'cards/stream.json', skills: SKILLS, profile: { streaming: true } },
        push: { card: 'cards/push.json', skills: SKILLS, profile: { pushEndpoint: PUSH_ENDPOINT } },
        rest: { card: 'cards/rest.json', skills: SKILLS, credentials: { bearer: env('REST_TOKEN') } },
        'rest-stream': { card: 'cards/rest-stream.json', skills: SKILLS, profile: { streaming: true } },
        'rest-push': { card: 'cards/rest-push.json', skills: SKILLS, profile: { pushEndpoint: PUSH_ENDPOINT } },
        legacy: {
          card: 'cards/legacy.json',
          skills: SKILLS,
          credentials: { bearer: env('LEGACY_TOKEN') },
          profile: { versions: ['0.3'], streaming: true },
        },
        'legacy-rest': {
          card: 'cards/legacy-rest.json',
          skills: SKILLS,
          credentials: { bearer: env('LEGACY_TOKEN') },
          profile: { versions: ['0.3'] },
        },
        'key-header': { card: 'cards/key-header.json', skills: SKILLS, credentials: { key: env('API_KEY') } },
        'key-query': { card: 'cards/key-query.json', skills: SKILLS, credentials: { key: env('API_KEY') } },
        'key-cookie': { card: 'cards/key-cookie.json', skills: SKILLS, credentials: { key: env('API_KEY') } },
        basic: { card: 'cards/basic.json', skills: SKILLS, credentials: { basic: env('BASIC_CREDENTIAL') } },
        oauth: {
          card: 'cards/oauth.json',
          skills: SKILLS,
          credentials: { oauth: { oauth: { clientId: env('CLIENT_ID'), clientSecret: env('CLIENT_SECRET') } } },
        },
        'oauth-form': {
          card: 'cards/oauth.json',
          skills: SKILLS,
          credentials: {
            oauth: { oauth: { clientId: env('CLIENT_ID'), clientSecret: env('CLIENT_SECRET'), clientAuth: 'form' } },
          },
        },
        open: { card: 'cards/open.json' },
        cleartext: {
          card: 'cards/cleartext.json',
          skills: SKILLS,
          credentials: { bearer: env('RPC_TOKEN') },
          allowHttp: true,
        },
      },
    },
  },
  platform: {
    cards: {
      gateway: card({ interfaces: [[RPC, 'JSONRPC']] }),
      keyed: card({ interfaces: [[`${OTHER}/a2a/jsonrpc`, 'JSONRPC']] }),
      both: card({ interfaces: [[RPC, 'JSONRPC']], security: BEARER }),
    },
    manifest: {
      profile: PROFILE,
      agents: {
        gateway: { card: 'cards/gateway.json', skills: SKILLS },
        keyed: { card: 'cards/keyed.json', skills: SKILLS },
        both: { card: 'cards/both.json', skills: SKILLS, credentials: { bearer: env('AGENT_TOKEN') } },
      },
      originAuth: {
        [RECORDER]: { bearer: env('PLATFORM_TOKEN') },
        [OTHER]: { header: { name: 'X-Platform-Key', env: 'PLATFORM_KEY' } },
      },
    },
  },
};

// ---------------------------------------------------------------------------------------------
// Cases

const R = '{{recorder}}';
const O = '{{other}}';
const TOKENS = {
  RPC_TOKEN: 'fake-rpc-token',
  REST_TOKEN: 'fake-rest-token',
  LEGACY_TOKEN: 'fake-legacy-token',
  API_KEY: 'fake-api-key',
  BASIC_CREDENTIAL: 'fake-user:fake-password',
  CLIENT_ID: 'fake-client',
  CLIENT_SECRET: 'fake-client-secret',
  PLATFORM_TOKEN: 'fake-platform-token',
  PLATFORM_KEY: 'fake-platform-key',
  AGENT_TOKEN: 'fake-agent-token',
};
const JSON_HEADERS = { 'content-type': 'application/json' };

/** A JSON-RPC 1.0 request body. */
const rpc = (method, params = {}) => ({ jsonrpc: '2.0', id: 1, method, params });
const message = (parts = [{ text: 'hello' }], extra = {}) => ({ messageId: 'm-1', role: 'ROLE_USER', parts, ...extra });
const send = (params = {}) => rpc('SendMessage', { message: message(), ...params });

/** A case on the main fixture calling agent `agent` (skill market-size unless given) with `request`. */
function mainCase(
  id,
  description,
  { agent = 'rpc', skill = 'market-size', env: e = TOKENS, request, expect, ...rest },
) {
  const [rule] = id.split('/');
  return {
    id,
    rule,
    description,
    fixture: 'main',
    ...(rest.lockfile || rest.manifest !== undefined ? {} : {}),
    ...rest,
    options: { env: e, ...(rest.options ?? {}) },
    agent,
    ...(skill === null ? {} : { skill }),
    request,
    expect,
  };
}

const post = (url, body, headers = JSON_HEADERS) => ({ method: 'POST', url, headers, body });
const refused = (code = 'plan-violation') => ({ verdict: 'refused', code, requests: [] });
const sent = (...requests) => ({ verdict: 'sent', requests });
const got = (url, headers = {}, extra = {}) => ({ method: 'POST', url, headers, ...extra });

export const CASES = [
  mainCase(
    'credential-http/bearer-from-env',
    "The bearer token from the manifest's environment variable goes in Authorization, with the locked A2A-Version.",
    {
      request: post(`${R}/a2a/jsonrpc`, rpc('GetTask', { id: 't-1' })),
      expect: sent(got('/a2a/jsonrpc', { authorization: 'Bearer fake-rpc-token', 'a2a-version': '1.0' })),
    },
  ),
  mainCase(
    'interface-url/other-origin',
    'A request to another origin than the locked interface is refused; nothing reaches either recorder.',
    {
      request: post(`${O}/a2a/jsonrpc`, rpc('GetTask', { id: 't-1' })),
      expect: refused(),
    },
  ),
  mainCase('output-modes/filled-from-plan', 'A SendMessage without acceptedOutputModes gets the locked ones.', {
    request: post(`${R}/a2a/jsonrpc`, send()),
    expect: sent(
      got(
        '/a2a/jsonrpc',
        { authorization: 'Bearer fake-rpc-token' },
        {
          body: {
            method: 'SendMessage',
            params: { configuration: { acceptedOutputModes: ['application/json', 'text/plain'] } },
          },
        },
      ),
    ),
  }),
];
