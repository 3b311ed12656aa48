/**
 * File formats: the lockfile bytes (json-stable-stringify, 2-space indent, LF, trailing newline,
 * deterministic), lockfile parsing and its refusals, integrity hashes, and manifest validation.
 * Contract: issue 2 "Lockfile a2a.lock.json" and "Manifest a2a.json".
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, integrityOf, sameJson } from '../../src/canonical.js';
import { normalizeCard } from '../../src/card/normalize.js';
import { InvalidInputError } from '../../src/errors.js';
import { parseLockfile, serializeLockfile } from '../../src/lock/format.js';
import type { Lockfile } from '../../src/lock/schema.js';
import { parseManifest } from '../../src/manifest/parse.js';
import { agentSettings, profileOf } from '../../src/manifest/schema.js';
import { negotiate } from '../../src/negotiate/negotiate.js';
import { workedExample } from '../helpers/worked-example.js';

type Json = Record<string, any>;

const CARD_URL = 'https://research.example.com/.well-known/agent-card.json';

/** A manifest like the example. */
function manifestJson(
  patch: (m: Json) => void = () => {
    /* unchanged */
  },
): Json {
  const m: Json = {
    profile: {
      bindings: ['JSONRPC', 'HTTP+JSON'],
      versions: ['1.0', '0.3'],
      accepts: ['application/json', 'text/plain'],
      sends: ['text/plain'],
      streaming: true,
      pushEndpoint: null,
      extensions: ['https://example.com/ext/citations/v1'],
    },
    agents: {
      'research-agent': {
        card: CARD_URL,
        skills: ['market-size'],
        credentials: { bearer: { env: 'RESEARCH_TOKEN' } },
        version: '^2.4.0',
      },
    },
  };
  patch(m);
  return m;
}

/** A real lockfile built from the pieces `a2a lock` uses: manifest settings, snapshot, integrity, plan. */
function buildLock(): Lockfile {
  const manifest = parseManifest(JSON.stringify(manifestJson()), 'a2a.json');
  const settings = agentSettings(manifest, 'research-agent');
  const snapshot = workedExample();
  const { card } = normalizeCard(snapshot, { source: CARD_URL, baseUrl: CARD_URL });
  const result = negotiate(card, 'market-size', profileOf(settings), settings.credentials, {
    versionRange: settings.versionRange!,
  });
  if (!result.plan) throw new Error(result.refusal.message);
  return {
    lockfileVersion: 1,
    settings: { 'research-agent': settings },
    agents: {
      'research-agent': {
        card: CARD_URL,
        resolved: CARD_URL,
        a2aVersion: card.shape,
        version: card.version,
        integrity: integrityOf(snapshot),
        snapshot,
        plans: { 'market-size': result.plan },
      },
    },
  };
}

/** The same value with every object's keys inserted in reverse order. */
function reversedKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reversedKeys) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversedKeys(v)]),
    ) as T;
  }
  return value;
}

/** Every object's keys, depth first, must be sorted by code unit. */
function expectSortedKeys(value: unknown, path = '$'): void {
  if (Array.isArray(value)) value.forEach((v, i) => expectSortedKeys(v, `${path}[${i}]`));
  else if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    expect(keys, path).toEqual([...keys].sort());
    for (const [k, v] of Object.entries(value)) expectSortedKeys(v, `${path}.${k}`);
  }
}

function lockError(text: string): InvalidInputError {
  try {
    parseLockfile(text, 'a2a.lock.json');
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).code).toBe('lockfile-invalid');
    expect((error as InvalidInputError).message).not.toContain('\n');
    return error as InvalidInputError;
  }
  throw new Error('expected parseLockfile to throw');
}

function manifestError(m: unknown): InvalidInputError {
  try {
    parseManifest(typeof m === 'string' ? m : JSON.stringify(m), 'a2a.json');
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    const e = error as InvalidInputError;
    expect(e.code).toBe('manifest-invalid');
    expect(e.message).not.toContain('\n');
    expect(e.message.startsWith('a2a.json')).toBe(true);
    return e;
  }
  throw new Error('expected parseManifest to throw');
}

describe('serializeLockfile', () => {
  it('is deterministic: keys inserted in any order give identical bytes', () => {
    const lock = buildLock();
    const a = serializeLockfile(lock);
    const b = serializeLockfile(reversedKeys(lock));
    expect(b).toBe(a);
    // And the reversal really changed insertion order (the test can fail).
    expect(JSON.stringify(reversedKeys(lock))).not.toBe(JSON.stringify(lock));
    expect(serializeLockfile(buildLock())).toBe(a);
  });

  it('sorts keys at every depth (including inside the snapshot), keeps array order', () => {
    const text = serializeLockfile(buildLock());
    const parsed = JSON.parse(text) as Json;
    expectSortedKeys(parsed);
    expect(Object.keys(parsed)).toEqual(['agents', 'lockfileVersion', 'settings']);
    expect(parsed.agents['research-agent'].snapshot.supportedInterfaces.map((i: Json) => i.protocolBinding)).toEqual([
      'JSONRPC',
      'GRPC',
      'JSONRPC',
    ]);
    expect(parsed.settings['research-agent'].bindings).toEqual(['JSONRPC', 'HTTP+JSON']);
  });

  it('2-space indent, LF only, one trailing newline, no timestamps or secrets', () => {
    const text = serializeLockfile(buildLock());
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.endsWith('\n\n')).toBe(false);
    expect(text).not.toContain('\r');
    expect(text).not.toContain('\t');
    expect(text.split('\n')[1]).toBe('  "agents": {');
    expect(text.split('\n')[2]).toBe('    "research-agent": {');
    for (const line of text.split('\n')) expect(line.match(/^ */)![0].length % 2).toBe(0);
    expect(text).not.toContain('RESEARCH_TOKEN');
    expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
  });

  it('holds per agent its settings (credentials, versionRange), the card snapshot, its integrity and the plan per skill', () => {
    const parsed = JSON.parse(serializeLockfile(buildLock())) as Json;
    expect(parsed.lockfileVersion).toBe(1);
    expect(parsed.settings['research-agent'].credentials).toEqual(['bearer']);
    expect(parsed.settings['research-agent'].versionRange).toBe('^2.4.0');
    const entry = parsed.agents['research-agent'];
    expect(entry.integrity).toMatch(/^sha256-[A-Za-z0-9+/]{43}=$/);
    expect(entry.snapshot).toEqual(workedExample());
    expect(entry.plans['market-size']).toEqual({
      url: 'https://research.example.com/a2a/v1',
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      security: {},
      acceptedOutputModes: ['application/json'],
      delivery: 'stream',
      extensions: ['https://example.com/ext/citations/v1'],
      fallbacks: {
        interfaces: [
          { url: 'https://research.example.com/a2a/legacy', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        ],
        delivery: ['poll'],
      },
    });
  });
});

describe('parseLockfile', () => {
  it('round-trips: serialize(parse(text)) === text', () => {
    const text = serializeLockfile(buildLock());
    expect(serializeLockfile(parseLockfile(text, 'a2a.lock.json'))).toBe(text);
  });

  it('parses to the same value that was serialised', () => {
    const lock = buildLock();
    expect(parseLockfile(serializeLockfile(lock), 'a2a.lock.json')).toEqual(lock);
  });

  it('keeps unknown top-level and entry keys (a newer minor writer) and round-trips them', () => {
    const lock = buildLock() as Json;
    lock.futureField = { a: 1 };
    lock.agents['research-agent'].futureEntryField = true;
    const text = serializeLockfile(lock as Lockfile);
    expect(serializeLockfile(parseLockfile(text, 'a2a.lock.json'))).toBe(text);
  });

  it('merge-conflict markers → lockfile-invalid "merge conflict"', () => {
    const text = serializeLockfile(buildLock());
    const lines = text.split('\n');
    const conflicted = [
      ...lines.slice(0, 3),
      '<<<<<<< HEAD',
      lines[3],
      '=======',
      lines[3]!.replace('"', '"x'),
      '>>>>>>> feature',
      ...lines.slice(4),
    ].join('\n');
    const e = lockError(conflicted);
    expect(e.message).toContain('merge conflict');
    expect(e.message).toContain('a2a.lock.json');
  });

  it('lockfileVersion 2 is refused, naming the version and the path', () => {
    const lock = buildLock() as Json;
    lock.lockfileVersion = 2;
    const e = lockError(serializeLockfile(lock as Lockfile));
    expect(e.message).toContain('lockfileVersion 2');
    expect(e.path).toBe('$.lockfileVersion');
  });

  it('lockfileVersion 0 or missing is refused with its path', () => {
    for (const v of [0, undefined, '1']) {
      const lock = buildLock() as Json;
      if (v === undefined) delete lock.lockfileVersion;
      else lock.lockfileVersion = v;
      expect(lockError(JSON.stringify(lock)).path).toBe('$.lockfileVersion');
    }
  });

  it('bad JSON names line and column; an empty file says so', () => {
    expect(lockError('{\n  "lockfileVersion": 1,\n  oops\n}\n').message).toMatch(/invalid JSON at line 3 column \d+/);
    expect(lockError('').message).toContain('empty file');
    // Truncated: Node 20 gives no position for an early end; it is the end of the text.
    expect(lockError('{\n  "lockfileVersion": 1,\n  "agents":  \n\n').message).toMatch(
      /invalid JSON at line 3 column 12$/,
    );
  });

  it('schema errors name the JSON path', () => {
    const badIntegrity = buildLock() as Json;
    badIntegrity.agents['research-agent'].integrity = 'md5-abc';
    expect(lockError(JSON.stringify(badIntegrity)).path).toBe('$.agents["research-agent"].integrity');
    const badPlan = buildLock() as Json;
    badPlan.agents['research-agent'].plans['market-size'].delivery = 'carrier-pigeon';
    expect(lockError(JSON.stringify(badPlan)).path).toBe('$.agents["research-agent"].plans["market-size"].delivery');
    const extraPlanKey = buildLock() as Json;
    extraPlanKey.agents['research-agent'].plans['market-size'].token = 'secret';
    expect(lockError(JSON.stringify(extraPlanKey)).path).toBe('$.agents["research-agent"].plans["market-size"]');
  });
});

describe('sameJson', () => {
  it('agrees with comparing canonical JSON texts, key order aside', () => {
    const small = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(small, small, (a, b) => {
        expect(sameJson(a, b)).toBe(canonicalJson(a) === canonicalJson(b));
        expect(sameJson(a, reversedKeys(a))).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: [] }, { a: {} })).toBe(false);
    expect(sameJson(null, {})).toBe(false);
  });
});

describe('integrityOf', () => {
  it('is sha256-<base64> of the canonical JSON', () => {
    expect(integrityOf({})).toBe('sha256-RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o=');
    const value = { b: 'é', a: [2, { d: 1, c: 2 }] };
    expect(canonicalJson(value)).toBe('{"a":[2,{"c":2,"d":1}],"b":"é"}');
    expect(integrityOf(value)).toBe('sha256-diEwDKXSDXqicw2NqAN09GFcyHydsDC1Fxwl7DYavO4=');
    expect(integrityOf(value)).toBe(
      `sha256-${createHash('sha256').update('{"a":[2,{"c":2,"d":1}],"b":"é"}').digest('base64')}`,
    );
  });

  it('is independent of key order, but not of array order or values', () => {
    const card = workedExample();
    expect(integrityOf(reversedKeys(card))).toBe(integrityOf(card));
    const reordered = workedExample();
    reordered.supportedInterfaces.reverse();
    expect(integrityOf(reordered)).not.toBe(integrityOf(card));
    const changed = workedExample();
    changed.description += ' ';
    expect(integrityOf(changed)).not.toBe(integrityOf(card));
  });
});

describe('parseManifest', () => {
  it('accepts the example manifest (no credentials on an agent), with defaults filled in', () => {
    const m = parseManifest(
      JSON.stringify(manifestJson((x) => delete x.agents['research-agent'].credentials)),
      'a2a.json',
    );
    expect(m.agents['research-agent']!.credentials).toEqual({});
    const minimal = parseManifest(
      JSON.stringify({ profile: { bindings: ['JSONRPC'], versions: ['1.0'], accepts: ['text/plain'] } }),
      'a2a.json',
    );
    expect(minimal.profile).toEqual({
      bindings: ['JSONRPC'],
      versions: ['1.0'],
      accepts: ['text/plain'],
      sends: [],
      streaming: false,
      pushEndpoint: null,
      extensions: [],
    });
    expect(minimal.agents).toEqual({});
  });

  it('refuses the skill id "__proto__" (it keys the plans: it would be dropped from the lockfile), naming its path', () => {
    const e = manifestError(manifestJson((m) => (m.agents['research-agent'].skills = ['market-size', '__proto__'])));
    expect(e.path).toBe('$.agents["research-agent"].skills[1]');
    expect(e.message).toContain('skill id "__proto__" is not supported');
    // Other Object.prototype names are ordinary ids.
    expect(() =>
      parseManifest(
        JSON.stringify(manifestJson((m) => (m.agents['research-agent'].skills = ['constructor', 'toString']))),
        'a2a.json',
      ),
    ).not.toThrow();
  });

  it('originAuth: an origin key (https, or http to loopback; no path) to one placement; cardPath a path; rebaseInterfaces a boolean', () => {
    const ok = manifestJson((m) => {
      m.originAuth = {
        'https://svc-abc-uc.a.run.app': { bearer: { env: 'CLOUD_RUN_ID_TOKEN' } },
        'https://bedrock-agentcore.us-west-2.amazonaws.com': {
          awsSigV4: { region: 'us-west-2', service: 'bedrock-agentcore' },
        },
        'http://127.0.0.1:8080': { header: { name: 'X-Serverless-Authorization', env: 'T', prefix: 'Bearer ' } },
      };
      m.agents['research-agent'].cardPath = '';
      m.agents['research-agent'].rebaseInterfaces = true;
    });
    expect(() => parseManifest(JSON.stringify(ok), 'a2a.json')).not.toThrow();
    const bad = (edit: (m: any) => void) => manifestError(manifestJson(edit));
    expect(bad((m) => (m.originAuth = { 'https://svc.example/v1': { bearer: { env: 'T' } } })).message).toContain(
      'must be an origin',
    );
    expect(bad((m) => (m.originAuth = { 'https://SVC.example': { bearer: { env: 'T' } } })).message).toContain(
      'must be an origin',
    );
    expect(bad((m) => (m.originAuth = { 'http://svc.example': { bearer: { env: 'T' } } })).message).toContain(
      'plain http only to a loopback host',
    );
    const both = bad(
      (m) => (m.originAuth = { 'https://svc.example': { bearer: { env: 'T' }, header: { name: 'X', env: 'T' } } }),
    );
    expect(both.path).toBe('$.originAuth["https://svc.example"]');
    // Worded for a placement (it was worded as a card's security requirement).
    expect(both.message).toContain('an originAuth placement is {"bearer": {"env": "NAME"}}');
    expect(bad((m) => (m.originAuth = { 'https://svc.example': { bearer: { env: 'not a name' } } })).path).toBe(
      '$.originAuth["https://svc.example"].bearer.env',
    );
    expect(bad((m) => (m.agents['research-agent'].cardPath = 'https://elsewhere.example/card')).message).toContain(
      'must be a path',
    );
    expect(bad((m) => (m.agents['research-agent'].cardPath = '../card')).message).toContain('must be a path');
    expect(bad((m) => (m.agents['research-agent'].rebaseInterfaces = 'yes')).path).toBe(
      '$.agents["research-agent"].rebaseInterfaces',
    );
  });

  it('allows $schema', () => {
    expect(() =>
      parseManifest(
        JSON.stringify(manifestJson((m) => (m.$schema = './node_modules/a2a-lock/schemas/a2a.schema.json'))),
        'a2a.json',
      ),
    ).not.toThrow();
  });

  it.each([
    [['*/*'], '$.profile.accepts[0]'],
    [['application/json', 'text/*'], '$.profile.accepts[1]'],
    [['*/json'], '$.profile.accepts[0]'],
  ])('wildcard accepts %j are invalid at %s', (accepts, path) => {
    const e = manifestError(manifestJson((m) => (m.profile.accepts = accepts)));
    expect(e.path).toBe(path);
    expect(e.message).toContain('wildcard');
  });

  it('empty accepts is invalid at $.profile.accepts', () => {
    const e = manifestError(manifestJson((m) => (m.profile.accepts = [])));
    expect(e.path).toBe('$.profile.accepts');
  });

  it('non-media-type accepts and sends are invalid', () => {
    expect(manifestError(manifestJson((m) => (m.profile.accepts = ['text']))).path).toBe('$.profile.accepts[0]');
    expect(manifestError(manifestJson((m) => (m.profile.sends = ['text/plain', 'json']))).path).toBe(
      '$.profile.sends[1]',
    );
    expect(manifestError(manifestJson((m) => (m.profile.sends = ['*/*']))).path).toBe('$.profile.sends[0]');
  });

  it('an agent profile may not accept anything either', () => {
    const e = manifestError(manifestJson((m) => (m.agents['research-agent'].profile = { accepts: ['*/*'] })));
    expect(e.path).toBe('$.agents["research-agent"].profile.accepts[0]');
    expect(manifestError(manifestJson((m) => (m.agents['research-agent'].profile = { accepts: [] }))).path).toBe(
      '$.agents["research-agent"].profile.accepts',
    );
  });

  it('unknown keys are rejected, naming the key and where it is', () => {
    const top = manifestError(manifestJson((m) => (m.agentz = {})));
    expect(top.path).toBe('$');
    expect(top.message).toContain('"agentz"');
    const inProfile = manifestError(manifestJson((m) => (m.profile.accept = ['text/plain'])));
    expect(inProfile.path).toBe('$.profile');
    expect(inProfile.message).toContain('"accept"');
    expect(manifestError(manifestJson((m) => (m.agents['research-agent'].skill = 'x'))).path).toBe(
      '$.agents["research-agent"]',
    );
    expect(
      manifestError(manifestJson((m) => (m.agents['research-agent'].credentials.bearer.value = 's3cret'))).path,
    ).toBe('$.agents["research-agent"].credentials.bearer');
  });

  it('a bad semver range is rejected at its path', () => {
    const e = manifestError(manifestJson((m) => (m.agents['research-agent'].version = 'two point four')));
    expect(e.path).toBe('$.agents["research-agent"].version');
    expect(e.message).toContain('semver');
  });

  it('other field errors name their path and the wrong type, never the value (it may be a pasted secret)', () => {
    const e = manifestError(manifestJson((m) => (m.profile.streaming = 'true')));
    expect(e.path).toBe('$.profile.streaming');
    expect(e.message).toContain('expected boolean, got string');
    expect(e.message).not.toContain('"true"');
    const pasted = manifestError(manifestJson((m) => (m.agents['research-agent'].credentials.bearer = 'topsecret-42')));
    expect(pasted.path).toBe('$.agents["research-agent"].credentials.bearer');
    expect(JSON.stringify(pasted.toJSON()) + pasted.message).not.toContain('topsecret-42');
    expect(manifestError(manifestJson((m) => (m.profile.versions = ['1']))).path).toBe('$.profile.versions[0]');
    expect(manifestError(manifestJson((m) => (m.profile.bindings = []))).path).toBe('$.profile.bindings');
    expect(manifestError(manifestJson((m) => (m.profile.bindings = ['JSONRPC', 'JSONRPC']))).path).toBe(
      '$.profile.bindings',
    );
    // skills: [] is the agent-level plan "*" (issue 14); a repeated skill is still an error.
    expect(manifestError(manifestJson((m) => (m.agents['research-agent'].skills = ['a', 'a']))).path).toBe(
      '$.agents["research-agent"].skills',
    );
    expect(
      manifestError(manifestJson((m) => (m.agents['research-agent'].credentials.bearer = { env: 'not a name' }))).path,
    ).toBe('$.agents["research-agent"].credentials.bearer.env');
    expect(manifestError(manifestJson((m) => delete m.profile)).path).toBe('$.profile');
  });

  it('bad JSON is a one-line error (with line and column when the parser reports a position)', () => {
    expect(manifestError('{\n  "profile": {}\n  "agents": {}\n}').message).toBe(
      'a2a.json: invalid JSON at line 3 column 3',
    );
    expect(
      manifestError('{\n<<<<<<< HEAD\n  "profile": {}\n=======\n  "profile": []\n>>>>>>> other\n}').message,
    ).toMatch(/^a2a\.json: git merge conflict markers at line 2 column 1: resolve the conflict$/);
    // A UTF-8 byte-order mark (some Windows editors write one) is skipped, as npm does.
    expect(parseManifest(`\ufeff${JSON.stringify(manifestJson())}`, 'a2a.json')).toEqual(
      parseManifest(JSON.stringify(manifestJson()), 'a2a.json'),
    );
    // V8 reports no position for "Unexpected token": the message still names the file.
    expect(manifestError('{\n  "profile": ,\n}').message).toMatch(/^a2a\.json: invalid JSON/);
  });
});

describe('agentSettings', () => {
  it('merges a partial agent profile over the top-level profile, field by field', () => {
    const m = parseManifest(
      JSON.stringify(
        manifestJson((x) => {
          x.profile.pushEndpoint = 'https://me.example.com/hook';
          x.agents['research-agent'].profile = { accepts: ['text/plain'], pushEndpoint: null, streaming: false };
        }),
      ),
      'a2a.json',
    );
    expect(agentSettings(m, 'research-agent')).toEqual({
      bindings: ['JSONRPC', 'HTTP+JSON'],
      versions: ['1.0', '0.3'],
      accepts: ['text/plain'],
      sends: ['text/plain'],
      streaming: false,
      pushEndpoint: null,
      extensions: ['https://example.com/ext/citations/v1'],
      credentials: ['bearer'],
      versionRange: '^2.4.0',
    });
  });

  it('without an agent profile the top-level profile applies; credentials are sorted names only', () => {
    const m = parseManifest(
      JSON.stringify(
        manifestJson((x) => {
          x.agents['research-agent'].credentials = { zeta: { env: 'Z' }, alpha: { env: 'A' } };
          delete x.agents['research-agent'].version;
        }),
      ),
      'a2a.json',
    );
    const settings = agentSettings(m, 'research-agent');
    expect(settings.credentials).toEqual(['alpha', 'zeta']);
    expect('versionRange' in settings).toBe(false);
    expect(profileOf(settings)).toEqual({ ...manifestJson().profile });
  });

  it('an agent pushEndpoint overrides a null top-level one', () => {
    const m = parseManifest(
      JSON.stringify(
        manifestJson((x) => (x.agents['research-agent'].profile = { pushEndpoint: 'https://me.example.com/hook' })),
      ),
      'a2a.json',
    );
    expect(agentSettings(m, 'research-agent').pushEndpoint).toBe('https://me.example.com/hook');
  });
});

describe('parseManifest: binding spelling', () => {
  it('rejects a core binding in another case, naming the path and the canonical spelling', () => {
    const e = manifestError(manifestJson((m) => (m.profile.bindings = ['JSONRPC', 'http+json'])));
    expect(e.path).toBe('$.profile.bindings[1]');
    expect(e.message).toContain('"HTTP+JSON"');
  });

  it('accepts a custom binding URI as written', () => {
    const m = parseManifest(
      JSON.stringify(manifestJson((x) => (x.profile.bindings = ['https://example.com/bindings/websocket/v1']))),
      'a2a.json',
    );
    expect(m.profile.bindings).toEqual(['https://example.com/bindings/websocket/v1']);
  });
});

describe('duplicate keys in our own files', () => {
  const thrown = (fn: () => unknown): InvalidInputError => {
    try {
      fn();
    } catch (error) {
      return error as InvalidInputError;
    }
    throw new Error('did not throw');
  };

  it('a manifest repeating an agent, or a key of an agent, is manifest-invalid naming the JSON path and line', () => {
    const m = JSON.stringify(manifestJson(), null, 2);
    const agent = '"research-agent": {\n      "card": "https://a.example", "skills": ["market-size"]\n    }';
    const twice = m.replace('"agents": {', `"agents": {\n    ${agent},`);
    const e = thrown(() => parseManifest(twice, 'a2a.json'));
    expect(e).toBeInstanceOf(InvalidInputError);
    expect(e.code).toBe('manifest-invalid');
    expect(e.path).toBe('$.agents["research-agent"]');
    const line =
      twice.split('\n').findIndex(
        (l, i) =>
          i > 0 &&
          l.includes('"research-agent"') &&
          twice
            .split('\n')
            .slice(0, i)
            .some((p) => p.includes('"research-agent"')),
      ) + 1;
    expect(e.message).toBe(
      `a2a.json $.agents["research-agent"]: duplicate key "research-agent" at line ${line}: a key may appear once in an object`,
    );
    expect(e.message).not.toContain('\n');
    const inner = thrown(() =>
      parseManifest(
        '{"profile": {"bindings": ["JSONRPC"], "versions": ["1.0"], "accepts": ["text/plain"], "versions": ["0.3"]}, "agents": {}}',
        'a2a.json',
      ),
    );
    expect(inner.path).toBe('$.profile.versions');
    expect(inner.message).toContain('at line 1');
  });

  it('a lockfile repeating a plan field is lockfile-invalid; an escaped spelling of the same key is the same key; strings that look like keys are not', () => {
    const lock =
      '{\n  "agents": {\n    "a": {"plans": {"s": {"delivery": "poll",\n "delivery": "stream"}}}\n  },\n  "lockfileVersion": 1\n}';
    const e = thrown(() => parseLockfile(lock, 'a2a.lock.json'));
    expect(e.code).toBe('lockfile-invalid');
    expect(e.path).toBe('$.agents.a.plans.s.delivery');
    expect(e.message).toContain('at line 4');
    const escaped = thrown(() =>
      parseLockfile('{"lockfileVersion": 1, "agents": {}, "lockfile\\u0056ersion": 1}', 'a2a.lock.json'),
    );
    expect(escaped.path).toBe('$.lockfileVersion');
    // Arrays count their elements; the same key in sibling objects, and keys inside strings, are fine.
    const arrays = thrown(() =>
      parseLockfile('{"x": [{"a": 1}, {"a": 1, "b": "\\"a\\": {", "b": 2}]}', 'a2a.lock.json'),
    );
    expect(arrays.path).toBe('$.x[1].b');
  });

  it('duplicateKey: none in valid documents, whatever their nesting', async () => {
    const { duplicateKey } = await import('../../src/json-document.js');
    fc.assert(fc.property(fc.jsonValue(), (value) => duplicateKey(JSON.stringify(value, null, 1)) === undefined));
    expect(duplicateKey(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)).toBeUndefined();
    expect(duplicateKey(`${'{"a":'.repeat(5_000)}{"b":1,"b":2}${'}'.repeat(5_000)}`)?.path).toHaveLength(5_001);
  });

  it('duplicateKey: the path and line of a repeat, whatever structure the strings before it spell', async () => {
    const { duplicateKey } = await import('../../src/json-document.js');
    // Strings full of brackets, commas, colons, quotes and backslashes: the scan jumps over them.
    const tricky = fc.string({
      unit: fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', '\n', 'a'),
      maxLength: 8,
    });
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(tricky, fc.oneof(tricky, fc.array(tricky))), { maxLength: 4 }),
        tricky,
        (before, key) => {
          const k = JSON.stringify(key);
          const text = `{"list": ${JSON.stringify(before, null, 2)},\n"x": [1, {${k}: 1,\n ${k}: 2}]}`;
          const line = text.slice(0, text.lastIndexOf(`${k}: 2`)).split('\n').length;
          expect(duplicateKey(text)).toEqual({ path: ['x', 1, key], line });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('parseJson: a file written as we write files is read without the scan, and a repeat in it is still found', () => {
  it('a key repeated in text laid out exactly as JSON.stringify(value, null, 2) lays it out is refused', async () => {
    const { parseJson } = await import('../../src/json-document.js');
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), fc.jsonValue(), (object, repeated) => {
        const [key] = Object.keys(object);
        const text = JSON.stringify(object, null, 2);
        // The same key again as the last member, in the same layout.
        const member = JSON.stringify({ [key!]: repeated }, null, 2).slice(2, -2);
        const doubled = `${text.slice(0, -2)},\n${member}\n}\n`;
        expect(() => parseJson(doubled, 'x.json', 'lockfile-invalid', { uniqueKeys: true })).toThrow(/duplicate key/);
        expect(parseJson(`${text}\n`, 'x.json', 'lockfile-invalid', { uniqueKeys: true })).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('a document nested too deep to serialise is still read to a one-line error (not a stack overflow)', () => {
    const deep = (repeat: string) => `{\n  "x": ${'['.repeat(20_000)}${repeat}${']'.repeat(20_000)}\n}\n`;
    expect(lockError(deep('')).message).toMatch(/nested deeper than/);
    expect(lockError(deep('{"k": 1, "k": 2}')).message).toMatch(/duplicate key "k"/);
    expect(manifestError(deep('')).code).toBe('manifest-invalid');
  });

  it('a lockfile as a2a writes it, with one line repeated, is refused naming the path', () => {
    const written = serializeLockfile(buildLock());
    const line = written.split('\n').find((l) => l.includes('"delivery"'))!;
    const e = lockError(written.replace(line, `${line}\n${line}`));
    expect(e.code).toBe('lockfile-invalid');
    expect(e.message).toMatch(/duplicate key "delivery"/);
  });
});

describe('parseManifest: where card and trust.jwks point', () => {
  const withAgent = (entry: Json) =>
    JSON.stringify(manifestJson((m) => (m.agents = { x: { skills: ['market-size'], ...entry } })));
  const errorOf = (text: string): InvalidInputError => {
    try {
      parseManifest(text, 'a2a.json');
    } catch (error) {
      return error as InvalidInputError;
    }
    throw new Error('did not throw');
  };

  it('a user name or password in a card or trust.jwks URL is refused without printing it, with a hint to use credentials', () => {
    for (const [entry, path] of [
      [{ card: 'https://u:s3cret-pw@agent.example' }, '$.agents.x.card'],
      [{ card: 'http://token-only@127.0.0.1:9/a.json' }, '$.agents.x.card'],
      [{ card: 'HTTPS://u:s3cret-pw@[::1' }, '$.agents.x.card'],
      [
        { card: 'https://agent.example', trust: { jwks: 'https://u:s3cret-pw@keys.example/jwks.json' } },
        '$.agents.x.trust.jwks',
      ],
    ] as const) {
      const e = errorOf(withAgent(entry));
      expect(e.code).toBe('manifest-invalid');
      expect(e.path).toBe(path);
      expect(JSON.stringify(e.toJSON()) + String(e.stack)).not.toMatch(/s3cret-pw|token-only/);
      expect(e.hint).toContain('"credentials"');
    }
    // An @ after the authority (a path, a query) is no user name.
    expect(() =>
      parseManifest(withAgent({ card: 'https://agent.example/@team/card.json?x=a@b' }), 'a2a.json'),
    ).not.toThrow();
  });

  it('a file path must stay inside the manifest folder', () => {
    for (const card of [
      '../card.json',
      '/etc/card.json',
      '\\\\server\\share\\card.json',
      'C:\\card.json',
      'c:card.json',
      'a/../../card.json',
      'a\\..\\..\\card.json',
    ]) {
      const e = errorOf(withAgent({ card }));
      expect(e.path, card).toBe('$.agents.x.card');
      expect(e.message).toContain("leaves the manifest's folder");
    }
    expect(errorOf(withAgent({ card: 'card.json', trust: { jwks: '../keys.json' } })).path).toBe(
      '$.agents.x.trust.jwks',
    );
    for (const card of [
      'card.json',
      './cards/card.json',
      'a/../card.json',
      'cards/./b/../card.json',
      '..card.json',
      'https://agent.example/../x',
    ]) {
      expect(() => parseManifest(withAgent({ card }), 'a2a.json'), card).not.toThrow();
    }
  });
});
