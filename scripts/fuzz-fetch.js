// The enforcing-fetch fuzzer of `npm run fuzz` (dist/, build first): random bodies, methods, URLs
// and header forms sent through `LockedAgent.fetch` of plans locked against a real @a2a-js/sdk
// agent (JSON-RPC and HTTP+JSON, 1.0 and 0.3, poll, stream and push). The send fetch records
// what would go out and answers `{}` itself; each recorded request is then judged by an oracle
// written here from the A2A rules and what the SDK servers read (not from src/runtime/enforce.ts).
// Outcomes: `refused` (a PlanViolationError before anything was sent), `checked` (sent, and the
// oracle finds it on plan), `unchecked` (sent, and the oracle finds it off plan: the bug this
// fuzzer hunts), `crash` (any other error). The goal: 0 unchecked, 0 crash.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLock } from '../dist/commands/lock.js';
import { loadLock } from '../dist/runtime/index.js';
import { sampleCard, startAgent } from './agents.js';
import { prng } from './fuzz-cards.js';

const HOOK = 'https://hook.example/a2a';
const EXT = 'https://example.com/ext/citations/v1';
const METHODS = {
  '1.0': [
    'SendMessage',
    'SendStreamingMessage',
    'GetTask',
    'ListTasks',
    'CancelTask',
    'SubscribeToTask',
    'CreateTaskPushNotificationConfig',
    'GetTaskPushNotificationConfig',
    'ListTaskPushNotificationConfigs',
    'DeleteTaskPushNotificationConfig',
    'GetExtendedAgentCard',
  ],
  0.3: [
    'message/send',
    'message/stream',
    'tasks/get',
    'tasks/cancel',
    'tasks/resubscribe',
    'tasks/pushNotificationConfig/set',
    'tasks/pushNotificationConfig/get',
    'tasks/pushNotificationConfig/list',
    'tasks/pushNotificationConfig/delete',
    'agent/getAuthenticatedExtendedCard',
  ],
};
const STREAMING = new Set(['SendStreamingMessage', 'message/stream', 'SubscribeToTask', 'tasks/resubscribe']);
const PUSH_CREATE = new Set(['CreateTaskPushNotificationConfig', 'tasks/pushNotificationConfig/set']);
const SENDING = new Set(['SendMessage', 'message/send', 'SendStreamingMessage', 'message/stream']);
const PUSH_FIELDS = [
  'taskPushNotificationConfig',
  'task_push_notification_config',
  'pushNotificationConfig',
  'push_notification_config',
  'pushNotification',
  'push_notification',
];

/** Start the agent, lock the plans, and return the locked agents with the send recorder. */
async function setUp() {
  const card = (origin) => {
    const c = sampleCard(origin, {}, { legacy: true });
    c.supportedInterfaces.push({ url: `${origin}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' });
    c.capabilities = { ...c.capabilities, pushNotifications: true };
    return c;
  };
  const agent = await startAgent({ card, legacyCompat: true, bearerToken: 'fuzz-token' });
  const dir = await mkdtemp(join(tmpdir(), 'a2a-fuzz-fetch-'));
  const credentials = { bearer: { env: 'FUZZ_TOKEN' } };
  const base = { card: agent.origin, skills: ['market-size'], credentials };
  const agents = {
    rpc10poll: { ...base, profile: { bindings: ['JSONRPC'], versions: ['1.0'], streaming: false } },
    rpc10stream: { ...base, profile: { bindings: ['JSONRPC'], versions: ['1.0'], streaming: true } },
    rpc10push: { ...base, profile: { bindings: ['JSONRPC'], versions: ['1.0'], streaming: false, pushEndpoint: HOOK } },
    rest10: { ...base, profile: { bindings: ['HTTP+JSON'], versions: ['1.0'], streaming: true } },
    rpc03: { ...base, profile: { bindings: ['JSONRPC'], versions: ['0.3'], streaming: true } },
    rest03: { ...base, profile: { bindings: ['HTTP+JSON'], versions: ['0.3'], streaming: false } },
  };
  const manifest = {
    profile: {
      bindings: ['JSONRPC', 'HTTP+JSON'],
      versions: ['1.0', '0.3'],
      accepts: ['application/json', 'text/plain'],
      sends: ['text/plain'],
      streaming: true,
      pushEndpoint: null,
      extensions: [EXT],
    },
    agents,
  };
  await writeFile(join(dir, 'a2a.json'), JSON.stringify(manifest));
  const result = await runLock({ manifest: join(dir, 'a2a.json'), json: true, verbose: false, cwd: dir, env: {} });
  if (result.exitCode !== 0) throw new Error(`fuzz-fetch: lock failed: ${JSON.stringify(result.data).slice(0, 400)}`);
  const sent = [];
  const recording = async (input, init = {}) => {
    sent.push({ url: String(input), method: init.method ?? 'GET', headers: { ...init.headers }, body: init.body });
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const lock = await loadLock({
    lockfile: join(dir, 'a2a.lock.json'),
    env: { FUZZ_TOKEN: 'fuzz-token' },
    fetch: recording,
  });
  const locked = Object.keys(agents).map((name) => lock.agent(name, 'market-size'));
  return { agent, dir, sent, locked, lock, cardOrigin: agent.origin };
}

// ---------------------------------------------------------------------------------------------
// Generator

function generator(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const chance = (p) => random() < p;
  const caseVariant = (s) =>
    chance(0.7) ? s : chance(0.5) ? s.toLowerCase() : s.replace(/^./, (c) => c.toLowerCase());
  const mediaType = () =>
    pick([
      'text/plain',
      'application/json',
      'image/png',
      'TEXT/PLAIN',
      'text/plain; charset=utf-8',
      'application/octet-stream',
      '',
      undefined,
    ]);
  const part = () => {
    if (chance(0.6)) return { text: 'hello' };
    const p = {};
    const fields = pick([
      ['text'],
      ['data'],
      ['raw'],
      ['url'],
      ['file'],
      ['text', 'data'],
      ['data', 'text'],
      [],
      ['kind'],
    ]);
    for (const f of fields) {
      if (f === 'text') p.text = chance(0.2) ? null : 'hello';
      if (f === 'data') p.data = chance(0.2) ? null : { a: 1 };
      if (f === 'raw') p.raw = 'AAAA';
      if (f === 'url') p.url = 'https://x.example/f';
      if (f === 'file')
        p.file = chance(0.5)
          ? { fileWithUri: 'https://x.example/f', ...(chance(0.6) ? { mimeType: mediaType() } : {}) }
          : { uri: 'https://x.example/f', ...(chance(0.5) ? { mime_type: mediaType() } : {}) };
    }
    if (chance(0.3)) p.kind = pick(['text', 'data', 'file', 'image']);
    if (chance(0.3)) p[chance(0.5) ? 'mediaType' : 'media_type'] = mediaType();
    return p;
  };
  const parts = () => Array.from({ length: Math.floor(random() * 3) }, part);
  const message = () => {
    const m = { messageId: 'm1', role: pick(['ROLE_USER', 'user', 'agent']) };
    if (chance(0.85)) m.parts = parts();
    if (chance(0.25)) m.content = parts();
    if (chance(0.2)) m.extensions = [chance(0.6) ? EXT : pick(['https://evil.example/ext', 7])];
    return m;
  };
  const configuration = () => {
    const c = {};
    if (chance(0.3))
      c[pick(['acceptedOutputModes', 'accepted_output_modes'])] = chance(0.2)
        ? []
        : [pick(['application/json', 'text/plain', 'application/pdf', 'image/png'])];
    if (chance(0.2)) c[pick(PUSH_FIELDS)] = chance(0.2) ? null : { url: HOOK };
    if (chance(0.2)) c.blocking = true;
    return c;
  };
  const params = () => {
    const p = {};
    if (chance(0.7)) p[chance(0.8) ? 'message' : 'request'] = message();
    if (chance(0.15)) p[p.message ? 'request' : 'message'] = message();
    if (chance(0.4)) p.configuration = configuration();
    if (chance(0.2)) p.id = 'task-1';
    if (chance(0.05)) return pick([[message()], 'x', 3, null]);
    return p;
  };
  const rpcMethod = (version) => {
    const own = METHODS[version];
    const other = METHODS[version === '1.0' ? '0.3' : '1.0'];
    const m = chance(0.85)
      ? pick(own)
      : chance(0.5)
        ? pick(other)
        : pick([
            'sendStreamingMessage',
            'SENDMESSAGE',
            'message/Send',
            'tasks/send',
            '',
            'SendMessage ',
            'rpc.discover',
          ]);
    return chance(0.9)
      ? caseVariant(m) === m || chance(0.5)
        ? m
        : caseVariant(m)
      : pick([7, null, ['SendMessage'], { name: 'SendMessage' }]);
  };
  const rpcBody = (version) => {
    const call = () => {
      const c = { jsonrpc: '2.0', id: Math.floor(random() * 100) };
      if (chance(0.95)) c.method = rpcMethod(version);
      if (chance(0.9)) c.params = params();
      return c;
    };
    if (chance(0.08)) return Array.from({ length: Math.floor(random() * 3) }, call);
    if (chance(0.03)) return pick(['"SendMessage"', 'null', '42']);
    return call();
  };
  const restPath = () =>
    pick([
      '/message:send',
      '/message:stream',
      '/v1/message:send',
      '/v1/message:stream',
      '/tasks/t1',
      '/tasks/t1:cancel',
      '/tasks/t1:subscribe',
      '/v1/tasks/t1:subscribe',
      '/tasks/t1/pushNotificationConfigs',
      '/tasks/t1/pushNotificationConfigs/c1',
      '/MESSAGE:STREAM',
      '//message%3Astream',
      '/message:send/',
      '/message:send:stream',
      '/tenant-a/message:stream',
      '/extendedAgentCard',
      '/v1/card',
      '/message',
      '/tasks',
      '',
    ]);
  const url = (plan, origin) => {
    const roll = random();
    if (roll < 0.07) return `${origin.replace('127.0.0.1', '127.0.0.2')}/a2a/jsonrpc`;
    if (roll < 0.1) return plan.url.replace('//', '//user:pw@');
    if (roll < 0.13) return `${plan.url}?x=1`;
    if (roll < 0.15) return plan.url.replace('/a2a/', '/A2A/');
    if (roll < 0.17) return 'not a url';
    return plan.protocolBinding === 'HTTP+JSON' ? `${plan.url}${restPath()}` : plan.url;
  };
  const headers = (plan) => {
    const list = [];
    if (chance(0.3))
      list.push([
        pick(['A2A-Version', 'a2a-version', 'A2A-VERSION']),
        chance(0.6) ? plan.protocolVersion : pick([`${plan.protocolVersion}.0`, '0.3', '1.0', '2.0', ' 1.0 ', 'x']),
      ]);
    if (chance(0.25))
      list.push([
        pick(['A2A-Extensions', 'X-A2A-Extensions', 'a2a-extensions']),
        chance(0.6) ? EXT : pick([`${EXT}, https://evil.example/ext`, '', ' , ']),
      ]);
    if (chance(0.5))
      list.push(['Content-Type', pick(['application/json', 'text/plain', 'application/json; charset=utf-8'])]);
    if (chance(0.1)) list.push(['Authorization', 'Bearer someone-else']);
    const form = random();
    if (form < 0.3) return list;
    if (form < 0.6) return new Headers(list);
    const record = {};
    for (const [k, v] of list) record[k] = v;
    return record;
  };
  const bodyOf = (value) => {
    const text =
      typeof value === 'string' && /^[["\dn]/.test(value) && !value.startsWith('{') ? value : JSON.stringify(value);
    const form = random();
    if (form < 0.05) return '{not json';
    if (form < 0.6) return text;
    if (form < 0.75) return new TextEncoder().encode(text);
    if (form < 0.85) return new TextEncoder().encode(text).buffer;
    if (form < 0.95) return new Blob([text]);
    return { toString: () => text };
  };
  /** One case: [input, init] for `locked.fetch`. */
  return (plan, origin) => {
    const target = url(plan, origin);
    const method = chance(0.85) ? 'POST' : pick(['GET', 'PUT', 'DELETE', 'post']);
    const body =
      plan.protocolBinding === 'HTTP+JSON'
        ? chance(0.5)
          ? params()
          : rpcBody(plan.protocolVersion)
        : rpcBody(plan.protocolVersion);
    const init = { method, headers: headers(plan) };
    if (method !== 'GET' && chance(0.95)) init.body = bodyOf(body);
    const inputForm = random();
    if (inputForm < 0.15 && target !== 'not a url') {
      try {
        return [new Request(target, init), undefined];
      } catch {
        return [target, init];
      }
    }
    return [inputForm < 0.25 && target !== 'not a url' ? new URL(target) : target, init];
  };
}

// ---------------------------------------------------------------------------------------------
// Oracle: is a request that went out on its plan? (A2A 1.0 / 0.3 and what the SDK servers read.)

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isSet = (v) => v !== undefined && v !== null;
const mediaBase = (t) => String(t).split(';')[0].trim().toLowerCase();

/** Why `request` (as sent) is off `plan` with the skill's `inputModes`, or undefined when it is on plan. */
function offPlan(request, plan, inputModes) {
  let url;
  try {
    url = new URL(request.url);
  } catch {
    return 'URL not absolute';
  }
  const base = new URL(plan.url);
  if (url.origin !== base.origin) return 'another origin';
  if (url.username || url.password) return 'userinfo';
  const rest = plan.protocolBinding === 'HTTP+JSON';
  if (!rest && url.href !== base.href) return 'not the locked JSON-RPC URL';
  const basePath = base.pathname.replace(/\/+$/, '');
  if (rest && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return 'not under the locked URL';
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
  if (
    !headers['a2a-version'] ||
    (headers['a2a-version'].trim() !== plan.protocolVersion &&
      !headers['a2a-version'].trim().startsWith(`${plan.protocolVersion}.`))
  )
    return `A2A-Version ${headers['a2a-version']}`;
  for (const name of ['a2a-extensions', 'x-a2a-extensions']) {
    for (const uri of (headers[name] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      if (!plan.extensions.includes(uri)) return `extension header ${uri}`;
  }
  let text = request.body;
  if (text instanceof Uint8Array || text instanceof ArrayBuffer) text = new TextDecoder().decode(text);
  if (text !== undefined && typeof text !== 'string') return `a body of type ${typeof text} went out unread`;
  let json;
  if (text !== undefined) {
    try {
      json = JSON.parse(text);
    } catch {
      return 'a body that is not JSON';
    }
  }
  let streaming = false;
  let pushCreate = false;
  let sending = false;
  let params;
  if (rest) {
    const path = decodeURIComponent(url.pathname.slice(basePath.length))
      .toLowerCase()
      .replace(/\/{2,}/g, '/')
      .replace(/\/+$/, '');
    streaming = /:(stream|subscribe|resubscribe)$/.test(path);
    pushCreate = /pushnotificationconfigs?(\/|$)/.test(path) && request.method.toUpperCase() === 'POST';
    sending = /message:(send|stream)$/.test(path);
    if (!sending && /(^|\/)message([:/]|$)/.test(path)) return `an unknown message route ${path}`;
    if (sending && json !== undefined && !isObject(json)) return 'a send body that is not an object';
    params = isObject(json) ? json : undefined;
  } else {
    if (json === undefined) return 'a JSON-RPC request without a body';
    if (!isObject(json)) return Array.isArray(json) ? 'a JSON-RPC batch' : 'a JSON-RPC body that is not an object';
    if (typeof json.method !== 'string' || !METHODS[plan.protocolVersion].includes(json.method))
      return `method ${JSON.stringify(json.method)}`;
    streaming = STREAMING.has(json.method);
    pushCreate = PUSH_CREATE.has(json.method);
    sending = SENDING.has(json.method);
    if (json.params !== undefined && !isObject(json.params)) return 'params not an object';
    params = json.params;
  }
  if (streaming && plan.delivery !== 'stream') return 'a stream on a non-stream plan';
  if (pushCreate && plan.delivery !== 'push') return 'a push config on a non-push plan';
  if (!params) return undefined;
  if (!sending) {
    if (!pushCreate && ['message', 'request', 'configuration', ...PUSH_FIELDS].some((k) => isSet(params[k])))
      return 'a non-send call carrying send fields';
    return undefined;
  }
  const configuration = isObject(params.configuration) ? params.configuration : {};
  if (PUSH_FIELDS.some((k) => isSet(configuration[k])) && plan.delivery !== 'push')
    return 'a push config in a send on a non-push plan';
  for (const key of ['acceptedOutputModes', 'accepted_output_modes']) {
    for (const mode of Array.isArray(configuration[key]) ? configuration[key] : [])
      if (!plan.acceptedOutputModes.some((m) => mediaBase(m) === mediaBase(mode))) return `output mode ${mode}`;
  }
  for (const message of [params.message, params.request].filter(isObject)) {
    for (const uri of Array.isArray(message.extensions) ? message.extensions : [])
      if (!plan.extensions.includes(uri)) return `message extension ${uri}`;
    for (const list of [message.parts, message.content].filter(Array.isArray)) {
      for (const part of list) {
        if (!isObject(part)) return 'a part that is not an object';
        const file = isObject(part.file) ? part.file : {};
        const declared = [part.mediaType, part.media_type, file.mimeType, file.mime_type].filter(
          (t) => typeof t === 'string' && t !== '',
        );
        const read = [];
        if (isSet(part.text) || part.kind === 'text') read.push('text/plain');
        if (isSet(part.data) || part.kind === 'data') read.push('application/json');
        if (isSet(part.raw) || isSet(part.url) || isSet(part.file) || part.kind === 'file')
          read.push('application/octet-stream');
        if (declared.length === 0 && read.length === 0) return 'a part with no content';
        for (const type of declared.length > 0 ? declared : read)
          if (!inputModes.some((m) => mediaBase(m) === mediaBase(type))) return `a part of type ${type}`;
      }
    }
  }
  return undefined;
}

/**
 * Run `cases` random requests (seeded) through the locked agents' fetch. Returns the outcome
 * counts, per plan and in all, and the first few unchecked or crashing cases.
 */
export async function fuzzFetch({ cases = 20_000, seed = 1 } = {}) {
  const { agent, dir, sent, locked, lock } = await setUp();
  const random = prng(seed);
  const next = generator(random);
  const counts = { refused: 0, checked: 0, unchecked: 0, crash: 0 };
  const perPlan = {};
  const examples = [];
  const reasons = new Map();
  try {
    for (let i = 0; i < cases; i++) {
      const target = locked[i % locked.length];
      const label = `${target.name} (${target.plan.protocolBinding} ${target.plan.protocolVersion} ${target.plan.delivery})`;
      perPlan[label] ??= { refused: 0, checked: 0, unchecked: 0, crash: 0 };
      const [input, init] = next(target.plan, new URL(target.plan.url).origin);
      sent.length = 0;
      let outcome;
      let detail = '';
      try {
        await target.fetch(input, init);
        if (sent.length === 0) outcome = 'checked'; // served locally (the locked card)
        for (const request of sent) {
          const why = offPlan(
            {
              ...request,
              body:
                typeof request.body === 'string' || request.body === undefined || request.body instanceof Uint8Array
                  ? request.body
                  : request.body,
            },
            target.plan,
            target.card.skills?.[0]?.inputModes ?? ['text/plain'],
          );
          outcome = why === undefined ? (outcome ?? 'checked') : 'unchecked';
          if (why !== undefined) detail = why;
        }
      } catch (error) {
        if (error?.code === 'plan-violation' && sent.length === 0) {
          outcome = 'refused';
          const reason = String(error.message)
            .replace(/^[^:]*: /, '')
            .replace(/"[^"]*"|\d+/g, '…')
            .slice(0, 70);
          reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        } else {
          outcome = 'crash';
          detail = `${error?.name}: ${error?.message}`;
        }
      }
      counts[outcome]++;
      perPlan[label][outcome]++;
      if ((outcome === 'unchecked' || outcome === 'crash') && examples.length < 5) {
        examples.push({
          case: i,
          plan: label,
          outcome,
          detail,
          input: String(input?.url ?? input),
          init: {
            ...init,
            headers: init?.headers instanceof Headers ? Object.fromEntries(init.headers) : init?.headers,
            body: String(init?.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : init?.body).slice(
              0,
              300,
            ),
          },
        });
      }
    }
  } finally {
    lock.close();
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  }
  const topRefusals = [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return { cases, seed, counts, perPlan, examples, topRefusals };
}
