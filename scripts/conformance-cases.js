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
      'rest-key-query': card({
        interfaces: [[REST, 'HTTP+JSON']],
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
        'rest-key-query': { card: 'cards/rest-key-query.json', skills: SKILLS, credentials: { key: env('API_KEY') } },
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
/** The fake secrets every case's environment holds (unless the case says otherwise). */
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
const without = (...names) => Object.fromEntries(Object.entries(TOKENS).filter(([k]) => !names.includes(k)));
const JSON_HEADERS = { 'content-type': 'application/json' };
const RPC_PATH = '/a2a/jsonrpc';
const CITATIONS_TRACE = `${CITATIONS}, ${TRACE}`;
const RPC_AUTH = { authorization: 'Bearer fake-rpc-token', 'a2a-version': '1.0' };
const REST_AUTH = { authorization: 'Bearer fake-rest-token', 'a2a-version': '1.0' };
const LEGACY_AUTH = { authorization: 'Bearer fake-legacy-token', 'a2a-version': '0.3' };
const OPEN = { authorization: null, 'a2a-version': '1.0' };
const ACCESS = { access_token: 'fake-access-token', token_type: 'Bearer', expires_in: 3600 };
const TOKEN_ANSWER = { path: '/oauth/token', status: 200, headers: JSON_HEADERS, body: ACCESS };

/** A JSON-RPC request body. */
const rpc = (method, params = {}) => ({ jsonrpc: '2.0', id: 1, method, params });
const message = (parts = [{ text: 'hello' }], extra = {}) => ({ messageId: 'm-1', role: 'ROLE_USER', parts, ...extra });
/** A 1.0 SendMessage body with these parts and extra params. */
const sendBody = (parts, params = {}) => rpc('SendMessage', { message: message(parts), ...params });
/** A 0.3 message/send body. */
const send03 = (parts = [{ kind: 'text', text: 'hello' }], params = {}) =>
  rpc('message/send', {
    message: { kind: 'message', messageId: 'm-1', role: 'user', parts },
    ...params,
  });

const post = (url, body, headers = JSON_HEADERS) => ({ method: 'POST', url, headers, body });
const postText = (url, bodyText, headers = JSON_HEADERS) => ({ method: 'POST', url, headers, bodyText });
const get = (url, headers = {}) => ({ method: 'GET', url, headers });
/** A POST of JSON-RPC `method` to the main fixture's JSON-RPC interface. */
const call = (method, params = {}, headers = JSON_HEADERS) => post(`${R}${RPC_PATH}`, rpc(method, params), headers);
const refused = (code = 'plan-violation', ...requests) => ({ verdict: 'refused', code, requests });
const sent = (...requests) => ({ verdict: 'sent', requests });
/** A request the recorder must see: POST to `url` (path and query) with `headers`, and `extra` (method, body, form, recorder). */
const got = (url, headers = {}, extra = {}) => ({ method: 'POST', url, headers, ...extra });

/** One case: `id` is `<rule>/<name>`; `spec` as the case format, with defaults (main fixture, agent rpc, skill market-size, every fake secret in env). */
function c(id, description, spec) {
  const {
    fixture = 'main',
    agent = 'rpc',
    skill = 'market-size',
    env: environment = TOKENS,
    options = {},
    request,
    expect,
    ...rest
  } = spec;
  return {
    id,
    rule: id.split('/')[0],
    description,
    ...(fixture === null ? {} : { fixture }),
    ...rest,
    options: { env: environment, ...options },
    agent,
    ...(skill === null ? {} : { skill }),
    request,
    expect,
  };
}

const GET_TASK = ['GetTask', { id: 't-1' }];

const interfaceUrl = [
  c('interface-url/exact-url-sent', 'A call to the locked interface URL is sent there, with the credential.', {
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c(
    'interface-url/other-origin',
    'A call to another origin than the locked interface is refused; nothing reaches either recorder.',
    {
      request: post(`${O}${RPC_PATH}`, rpc(...GET_TASK)),
      expect: refused(),
    },
  ),
  c('interface-url/other-path', 'Another path on the locked origin is not the JSON-RPC interface.', {
    request: post(`${R}/a2a/other`, rpc(...GET_TASK)),
    expect: refused(),
  }),
  c('interface-url/trailing-slash', 'A JSON-RPC interface is its exact URL: a trailing slash is another URL.', {
    request: post(`${R}${RPC_PATH}/`, rpc(...GET_TASK)),
    expect: refused(),
  }),
  c('interface-url/path-below-jsonrpc', 'A path below a JSON-RPC interface is not the interface.', {
    request: post(`${R}${RPC_PATH}/extra`, rpc(...GET_TASK)),
    expect: refused(),
  }),
  c('interface-url/query-added', 'A query string the locked JSON-RPC URL does not have is refused.', {
    request: post(`${R}${RPC_PATH}?debug=1`, rpc(...GET_TASK)),
    expect: refused(),
  }),
  c('interface-url/userinfo', 'Credentials in the URL (userinfo) are refused.', {
    request: post(`http://user:pass@127.0.0.1:{{port}}${RPC_PATH}`, rpc(...GET_TASK)),
    expect: refused(),
  }),
  c('interface-url/https-instead', 'https on the locked host and port is another origin.', {
    request: post(`https://127.0.0.1:{{port}}${RPC_PATH}`, rpc(...GET_TASK)),
    expect: refused(),
  }),
  c('interface-url/localhost-alias', 'localhost is not the locked 127.0.0.1: another origin.', {
    request: post(`http://localhost:{{port}}${RPC_PATH}`, rpc(...GET_TASK)),
    expect: refused(),
  }),
  c(
    'interface-url/dot-segment',
    'The URL as parsed is compared: /a2a/./jsonrpc is the locked URL, sent to /a2a/jsonrpc.',
    {
      request: post(`${R}/a2a/./jsonrpc`, rpc(...GET_TASK)),
      expect: sent(got(RPC_PATH, RPC_AUTH)),
    },
  ),
  c('interface-url/encoded-slash', '/a2a%2Fjsonrpc is not the locked path.', {
    request: post(`${R}/a2a%2Fjsonrpc`, rpc(...GET_TASK)),
    expect: refused(),
  }),
  c('interface-url/fragment', 'A fragment the locked JSON-RPC URL does not have is refused.', {
    request: post(`${R}${RPC_PATH}#part`, rpc(...GET_TASK)),
    expect: refused(),
  }),
  c(
    'interface-url/another-agents-url',
    "Agent rpc's client refuses the URL of another locked agent (legacy's interface).",
    {
      request: post(`${R}/a2a/v03`, rpc(...GET_TASK)),
      expect: refused(),
    },
  ),
  c('interface-url/scheme-upper-case', 'The URL as parsed is compared: an upper-case scheme is the same URL.', {
    request: post(`HTTP://127.0.0.1:{{port}}${RPC_PATH}`, rpc(...GET_TASK)),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('interface-url/rest-path-below', 'HTTP+JSON: a route below the locked interface URL is sent.', {
    agent: 'rest',
    request: get(`${R}/a2a/rest/tasks/t-1`),
    expect: sent(got('/a2a/rest/tasks/t-1', REST_AUTH, { method: 'GET' })),
  }),
  c('interface-url/rest-sibling-prefix', 'HTTP+JSON: /a2a/restx is not below /a2a/rest.', {
    agent: 'rest',
    request: get(`${R}/a2a/restx/tasks/t-1`),
    expect: refused(),
  }),
  c('interface-url/rest-other-origin', 'HTTP+JSON: the same route on another origin is refused.', {
    agent: 'rest',
    request: get(`${O}/a2a/rest/tasks/t-1`),
    expect: refused(),
  }),
  c('interface-url/rest-userinfo', 'HTTP+JSON: userinfo in the URL is refused.', {
    agent: 'rest',
    request: get('http://user:pass@127.0.0.1:{{port}}/a2a/rest/tasks/t-1'),
    expect: refused(),
  }),
  c('interface-url/rest-parent-path', 'HTTP+JSON: the parent of the interface path is not below it.', {
    agent: 'rest',
    request: get(`${R}/a2a/tasks/t-1`),
    expect: refused(),
  }),
  c('interface-url/rest-query-kept', 'HTTP+JSON: a query on a route below the interface is kept.', {
    agent: 'rest',
    request: get(`${R}/a2a/rest/tasks?pageSize=10`),
    expect: sent(got('/a2a/rest/tasks?pageSize=10', REST_AUTH, { method: 'GET' })),
  }),
  c(
    'interface-url/empty-query',
    'An empty query (a trailing ?) is a query the locked JSON-RPC URL does not have, as a URL parser reads it: refused, nothing sent.',
    { request: post(`${R}${RPC_PATH}?`, rpc(...GET_TASK)), expect: refused() },
  ),
  c(
    'interface-url/empty-fragment',
    'An empty fragment (a trailing #) is a fragment the locked JSON-RPC URL does not have: refused, nothing sent.',
    { request: post(`${R}${RPC_PATH}#`, rpc(...GET_TASK)), expect: refused() },
  ),
  c('interface-url/empty-query-and-fragment', 'A trailing ?# is refused too.', {
    request: post(`${R}${RPC_PATH}?#`, rpc(...GET_TASK)),
    expect: refused(),
  }),
];

const a2aVersion = [
  c('a2a-version/absent-added', 'A request without A2A-Version is sent with the locked version.', {
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, { 'a2a-version': '1.0' })),
  }),
  c('a2a-version/same', 'A2A-Version equal to the locked version is sent.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Version': '1.0' }),
    expect: sent(got(RPC_PATH, { 'a2a-version': '1.0' })),
  }),
  c('a2a-version/patch-level', 'A2A-Version 1.0.0 is the locked 1.0 (Major.Minor); the locked spelling is sent.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Version': '1.0.0' }),
    expect: sent(got(RPC_PATH, { 'a2a-version': '1.0' })),
  }),
  c('a2a-version/older', 'A2A-Version 0.3 on a 1.0 plan is refused.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Version': '0.3' }),
    expect: refused(),
  }),
  c('a2a-version/newer-minor', 'A2A-Version 1.1 on a 1.0 plan is refused.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Version': '1.1' }),
    expect: refused(),
  }),
  c('a2a-version/newer-major', 'A2A-Version 2.0 on a 1.0 plan is refused.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Version': '2.0' }),
    expect: refused(),
  }),
  c('a2a-version/major-only', 'A2A-Version 1 is not the locked 1.0.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Version': '1' }),
    expect: refused(),
  }),
  c('a2a-version/prefix-lookalike', 'A2A-Version 1.01 is not 1.0.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Version': '1.01' }),
    expect: refused(),
  }),
  c('a2a-version/lower-case-name', 'The header name is matched in any case: a2a-version 0.3 is refused.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'a2a-version': '0.3' }),
    expect: refused(),
  }),
  c('a2a-version/garbage', 'A2A-Version that is not a version is refused.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Version': 'latest' }),
    expect: refused(),
  }),
  c(
    'a2a-version/two-spellings',
    'A2A-Version given under two spellings counts as one header with both values: refused.',
    {
      request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Version': '1.0', 'a2a-version': '0.3' }),
      expect: refused(),
    },
  ),
  c('a2a-version/legacy-absent-added', 'A 0.3 plan: A2A-Version 0.3 is added.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, rpc('tasks/get', { id: 't-1' })),
    expect: sent(got('/a2a/v03', LEGACY_AUTH)),
  }),
  c('a2a-version/legacy-newer-refused', 'A 0.3 plan: A2A-Version 1.0 is refused.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, rpc('tasks/get', { id: 't-1' }), { ...JSON_HEADERS, 'A2A-Version': '1.0' }),
    expect: refused(),
  }),
  c('a2a-version/legacy-patch-level', 'A 0.3 plan: A2A-Version 0.3.0 is sent as 0.3.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, rpc('tasks/get', { id: 't-1' }), { ...JSON_HEADERS, 'A2A-Version': '0.3.0' }),
    expect: sent(got('/a2a/v03', LEGACY_AUTH)),
  }),
  c('a2a-version/rest-absent-added', 'HTTP+JSON: A2A-Version is added.', {
    agent: 'rest',
    request: get(`${R}/a2a/rest/tasks/t-1`),
    expect: sent(got('/a2a/rest/tasks/t-1', REST_AUTH, { method: 'GET' })),
  }),
  c('a2a-version/rest-older-refused', 'HTTP+JSON: A2A-Version 0.3 on a 1.0 plan is refused.', {
    agent: 'rest',
    request: get(`${R}/a2a/rest/tasks/t-1`, { 'A2A-Version': '0.3' }),
    expect: refused(),
  }),
];

const extensions = [
  c('extensions/absent-added', 'Without an extensions header, the locked extensions are sent in A2A-Extensions.', {
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, { 'a2a-extensions': CITATIONS_TRACE, 'x-a2a-extensions': null })),
  }),
  c('extensions/locked-one', 'A locked extension in A2A-Extensions is sent (with the locked list).', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Extensions': CITATIONS }),
    expect: sent(got(RPC_PATH, { 'a2a-extensions': CITATIONS_TRACE })),
  }),
  c('extensions/locked-all', 'Every locked extension in A2A-Extensions is sent.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Extensions': `${TRACE},${CITATIONS}` }),
    expect: sent(got(RPC_PATH, { 'a2a-extensions': CITATIONS_TRACE })),
  }),
  c('extensions/unlocked', 'An extension the card offers but the lock does not activate is refused.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Extensions': UNLOCKED_EXT }),
    expect: refused(),
  }),
  c('extensions/locked-and-unlocked', 'One unlocked extension among locked ones is refused.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Extensions': `${CITATIONS}, ${UNLOCKED_EXT}` }),
    expect: refused(),
  }),
  c('extensions/unknown', 'An extension the card does not name is refused.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Extensions': 'https://evil.example/ext' }),
    expect: refused(),
  }),
  c('extensions/upper-case-name', 'The header name is matched in any case.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-EXTENSIONS': UNLOCKED_EXT }),
    expect: refused(),
  }),
  c('extensions/legacy-name-unlocked', 'X-A2A-Extensions is checked too on a 1.0 plan.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'X-A2A-Extensions': UNLOCKED_EXT }),
    expect: refused(),
  }),
  c(
    'extensions/legacy-name-locked',
    'A locked extension under X-A2A-Extensions on a 1.0 plan: sent under the 1.0 name only.',
    {
      request: call(...GET_TASK, { ...JSON_HEADERS, 'X-A2A-Extensions': CITATIONS }),
      expect: sent(got(RPC_PATH, { 'a2a-extensions': CITATIONS_TRACE, 'x-a2a-extensions': null })),
    },
  ),
  c('extensions/empty-header', 'An empty extensions header asks for nothing: sent with the locked list.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Extensions': '' }),
    expect: sent(got(RPC_PATH, { 'a2a-extensions': CITATIONS_TRACE })),
  }),
  c('extensions/spaces-and-commas', 'Spaces and empty items in the list are ignored.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Extensions': ` , ${CITATIONS} ,, ` }),
    expect: sent(got(RPC_PATH, { 'a2a-extensions': CITATIONS_TRACE })),
  }),
  c('extensions/two-spellings', 'An extensions header under two spellings: every value is checked.', {
    request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Extensions': CITATIONS, 'a2a-extensions': UNLOCKED_EXT }),
    expect: refused(),
  }),
  c('extensions/legacy-plan-header-name', 'A 0.3 plan sends its locked extensions under X-A2A-Extensions.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, rpc('tasks/get', { id: 't-1' })),
    expect: sent(got('/a2a/v03', { 'x-a2a-extensions': CITATIONS_TRACE, 'a2a-extensions': null })),
  }),
  c('extensions/legacy-plan-unlocked', 'A 0.3 plan refuses an unlocked extension under either name.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, rpc('tasks/get', { id: 't-1' }), { ...JSON_HEADERS, 'A2A-Extensions': UNLOCKED_EXT }),
    expect: refused(),
  }),
  c('extensions/message-locked', "A message's own extensions list with locked extensions is sent.", {
    request: post(
      `${R}${RPC_PATH}`,
      rpc('SendMessage', { message: message([{ text: 'hi' }], { extensions: [CITATIONS] }) }),
    ),
    expect: sent(got(RPC_PATH, RPC_AUTH, { body: { params: { message: { extensions: [CITATIONS] } } } })),
  }),
  c('extensions/message-unlocked', "A message's own extensions list naming an unlocked extension is refused.", {
    request: post(
      `${R}${RPC_PATH}`,
      rpc('SendMessage', { message: message([{ text: 'hi' }], { extensions: [UNLOCKED_EXT] }) }),
    ),
    expect: refused(),
  }),
  c('extensions/message-not-string', "A message's extensions list with a value that is not a string is refused.", {
    request: post(`${R}${RPC_PATH}`, rpc('SendMessage', { message: message([{ text: 'hi' }], { extensions: [42] }) })),
    expect: refused(),
  }),
  c(
    'extensions/open-plan-none-locked',
    'An agent whose plan locks no extension... still locks the profile ones the card offers (open agent).',
    {
      agent: 'open',
      skill: null,
      request: call(...GET_TASK, { ...JSON_HEADERS, 'A2A-Extensions': UNLOCKED_EXT }),
      expect: refused(),
    },
  ),
];

const jsonrpcMethod = [];
for (const method of [
  'GetTask',
  'ListTasks',
  'CancelTask',
  'GetExtendedAgentCard',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]) {
  const kebab = method.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
  jsonrpcMethod.push(
    c(`jsonrpc-method/${kebab}`, `${method} is a 1.0 method any plan allows.`, {
      request: call(method, { id: 't-1' }),
      expect: sent(got(RPC_PATH, RPC_AUTH, { body: { method } })),
    }),
  );
}
jsonrpcMethod.push(
  c('jsonrpc-method/send-message', 'SendMessage is sent on a poll plan.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }])),
    expect: sent(got(RPC_PATH, RPC_AUTH, { body: { method: 'SendMessage' } })),
  }),
  c('jsonrpc-method/legacy-name-on-1-0', 'A 0.3 method name (message/send) on a 1.0 plan is refused.', {
    request: post(`${R}${RPC_PATH}`, send03()),
    expect: refused(),
  }),
  c('jsonrpc-method/legacy-tasks-get-on-1-0', 'tasks/get on a 1.0 plan is refused.', {
    request: call('tasks/get', { id: 't-1' }),
    expect: refused(),
  }),
  c('jsonrpc-method/unknown', 'A method no version defines is refused.', {
    request: call('DropTables', {}),
    expect: refused(),
  }),
  c('jsonrpc-method/wrong-case', 'Method names are case-sensitive: sendmessage is not SendMessage.', {
    request: post(`${R}${RPC_PATH}`, { ...sendBody([{ text: 'hi' }]), method: 'sendmessage' }),
    expect: refused(),
  }),
  c('jsonrpc-method/method-not-string', 'A method that is not a string is refused.', {
    request: post(`${R}${RPC_PATH}`, { jsonrpc: '2.0', id: 1, method: 7, params: {} }),
    expect: refused(),
  }),
  c('jsonrpc-method/method-missing', 'A JSON-RPC body without a method is refused.', {
    request: post(`${R}${RPC_PATH}`, { jsonrpc: '2.0', id: 1, params: {} }),
    expect: refused(),
  }),
  c('jsonrpc-method/batch', 'A JSON-RPC batch (array) is refused.', {
    request: post(`${R}${RPC_PATH}`, [rpc(...GET_TASK)]),
    expect: refused(),
  }),
  c('jsonrpc-method/body-not-json', 'A body that is not JSON is refused.', {
    request: postText(`${R}${RPC_PATH}`, 'method=SendMessage'),
    expect: refused(),
  }),
  c(
    'jsonrpc-method/body-with-bom',
    'A body starting with a byte order mark is not JSON text (RFC 8259 §8.1): refused.',
    {
      request: postText(`${R}${RPC_PATH}`, `\ufeff${JSON.stringify(rpc(...GET_TASK))}`),
      expect: refused(),
    },
  ),
  c('jsonrpc-method/body-json-string', 'A JSON body that is not an object is refused.', {
    request: postText(`${R}${RPC_PATH}`, '"SendMessage"'),
    expect: refused(),
  }),
  c('jsonrpc-method/no-body', 'A JSON-RPC request without a body names no call: refused.', {
    request: { method: 'POST', url: `${R}${RPC_PATH}`, headers: JSON_HEADERS },
    expect: refused(),
  }),
  c('jsonrpc-method/get-without-body', 'A GET of the JSON-RPC URL names no call: refused.', {
    request: get(`${R}${RPC_PATH}`),
    expect: refused(),
  }),
  c('jsonrpc-method/params-array', 'params that are not an object are refused.', {
    request: post(`${R}${RPC_PATH}`, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: ['t-1'] }),
    expect: refused(),
  }),
  c(
    'jsonrpc-method/get-task-carrying-message',
    'A call that is not a send may not carry a message (it would go unchecked).',
    {
      request: call('GetTask', { id: 't-1', message: message([{ raw: 'AAAA' }]) }),
      expect: refused(),
    },
  ),
  c('jsonrpc-method/get-task-carrying-configuration', 'A call that is not a send may not carry a send configuration.', {
    request: call('GetTask', { id: 't-1', configuration: { acceptedOutputModes: ['application/pdf'] } }),
    expect: refused(),
  }),
  c('jsonrpc-method/cancel-carrying-push-config', 'CancelTask may not carry a push config.', {
    request: call('CancelTask', { id: 't-1', pushNotificationConfig: { url: `${O}/hook` } }),
    expect: refused(),
  }),
  c('jsonrpc-method/legacy-message-send', 'message/send is sent on a 0.3 plan.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, send03()),
    expect: sent(got('/a2a/v03', LEGACY_AUTH, { body: { method: 'message/send' } })),
  }),
  c('jsonrpc-method/legacy-tasks-cancel', 'tasks/cancel is sent on a 0.3 plan.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, rpc('tasks/cancel', { id: 't-1' })),
    expect: sent(got('/a2a/v03', LEGACY_AUTH)),
  }),
  c('jsonrpc-method/legacy-extended-card', 'agent/getAuthenticatedExtendedCard is sent on a 0.3 plan.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, rpc('agent/getAuthenticatedExtendedCard', {})),
    expect: sent(got('/a2a/v03', LEGACY_AUTH)),
  }),
  c('jsonrpc-method/1-0-name-on-legacy', 'SendMessage (a 1.0 name) on a 0.3 plan is refused.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, sendBody([{ text: 'hi' }])),
    expect: refused(),
  }),
  c('jsonrpc-method/no-params', 'GetTask without params is sent (nothing the plan governs).', {
    request: post(`${R}${RPC_PATH}`, { jsonrpc: '2.0', id: 1, method: 'GetTask' }),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  ...unsendableBodies(),
);

/**
 * Request bodies a runtime cannot check and send as written: nested deeper than 64 levels (the limit of every
 * document a2a-lock reads) or holding a number beyond a double's range; refused before sending, typed.
 */
function unsendableBodies() {
  /** `levels` arrays, one inside the other. */
  const nested = (levels) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
  /** A GetTask whose metadata is `value` (JSON text); the body's own object and params are 2 levels. */
  const getTaskWith = (value) =>
    `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t-1","metadata":${value}}}`;
  const deep = (name, description, levels, expect) =>
    c(`jsonrpc-method/${name}`, description, {
      request: postText(`${R}${RPC_PATH}`, getTaskWith(`{"n":${nested(levels)}}`)),
      expect,
    });
  return [
    deep(
      'body-nested-64-levels-sent',
      'A body nested 64 levels deep (the limit of every document a2a-lock reads) is sent.',
      61,
      sent(got(RPC_PATH, RPC_AUTH)),
    ),
    deep('body-nested-65-levels-refused', 'A body nested 65 levels deep is refused; nothing sent.', 62, refused()),
    deep('body-nested-1000-levels-refused', 'A body nested 1000 levels deep is refused, not a crash.', 997, refused()),
    deep(
      'body-nested-10000-levels-refused',
      'A body nested 10000 levels deep is refused, not a stack overflow.',
      9997,
      refused(),
    ),
    c(
      'jsonrpc-method/number-beyond-double-refused',
      'A number beyond the range of a double (1e400) is refused, not sent as null or infinity; nothing sent.',
      { request: postText(`${R}${RPC_PATH}`, getTaskWith('{"n":1e400}')), expect: refused() },
    ),
    c(
      'jsonrpc-method/negative-integer-beyond-double-refused',
      'An integer of 310 digits (beyond a double) is refused in a SendMessage part too; nothing sent.',
      {
        request: postText(
          `${R}${RPC_PATH}`,
          `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"data":{"n":-1${'0'.repeat(309)}}}]}}}`,
        ),
        expect: refused(),
      },
    ),
    c('jsonrpc-method/number-within-double-sent', 'A number within a double (1e308, 1e-400) is sent.', {
      request: postText(`${R}${RPC_PATH}`, getTaskWith('{"big":1e308,"tiny":1e-400}')),
      expect: sent(got(RPC_PATH, RPC_AUTH)),
    }),
  ];
}

const REST_BASE = `${R}/a2a/rest`;
const HOOK = `${R}/hooks/a2a`;
const restSend = (body = { message: message([{ text: 'hi' }]) }) => post(`${REST_BASE}/message:send`, body);
const restRoute = [
  c('rest-route/message-send', 'POST /message:send is sent, with the locked output modes filled in.', {
    agent: 'rest',
    request: restSend(),
    expect: sent(
      got('/a2a/rest/message:send', REST_AUTH, {
        body: { configuration: { acceptedOutputModes: ['application/json', 'text/plain'] } },
      }),
    ),
  }),
  c('rest-route/get-task', 'GET /tasks/{id} is sent.', {
    agent: 'rest',
    request: get(`${REST_BASE}/tasks/t-1`),
    expect: sent(got('/a2a/rest/tasks/t-1', REST_AUTH, { method: 'GET' })),
  }),
  c('rest-route/list-tasks', 'GET /tasks is sent.', {
    agent: 'rest',
    request: get(`${REST_BASE}/tasks`),
    expect: sent(got('/a2a/rest/tasks', REST_AUTH, { method: 'GET' })),
  }),
  c('rest-route/cancel-task', 'POST /tasks/{id}:cancel is sent.', {
    agent: 'rest',
    request: post(`${REST_BASE}/tasks/t-1:cancel`, {}),
    expect: sent(got('/a2a/rest/tasks/t-1:cancel', REST_AUTH)),
  }),
  c('rest-route/extended-card', 'GET /extendedAgentCard is sent.', {
    agent: 'rest',
    request: get(`${REST_BASE}/extendedAgentCard`),
    expect: sent(got('/a2a/rest/extendedAgentCard', REST_AUTH, { method: 'GET' })),
  }),
  c(
    'rest-route/list-push-configs-on-poll',
    'GET /tasks/{id}/pushNotificationConfigs reads configs (JSON-RPC ListTaskPushNotificationConfigs): sent on a poll plan.',
    {
      agent: 'rest',
      request: get(`${REST_BASE}/tasks/t-1/pushNotificationConfigs`),
      expect: sent(got('/a2a/rest/tasks/t-1/pushNotificationConfigs', REST_AUTH, { method: 'GET' })),
    },
  ),
  c(
    'rest-route/get-push-config-on-poll',
    'GET /tasks/{id}/pushNotificationConfigs/{configId} (JSON-RPC GetTaskPushNotificationConfig): sent on a poll plan.',
    {
      agent: 'rest',
      request: get(`${REST_BASE}/tasks/t-1/pushNotificationConfigs/c-1`),
      expect: sent(got('/a2a/rest/tasks/t-1/pushNotificationConfigs/c-1', REST_AUTH, { method: 'GET' })),
    },
  ),
  c(
    'rest-route/delete-push-config-on-poll',
    'DELETE /tasks/{id}/pushNotificationConfigs/{configId} (JSON-RPC DeleteTaskPushNotificationConfig): sent on a poll plan.',
    {
      agent: 'rest',
      request: { method: 'DELETE', url: `${REST_BASE}/tasks/t-1/pushNotificationConfigs/c-1`, headers: {} },
      expect: sent(got('/a2a/rest/tasks/t-1/pushNotificationConfigs/c-1', REST_AUTH, { method: 'DELETE' })),
    },
  ),
  c(
    'rest-route/put-push-config-on-poll',
    'Any method but GET and DELETE on a push config route sets one: refused on a poll plan.',
    {
      agent: 'rest',
      request: {
        method: 'PUT',
        url: `${REST_BASE}/tasks/t-1/pushNotificationConfigs/c-1`,
        headers: JSON_HEADERS,
        body: { url: HOOK },
      },
      expect: refused(),
    },
  ),
  c('rest-route/message-stream-on-poll', 'POST /message:stream on a poll plan is refused.', {
    agent: 'rest',
    request: post(`${REST_BASE}/message:stream`, { message: message() }),
    expect: refused(),
  }),
  c('rest-route/subscribe-on-poll', 'GET /tasks/{id}:subscribe on a poll plan is refused.', {
    agent: 'rest',
    request: get(`${REST_BASE}/tasks/t-1:subscribe`),
    expect: refused(),
  }),
  c('rest-route/push-config-on-poll', 'POST /tasks/{id}/pushNotificationConfigs on a poll plan is refused.', {
    agent: 'rest',
    request: post(`${REST_BASE}/tasks/t-1/pushNotificationConfigs`, { url: `${R}/hooks/a2a` }),
    expect: refused(),
  }),
  c(
    'rest-route/upper-case',
    'Routes match in any case, as the server matches them: /MESSAGE:SEND is a send and is checked.',
    {
      agent: 'rest',
      request: post(`${REST_BASE}/MESSAGE:SEND`, { message: message([{ raw: 'AAAA' }]) }),
      expect: refused(),
    },
  ),
  c('rest-route/upper-case-stream', '/Message:Stream on a poll plan is refused.', {
    agent: 'rest',
    request: post(`${REST_BASE}/Message:Stream`, { message: message() }),
    expect: refused(),
  }),
  c('rest-route/percent-encoded-colon', '/message%3Astream is the stream route: refused on a poll plan.', {
    agent: 'rest',
    request: post(`${REST_BASE}/message%3Astream`, { message: message() }),
    expect: refused(),
  }),
  c('rest-route/double-slash', '//message:stream is the stream route: refused on a poll plan.', {
    agent: 'rest',
    request: post(`${REST_BASE}//message:stream`, { message: message() }),
    expect: refused(),
  }),
  c('rest-route/trailing-slash', '/message:stream/ is the stream route: refused on a poll plan.', {
    agent: 'rest',
    request: post(`${REST_BASE}/message:stream/`, { message: message() }),
    expect: refused(),
  }),
  c('rest-route/v1-prefix', '/v1/message:stream (0.3 prefix) is the stream route: refused on a poll plan.', {
    agent: 'rest',
    request: post(`${REST_BASE}/v1/message:stream`, { message: message() }),
    expect: refused(),
  }),
  c('rest-route/tenant-prefix-send', '/{tenant}/message:send is a send: sent, checked.', {
    agent: 'rest',
    request: post(`${REST_BASE}/tenant-a/message:send`, { message: message() }),
    expect: sent(got('/a2a/rest/tenant-a/message:send', REST_AUTH)),
  }),
  c('rest-route/unknown-message-route', 'A message route the runtime does not know is refused (fail closed).', {
    agent: 'rest',
    request: post(`${REST_BASE}/message/send`, { message: message() }),
    expect: refused(),
  }),
  c('rest-route/resubscribe-spelling', 'A :resubscribe route is not one the plan can check: refused.', {
    agent: 'rest',
    request: post(`${REST_BASE}/tasks/t-1:resubscribe`, {}),
    expect: refused(),
  }),
  c('rest-route/bad-percent-encoding', 'A path that is not valid percent-encoding is refused.', {
    agent: 'rest',
    request: get(`${REST_BASE}/tasks/%E0%A4%A`),
    expect: refused(),
  }),
  c('rest-route/send-body-array', 'A send whose body is not a JSON object is refused.', {
    agent: 'rest',
    request: restSend([{ message: message() }]),
    expect: refused(),
  }),
  c('rest-route/send-body-not-json', 'A send whose body is not JSON is refused.', {
    agent: 'rest',
    request: postText(`${REST_BASE}/message:send`, 'hello'),
    expect: refused(),
  }),
  c('rest-route/get-task-carrying-message', 'A route that is not a send may not carry a message.', {
    agent: 'rest',
    request: post(`${REST_BASE}/tasks/t-1:cancel`, { message: message([{ raw: 'AAAA' }]) }),
    expect: refused(),
  }),
  c('rest-route/legacy-send', 'HTTP+JSON 0.3: POST /v1/message:send is sent.', {
    agent: 'legacy-rest',
    request: post(`${R}/a2a/v03rest/v1/message:send`, { message: message() }),
    expect: sent(
      got('/a2a/v03rest/v1/message:send', { authorization: 'Bearer fake-legacy-token', 'a2a-version': '0.3' }),
    ),
  }),
  c('rest-route/legacy-stream-on-poll', 'HTTP+JSON 0.3: /v1/message:stream on a poll plan is refused.', {
    agent: 'legacy-rest',
    request: post(`${R}/a2a/v03rest/v1/message:stream`, { message: message() }),
    expect: refused(),
  }),
  c('rest-route/send-nested-1000-levels-refused', 'A send body nested 1000 levels deep is refused, not a crash.', {
    agent: 'rest',
    request: postText(
      `${REST_BASE}/message:send`,
      `{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":{"n":${'['.repeat(997)}${']'.repeat(997)}}}}`,
    ),
    expect: refused(),
  }),
  c('rest-route/send-number-beyond-double-refused', 'A send body holding 1e400 is refused; nothing sent.', {
    agent: 'rest',
    request: postText(
      `${REST_BASE}/message:send`,
      '{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"data":{"n":1e400}}]}}',
    ),
    expect: refused(),
  }),
];

const delivery = [
  c('delivery/stream-on-poll', 'SendStreamingMessage on a poll plan is refused.', {
    request: post(`${R}${RPC_PATH}`, rpc('SendStreamingMessage', { message: message() })),
    expect: refused(),
  }),
  c('delivery/subscribe-on-poll', 'SubscribeToTask on a poll plan is refused.', {
    request: call('SubscribeToTask', { id: 't-1' }),
    expect: refused(),
  }),
  c('delivery/stream-on-stream', 'SendStreamingMessage on a stream plan is sent.', {
    agent: 'stream',
    request: post(`${R}${RPC_PATH}`, rpc('SendStreamingMessage', { message: message() })),
    expect: sent(got(RPC_PATH, OPEN, { body: { method: 'SendStreamingMessage' } })),
  }),
  c('delivery/subscribe-on-stream', 'SubscribeToTask on a stream plan is sent.', {
    agent: 'stream',
    request: call('SubscribeToTask', { id: 't-1' }),
    expect: sent(got(RPC_PATH, OPEN)),
  }),
  c('delivery/send-on-stream', 'SendMessage on a stream plan is sent (poll is its locked fallback delivery).', {
    agent: 'stream',
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }])),
    expect: sent(got(RPC_PATH, OPEN)),
  }),
  c('delivery/stream-on-push', 'SendStreamingMessage on a push plan is refused.', {
    agent: 'push',
    request: post(`${R}${RPC_PATH}`, rpc('SendStreamingMessage', { message: message() })),
    expect: refused(),
  }),
  c('delivery/rest-stream-on-stream', 'HTTP+JSON: POST /message:stream on a stream plan is sent.', {
    agent: 'rest-stream',
    request: post(`${REST_BASE}/message:stream`, { message: message() }),
    expect: sent(got('/a2a/rest/message:stream', OPEN)),
  }),
  c('delivery/rest-subscribe-on-stream', 'HTTP+JSON: GET /tasks/{id}:subscribe on a stream plan is sent.', {
    agent: 'rest-stream',
    request: get(`${REST_BASE}/tasks/t-1:subscribe`),
    expect: sent(got('/a2a/rest/tasks/t-1:subscribe', OPEN, { method: 'GET' })),
  }),
  c('delivery/rest-stream-on-push', 'HTTP+JSON: POST /message:stream on a push plan is refused.', {
    agent: 'rest-push',
    request: post(`${REST_BASE}/message:stream`, { message: message() }),
    expect: refused(),
  }),
  c('delivery/legacy-stream', 'A 0.3 stream plan: message/stream is sent.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, { ...send03(), method: 'message/stream' }),
    expect: sent(got('/a2a/v03', LEGACY_AUTH)),
  }),
  c('delivery/legacy-resubscribe', 'A 0.3 stream plan: tasks/resubscribe is sent.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, rpc('tasks/resubscribe', { id: 't-1' })),
    expect: sent(got('/a2a/v03', LEGACY_AUTH)),
  }),
  c('delivery/stream-summarize-skill', "The plan is per skill: summarize's stream plan allows SendStreamingMessage.", {
    agent: 'stream',
    skill: 'summarize',
    request: post(`${R}${RPC_PATH}`, rpc('SendStreamingMessage', { message: message() })),
    expect: sent(got(RPC_PATH, OPEN)),
  }),
];

const pushConfig = (url) => ({ taskPushNotificationConfig: { url } });
const push = [
  c('push/config-on-poll', 'A send carrying a push config on a poll plan is refused.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }], { configuration: pushConfig(HOOK) })),
    expect: refused(),
  }),
  c('push/create-on-poll', 'CreateTaskPushNotificationConfig on a poll plan is refused.', {
    request: call('CreateTaskPushNotificationConfig', { taskId: 't-1', url: HOOK }),
    expect: refused(),
  }),
  c('push/config-locked-endpoint', 'A push plan: a send whose push config names the locked pushEndpoint is sent.', {
    agent: 'push',
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }], { configuration: pushConfig(HOOK) })),
    expect: sent(
      got(RPC_PATH, OPEN, { body: { params: { configuration: { taskPushNotificationConfig: { url: HOOK } } } } }),
    ),
  }),
  c('push/config-other-endpoint', 'A push plan: a push config naming another URL is refused.', {
    agent: 'push',
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }], { configuration: pushConfig(`${O}/hooks/a2a`) })),
    expect: refused(),
  }),
  c('push/config-other-path', 'A push plan: another path on the locked endpoint origin is refused.', {
    agent: 'push',
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }], { configuration: pushConfig(`${R}/hooks/other`) })),
    expect: refused(),
  }),
  c('push/config-query-added', 'A push plan: the locked endpoint with a query added is another URL.', {
    agent: 'push',
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }], { configuration: pushConfig(`${HOOK}?x=1`) })),
    expect: refused(),
  }),
  c(
    'push/config-normalised-spelling',
    'A push plan: the locked endpoint spelt with an upper-case scheme is the same URL: sent.',
    {
      agent: 'push',
      request: post(
        `${R}${RPC_PATH}`,
        sendBody([{ text: 'hi' }], { configuration: pushConfig('HTTP://127.0.0.1:{{port}}/hooks/a2a') }),
      ),
      expect: sent(got(RPC_PATH, OPEN)),
    },
  ),
  c(
    'push/config-percent-encoded-path',
    'A push plan: a percent-encoded spelling of the path (/%68ooks/a2a) is not the locked endpoint: refused.',
    {
      agent: 'push',
      request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }], { configuration: pushConfig(`${R}/%68ooks/a2a`) })),
      expect: refused(),
    },
  ),
  c('push/config-without-url', 'A push plan: a push config without a url is refused (fail closed).', {
    agent: 'push',
    request: post(
      `${R}${RPC_PATH}`,
      sendBody([{ text: 'hi' }], { configuration: { taskPushNotificationConfig: { token: 'x' } } }),
    ),
    expect: refused(),
  }),
  c('push/config-url-not-string', 'A push plan: a url that is not a string is refused.', {
    agent: 'push',
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }], { configuration: pushConfig(42) })),
    expect: refused(),
  }),
  c('push/config-snake-case', 'A push plan: the snake_case spelling is checked too.', {
    agent: 'push',
    request: post(
      `${R}${RPC_PATH}`,
      sendBody([{ text: 'hi' }], { configuration: { push_notification_config: { url: `${O}/x` } } }),
    ),
    expect: refused(),
  }),
  c('push/config-legacy-spelling', 'A push plan: the 0.3 pushNotificationConfig spelling is checked too.', {
    agent: 'push',
    request: post(
      `${R}${RPC_PATH}`,
      sendBody([{ text: 'hi' }], { configuration: { pushNotificationConfig: { url: `${O}/x` } } }),
    ),
    expect: refused(),
  }),
  c('push/config-nested-url', 'A push plan: a url nested inside the config is checked.', {
    agent: 'push',
    request: post(
      `${R}${RPC_PATH}`,
      sendBody([{ text: 'hi' }], {
        configuration: { taskPushNotificationConfig: { pushNotificationConfig: { url: `${O}/x` } } },
      }),
    ),
    expect: refused(),
  }),
  c('push/config-second-url', 'A push plan: every url in the config must be the locked one.', {
    agent: 'push',
    request: post(
      `${R}${RPC_PATH}`,
      sendBody([{ text: 'hi' }], {
        configuration: { taskPushNotificationConfig: { url: HOOK, authentication: { url: `${O}/x` } } },
      }),
    ),
    expect: refused(),
  }),
  c(
    'push/create-locked-endpoint',
    'A push plan: CreateTaskPushNotificationConfig naming the locked endpoint is sent.',
    {
      agent: 'push',
      request: call('CreateTaskPushNotificationConfig', { taskId: 't-1', url: HOOK }),
      expect: sent(got(RPC_PATH, OPEN, { body: { params: { url: HOOK } } })),
    },
  ),
  c('push/create-other-endpoint', 'A push plan: CreateTaskPushNotificationConfig naming another URL is refused.', {
    agent: 'push',
    request: call('CreateTaskPushNotificationConfig', { taskId: 't-1', url: `${O}/hooks/a2a` }),
    expect: refused(),
  }),
  c('push/create-without-url', 'A push plan: CreateTaskPushNotificationConfig without a url is refused.', {
    agent: 'push',
    request: call('CreateTaskPushNotificationConfig', { taskId: 't-1' }),
    expect: refused(),
  }),
  c('push/get-config', 'A push plan: GetTaskPushNotificationConfig is sent.', {
    agent: 'push',
    request: call('GetTaskPushNotificationConfig', { taskId: 't-1', id: 'c-1' }),
    expect: sent(got(RPC_PATH, OPEN)),
  }),
  c('push/send-without-config', 'A push plan: a send without a push config is sent.', {
    agent: 'push',
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }])),
    expect: sent(got(RPC_PATH, OPEN)),
  }),
  c(
    'push/rest-create-locked',
    'HTTP+JSON push plan: POST /tasks/{id}/pushNotificationConfigs naming the locked endpoint is sent.',
    {
      agent: 'rest-push',
      request: post(`${REST_BASE}/tasks/t-1/pushNotificationConfigs`, { url: HOOK }),
      expect: sent(got('/a2a/rest/tasks/t-1/pushNotificationConfigs', OPEN, { body: { url: HOOK } })),
    },
  ),
  c('push/rest-create-other', 'HTTP+JSON push plan: a push config naming another URL is refused.', {
    agent: 'rest-push',
    request: post(`${REST_BASE}/tasks/t-1/pushNotificationConfigs`, { url: `${O}/hooks/a2a` }),
    expect: refused(),
  }),
  c('push/rest-send-config-other', 'HTTP+JSON push plan: a send whose configuration names another URL is refused.', {
    agent: 'rest-push',
    request: post(`${REST_BASE}/message:send`, { message: message(), configuration: pushConfig(`${O}/x`) }),
    expect: refused(),
  }),
  c('push/rest-send-legacy-field', 'HTTP+JSON push plan: the 0.3 pushNotification field is checked too.', {
    agent: 'rest-push',
    request: post(`${REST_BASE}/message:send`, {
      message: message(),
      configuration: { pushNotification: { url: `${O}/x` } },
    }),
    expect: refused(),
  }),
  c('push/stream-plan-config', 'A stream plan locks no push endpoint: a push config is refused.', {
    agent: 'stream',
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }], { configuration: pushConfig(HOOK) })),
    expect: refused(),
  }),
];

const inputModes = [
  c('input-modes/text', 'A text part (text/plain, locked) is sent.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }])),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('input-modes/data', 'A data part is application/json, locked for market-size: sent.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ data: { q: 1 } }])),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('input-modes/raw-bytes', 'A raw part is application/octet-stream, not locked: refused.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ raw: 'AAAA' }])),
    expect: refused(),
  }),
  c('input-modes/url-part', 'A url part is application/octet-stream, not locked: refused.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ url: 'https://files.example/a.bin' }])),
    expect: refused(),
  }),
  c('input-modes/declared-image', 'A part declaring image/png is refused, whatever its content.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi', mediaType: 'image/png' }])),
    expect: refused(),
  }),
  c('input-modes/declared-snake-case', 'media_type is read too.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi', media_type: 'image/png' }])),
    expect: refused(),
  }),
  c('input-modes/declared-locked', 'A part declaring a locked type is sent.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ raw: 'AAAA', mediaType: 'application/json' }])),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('input-modes/declared-empty', 'An empty mediaType declares nothing: the content decides (text).', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi', mediaType: '' }])),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('input-modes/declared-upper-case', 'Media types compare case-insensitively: TEXT/PLAIN is text/plain.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi', mediaType: 'TEXT/PLAIN' }])),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('input-modes/summarize-data', 'summarize locks text/plain only: a data part is refused.', {
    skill: 'summarize',
    request: post(`${R}${RPC_PATH}`, sendBody([{ data: { q: 1 } }])),
    expect: refused(),
  }),
  c('input-modes/summarize-text', 'summarize: a text part is sent.', {
    skill: 'summarize',
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }])),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c(
    'input-modes/null-text-then-data',
    'The first set field counts: {text: null, data} is data (refused on summarize).',
    {
      skill: 'summarize',
      request: post(`${R}${RPC_PATH}`, sendBody([{ text: null, data: { q: 1 } }])),
      expect: refused(),
    },
  ),
  c('input-modes/text-and-raw', 'A part with text and raw counts as both: octet-stream is refused.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi', raw: 'AAAA' }])),
    expect: refused(),
  }),
  c('input-modes/second-part', 'Every part is checked: a refused second part refuses the call.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }, { raw: 'AAAA' }])),
    expect: refused(),
  }),
  c('input-modes/empty-part', 'A part with no content is refused.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{}])),
    expect: refused(),
  }),
  c('input-modes/part-not-object', 'A part that is not an object is refused.', {
    request: post(`${R}${RPC_PATH}`, sendBody(['hi'])),
    expect: refused(),
  }),
  c('input-modes/no-parts', 'A message with no parts is sent (nothing to refuse).', {
    request: post(`${R}${RPC_PATH}`, sendBody([])),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('input-modes/legacy-text-kind', 'A 0.3 text part is sent.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, send03([{ kind: 'text', text: 'hi' }])),
    expect: sent(got('/a2a/v03', LEGACY_AUTH)),
  }),
  c('input-modes/legacy-file-kind', 'A 0.3 file part is application/octet-stream: refused.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, send03([{ kind: 'file', file: { bytes: 'AAAA' } }])),
    expect: refused(),
  }),
  c('input-modes/legacy-file-mime', 'A 0.3 file part declaring image/png (file.mimeType) is refused.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, send03([{ kind: 'file', file: { bytes: 'AAAA', mimeType: 'image/png' } }])),
    expect: refused(),
  }),
  c('input-modes/legacy-file-mime-locked', 'A 0.3 file part declaring a locked type (application/json) is sent.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, send03([{ kind: 'file', file: { bytes: 'AAAA', mimeType: 'application/json' } }])),
    expect: sent(got('/a2a/v03', LEGACY_AUTH)),
  }),
  c('input-modes/legacy-data-kind', 'A 0.3 data part is application/json: sent on market-size.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, send03([{ kind: 'data', data: { q: 1 } }])),
    expect: sent(got('/a2a/v03', LEGACY_AUTH)),
  }),
  c('input-modes/legacy-rest-request-field', 'HTTP+JSON 0.3: the parts of a `request` message are checked.', {
    agent: 'legacy-rest',
    request: post(`${R}/a2a/v03rest/v1/message:send`, {
      request: { messageId: 'm-1', role: 'user', content: [{ raw: 'AAAA' }] },
    }),
    expect: refused(),
  }),
  c('input-modes/legacy-rest-content-text', 'HTTP+JSON 0.3: a text part in `content` is sent.', {
    agent: 'legacy-rest',
    request: post(`${R}/a2a/v03rest/v1/message:send`, {
      message: { messageId: 'm-1', role: 'user', content: [{ text: 'hi' }] },
    }),
    expect: sent(got('/a2a/v03rest/v1/message:send', { authorization: 'Bearer fake-legacy-token' })),
  }),
  c('input-modes/content-field', "A message's `content` list is checked like `parts`.", {
    request: post(
      `${R}${RPC_PATH}`,
      rpc('SendMessage', { message: { messageId: 'm-1', role: 'ROLE_USER', content: [{ raw: 'AAAA' }] } }),
    ),
    expect: refused(),
  }),
  c('input-modes/stream-send-checked', 'SendStreamingMessage parts are checked too.', {
    agent: 'stream',
    request: post(`${R}${RPC_PATH}`, rpc('SendStreamingMessage', { message: message([{ raw: 'AAAA' }]) })),
    expect: refused(),
  }),
  c('input-modes/rest-send-checked', 'HTTP+JSON send parts are checked.', {
    agent: 'rest',
    request: restSend({ message: message([{ url: 'https://files.example/a.bin' }]) }),
    expect: refused(),
  }),
];

const filled = (modes) => ({ params: { configuration: { acceptedOutputModes: modes } } });
const outputModes = [
  c('output-modes/filled-from-plan', 'A SendMessage without acceptedOutputModes gets the locked ones.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }])),
    expect: sent(
      got(RPC_PATH, RPC_AUTH, { body: { method: 'SendMessage', ...filled(['application/json', 'text/plain']) } }),
    ),
  }),
  c('output-modes/subset-kept', 'A locked subset is sent as given.', {
    request: post(
      `${R}${RPC_PATH}`,
      sendBody([{ text: 'hi' }], { configuration: { acceptedOutputModes: ['text/plain'] } }),
    ),
    expect: sent(got(RPC_PATH, RPC_AUTH, { body: filled(['text/plain']) })),
  }),
  c(
    'output-modes/card-offers-not-locked',
    'application/pdf (the card offers it, the lock does not accept it) is refused.',
    {
      request: post(
        `${R}${RPC_PATH}`,
        sendBody([{ text: 'hi' }], { configuration: { acceptedOutputModes: ['application/pdf'] } }),
      ),
      expect: refused(),
    },
  ),
  c('output-modes/unknown', 'A mode nobody offers is refused.', {
    request: post(
      `${R}${RPC_PATH}`,
      sendBody([{ text: 'hi' }], { configuration: { acceptedOutputModes: ['image/png'] } }),
    ),
    expect: refused(),
  }),
  c('output-modes/one-bad-among-good', 'One unlocked mode among locked ones is refused.', {
    request: post(
      `${R}${RPC_PATH}`,
      sendBody([{ text: 'hi' }], { configuration: { acceptedOutputModes: ['application/json', 'image/png'] } }),
    ),
    expect: refused(),
  }),
  c('output-modes/snake-case', 'accepted_output_modes is checked too.', {
    request: post(
      `${R}${RPC_PATH}`,
      sendBody([{ text: 'hi' }], { configuration: { accepted_output_modes: ['application/pdf'] } }),
    ),
    expect: refused(),
  }),
  c('output-modes/not-string', 'A mode that is not a string is refused.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }], { configuration: { acceptedOutputModes: [1] } })),
    expect: refused(),
  }),
  c('output-modes/empty-list-filled', 'An empty list is filled with the locked modes.', {
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }], { configuration: { acceptedOutputModes: [] } })),
    expect: sent(got(RPC_PATH, RPC_AUTH, { body: filled(['application/json', 'text/plain']) })),
  }),
  c('output-modes/summarize-filled', "summarize's plan accepts text/plain only: that is filled in.", {
    skill: 'summarize',
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }])),
    expect: sent(got(RPC_PATH, RPC_AUTH, { body: filled(['text/plain']) })),
  }),
  c('output-modes/summarize-json-refused', 'summarize: application/json (locked for market-size only) is refused.', {
    skill: 'summarize',
    request: post(
      `${R}${RPC_PATH}`,
      sendBody([{ text: 'hi' }], { configuration: { acceptedOutputModes: ['application/json'] } }),
    ),
    expect: refused(),
  }),
  c('output-modes/case-insensitive', 'Modes compare case-insensitively: APPLICATION/JSON is application/json.', {
    request: post(
      `${R}${RPC_PATH}`,
      sendBody([{ text: 'hi' }], { configuration: { acceptedOutputModes: ['APPLICATION/JSON'] } }),
    ),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('output-modes/rest-filled', 'HTTP+JSON: a send without modes gets the locked ones.', {
    agent: 'rest',
    request: restSend(),
    expect: sent(
      got('/a2a/rest/message:send', REST_AUTH, {
        body: { configuration: { acceptedOutputModes: ['application/json', 'text/plain'] } },
      }),
    ),
  }),
  c('output-modes/rest-refused', 'HTTP+JSON: an unlocked mode is refused.', {
    agent: 'rest',
    request: restSend({ message: message(), configuration: { acceptedOutputModes: ['application/pdf'] } }),
    expect: refused(),
  }),
  c('output-modes/stream-filled', 'SendStreamingMessage gets the locked modes too.', {
    agent: 'stream',
    request: post(`${R}${RPC_PATH}`, rpc('SendStreamingMessage', { message: message() })),
    expect: sent(got(RPC_PATH, OPEN, { body: filled(['application/json', 'text/plain']) })),
  }),
  c('output-modes/legacy-filled', 'A 0.3 message/send gets the locked modes.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, send03()),
    expect: sent(got('/a2a/v03', LEGACY_AUTH, { body: filled(['application/json', 'text/plain']) })),
  }),
];

const to = (status, location, extra = {}) => ({ status, headers: { location }, ...extra });
const redirects = [
  c('redirects/307-same-url', 'A 307 to the locked URL is followed, the credential sent again to the same origin.', {
    responses: [to(307, `${R}${RPC_PATH}`)],
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, RPC_AUTH), got(RPC_PATH, RPC_AUTH)),
  }),
  c('redirects/308-same-url', 'A 308 to the locked URL is followed.', {
    responses: [to(308, RPC_PATH)],
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, RPC_AUTH), got(RPC_PATH, RPC_AUTH)),
  }),
  c(
    'redirects/307-other-origin',
    'A 307 to another origin is refused: the other origin receives nothing, least of all the credential.',
    {
      responses: [to(307, `${O}${RPC_PATH}`)],
      request: call(...GET_TASK),
      expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
    },
  ),
  c('redirects/308-other-origin', 'A 308 to another origin is refused.', {
    responses: [to(308, `${O}${RPC_PATH}`)],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
  }),
  c('redirects/307-other-path', 'A 307 to another path on the same origin is not the JSON-RPC interface: refused.', {
    responses: [to(307, `${R}/a2a/elsewhere`)],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
  }),
  c('redirects/307-query-added', 'A 307 to the locked JSON-RPC URL with a query added is another URL: refused.', {
    responses: [to(307, `${RPC_PATH}?moved=1`)],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
  }),
  c('redirects/302', 'A 302 (a redirect that may change the method) is refused.', {
    responses: [to(302, `${R}${RPC_PATH}`)],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
  }),
  c('redirects/301', 'A 301 is refused.', {
    responses: [to(301, `${R}${RPC_PATH}`)],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
  }),
  c('redirects/303', 'A 303 is refused.', {
    responses: [to(303, `${R}${RPC_PATH}`)],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
  }),
  c('redirects/302-other-origin', 'A 302 to another origin is refused; the other origin receives nothing.', {
    responses: [to(302, `${O}/collect`)],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
  }),
  c('redirects/loop', 'A redirect loop on the locked URL stops after 5 requests.', {
    responses: Array.from({ length: 6 }, () => to(307, RPC_PATH)),
    request: call(...GET_TASK),
    expect: refused('plan-violation', ...Array.from({ length: 5 }, () => got(RPC_PATH, RPC_AUTH))),
  }),
  c('redirects/no-location', 'A 307 without Location is an answer, returned as it is.', {
    responses: [{ status: 307 }],
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('redirects/rest-same-route', 'HTTP+JSON: a 307 to the same route is followed.', {
    agent: 'rest',
    responses: [to(307, '/a2a/rest/tasks/t-1')],
    request: get(`${REST_BASE}/tasks/t-1`),
    expect: sent(
      got('/a2a/rest/tasks/t-1', REST_AUTH, { method: 'GET' }),
      got('/a2a/rest/tasks/t-1', REST_AUTH, { method: 'GET' }),
    ),
  }),
  c(
    'redirects/rest-other-route',
    'HTTP+JSON: a 307 to another route below the interface is refused (the route must stay).',
    {
      agent: 'rest',
      responses: [to(307, '/a2a/rest/tasks/t-2')],
      request: get(`${REST_BASE}/tasks/t-1`),
      expect: refused('plan-violation', got('/a2a/rest/tasks/t-1', REST_AUTH, { method: 'GET' })),
    },
  ),
  c('redirects/rest-other-origin', 'HTTP+JSON: a 308 to another origin is refused.', {
    agent: 'rest',
    responses: [to(308, `${O}/a2a/rest/tasks/t-1`)],
    request: get(`${REST_BASE}/tasks/t-1`),
    expect: refused('plan-violation', got('/a2a/rest/tasks/t-1', REST_AUTH, { method: 'GET' })),
  }),
  c('redirects/api-key-query-other-origin', 'An apiKey in the query is not carried to another origin by a redirect.', {
    agent: 'key-query',
    responses: [to(307, `${O}${RPC_PATH}`)],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(`${RPC_PATH}?api_key=fake-api-key`, {})),
  }),
  c('redirects/open-agent-other-origin', 'Without a credential too, a redirect off the plan is refused.', {
    agent: 'open',
    skill: null,
    responses: [to(307, `${O}${RPC_PATH}`)],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(RPC_PATH, OPEN)),
  }),
  ...[
    ['location-bad-ipv6', 'an IPv6 host without its closing bracket', 'http://[::1'],
    ['location-bad-port', 'a port above 65535', 'http://127.0.0.1:99999/a2a/jsonrpc'],
    ['location-space-in-host', 'a space in the host', 'http://a b/'],
  ].map(([name, what, location]) =>
    c(`redirects/${name}`, `A 307 whose Location is not a URL (${what}) is refused as off the plan, not a crash.`, {
      responses: [to(307, location)],
      request: call(...GET_TASK),
      expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
    }),
  ),
  c('redirects/rest-location-bad-ipv6', 'HTTP+JSON: a 307 whose Location is not a URL is refused as off the plan.', {
    agent: 'rest',
    responses: [to(307, 'http://[::1')],
    request: get(`${REST_BASE}/tasks/t-1`),
    expect: refused('plan-violation', got('/a2a/rest/tasks/t-1', REST_AUTH, { method: 'GET' })),
  }),
  c('redirects/302-location-bad-port', 'A 302 whose Location is not a URL is refused as off the plan.', {
    responses: [to(302, 'http://127.0.0.1:99999/a2a/jsonrpc')],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
  }),
  c(
    'redirects/307-empty-query',
    'A 307 to the locked URL with an empty query (a trailing ?) is another URL: refused.',
    {
      responses: [to(307, `${RPC_PATH}?`)],
      request: call(...GET_TASK),
      expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
    },
  ),
  c('redirects/307-bare-question-mark', 'A 307 to "?" (the same path, an empty query) is refused.', {
    responses: [to(307, '?')],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
  }),
  c('redirects/307-empty-fragment', 'A 307 to the locked URL with an empty fragment (a trailing #) is refused.', {
    responses: [to(307, `${R}${RPC_PATH}#`)],
    request: call(...GET_TASK),
    expect: refused('plan-violation', got(RPC_PATH, RPC_AUTH)),
  }),
  c(
    'redirects/307-dot-segment',
    'A 307 to /a2a/./jsonrpc is the locked URL as parsed (as a request to it is): followed.',
    {
      responses: [to(307, `${R}/a2a/./jsonrpc`)],
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, RPC_AUTH), got(RPC_PATH, RPC_AUTH)),
    },
  ),
];

const credentialHttp = [
  c(
    'credential-http/bearer-from-env',
    "The bearer token from the manifest's environment variable goes in Authorization, with the locked A2A-Version.",
    {
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, RPC_AUTH)),
    },
  ),
  c('credential-http/bearer-unset', 'The environment variable unset: credential-unset, nothing sent.', {
    env: without('RPC_TOKEN'),
    request: call(...GET_TASK),
    expect: refused('credential-unset'),
  }),
  c('credential-http/bearer-empty', 'The environment variable empty: credential-unset, nothing sent.', {
    env: { ...TOKENS, RPC_TOKEN: '' },
    request: call(...GET_TASK),
    expect: refused('credential-unset'),
  }),
  c(
    'credential-http/caller-authorization-replaced',
    "The caller's own Authorization header is replaced by the locked credential.",
    {
      request: call(...GET_TASK, { ...JSON_HEADERS, Authorization: 'Bearer caller-token' }),
      expect: sent(got(RPC_PATH, RPC_AUTH)),
    },
  ),
  c('credential-http/bearer-with-newline', 'A credential with a line break is refused (usage), nothing sent.', {
    env: { ...TOKENS, RPC_TOKEN: 'fake-token\n' },
    request: call(...GET_TASK),
    expect: refused('usage'),
  }),
  c('credential-http/bearer-other-skill', 'Every skill of the agent carries its credential.', {
    skill: 'summarize',
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('credential-http/bearer-rest', 'HTTP+JSON: the bearer goes in Authorization.', {
    agent: 'rest',
    request: get(`${REST_BASE}/tasks/t-1`),
    expect: sent(got('/a2a/rest/tasks/t-1', REST_AUTH, { method: 'GET' })),
  }),
  c('credential-http/bearer-legacy', 'A 0.3 plan: the bearer goes in Authorization.', {
    agent: 'legacy',
    request: post(`${R}/a2a/v03`, rpc('tasks/get', { id: 't-1' })),
    expect: sent(got('/a2a/v03', LEGACY_AUTH)),
  }),
  c('credential-http/basic', 'http Basic: user:password from the environment, base64 in Authorization.', {
    agent: 'basic',
    request: call(...GET_TASK),
    expect: sent(
      got(RPC_PATH, { authorization: `Basic ${Buffer.from('fake-user:fake-password').toString('base64')}` }),
    ),
  }),
  c('credential-http/basic-without-colon', 'http Basic: a value without ":" is refused (usage), nothing sent.', {
    agent: 'basic',
    env: { ...TOKENS, BASIC_CREDENTIAL: 'fake-user-only' },
    request: call(...GET_TASK),
    expect: refused('usage'),
  }),
  c('credential-http/basic-unset', 'http Basic: unset is credential-unset.', {
    agent: 'basic',
    env: without('BASIC_CREDENTIAL'),
    request: call(...GET_TASK),
    expect: refused('credential-unset'),
  }),
  c(
    'credential-http/unset-refused-before-plan-check',
    'An unset credential refuses a call the plan allows: nothing sent.',
    {
      env: {},
      request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }])),
      expect: refused('credential-unset'),
    },
  ),
  c(
    'credential-http/open-agent-no-credential',
    'An agent whose plan has no security gets no Authorization, whatever the environment.',
    {
      agent: 'open',
      skill: null,
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, OPEN)),
    },
  ),
  c(
    'credential-http/open-agent-caller-authorization-kept',
    "An agent whose plan has no security: the caller's own headers go as given.",
    {
      agent: 'open',
      skill: null,
      request: call(...GET_TASK, { ...JSON_HEADERS, Authorization: 'Bearer caller-token' }),
      expect: sent(got(RPC_PATH, { authorization: 'Bearer caller-token' })),
    },
  ),
  c(
    'credential-http/bearer-non-ascii',
    'A bearer with a letter outside ASCII (ö) is refused (usage), nothing sent: a header cannot carry it as it is.',
    {
      env: { ...TOKENS, RPC_TOKEN: 'fake-t\u00f6ken-123' },
      request: call(...GET_TASK),
      expect: refused('usage'),
    },
  ),
  c('credential-http/bearer-emoji', 'A bearer with an emoji is refused (usage), nothing sent.', {
    env: { ...TOKENS, RPC_TOKEN: 'fake-tok-\u{1f600}-123' },
    request: call(...GET_TASK),
    expect: refused('usage'),
  }),
  c(
    'credential-http/bearer-leading-space',
    'A bearer with a leading space is refused (usage), nothing sent: never `Bearer  tok` nor trimmed.',
    {
      env: { ...TOKENS, RPC_TOKEN: ' fake-rpc-token' },
      request: call(...GET_TASK),
      expect: refused('usage'),
    },
  ),
  c('credential-http/bearer-trailing-space', 'A bearer with a trailing space is refused (usage), nothing sent.', {
    env: { ...TOKENS, RPC_TOKEN: 'fake-rpc-token ' },
    request: call(...GET_TASK),
    expect: refused('usage'),
  }),
  c(
    'credential-http/basic-non-ascii',
    'http Basic: a password outside ASCII is sent, base64 of its UTF-8 bytes (RFC 7617), the header itself ASCII.',
    {
      agent: 'basic',
      env: { ...TOKENS, BASIC_CREDENTIAL: 'fake-user:fake-p\u00e4ssword' },
      request: call(...GET_TASK),
      expect: sent(
        got(RPC_PATH, { authorization: `Basic ${Buffer.from('fake-user:fake-p\u00e4ssword').toString('base64')}` }),
      ),
    },
  ),
];

const credentialApiKey = [
  c('credential-apikey/header', 'apiKey in a header: X-API-Key carries it; no Authorization.', {
    agent: 'key-header',
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, { 'x-api-key': 'fake-api-key', authorization: null })),
  }),
  c('credential-apikey/header-replaces-caller', "apiKey header: the caller's own X-API-Key is replaced.", {
    agent: 'key-header',
    request: call(...GET_TASK, { ...JSON_HEADERS, 'x-api-key': 'caller-key' }),
    expect: sent(got(RPC_PATH, { 'x-api-key': 'fake-api-key' })),
  }),
  c('credential-apikey/query', 'apiKey in the query: api_key is added to the locked URL.', {
    agent: 'key-query',
    request: call(...GET_TASK),
    expect: sent(got(`${RPC_PATH}?api_key=fake-api-key`, { authorization: null })),
  }),
  c('credential-apikey/query-encoded', 'apiKey in the query: the value is form-encoded.', {
    agent: 'key-query',
    env: { ...TOKENS, API_KEY: 'fake/key=1' },
    request: call(...GET_TASK),
    expect: sent(got(`${RPC_PATH}?api_key=fake%2Fkey%3D1`, {})),
  }),
  c(
    'credential-apikey/query-caller-param-refused',
    'apiKey in the query: a caller-given query is not the locked JSON-RPC URL.',
    {
      agent: 'key-query',
      request: post(`${R}${RPC_PATH}?api_key=caller`, rpc(...GET_TASK)),
      expect: refused(),
    },
  ),
  c('credential-apikey/rest-query', 'HTTP+JSON, apiKey in the query: api_key is added to the route.', {
    agent: 'rest-key-query',
    request: get(`${REST_BASE}/tasks/t-1`),
    expect: sent(got('/a2a/rest/tasks/t-1?api_key=fake-api-key', { authorization: null }, { method: 'GET' })),
  }),
  c(
    'credential-apikey/rest-query-after-caller-query',
    "HTTP+JSON, apiKey in the query: added after the caller's own parameters.",
    {
      agent: 'rest-key-query',
      request: get(`${REST_BASE}/tasks?pageSize=10`),
      expect: sent(got('/a2a/rest/tasks?pageSize=10&api_key=fake-api-key', {}, { method: 'GET' })),
    },
  ),
  c(
    'credential-apikey/rest-query-caller-key-replaced',
    "HTTP+JSON, apiKey in the query: the caller's own api_key is replaced, not repeated.",
    {
      agent: 'rest-key-query',
      request: get(`${REST_BASE}/tasks?api_key=caller-key`),
      expect: sent(got('/a2a/rest/tasks?api_key=fake-api-key', {}, { method: 'GET' })),
    },
  ),
  c('credential-apikey/cookie', 'apiKey in a cookie: Cookie carries session=<key>.', {
    agent: 'key-cookie',
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, { cookie: 'session=fake-api-key', authorization: null })),
  }),
  c('credential-apikey/cookie-merged', "apiKey in a cookie: the caller's cookies are kept before it.", {
    agent: 'key-cookie',
    request: call(...GET_TASK, { ...JSON_HEADERS, Cookie: 'theme=dark' }),
    expect: sent(got(RPC_PATH, { cookie: 'theme=dark; session=fake-api-key' })),
  }),
  c(
    'credential-apikey/cookie-bad-character',
    'apiKey in a cookie: a value a cookie cannot carry (a space) is refused (usage).',
    {
      agent: 'key-cookie',
      env: { ...TOKENS, API_KEY: 'fake key' },
      request: call(...GET_TASK),
      expect: refused('usage'),
    },
  ),
  c('credential-apikey/header-unset', 'apiKey header: unset is credential-unset.', {
    agent: 'key-header',
    env: without('API_KEY'),
    request: call(...GET_TASK),
    expect: refused('credential-unset'),
  }),
  c('credential-apikey/query-unset', 'apiKey query: unset is credential-unset.', {
    agent: 'key-query',
    env: without('API_KEY'),
    request: call(...GET_TASK),
    expect: refused('credential-unset'),
  }),
  c('credential-apikey/cookie-unset', 'apiKey cookie: unset is credential-unset.', {
    agent: 'key-cookie',
    env: without('API_KEY'),
    request: call(...GET_TASK),
    expect: refused('credential-unset'),
  }),
  c('credential-apikey/cookie-non-ascii', 'apiKey in a cookie: a value outside ASCII (é) is refused (usage).', {
    agent: 'key-cookie',
    env: { ...TOKENS, API_KEY: 'fake-k\u00e9y' },
    request: call(...GET_TASK),
    expect: refused('usage'),
  }),
  c('credential-apikey/header-non-ascii', 'apiKey in a header: a value outside ASCII (é) is refused (usage).', {
    agent: 'key-header',
    env: { ...TOKENS, API_KEY: 'fake-k\u00e9y' },
    request: call(...GET_TASK),
    expect: refused('usage'),
  }),
  c('credential-apikey/header-trailing-space', 'apiKey in a header: a trailing space is refused (usage).', {
    agent: 'key-header',
    env: { ...TOKENS, API_KEY: 'fake-api-key ' },
    request: call(...GET_TASK),
    expect: refused('usage'),
  }),
  c(
    'credential-apikey/query-non-ascii',
    'apiKey in the query: a value outside ASCII is sent percent-encoded (UTF-8), as the query carries it.',
    {
      agent: 'key-query',
      env: { ...TOKENS, API_KEY: 'fake-k\u00e9y' },
      request: call(...GET_TASK),
      expect: sent(got(`${RPC_PATH}?api_key=fake-k%C3%A9y`, {})),
    },
  ),
];

const credentialSources = [
  c(
    'credential-sources/provider-wins',
    "A credentials provider for the agent and scheme wins over the manifest's variable.",
    {
      options: { credentials: { rpc: { bearer: 'fake-provided-token' } } },
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, { authorization: 'Bearer fake-provided-token' })),
    },
  ),
  c('credential-sources/provider-without-env', 'A provider alone is enough: no variable needed.', {
    env: {},
    options: { credentials: { rpc: { bearer: 'fake-provided-token' } } },
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, { authorization: 'Bearer fake-provided-token' })),
  }),
  c(
    'credential-sources/provider-empty',
    'A provider returning an empty value is credential-unset (no fallback to the manifest).',
    {
      options: { credentials: { rpc: { bearer: '' } } },
      request: call(...GET_TASK),
      expect: refused('credential-unset'),
    },
  ),
  c(
    'credential-sources/provider-other-agent',
    "Another agent's provider does not serve this agent: the manifest's variable does.",
    {
      options: { credentials: { rest: { bearer: 'fake-rest-provided' } } },
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, RPC_AUTH)),
    },
  ),
  c(
    'credential-sources/provider-other-scheme',
    "A provider for a scheme the plan does not lock is not asked: the manifest's variable is read.",
    {
      options: { credentials: { rpc: { other: 'fake-other' } } },
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, RPC_AUTH)),
    },
  ),
  c(
    'credential-sources/provider-unknown-agent',
    'A credentials option naming an agent the lockfile does not hold is refused (usage), nothing sent.',
    {
      options: { credentials: { nobody: { bearer: 'x' } } },
      request: call(...GET_TASK),
      expect: refused('usage'),
    },
  ),
  c('credential-sources/function', 'One credentials function answers every agent and scheme.', {
    env: {},
    options: { credentialsFunction: 'fake-function-token' },
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, { authorization: 'Bearer fake-function-token' })),
  }),
  c(
    'credential-sources/function-wins-over-env',
    'A credentials function wins over the manifest (which is then not read).',
    {
      options: { credentialsFunction: 'fake-function-token' },
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, { authorization: 'Bearer fake-function-token' })),
    },
  ),
  c('credential-sources/function-empty', 'A credentials function returning nothing is credential-unset.', {
    options: { credentialsFunction: '' },
    request: call(...GET_TASK),
    expect: refused('credential-unset'),
  }),
  c('credential-sources/function-api-key-query', 'A credentials function for an apiKey in the query.', {
    agent: 'key-query',
    env: {},
    options: { credentialsFunction: 'fake-function-key' },
    request: call(...GET_TASK),
    expect: sent(got(`${RPC_PATH}?api_key=fake-function-key`, {})),
  }),
  c(
    'credential-sources/function-asked-with-request',
    'A credentials function is asked with the agent, skill, scheme, scopes and origin of the request.',
    {
      agent: 'key-header',
      env: {},
      options: { credentialsFunction: 'fake|{agent}|{skill}|{scheme}|{scopes}|{origin}' },
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, { 'x-api-key': `fake|key-header|market-size|key||${R}` })),
    },
  ),
  c(
    'credential-sources/provider-asked-with-scopes',
    "A provider for an oauth2 scheme is asked with the locked requirement's scopes (no token is requested).",
    {
      agent: 'oauth',
      env: {},
      options: { credentials: { oauth: { oauth: 'fake|{skill}|{scheme}|{scopes}' } } },
      skill: 'summarize',
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, { authorization: 'Bearer fake|summarize|oauth|a2a.read' })),
    },
  ),
  c(
    'credential-sources/no-manifest-no-source',
    'Without a manifest and without a provider, no source names the credential: credential-unset.',
    {
      manifest: null,
      request: call(...GET_TASK),
      expect: refused('credential-unset'),
    },
  ),
  c('credential-sources/no-manifest-provider', 'Without a manifest, a provider gives the credential.', {
    manifest: null,
    options: { credentials: { rpc: { bearer: 'fake-provided-token' } } },
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, { authorization: 'Bearer fake-provided-token' })),
  }),
  c('credential-sources/provider-cookie', 'A provider for an apiKey cookie.', {
    agent: 'key-cookie',
    options: { credentials: { 'key-cookie': { key: 'fake-provided-key' } } },
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, { cookie: 'session=fake-provided-key' })),
  }),
];

const tokenRequest = (extra = {}) =>
  got(
    '/oauth/token',
    { authorization: `Basic ${Buffer.from('fake-client:fake-client-secret').toString('base64')}` },
    {
      form: { grant_type: 'client_credentials', scope: 'a2a.read' },
      ...extra,
    },
  );
const withToken = (token = 'fake-access-token') =>
  got(RPC_PATH, { authorization: `Bearer ${token}`, 'a2a-version': '1.0' });
const credentialOauth2 = [
  c(
    'credential-oauth2/basic-client-auth',
    'OAuth2 client credentials: the token is requested from the locked tokenUrl (Basic client auth, the locked scope), then sent as a bearer.',
    {
      agent: 'oauth',
      responses: [TOKEN_ANSWER],
      request: call(...GET_TASK),
      expect: sent(tokenRequest(), withToken()),
    },
  ),
  c(
    'credential-oauth2/form-client-auth',
    'OAuth2 client credentials with form client authentication: id and secret in the form, no Authorization.',
    {
      agent: 'oauth-form',
      responses: [TOKEN_ANSWER],
      request: call(...GET_TASK),
      expect: sent(
        got(
          '/oauth/token',
          { authorization: null },
          {
            form: {
              grant_type: 'client_credentials',
              scope: 'a2a.read',
              client_id: 'fake-client',
              client_secret: 'fake-client-secret',
            },
          },
        ),
        withToken(),
      ),
    },
  ),
  c(
    'credential-oauth2/renew-once-on-401',
    'The agent answers 401: the token is renewed once and the call sent again.',
    {
      agent: 'oauth',
      responses: [
        TOKEN_ANSWER,
        { path: RPC_PATH, status: 401 },
        { ...TOKEN_ANSWER, body: { ...ACCESS, access_token: 'fake-access-token-2' } },
      ],
      request: call(...GET_TASK),
      expect: sent(tokenRequest(), withToken(), tokenRequest(), withToken('fake-access-token-2')),
    },
  ),
  c('credential-oauth2/second-401-returned', 'A second 401 is the answer: no third attempt.', {
    agent: 'oauth',
    responses: [
      TOKEN_ANSWER,
      { path: RPC_PATH, status: 401 },
      { ...TOKEN_ANSWER, body: { ...ACCESS, access_token: 'fake-access-token-2' } },
      { path: RPC_PATH, status: 401 },
    ],
    request: call(...GET_TASK),
    expect: sent(tokenRequest(), withToken(), tokenRequest(), withToken('fake-access-token-2')),
  }),
  c('credential-oauth2/token-refused', 'The token endpoint answers 401: auth-refused, the agent receives nothing.', {
    agent: 'oauth',
    responses: [{ path: '/oauth/token', status: 401, headers: JSON_HEADERS, body: { error: 'invalid_client' } }],
    request: call(...GET_TASK),
    expect: refused('auth-refused', tokenRequest()),
  }),
  c(
    'credential-oauth2/token-redirect-not-followed',
    'The token endpoint redirects: never followed (the secret goes to the locked tokenUrl only).',
    {
      agent: 'oauth',
      responses: [to(307, `${O}/oauth/token`, { path: '/oauth/token' })],
      request: call(...GET_TASK),
      expect: refused('unreachable', tokenRequest()),
    },
  ),
  c(
    'credential-oauth2/token-without-access-token',
    'A token answer without access_token: unreachable, the agent receives nothing.',
    {
      agent: 'oauth',
      responses: [{ path: '/oauth/token', status: 200, headers: JSON_HEADERS, body: { token_type: 'Bearer' } }],
      request: call(...GET_TASK),
      expect: refused('unreachable', tokenRequest()),
    },
  ),
  c('credential-oauth2/token-not-bearer', 'A token of another type than Bearer is refused.', {
    agent: 'oauth',
    responses: [{ path: '/oauth/token', status: 200, headers: JSON_HEADERS, body: { ...ACCESS, token_type: 'mac' } }],
    request: call(...GET_TASK),
    expect: refused('unreachable', tokenRequest()),
  }),
  c(
    'credential-oauth2/token-error-echoes-secret',
    "The token endpoint refuses with the client secret (upper-cased) as its OAuth error and description: auth-refused, the message in the runtime's own words (no spelling of the secret).",
    {
      agent: 'oauth',
      responses: [
        {
          path: '/oauth/token',
          status: 401,
          headers: JSON_HEADERS,
          body: { error: 'FAKE-CLIENT-SECRET', error_description: 'bad secret FAKE-CLIENT-SECRET' },
        },
      ],
      request: call(...GET_TASK),
      expect: refused('auth-refused', tokenRequest()),
    },
  ),
  c(
    'credential-oauth2/token-type-echoes-secret',
    'The token endpoint answers the client secret (upper-cased) as the token_type: refused, the type not quoted.',
    {
      agent: 'oauth',
      responses: [
        {
          path: '/oauth/token',
          status: 200,
          headers: JSON_HEADERS,
          body: { ...ACCESS, token_type: 'FAKE-CLIENT-SECRET' },
        },
      ],
      request: call(...GET_TASK),
      expect: refused('unreachable', tokenRequest()),
    },
  ),
  c(
    'credential-oauth2/client-secret-unset',
    'The client secret variable unset: credential-unset, nothing sent anywhere.',
    {
      agent: 'oauth',
      env: without('CLIENT_SECRET'),
      request: call(...GET_TASK),
      expect: refused('credential-unset'),
    },
  ),
  c('credential-oauth2/client-id-unset', 'The client id variable unset: credential-unset, nothing sent anywhere.', {
    agent: 'oauth',
    env: without('CLIENT_ID'),
    request: call(...GET_TASK),
    expect: refused('credential-unset'),
  }),
  c('credential-oauth2/provider-wins', 'A credentials provider for the oauth scheme wins: no token request.', {
    agent: 'oauth',
    options: { credentials: { oauth: { oauth: 'fake-provided-access' } } },
    request: call(...GET_TASK),
    expect: sent(withToken('fake-provided-access')),
  }),
  c(
    'credential-oauth2/plan-violation-no-token-request',
    'A call off the plan is refused before any token is requested.',
    {
      agent: 'oauth',
      responses: [TOKEN_ANSWER],
      request: post(`${R}${RPC_PATH}`, rpc('SendStreamingMessage', { message: message() })),
      expect: refused(),
    },
  ),
  c(
    'credential-oauth2/token-non-ascii',
    'The token endpoint answers an access_token outside ASCII (ö): refused (usage), the agent receives nothing.',
    {
      agent: 'oauth',
      responses: [{ ...TOKEN_ANSWER, body: { ...ACCESS, access_token: 'fake-t\u00f6k-access' } }],
      request: call(...GET_TASK),
      expect: refused('usage', tokenRequest()),
    },
  ),
  c(
    'credential-oauth2/token-spaces',
    'The token endpoint answers an access_token with a leading and a trailing space: refused (usage), the agent receives nothing.',
    {
      agent: 'oauth',
      responses: [{ ...TOKEN_ANSWER, body: { ...ACCESS, access_token: ' fake-access-token ' } }],
      request: call(...GET_TASK),
      expect: refused('usage', tokenRequest()),
    },
  ),
  c(
    'credential-oauth2/token-holds-secret-hex',
    'The token endpoint answers the client secret hex-encoded as the access_token: refused, never sent to the agent.',
    {
      agent: 'oauth',
      responses: [
        { ...TOKEN_ANSWER, body: { ...ACCESS, access_token: Buffer.from('fake-client-secret').toString('hex') } },
      ],
      request: call(...GET_TASK),
      expect: refused('unreachable', tokenRequest()),
    },
  ),
  c(
    'credential-oauth2/token-holds-secret-shifted-base64',
    'The token endpoint answers an access_token holding the client secret base64-encoded after two other bytes: refused.',
    {
      agent: 'oauth',
      responses: [
        {
          ...TOKEN_ANSWER,
          body: { ...ACCESS, access_token: Buffer.from('xxfake-client-secretxx').toString('base64url') },
        },
      ],
      request: call(...GET_TASK),
      expect: refused('unreachable', tokenRequest()),
    },
  ),
];

const PLATFORM = { authorization: 'Bearer fake-platform-token', 'a2a-version': '1.0' };
const originAuth = [
  c(
    'origin-auth/bearer-from-env',
    "originAuth bearer: the platform token from the manifest's variable goes to its origin.",
    {
      fixture: 'platform',
      agent: 'gateway',
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, PLATFORM)),
    },
  ),
  c('origin-auth/header-from-env', 'originAuth header: the named header carries the platform key to its origin only.', {
    fixture: 'platform',
    agent: 'keyed',
    request: post(`${O}${RPC_PATH}`, rpc(...GET_TASK)),
    expect: sent(got(RPC_PATH, { 'x-platform-key': 'fake-platform-key', authorization: null }, { recorder: 'other' })),
  }),
  c('origin-auth/provider-wins', 'An originAuth provider wins over the variable.', {
    fixture: 'platform',
    agent: 'gateway',
    options: { originAuth: { [R]: 'fake-provided-platform' } },
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, { authorization: 'Bearer fake-provided-platform' })),
  }),
  c('origin-auth/provider-header', 'An originAuth provider for a header placement.', {
    fixture: 'platform',
    agent: 'keyed',
    options: { originAuth: { [O]: 'fake-provided-key' } },
    request: post(`${O}${RPC_PATH}`, rpc(...GET_TASK)),
    expect: sent(got(RPC_PATH, { 'x-platform-key': 'fake-provided-key' }, { recorder: 'other' })),
  }),
  c(
    'origin-auth/provider-unknown-origin',
    'An originAuth option naming an origin no agent records is refused (usage).',
    {
      fixture: 'platform',
      agent: 'gateway',
      options: { originAuth: { 'https://gateway.example': 'x' } },
      request: call(...GET_TASK),
      expect: refused('usage'),
    },
  ),
  c(
    'origin-auth/provider-trailing-slash',
    'An originAuth key with a trailing slash is not an origin the lockfile records (usage).',
    {
      fixture: 'platform',
      agent: 'gateway',
      options: { originAuth: { [`${R}/`]: 'x' } },
      request: call(...GET_TASK),
      expect: refused('usage'),
    },
  ),
  c('origin-auth/unset', 'The platform variable unset: credential-unset, nothing sent.', {
    fixture: 'platform',
    agent: 'gateway',
    env: without('PLATFORM_TOKEN'),
    request: call(...GET_TASK),
    expect: refused('credential-unset'),
  }),
  c('origin-auth/off-plan-refused', 'A call off the plan is refused before the platform credential is read.', {
    fixture: 'platform',
    agent: 'gateway',
    env: without('PLATFORM_TOKEN'),
    request: post(`${O}${RPC_PATH}`, rpc(...GET_TASK)),
    expect: refused(),
  }),
  c('origin-auth/redirect-same-origin', 'A same-plan redirect: each hop to the origin carries the platform token.', {
    fixture: 'platform',
    agent: 'gateway',
    responses: [to(307, RPC_PATH)],
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, PLATFORM), got(RPC_PATH, PLATFORM)),
  }),
  c(
    'origin-auth/redirect-other-origin',
    'A redirect to another origin is refused: the platform token never reaches it.',
    {
      fixture: 'platform',
      agent: 'gateway',
      responses: [to(307, `${O}${RPC_PATH}`)],
      request: call(...GET_TASK),
      expect: refused('plan-violation', got(RPC_PATH, PLATFORM)),
    },
  ),
  c('origin-auth/not-to-other-agents-origin', "The gateway agent's client refuses the keyed agent's origin.", {
    fixture: 'platform',
    agent: 'gateway',
    request: post(`${O}${RPC_PATH}`, rpc(...GET_TASK)),
    expect: refused(),
  }),
  c(
    'origin-auth/collides-with-agent-credential',
    "A platform bearer would replace the agent's own bearer (both Authorization): refused (usage), nothing sent.",
    {
      fixture: 'platform',
      agent: 'both',
      request: call(...GET_TASK),
      expect: refused('usage'),
    },
  ),
  c(
    'origin-auth/collides-with-caller-header',
    "A platform bearer never replaces the caller's own Authorization header: refused (usage), nothing sent.",
    {
      fixture: 'platform',
      agent: 'gateway',
      request: call(...GET_TASK, { ...JSON_HEADERS, Authorization: 'Bearer caller-token' }),
      expect: refused('usage'),
    },
  ),
  c(
    'origin-auth/header-beside-caller-authorization',
    "A platform header placement goes beside the caller's own Authorization.",
    {
      fixture: 'platform',
      agent: 'keyed',
      request: post(`${O}${RPC_PATH}`, rpc(...GET_TASK), { ...JSON_HEADERS, Authorization: 'Bearer caller-token' }),
      expect: sent(
        got(
          RPC_PATH,
          { 'x-platform-key': 'fake-platform-key', authorization: 'Bearer caller-token' },
          { recorder: 'other' },
        ),
      ),
    },
  ),
  c('origin-auth/plan-checks-still-apply', 'originAuth changes no plan check: streaming on a poll plan is refused.', {
    fixture: 'platform',
    agent: 'gateway',
    request: post(`${R}${RPC_PATH}`, rpc('SendStreamingMessage', { message: message() })),
    expect: refused(),
  }),
  c(
    'origin-auth/bearer-non-ascii',
    'An originAuth bearer outside ASCII (ö) is refused (usage), nothing sent: a header cannot carry it as it is.',
    {
      fixture: 'platform',
      agent: 'gateway',
      env: { ...TOKENS, PLATFORM_TOKEN: 'fake-platf\u00f6rm-token' },
      request: call(...GET_TASK),
      expect: refused('usage'),
    },
  ),
  c('origin-auth/header-emoji', 'An originAuth header value with an emoji is refused (usage), nothing sent.', {
    fixture: 'platform',
    agent: 'keyed',
    options: { originAuth: { [O]: 'fake-\u{1f600}-key' } },
    request: post(`${O}${RPC_PATH}`, rpc(...GET_TASK)),
    expect: refused('usage'),
  }),
];

const cleartext = [
  c(
    'cleartext/bearer-refused',
    'A credential never goes over plain http to a host that is not loopback, though the lockfile allows http: refused, nothing sent.',
    {
      agent: 'cleartext',
      request: post('http://agent.example:8080/a2a/jsonrpc', rpc(...GET_TASK)),
      expect: refused(),
    },
  ),
  c('cleartext/send-refused', 'A SendMessage there is refused too.', {
    agent: 'cleartext',
    request: post('http://agent.example:8080/a2a/jsonrpc', sendBody([{ text: 'hi' }])),
    expect: refused(),
  }),
  c('cleartext/provider-refused', 'A credential from a provider is refused there as well.', {
    agent: 'cleartext',
    options: { credentials: { cleartext: { bearer: 'fake-provided-token' } } },
    request: post('http://agent.example:8080/a2a/jsonrpc', rpc(...GET_TASK)),
    expect: refused(),
  }),
  c('cleartext/other-skill-refused', 'Every skill of the agent is refused.', {
    agent: 'cleartext',
    skill: 'summarize',
    request: post('http://agent.example:8080/a2a/jsonrpc', rpc(...GET_TASK)),
    expect: refused(),
  }),
  c('cleartext/unset-refused', 'With the credential unset, still nothing is sent.', {
    agent: 'cleartext',
    env: {},
    request: post('http://agent.example:8080/a2a/jsonrpc', rpc(...GET_TASK)),
    expect: refused(),
  }),
  c('cleartext/loopback-allowed', 'Plain http to loopback carries the credential.', {
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  ...cleartextWithoutAllowHttp(),
];

/**
 * Plain http off loopback without the agent's `allowHttp`: the snapshot no longer negotiates (plain-http), so the
 * lockfile is out of date, whether or not the plan carries a credential (the open agent carries none).
 */
function cleartextWithoutAllowHttp() {
  /** The open agent's card and agent-level plan moved to `url` (the integrity is recomputed by the runner). */
  const openAt = (url) => ({
    lockfile: [
      { op: 'replace', path: '/agents/open/snapshot/supportedInterfaces/0/url', value: url },
      { op: 'replace', path: '/agents/open/plans/*/url', value: url },
    ],
  });
  const open = (id, description, url) =>
    c(id, description, {
      agent: 'open',
      skill: null,
      patch: openAt(url),
      request: post(url, rpc(...GET_TASK)),
      expect: refused('lockfile-out-of-date'),
    });
  return [
    open(
      'cleartext/no-allow-http-refused-at-load',
      'A plan on plain http to a host that is not loopback, without "allowHttp" in its settings: the snapshot no longer negotiates (plain-http), lockfile-out-of-date, though the plan carries no credential; nothing sent.',
      'http://agent.example:8080/a2a/jsonrpc',
    ),
    open(
      'cleartext/no-allow-http-bind-address',
      'A plan on the bind address http://0.0.0.0 without "allowHttp": not loopback, lockfile-out-of-date; nothing sent.',
      'http://0.0.0.0:{{port}}/a2a/jsonrpc',
    ),
    open(
      'cleartext/no-allow-http-ipv6-bind-address',
      'A plan on the IPv6 bind address http://[::] without "allowHttp": not loopback, lockfile-out-of-date; nothing sent.',
      'http://[::]:{{port}}/a2a/jsonrpc',
    ),
    c(
      'cleartext/no-allow-http-bearer-refused-at-load',
      'The cleartext agent with "allowHttp" removed from its settings and manifest: lockfile-out-of-date before any credential is read; nothing sent.',
      {
        agent: 'cleartext',
        patch: {
          lockfile: [{ op: 'remove', path: '/settings/cleartext/allowHttp' }],
          manifest: [{ op: 'remove', path: '/agents/cleartext/allowHttp' }],
        },
        request: post(CLEARTEXT, rpc(...GET_TASK)),
        expect: refused('lockfile-out-of-date'),
      },
    ),
    c(
      'cleartext/no-allow-http-fallback-interface',
      'A locked fallback interface on plain http to a host that is not loopback, without "allowHttp": negotiation never offers it, so the plan is out of date; nothing sent, even to the loopback interface.',
      {
        agent: 'stream',
        patch: {
          lockfile: [
            {
              op: 'replace',
              path: '/agents/stream/snapshot/supportedInterfaces/1/url',
              value: 'http://agent.example:8080/a2a/rest',
            },
            ...['market-size', 'summarize'].map((skill) => ({
              op: 'replace',
              path: `/agents/stream/plans/${skill}/fallbacks/interfaces/0/url`,
              value: 'http://agent.example:8080/a2a/rest',
            })),
          ],
        },
        request: call(...GET_TASK),
        expect: refused('lockfile-out-of-date'),
      },
    ),
    c(
      'cleartext/no-allow-http-push-endpoint',
      'A push plan whose push endpoint is plain http to a host that is not loopback, without "allowHttp": the snapshot no longer negotiates (plain-http); nothing sent.',
      {
        agent: 'push',
        patch: {
          lockfile: [{ op: 'replace', path: '/settings/push/pushEndpoint', value: 'http://hooks.example:8080/a2a' }],
          manifest: [
            { op: 'replace', path: '/agents/push/profile/pushEndpoint', value: 'http://hooks.example:8080/a2a' },
          ],
        },
        request: call(...GET_TASK),
        expect: refused('lockfile-out-of-date'),
      },
    ),
  ];
}

const fallbacks = [
  c(
    'fallbacks/fallback-interface-not-on-fetch',
    "The enforcing client is the plan's interface: a locked fallback interface is the client factory's, refused here.",
    {
      request: post(`${REST_BASE}/message:send`, { message: message() }),
      expect: refused(),
    },
  ),
  c('fallbacks/stream-fallback-interface', "A stream plan's fallback interface is refused on the enforcing client.", {
    agent: 'stream',
    request: get(`${REST_BASE}/tasks/t-1`),
    expect: refused(),
  }),
  c('fallbacks/poll-fallback-delivery', 'A stream plan locks poll as its fallback delivery: SendMessage is sent.', {
    agent: 'stream',
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }])),
    expect: sent(got(RPC_PATH, OPEN)),
  }),
  c('fallbacks/push-poll-fallback', 'A push plan locks poll as its fallback delivery: GetTask is sent.', {
    agent: 'push',
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, OPEN)),
  }),
  c(
    'fallbacks/agent-5xx-returned',
    "The agent's 503 is the answer: the enforcing client retries nothing and goes nowhere else.",
    {
      responses: [{ status: 503 }],
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, RPC_AUTH)),
    },
  ),
  c('fallbacks/agent-401-no-retry', 'A 401 for a bearer from the environment is the answer: no retry.', {
    responses: [{ status: 401 }],
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('fallbacks/unknown-skill', 'A skill the lockfile does not lock is refused (usage).', {
    skill: 'translate',
    request: call(...GET_TASK),
    expect: refused('usage'),
  }),
  c('fallbacks/unknown-agent', 'An agent the lockfile does not hold is refused (usage).', {
    agent: 'nobody',
    request: call(...GET_TASK),
    expect: refused('usage'),
  }),
  c('fallbacks/agent-level-plan', 'An agent locked without skills has the agent-level plan "*".', {
    agent: 'open',
    skill: null,
    request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }])),
    expect: sent(got(RPC_PATH, OPEN, { body: filled(['application/json', 'text/plain']) })),
  }),
  c(
    'fallbacks/skill-on-agent-level-plan',
    'An agent locked without skills has no skill plans: a named skill is refused (usage).',
    {
      agent: 'open',
      request: call(...GET_TASK),
      expect: refused('usage'),
    },
  ),
];

const CARD = `${R}/.well-known/agent-card.json`;
const served = (response) => ({ verdict: 'served', requests: [], response });
const V1 = { 'A2A-Version': '1.0' };
/** The narrowed 1.0 card of the main fixture's rpc agent, skill market-size: what must hold of it. */
const RPC_CARD = {
  name: 'Conformance Agent',
  supportedInterfaces: [
    { url: `${R}${RPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: `${R}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  capabilities: { extensions: [{ uri: CITATIONS }, { uri: TRACE }] },
  skills: [{ id: 'market-size', outputModes: ['application/json', 'text/plain'] }],
};
const JSON_ANSWER = { 'content-type': 'application/json' };
const cardCases = [
  c(
    'card/well-known-served',
    'A GET of the well-known card URL on a locked origin is answered from the lockfile: the card narrowed to the plan, nothing sent.',
    {
      request: get(CARD, V1),
      expect: served({ status: 200, headers: JSON_ANSWER, body: RPC_CARD }),
    },
  ),
  c(
    'card/no-version-is-0-3-shape',
    'Without A2A-Version the card is answered in the 0.3 shape, on the locked interface.',
    {
      request: get(CARD),
      expect: served({
        status: 200,
        body: { name: 'Conformance Agent', url: `${R}${RPC_PATH}`, preferredTransport: 'JSONRPC' },
      }),
    },
  ),
  c('card/legacy-path-served', 'The 0.3 well-known path (agent.json) is answered too.', {
    request: get(`${R}/.well-known/agent.json`, V1),
    expect: served({ status: 200, body: RPC_CARD }),
  }),
  c('card/query-ignored', 'A query on the card URL is ignored.', {
    request: get(`${CARD}?refresh=1`, V1),
    expect: served({ status: 200, body: { name: 'Conformance Agent' } }),
  }),
  c('card/head-served', 'A HEAD of the card URL is answered from the lockfile too.', {
    request: { method: 'HEAD', url: CARD, headers: V1 },
    expect: served({ status: 200, headers: JSON_ANSWER }),
  }),
  c('card/other-skill-narrowed', 'The card is narrowed to the skill of the client: summarize only.', {
    skill: 'summarize',
    request: get(CARD, V1),
    expect: served({ status: 200, body: { skills: [{ id: 'summarize', outputModes: ['text/plain'] }] } }),
  }),
  c('card/no-credential-needed', 'Answering the card reads no credential: served with the environment empty.', {
    env: {},
    request: get(CARD, V1),
    expect: served({ status: 200, body: { name: 'Conformance Agent' } }),
  }),
  c(
    'card/other-origin-refused',
    'The card URL of an origin the plan does not name is not answered, nor sent: refused.',
    {
      request: get(`${O}/.well-known/agent-card.json`, V1),
      expect: refused(),
    },
  ),
  c('card/post-refused', 'A POST to the card URL is not a card request: refused (not the interface).', {
    request: post(CARD, {}),
    expect: refused(),
  }),
  c('card/other-well-known-refused', 'Another well-known path is not the card: refused.', {
    request: get(`${R}/.well-known/openid-configuration`, V1),
    expect: refused(),
  }),
  c(
    'card/rest-agent-served',
    'HTTP+JSON plan: the well-known card on its origin is answered, though not below the interface.',
    {
      agent: 'rest',
      request: get(CARD, V1),
      expect: served({
        status: 200,
        body: { supportedInterfaces: [{ url: `${R}/a2a/rest`, protocolBinding: 'HTTP+JSON' }] },
      }),
    },
  ),
  c(
    'card/cleartext-origin-served',
    'A plain-http origin off loopback: the card is answered from the lockfile, nothing goes on the network.',
    {
      agent: 'cleartext',
      request: get('http://agent.example:8080/.well-known/agent-card.json', V1),
      expect: served({ status: 200, body: { name: 'Conformance Agent' } }),
    },
  ),
  c('card/origin-auth-not-needed', 'Behind originAuth: the card is answered without the platform credential.', {
    fixture: 'platform',
    agent: 'gateway',
    env: without('PLATFORM_TOKEN'),
    request: get(CARD, V1),
    expect: served({ status: 200, body: { name: 'Conformance Agent' } }),
  }),
];

const WRONG = 'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
const lockfile = [
  c(
    'lockfile/integrity-mismatch',
    'A snapshot that does not match its integrity is refused (lockfile-invalid), nothing sent.',
    {
      patch: { lockfile: [{ op: 'replace', path: '/agents/rpc/integrity', value: WRONG }] },
      request: call(...GET_TASK),
      expect: refused('lockfile-invalid'),
    },
  ),
  c('lockfile/snapshot-tampered', 'A snapshot edited after locking (its integrity kept) is refused.', {
    patch: {
      lockfile: [
        { op: 'replace', path: '/agents/rpc/integrity', value: WRONG },
        { op: 'replace', path: '/agents/rpc/snapshot/name', value: 'Tampered' },
      ],
    },
    request: call(...GET_TASK),
    expect: refused('lockfile-invalid'),
  }),
  c('lockfile/integrity-not-sri', 'An integrity that is not sha256-<base64> is refused.', {
    patch: { lockfile: [{ op: 'replace', path: '/agents/rpc/integrity', value: 'md5-abc' }] },
    request: call(...GET_TASK),
    expect: refused('lockfile-invalid'),
  }),
  c('lockfile/version-2', 'A lockfileVersion this runtime does not read is refused.', {
    patch: { lockfile: [{ op: 'replace', path: '/lockfileVersion', value: 2 }] },
    request: call(...GET_TASK),
    expect: refused('lockfile-invalid'),
  }),
  c('lockfile/not-json', 'A lockfile that is not JSON is refused.', {
    lockfile: '{ "lockfileVersion": 1, ',
    manifest: null,
    request: call(...GET_TASK),
    expect: refused('lockfile-invalid'),
  }),
  c('lockfile/empty-file', 'An empty lockfile is refused.', {
    lockfile: '',
    manifest: null,
    request: call(...GET_TASK),
    expect: refused('lockfile-invalid'),
  }),
  c('lockfile/merge-conflict', 'A lockfile with merge-conflict markers is refused.', {
    lockfile: '<<<<<<< HEAD\n{"lockfileVersion": 1}\n=======\n{"lockfileVersion": 1}\n>>>>>>> branch\n',
    manifest: null,
    request: call(...GET_TASK),
    expect: refused('lockfile-invalid'),
  }),
  c('lockfile/not-an-object', 'A lockfile whose JSON is an array is refused.', {
    lockfile: '[]',
    manifest: null,
    request: call(...GET_TASK),
    expect: refused('lockfile-invalid'),
  }),
  c(
    'lockfile/plan-url-moved',
    'A plan edited to another URL (integrity recomputed) is not what the snapshot negotiates: refused before anything is sent.',
    {
      patch: { lockfile: [{ op: 'replace', path: '/agents/rpc/plans/market-size/url', value: `${O}${RPC_PATH}` }] },
      request: post(`${O}${RPC_PATH}`, rpc(...GET_TASK)),
      expect: refused('lockfile-out-of-date'),
    },
  ),
  c('lockfile/plan-output-mode-added', 'A plan edited to accept application/pdf is refused.', {
    patch: {
      lockfile: [{ op: 'add', path: '/agents/rpc/plans/market-size/acceptedOutputModes/-', value: 'application/pdf' }],
    },
    request: call(...GET_TASK),
    expect: refused('lockfile-out-of-date'),
  }),
  c('lockfile/plan-delivery-edited', 'A plan edited from poll to stream is refused.', {
    patch: { lockfile: [{ op: 'replace', path: '/agents/rpc/plans/market-size/delivery', value: 'stream' }] },
    request: post(`${R}${RPC_PATH}`, rpc('SendStreamingMessage', { message: message() })),
    expect: refused('lockfile-out-of-date'),
  }),
  c('lockfile/plan-extension-added', 'A plan edited to activate an extension the profile does not list is refused.', {
    patch: { lockfile: [{ op: 'add', path: '/agents/rpc/plans/market-size/extensions/-', value: UNLOCKED_EXT }] },
    request: call(...GET_TASK),
    expect: refused('lockfile-out-of-date'),
  }),
  c('lockfile/plan-security-removed', 'A plan edited to drop its security requirement is refused.', {
    patch: { lockfile: [{ op: 'replace', path: '/agents/rpc/plans/market-size/security', value: {} }] },
    request: call(...GET_TASK),
    expect: refused('lockfile-out-of-date'),
  }),
  c(
    'lockfile/snapshot-edited-consistently',
    'A snapshot edited and rehashed so the plan no longer follows from it is refused.',
    {
      patch: {
        lockfile: [{ op: 'replace', path: '/agents/rpc/snapshot/supportedInterfaces/0/url', value: `${O}${RPC_PATH}` }],
      },
      request: call(...GET_TASK),
      expect: refused('lockfile-out-of-date'),
    },
  ),
  c('lockfile/settings-missing', 'An agent without settings is refused.', {
    patch: { lockfile: [{ op: 'remove', path: '/settings/rpc' }] },
    manifest: null,
    request: call(...GET_TASK),
    expect: refused('lockfile-invalid'),
  }),
  c('lockfile/plans-missing', 'An entry without plans is refused.', {
    patch: { lockfile: [{ op: 'remove', path: '/agents/rpc/plans' }] },
    manifest: null,
    request: call(...GET_TASK),
    expect: refused('lockfile-invalid'),
  }),
  c('lockfile/manifest-skill-added', 'The manifest lists a skill the lockfile does not lock: lockfile-out-of-date.', {
    patch: { manifest: [{ op: 'add', path: '/agents/rpc/skills/-', value: 'translate' }] },
    request: call(...GET_TASK),
    expect: refused('lockfile-out-of-date'),
  }),
  c('lockfile/manifest-card-changed', 'The manifest names another card for the agent: lockfile-out-of-date.', {
    patch: { manifest: [{ op: 'replace', path: '/agents/rpc/card', value: 'cards/other.json' }] },
    request: call(...GET_TASK),
    expect: refused('lockfile-out-of-date'),
  }),
  c(
    'lockfile/manifest-profile-changed',
    'The manifest accepts another output mode than the lockfile recorded: lockfile-out-of-date.',
    {
      patch: { manifest: [{ op: 'add', path: '/profile/accepts/-', value: 'application/pdf' }] },
      request: call(...GET_TASK),
      expect: refused('lockfile-out-of-date'),
    },
  ),
  c(
    'lockfile/manifest-credential-scheme-dropped',
    'The manifest no longer holds the credential the plan was locked with: lockfile-out-of-date.',
    {
      patch: { manifest: [{ op: 'remove', path: '/agents/rpc/credentials/bearer' }] },
      request: call(...GET_TASK),
      expect: refused('lockfile-out-of-date'),
    },
  ),
  c(
    'lockfile/manifest-other-agent-out-of-step',
    "The manifest out of step for another agent only: this agent's calls are sent.",
    {
      patch: { manifest: [{ op: 'add', path: '/agents/rest/skills/-', value: 'translate' }] },
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, RPC_AUTH)),
    },
  ),
  c(
    'lockfile/manifest-schema-invalid',
    'A manifest that is JSON but not a valid manifest refuses every agent (manifest-invalid).',
    {
      patch: { manifest: [{ op: 'add', path: '/agnets', value: {} }] },
      request: call(...GET_TASK),
      expect: refused('manifest-invalid'),
    },
  ),
  c(
    'lockfile/manifest-destination-plain-http',
    'A manifest whose credentialDestinations names plain http to a host that is not loopback is invalid (manifest-invalid): a credential never crosses the network in cleartext.',
    {
      patch: { manifest: [{ op: 'add', path: '/credentialDestinations', value: ['http://agents.example.com'] }] },
      request: call(...GET_TASK),
      expect: refused('manifest-invalid'),
    },
  ),
  c(
    'lockfile/manifest-destination-not-origin',
    'A manifest whose credentialDestinations entry is not an origin as a URL parser prints it (here the default port written out) is invalid (manifest-invalid), though the JSON Schema pattern matches it.',
    {
      patch: { manifest: [{ op: 'add', path: '/credentialDestinations', value: ['https://agents.example.com:443'] }] },
      request: call(...GET_TASK),
      expect: refused('manifest-invalid'),
    },
  ),
  c(
    'lockfile/manifest-origin-auth-plain-http',
    'A manifest whose originAuth names plain http to a host that is not loopback is invalid (manifest-invalid): a platform credential is never sent in cleartext.',
    {
      patch: {
        manifest: [
          {
            op: 'add',
            path: '/originAuth',
            value: { 'http://platform.example.com': { bearer: { env: 'PLATFORM_TOKEN' } } },
          },
        ],
      },
      request: call(...GET_TASK),
      expect: refused('manifest-invalid'),
    },
  ),
  c(
    'lockfile/manifest-origin-auth-not-origin',
    'A manifest whose originAuth key is not an origin as a URL parser prints it (here an upper-case host) is invalid (manifest-invalid), though the JSON Schema pattern matches it.',
    {
      patch: {
        manifest: [
          {
            op: 'add',
            path: '/originAuth',
            value: { 'https://Platform.example.com': { bearer: { env: 'PLATFORM_TOKEN' } } },
          },
        ],
      },
      request: call(...GET_TASK),
      expect: refused('manifest-invalid'),
    },
  ),
  c(
    'lockfile/manifest-binding-not-canonical',
    "A manifest naming a core binding in another spelling (jsonrpc, not JSONRPC), in another agent's profile, is invalid and refuses every agent (manifest-invalid).",
    {
      patch: { manifest: [{ op: 'add', path: '/agents/stream/profile/bindings', value: ['jsonrpc'] }] },
      request: call(...GET_TASK),
      expect: refused('manifest-invalid'),
    },
  ),
  c(
    'lockfile/manifest-media-type-line-break',
    "A manifest media type whose parameters hold a line terminator (U+2028), in another agent's profile, is not a media type (manifest-invalid): the JSON Schema's pattern is an ECMAScript regular expression, whose `.` matches no line terminator.",
    {
      patch: {
        manifest: [{ op: 'add', path: '/agents/stream/profile/accepts', value: ['text/plain; charset=utf-8\u2028'] }],
      },
      request: call(...GET_TASK),
      expect: refused('manifest-invalid'),
    },
  ),
  c(
    'lockfile/manifest-media-type-unicode-space',
    "A manifest media type with a no-break space (U+00A0) before its parameters, in another agent's profile, is a media type (an ECMAScript `\\s` matches it): only that agent is out of step, this agent's calls are sent.",
    {
      patch: {
        manifest: [{ op: 'add', path: '/agents/stream/profile/accepts', value: ['text/plain\u00a0; charset=utf-8'] }],
      },
      request: call(...GET_TASK),
      expect: sent(got(RPC_PATH, RPC_AUTH)),
    },
  ),
  c(
    'lockfile/manifest-card-path-not-path',
    "A manifest cardPath that is a URL, not a path, in another agent's entry, is invalid and refuses every agent (manifest-invalid).",
    {
      patch: {
        manifest: [{ op: 'add', path: '/agents/stream/cardPath', value: 'https://elsewhere.example/card.json' }],
      },
      request: call(...GET_TASK),
      expect: refused('manifest-invalid'),
    },
  ),
  c(
    'lockfile/manifest-skill-proto',
    "A manifest listing the skill id __proto__ (which cannot key the lockfile's plans), in another agent's entry, is invalid and refuses every agent (manifest-invalid).",
    {
      patch: { manifest: [{ op: 'add', path: '/agents/stream/skills/-', value: '__proto__' }] },
      request: call(...GET_TASK),
      expect: refused('manifest-invalid'),
    },
  ),
  c(
    'lockfile/manifest-push-endpoint-not-url',
    "A manifest pushEndpoint that is not an http(s) URL (ftp://), in another agent's profile, is invalid and refuses every agent (manifest-invalid): the JSON Schema's format is only a note.",
    {
      patch: {
        manifest: [{ op: 'add', path: '/agents/stream/profile/pushEndpoint', value: 'ftp://hooks.example.com/a2a' }],
      },
      request: call(...GET_TASK),
      expect: refused('manifest-invalid'),
    },
  ),
  c(
    'lockfile/manifest-push-endpoint-trimmed',
    'A manifest pushEndpoint written with white space around it is the URL trimmed (as the CLI locked it): the push plan is in step and its call is sent.',
    {
      agent: 'push',
      patch: { manifest: [{ op: 'replace', path: '/agents/push/profile/pushEndpoint', value: ` ${HOOK}\n` }] },
      request: post(`${R}${RPC_PATH}`, sendBody([{ text: 'hi' }], { configuration: pushConfig(HOOK) })),
      expect: sent(
        got(RPC_PATH, OPEN, { body: { params: { configuration: { taskPushNotificationConfig: { url: HOOK } } } } }),
      ),
    },
  ),
  c(
    'lockfile/entry-schema-invalid',
    'An entry whose plan is not a plan (delivery not a delivery) is refused (lockfile-invalid).',
    {
      patch: { lockfile: [{ op: 'replace', path: '/agents/rpc/plans/market-size/delivery', value: 'carrier-pigeon' }] },
      request: call(...GET_TASK),
      expect: refused('lockfile-invalid'),
    },
  ),
  c('lockfile/other-entry-schema-invalid', "Another agent's invalid entry does not refuse this agent's calls.", {
    patch: { lockfile: [{ op: 'replace', path: '/agents/rest/plans/market-size/delivery', value: 'carrier-pigeon' }] },
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('lockfile/manifest-not-json', 'A manifest beside the lockfile that is not JSON is refused (manifest-invalid).', {
    manifest: '{ "agents": ',
    request: call(...GET_TASK),
    expect: refused('manifest-invalid'),
  }),
  c('lockfile/no-manifest', 'Without a manifest the lockfile alone is enforced.', {
    manifest: null,
    options: { credentials: { rpc: { bearer: 'fake-provided-token' } } },
    request: post(`${R}${RPC_PATH}`, sendBody([{ raw: 'AAAA' }])),
    expect: refused(),
  }),
  c('lockfile/other-agent-tampered', "Another agent's tampered snapshot does not refuse this agent's calls.", {
    patch: { lockfile: [{ op: 'replace', path: '/agents/rest/integrity', value: WRONG }] },
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('lockfile/tampered-agent-refused', 'The tampered agent itself is refused.', {
    agent: 'rest',
    patch: { lockfile: [{ op: 'replace', path: '/agents/rest/integrity', value: WRONG }] },
    request: get(`${REST_BASE}/tasks/t-1`),
    expect: refused('lockfile-invalid'),
  }),
];

const digest = [
  c('digest/matching', "The lockfile's own digest is accepted.", {
    options: { expectDigest: '{{digest}}' },
    request: call(...GET_TASK),
    expect: sent(got(RPC_PATH, RPC_AUTH)),
  }),
  c('digest/mismatch', 'Another digest: digest-mismatch before anything is sent.', {
    options: { expectDigest: WRONG },
    request: call(...GET_TASK),
    expect: refused('digest-mismatch'),
  }),
  c('digest/not-a-digest', 'An expected digest not spelt sha256-<base64> is a usage error.', {
    options: { expectDigest: 'abc' },
    request: call(...GET_TASK),
    expect: refused('usage'),
  }),
  c(
    'digest/mismatch-before-lockfile-checks',
    'A digest mismatch is reported before the entry checks (a tampered entry).',
    {
      patch: { lockfile: [{ op: 'replace', path: '/agents/rpc/integrity', value: WRONG }] },
      options: { expectDigest: WRONG },
      request: call(...GET_TASK),
      expect: refused('digest-mismatch'),
    },
  ),
  c('digest/matching-but-tampered', 'A matching digest does not excuse a tampered snapshot: lockfile-invalid.', {
    patch: { lockfile: [{ op: 'replace', path: '/agents/rpc/integrity', value: WRONG }] },
    options: { expectDigest: '{{digest}}' },
    request: call(...GET_TASK),
    expect: refused('lockfile-invalid'),
  }),
  c('digest/matching-plan-still-enforced', 'A matching digest: the plan is still enforced.', {
    options: { expectDigest: '{{digest}}' },
    request: post(`${O}${RPC_PATH}`, rpc(...GET_TASK)),
    expect: refused(),
  }),
];

export const CASES = [
  ...interfaceUrl,
  ...a2aVersion,
  ...extensions,
  ...jsonrpcMethod,
  ...restRoute,
  ...delivery,
  ...push,
  ...inputModes,
  ...outputModes,
  ...redirects,
  ...credentialHttp,
  ...credentialApiKey,
  ...credentialSources,
  ...credentialOauth2,
  ...originAuth,
  ...cleartext,
  ...fallbacks,
  ...cardCases,
  ...lockfile,
  ...digest,
];
