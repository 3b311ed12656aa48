/**
 * The runtime conformance corpus (conformance/README.md) against the JavaScript runtime: every case
 * in conformance/runtime/<rule>/<name>.json is loaded with `loadLock` and called through
 * `lock.agent(name, skill).fetch`, against two node:http recorders on 127.0.0.1; the verdict (sent
 * or refused, with its code), every request the recorders received, and zero bytes on a refusal
 * must be what the case says. python/tests/test_conformance.py runs the same files against `a2a_lock`.
 */

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_RULES, type ConformanceCase, ConformanceCaseSchema } from '../../scripts/conformance-case.js';
import { canonicalJson } from '../../src/canonical.js';
import { type CredentialProvider, type LoadLockOptions, loadLock } from '../../src/runtime/index.js';
import { checkBuilt } from '../helpers/dist.js';

const CORPUS = 'conformance/runtime';

/** Every case file: `<rule>/<name>.json` below the corpus (fixtures aside). */
function caseFiles(): string[] {
  const out: string[] = [];
  for (const rule of readdirSync(CORPUS, { withFileTypes: true })) {
    if (!rule.isDirectory() || rule.name === 'fixtures') continue;
    for (const file of readdirSync(join(CORPUS, rule.name)).sort())
      if (file.endsWith('.json')) out.push(`${rule.name}/${file}`);
  }
  return out.sort();
}

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A loopback recorder: every request and every byte received; answers from the case's `responses`. */
interface Recorder {
  origin: string;
  requests: Received[];
  bytes: number;
  answers: NonNullable<ConformanceCase['responses']>;
  close(): Promise<void>;
}

async function startRecorder(): Promise<Recorder> {
  const sockets = new Set<Socket>();
  const recorder: Recorder = {
    origin: '',
    requests: [],
    bytes: 0,
    answers: [],
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      recorder.requests.push({
        method: req.method ?? '',
        url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const path = url.split('?')[0];
      const i = recorder.answers.findIndex((a) => a.path === undefined || a.path === path);
      const answer = i >= 0 ? recorder.answers.splice(i, 1)[0]! : undefined;
      if (!answer) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
        return;
      }
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('data', (d: Buffer) => {
      recorder.bytes += d.length;
    });
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  recorder.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return recorder;
}

type Json = unknown;

/** Apply RFC 6902 add / replace / remove operations in place (the subset the corpus uses). */
function applyPatch(doc: Json, ops: NonNullable<NonNullable<ConformanceCase['patch']>['lockfile']>): Json {
  for (const op of ops) {
    const keys = op.path
      .split('/')
      .slice(1)
      .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = keys.pop();
    if (last === undefined) throw new Error(`patch path ${op.path} names the whole document`);
    let parent = doc as Record<string, Json>;
    for (const k of keys) {
      const next = Array.isArray(parent) ? parent[Number(k)] : parent[k];
      if (next === null || typeof next !== 'object') throw new Error(`patch path ${op.path}: ${k} is not a container`);
      parent = next as Record<string, Json>;
    }
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(index, 0, op.value);
      else if (op.op === 'replace') parent[index] = op.value;
      else parent.splice(index, 1);
    } else if (op.op === 'remove') {
      if (!Object.hasOwn(parent, last)) throw new Error(`patch path ${op.path} does not exist`);
      delete parent[last];
    } else {
      if (op.op === 'replace' && !Object.hasOwn(parent, last)) throw new Error(`patch path ${op.path} does not exist`);
      parent[last] = op.value;
    }
  }
  return doc;
}

/** `sha256-<base64>` of the canonical JSON of `value` (conformance/README.md, "Placeholders and integrity"). */
const integrity = (value: Json) => `sha256-${createHash('sha256').update(canonicalJson(value)).digest('base64')}`;

/** The case's value with `{{recorder}}`, `{{other}}` and `{{port}}` substituted in its JSON text. */
function substitute<T>(value: T, recorder: Recorder, other: Recorder): T {
  if (value === undefined) return value;
  return JSON.parse(
    JSON.stringify(value)
      .replaceAll('{{recorder}}', recorder.origin)
      .replaceAll('{{other}}', other.origin)
      .replaceAll('{{port}}', new URL(recorder.origin).port),
  ) as T;
}

/** Does `actual` contain `expected` (objects: listed members; arrays: item by item, same length)? */
function contains(actual: Json, expected: Json): boolean {
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => contains(actual[i], e))
    );
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(
      ([k, v]) => Object.hasOwn(actual, k) && contains((actual as Record<string, Json>)[k], v),
    );
  }
  return actual === expected;
}

/** The case's secrets: every value of its environment and providers, and every access_token its answers give. */
function secretsOf(c: ConformanceCase): string[] {
  const o = c.options ?? {};
  const values = [
    ...Object.values(o.env ?? {}),
    ...Object.values(o.credentials ?? {}).flatMap((schemes) => Object.values(schemes)),
    ...(o.credentialsFunction === undefined ? [] : [o.credentialsFunction]),
    ...Object.values(o.originAuth ?? {}),
    ...(c.responses ?? []).map((r) => (r.body as { access_token?: unknown } | undefined)?.access_token),
  ];
  return values.filter((v): v is string => typeof v === 'string' && v.trim().length >= 4);
}

const fixtureTexts = new Map<string, string | undefined>();

/** A fixture file's text (read once), or undefined when there is none. */
function fixtureText(path: string): string | undefined {
  if (!fixtureTexts.has(path)) {
    try {
      fixtureTexts.set(path, readFileSync(path, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      fixtureTexts.set(path, undefined);
    }
  }
  return fixtureTexts.get(path);
}

/** A credentials provider returning `template` with `{agent}`, `{skill}`, `{scheme}`, `{scopes}` (space-separated) and `{origin}` filled from what it is asked. */
function provider(template: string): CredentialProvider {
  return (request) =>
    template
      .replaceAll('{agent}', request.agent)
      .replaceAll('{skill}', request.skill)
      .replaceAll('{scheme}', request.scheme)
      .replaceAll('{scopes}', request.scopes.join(' '))
      .replaceAll('{origin}', request.origin);
}

/** Write the case's lockfile (and manifest) into `dir`; the loader's options. */
async function prepare(c: ConformanceCase, dir: string, recorder: Recorder, other: Recorder): Promise<LoadLockOptions> {
  const read = (name: string): Json | undefined => {
    const text = fixtureText(join(CORPUS, 'fixtures', c.fixture!, name));
    return text === undefined ? undefined : JSON.parse(text);
  };
  let lock: Json =
    c.lockfile !== undefined ? structuredClone(c.lockfile) : c.fixture ? read('a2a.lock.json') : undefined;
  let manifest: Json =
    c.manifest !== undefined ? structuredClone(c.manifest) : c.fixture ? read('a2a.json') : undefined;
  if (c.patch?.lockfile) lock = applyPatch(lock, c.patch.lockfile);
  if (c.patch?.manifest) manifest = applyPatch(manifest, c.patch.manifest);
  lock = substitute(lock, recorder, other);
  manifest = substitute(manifest, recorder, other);
  let lockText: string;
  if (typeof lock === 'string') lockText = lock;
  else {
    const agents = (lock as { agents?: Record<string, { integrity?: unknown; snapshot?: Json }> }).agents;
    if (agents && typeof agents === 'object')
      for (const entry of Object.values(agents))
        if (entry && entry.integrity === '{{integrity}}') entry.integrity = integrity(entry.snapshot);
    lockText = `${JSON.stringify(lock, null, 2)}\n`;
  }
  const lockfile = join(dir, 'a2a.lock.json');
  await writeFile(lockfile, lockText);
  if (manifest !== undefined && manifest !== null)
    await writeFile(join(dir, 'a2a.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2));
  const options = substitute(c.options ?? {}, recorder, other);
  const loadOptions: LoadLockOptions = { lockfile, env: { ...options.env } };
  if (options.credentials)
    loadOptions.credentials = Object.fromEntries(
      Object.entries(options.credentials).map(([agent, schemes]) => [
        agent,
        Object.fromEntries(Object.entries(schemes).map(([scheme, value]) => [scheme, provider(value)])),
      ]),
    );
  if (options.credentialsFunction !== undefined) loadOptions.credentials = provider(options.credentialsFunction);
  if (options.originAuth)
    loadOptions.originAuth = Object.fromEntries(
      Object.entries(options.originAuth).map(([origin, value]) => [origin, () => value]),
    );
  if (options.expectDigest !== undefined)
    loadOptions.expectDigest =
      options.expectDigest === '{{digest}}' ? integrity(JSON.parse(lockText)) : options.expectDigest;
  return loadOptions;
}

/** Run one case through the JavaScript runtime: the verdict and the error (if any). */
async function run(
  c: ConformanceCase,
  options: LoadLockOptions,
  recorder: Recorder,
  other: Recorder,
): Promise<{ answer?: { status: number; headers: Headers; text: string }; code?: string; error?: unknown }> {
  const request = substitute(c.request, recorder, other);
  try {
    const lock = await loadLock(options);
    const agent = c.skill === undefined ? lock.agent(c.agent) : lock.agent(c.agent, c.skill);
    const body = request.bodyText ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
    const response = await agent.fetch(request.url, {
      method: request.method,
      headers: request.headers ?? {},
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    lock.close();
    return { answer: { status: response.status, headers: response.headers, text } };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { code: typeof code === 'string' ? code : `(no code: ${String(error)})`, error };
  }
}

const files = caseFiles();
/** Every case, parsed once: file → its JSON value. */
const values = new Map(files.map((f) => [f, JSON.parse(readFileSync(join(CORPUS, f), 'utf8')) as unknown]));
let recorder: Recorder;
let other: Recorder;
let dir: string;

beforeAll(async () => {
  [recorder, other] = await Promise.all([startRecorder(), startRecorder()]);
  dir = await mkdtemp(join(tmpdir(), 'a2a-conformance-'));
});

afterAll(async () => {
  await Promise.all([recorder?.close(), other?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the conformance corpus', () => {
  it('every case is valid against its zod definition and schemas/conformance-case.schema.json; ids are paths', () => {
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(
      JSON.parse(readFileSync('schemas/conformance-case.schema.json', 'utf8')),
    );
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) {
      const value = values.get(file);
      expect(validate(value), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
      const c = ConformanceCaseSchema.parse(value);
      expect(`${c.id}.json`).toBe(file);
      expect(file.startsWith(`${c.rule}/`)).toBe(true);
    }
    // What a broken case looks like to both: an unknown field, an unknown rule, a verdict that is not one.
    const good = values.get(files[0]!) as ConformanceCase;
    for (const bad of [
      { ...good, expected: good.expect },
      { ...good, rule: 'everything' },
      { ...good, expect: { ...good.expect, verdict: 'maybe' } },
    ]) {
      expect(validate(bad), JSON.stringify(bad).slice(0, 80)).toBe(false);
      expect(ConformanceCaseSchema.safeParse(bad).success).toBe(false);
    }
    // What only the zod definition says: a refused verdict names its code.
    const uncoded = { ...good, expect: { verdict: 'refused', requests: [] } };
    expect(validate(uncoded)).toBe(true);
    expect(ConformanceCaseSchema.safeParse(uncoded).success).toBe(false);
  });

  it("conformance/README.md's table gives each rule's case count; every rule has cases", () => {
    const readme = readFileSync('conformance/README.md', 'utf8');
    const table = Object.fromEntries(
      [...readme.matchAll(/^\| `([a-z0-9-]+)` \| (\d+) \|/gm)].map((m) => [m[1], Number(m[2])]),
    );
    const counts: Record<string, number> = {};
    for (const file of files) {
      const rule = file.split('/')[0]!;
      counts[rule] = (counts[rule] ?? 0) + 1;
    }
    expect(table).toEqual(counts);
    expect(Object.keys(counts).sort()).toEqual([...CONFORMANCE_RULES].sort());
  });

  it('the fixtures and cases are the ones scripts/conformance.js writes', () => {
    checkBuilt('test/runtime/conformance.test.ts');
    execFileSync(process.execPath, ['scripts/conformance.js', '--check'], { stdio: 'pipe' });
  });
});

describe('the JavaScript runtime against the conformance corpus', () => {
  it.each(files.map((f) => [f.slice(0, -'.json'.length)]))('%s', async (id) => {
    // Checked against the schema by the first test; here the value as it is.
    const c = values.get(`${id}.json`) as ConformanceCase;
    recorder.requests = [];
    other.requests = [];
    recorder.bytes = 0;
    other.bytes = 0;
    recorder.answers = [];
    other.answers = [];
    for (const answer of substitute(c.responses ?? [], recorder, other))
      (answer.recorder === 'other' ? other : recorder).answers.push(answer);
    const caseDir = await mkdtemp(join(dir, 'case-'));
    const options = await prepare(c, caseDir, recorder, other);
    const result = await run(c, options, recorder, other);
    // Anything still on its way would land now.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const shown = result.error instanceof Error ? result.error.message : '';
    // Answered: sent when a recorder received anything, else served (made from the lockfile).
    const verdict = result.answer ? (recorder.bytes + other.bytes > 0 ? 'sent' : 'served') : 'refused';
    expect({ verdict, code: result.code }, shown).toEqual({
      verdict: c.expect.verdict,
      code: c.expect.code,
    });
    const received = [
      ...recorder.requests.map((r) => ({ ...r, recorder: 'recorder' })),
      ...other.requests.map((r) => ({ ...r, recorder: 'other' })),
    ];
    // Requests in the order the case lists them, per recorder.
    const expected = substitute(c.expect.requests, recorder, other);
    const byRecorder = (name: string) => expected.filter((e) => (e.recorder ?? 'recorder') === name);
    expect(recorder.requests.map((r) => `${r.method} ${r.url}`)).toEqual(
      byRecorder('recorder').map((e) => `${e.method} ${e.url}`),
    );
    expect(other.requests.map((r) => `${r.method} ${r.url}`)).toEqual(
      byRecorder('other').map((e) => `${e.method} ${e.url}`),
    );
    for (const name of ['recorder', 'other'] as const) {
      const got = received.filter((r) => r.recorder === name);
      byRecorder(name).forEach((e, i) => {
        const r = got[i]!;
        for (const [header, value] of Object.entries(e.headers ?? {}))
          expect(r.headers[header] ?? null, `${name} request ${i} header ${header}`).toBe(value);
        if (e.body !== undefined) {
          const body = JSON.parse(r.body) as Json;
          expect(contains(body, e.body), `${name} request ${i} body ${r.body}`).toBe(true);
        }
        if (e.form !== undefined) {
          const form = Object.fromEntries(new URLSearchParams(r.body));
          expect(form, `${name} request ${i} form`).toMatchObject(e.form);
        }
      });
    }
    // A refusal never quotes a secret of the case, in any case (conformance/README.md, "Secrets").
    if (result.error instanceof Error)
      for (const secret of secretsOf(c))
        expect(
          result.error.message.toLowerCase().includes(secret.toLowerCase()),
          `the error quotes ${JSON.stringify(secret)}`,
        ).toBe(false);
    const response = substitute(c.expect.response, recorder, other);
    if (response && result.answer) {
      if (response.status !== undefined) expect(result.answer.status, 'answer status').toBe(response.status);
      for (const [header, value] of Object.entries(response.headers ?? {}))
        expect(result.answer.headers.get(header), `answer header ${header}`).toBe(value);
      if (response.body !== undefined)
        expect(contains(JSON.parse(result.answer.text), response.body), `answer body ${result.answer.text}`).toBe(true);
    }
    // A recorder the case expects nothing on received not one byte (no connection at all).
    if (byRecorder('recorder').length === 0) expect(recorder.bytes, 'bytes on the recorder').toBe(0);
    if (byRecorder('other').length === 0) expect(other.bytes, 'bytes on the other recorder').toBe(0);
  });
});
