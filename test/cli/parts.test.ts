/** CLI parts without a process: workflow-command escaping, flag suggestions, progress timing, the pool's order and progress, value pairs in diffs. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lineAnnotation, verifyAnnotations } from '../../src/cli/github.js';
import { createProgress } from '../../src/cli/progress.js';
import { renderDrift, show, showPair, terminalSafe, untrusted } from '../../src/cli/render/common.js';
import { closest, editDistance, unknownArgumentsMessage } from '../../src/cli/suggest.js';
import { interleaveBy, mapSettled } from '../../src/pool.js';

describe('GitHub annotations', () => {
  it('escape %, CR and LF in the message, and also : and , in properties', () => {
    expect(
      lineAnnotation('error', 'dir,a/a2a.lock.json', undefined, 'x: beyond, the lockfile', '100% a\r\nb: c, d'),
    ).toBe('::error file=dir%2Ca/a2a.lock.json,title=x%3A beyond%2C the lockfile::100%25 a%0D%0Ab: c, d');
  });

  it('escape terminal control and bidi characters (from a scheme name, a URL or an error) in the message and the properties: annotations skip the terminal filter', () => {
    const hostile = 'o\u001b]8;;http://x\u0007 \u001b[31m\u009b2J\u202e\u2028\u0000';
    const line = lineAnnotation(
      'error',
      'a2a.lock.json',
      undefined,
      `t${hostile}`,
      `now sends ${hostile} → https://evil.example`,
    );
    expect(line).toBe(
      '::error file=a2a.lock.json,title=to\\u001b]8;;http%3A//x\\u0007 \\u001b[31m\\u009b2J\\u202e\\u2028\\u0000::now sends o\\u001b]8;;http://x\\u0007 \\u001b[31m\\u009b2J\\u202e\\u2028\\u0000 → https://evil.example',
    );
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e\u2028]/);
  });

  it('one per failing agent: an agent that could not be verified, and a --strict card change; none for passing agents', () => {
    expect(
      verifyAnnotations('sub/a2a.lock.json', {
        ok: { status: 'ok', exitCode: 0, warnings: [] },
        changed: { status: 'changed', exitCode: 0, change: 'descriptive', warnings: [] },
        strict: { status: 'changed', exitCode: 1, change: 'descriptive', warnings: [] },
        down: {
          status: 'error',
          exitCode: 3,
          error: { code: 'unreachable', message: 'http://127.0.0.1:9/card.json: connection refused (ECONNREFUSED)' },
          warnings: [],
        },
      }),
    ).toEqual([
      '::error file=sub/a2a.lock.json,title=strict card changed::descriptive card change (--strict); run: a2a update strict',
      '::error file=sub/a2a.lock.json,title=down not verified::unreachable: http://127.0.0.1:9/card.json: connection refused (ECONNREFUSED)',
    ]);
  });

  it('an agent left unchecked without --strict gets a ::warning (the run passes, the reviewer still sees it); a credential not set too', () => {
    expect(
      verifyAnnotations('a2a.lock.json', {
        routed: {
          status: 'unchecked',
          exitCode: 0,
          reason: 'credential-route-new',
          unchecked:
            'extended card not checked: checked with credentials after this change is merged; review it in a2a diff',
          warnings: [],
        },
        unset: {
          status: 'unchecked',
          exitCode: 0,
          reason: 'credential-unset',
          unchecked: 'extended card not checked: RESEARCH_TOKEN is not set',
          warnings: [],
        },
        strict: {
          status: 'unchecked',
          exitCode: 1,
          reason: 'extended-changed',
          unchecked: 'extended snapshot edited',
          warnings: [],
        },
      }),
    ).toEqual([
      '::warning file=a2a.lock.json,title=routed not checked::credential-route-new: extended card not checked: checked with credentials after this change is merged; review it in a2a diff',
      '::warning file=a2a.lock.json,title=unset not checked::credential-unset: extended card not checked: RESEARCH_TOKEN is not set',
      '::error file=a2a.lock.json,title=strict not checked::extended-changed: extended snapshot edited (--strict)',
    ]);
  });
});

describe('verify annotations at their lines', () => {
  it('with the files located: an agent at its lockfile line, one only the manifest names at its manifest line, one in neither at no line', () => {
    const down = (code: string) => ({
      status: 'error' as const,
      exitCode: 3 as const,
      error: { code: code as 'unreachable', message: 'm' },
      warnings: [],
    });
    const files = {
      lockfile: { path: 'sub/a2a.lock.json', lines: { locked: 12 } },
      manifest: { path: 'sub/a2a.json', lines: { locked: 5, added: 9 } },
    };
    expect(
      verifyAnnotations(
        'sub/a2a.lock.json',
        { locked: down('unreachable'), added: down('card-invalid'), gone: down('x') },
        files,
      ),
    ).toEqual([
      '::error file=sub/a2a.lock.json,line=12,title=locked not verified::unreachable: m',
      '::error file=sub/a2a.json,line=9,title=added not verified::card-invalid: m',
      '::error file=sub/a2a.lock.json,title=gone not verified::x: m',
    ]);
  });
});

describe('untrusted', () => {
  it('escapes every string and key at any depth, keeps `__proto__` a data key, and copies only what changes', () => {
    const clean = { a: ['x', { b: 'y' }], c: 1 };
    expect(untrusted(clean)).toBe(clean);
    const data = JSON.parse(
      '{"ok": {"n": ["x"]}, "list": ["plain", "\\u001b[31mred"], "__proto__": {"k\\u202e": "v"}}',
    );
    const out = untrusted(data);
    expect(out).not.toBe(data);
    expect(out.ok).toBe(data.ok);
    expect(out.list).toEqual(['plain', '\\u001b[31mred']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    // biome-ignore lint/complexity/useLiteralKeys: the own key "__proto__" that the hostile input made, read as written
    // biome-ignore lint/suspicious/noProto: an own data property, not the accessor
    expect(out['__proto__']).toEqual({ 'k\\u202e': 'v' });
    expect(data.list[1]).toBe('\u001b[31mred');
  });
});

describe('terminalSafe', () => {
  it('leaves no printed line a GitHub workflow command: a skill id from a hostile manifest or lockfile starting a drift line', () => {
    // The runner reads every stdout and stderr line whose first non-blank characters are `::` as a
    // command (`::stop-commands::` silences the annotations after it, `::error` forges one).
    const drift = [
      { skill: '::stop-commands::pwned', refusal: { code: 'no-common-output-mode', message: 'x' } },
      { skill: '::error file=a2a.lock.json::forged', field: 'url', locked: 'https://a', fresh: 'https://b' },
    ];
    const lines = renderDrift(untrusted(drift) as never).map(terminalSafe);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.trimStart()).not.toMatch(/^::/);
    expect(lines[0]).toContain('stop-commands::pwned');
    expect(terminalSafe('\u00a0 ::add-mask::x').trimStart()).not.toMatch(/^::/);
    expect(terminalSafe('a ::b')).toBe('a ::b');
  });
});

describe('suggestions', () => {
  it('a mistyped command as the first argument gets the closest command, case aside', () => {
    expect(unknownArgumentsMessage(['VERIFY'], ['VERIFY'], ['json'], ['lock', 'verify', 'why'])).toBe(
      'unknown command "VERIFY"; did you mean verify?',
    );
    expect(unknownArgumentsMessage(['extra'], ['verify', 'extra'], ['json'], ['lock', 'verify'])).toBe(
      'unknown argument "extra"',
    );
    expect(unknownArgumentsMessage(['STRICT'], ['verify', '--STRICT'], ['strict', 'json'])).toBe(
      'unknown option --STRICT (did you mean --strict?)',
    );
  });

  it('edit distance and the closest known name within 3 edits', () => {
    expect(editDistance('strcit', 'strict')).toBe(2);
    expect(editDistance('', 'json')).toBe(4);
    expect(closest('ofline', ['offline', 'strict'])).toBe('offline');
    expect(closest('zzzzzzzz', ['offline', 'strict'])).toBeUndefined();
  });

  it('names flags with their closest option, drops yargs camelCase twins, quotes stray arguments', () => {
    const known = ['manifest', 'json', 'allow-http', 'offline', 'strict'];
    expect(unknownArgumentsMessage(['allow-htp', 'allowHtp'], ['verify', '--allow-htp'], known)).toBe(
      'unknown option --allow-htp (did you mean --allow-http?)',
    );
    expect(unknownArgumentsMessage(['x'], ['verify', '-x'], known)).toBe('unknown option -x');
    expect(unknownArgumentsMessage(['extra'], ['lock', 'extra'], known)).toBe('unknown argument "extra"');
  });

  it('names a negated flag as it was typed: --no-summary, not --summary', () => {
    expect(unknownArgumentsMessage(['summary'], ['install', '--no-summary'], ['json'])).toBe(
      'unknown option --no-summary',
    );
    expect(unknownArgumentsMessage(['strct'], ['verify', '--no-strct'], ['strict', 'json'])).toBe(
      'unknown option --no-strct (did you mean --no-strict?)',
    );
  });
});

describe('progress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const tty = () => {
    const writes: string[] = [];
    return { writes, stream: { isTTY: true, write: (t: string) => writes.push(t) } };
  };

  it('appears only after a second, then follows every update, and is cleared at the end', () => {
    vi.useFakeTimers();
    const { writes, stream } = tty();
    const progress = createProgress({ json: false, env: {}, stream })!;
    progress.update(0, 3);
    progress.update(1, 3);
    vi.advanceTimersByTime(999);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['\r\x1b[2Kfetching agents 1/3']);
    progress.update(2, 3);
    progress.stop();
    expect(writes.slice(1)).toEqual(['\r\x1b[2Kfetching agents 2/3', '\r\x1b[2K']);
  });

  it('a run under a second prints nothing', () => {
    vi.useFakeTimers();
    const { writes, stream } = tty();
    const progress = createProgress({ json: false, env: {}, stream })!;
    progress.update(3, 3);
    progress.stop();
    vi.advanceTimersByTime(5000);
    expect(writes).toEqual([]);
  });

  it('silent when not a TTY, under CI, and with --json; CI=false is no CI', () => {
    vi.useFakeTimers();
    const { writes, stream } = tty();
    expect(createProgress({ json: false, env: {}, stream: { write: () => 0 } })).toBeUndefined();
    expect(createProgress({ json: false, env: { CI: 'true' }, stream })).toBeUndefined();
    expect(createProgress({ json: true, env: {}, stream })).toBeUndefined();
    const progress = createProgress({ json: false, env: { CI: 'false' }, stream })!;
    progress.update(1, 2);
    vi.advanceTimersByTime(1000);
    expect(writes).toEqual(['\r\x1b[2Kfetching agents 1/2']);
  });
});

describe('mapSettled progress', () => {
  it('reports 0/n before the first item and each settled item, failures included', async () => {
    const seen: string[] = [];
    await mapSettled(
      [1, 2, 3],
      2,
      async (n) => {
        if (n === 2) throw new Error('down');
        return n;
      },
      (done, total) => seen.push(`${done}/${total}`),
    );
    expect(seen).toEqual(['0/3', '1/3', '2/3', '3/3']);
  });

  it("release() ends an item's turn early: the next item starts while it finishes; the limit holds for the rest; results keep input order", async () => {
    const log: string[] = [];
    let active = 0;
    let maxActive = 0;
    const gates = new Map<number, () => void>();
    const results = mapSettled([0, 1, 2, 3], 2, async (n, _i, release) => {
      active++;
      maxActive = Math.max(maxActive, active);
      log.push(`start ${n}`);
      await new Promise<void>((resolve) => setTimeout(resolve, 5));
      active--;
      if (n === 0) {
        // Item 0 releases its turn, then waits to finish until item 2 has started.
        release();
        await new Promise<void>((resolve) => gates.set(0, resolve));
      }
      if (n === 2) gates.get(0)?.();
      if (n === 3) throw new Error('down');
      log.push(`end ${n}`);
      return n * 10;
    });
    const settled = await results;
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual([0, 10, 20, 'rejected']);
    expect(maxActive).toBe(2);
    expect(log.indexOf('start 2')).toBeLessThan(log.indexOf('end 0'));
  });
});

describe('interleaveBy', () => {
  it("takes one item of each key in turn (keys in order of first appearance), each key's items in order", () => {
    const items = ['a1', 'a2', 'a3', 'b1', 'c1', 'c2', 'b2'];
    expect(interleaveBy(items, (s) => s[0]!)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3']);
    expect(interleaveBy([], (s: string) => s)).toEqual([]);
    expect(interleaveBy(['x', 'y'], () => '')).toEqual(['x', 'y']);
  });
});

describe('showPair', () => {
  it('short values whole; long ones shortened at value boundaries keeping what differs, so the difference shows', () => {
    expect(showPair({ a: 1 }, undefined)).toEqual(['{"a":1}', '(absent)']);
    const fallbacks = (delivery: string[]) => ({
      interfaces: Array.from({ length: 4 }, (_, i) => ({
        url: `https://agent.example/rpc/${i}`,
        protocolBinding: 'JSONRPC',
      })),
      delivery,
    });
    const [locked, fresh] = showPair(fallbacks(['poll']), fallbacks([]));
    expect(locked).toContain('"delivery":["poll"]');
    expect(fresh).toContain('"delivery":[]');
    expect(locked.length).toBeLessThanOrEqual(121);
    // A difference near the end: the elements both sides share are left out, the one that differs shown whole.
    const late = (last: string) => ({
      delivery: ['poll'],
      interfaces: [...fallbacks([]).interfaces, { url: last, protocolBinding: 'JSONRPC' }],
    });
    const [a, b] = showPair(late('https://agent.example/old'), late('https://agent.example/new'));
    expect(a).toContain('"interfaces":[… 4 more,{');
    expect(a).toContain('/old');
    expect(b).toContain('/new');
  });

  it('never cuts inside a JSON value: without the … markers each side parses, and its strings are whole strings of the value', () => {
    const strings = (v: unknown, into = new Set<string>()): Set<string> => {
      if (typeof v === 'string') into.add(v);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          if (!Array.isArray(v)) into.add(k);
          strings(x, into);
        }
      return into;
    };
    const parse = (text: string) =>
      JSON.parse(
        text
          .replace(/… \(string, \d+ characters\)/g, 'null')
          .replace(/,?… \d+ more,?/g, (m) => (m.startsWith(',') && m.endsWith(',') ? ',' : '')),
      );
    const modes = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `application/vnd.${tag}-${i}+json`);
    const iface = (i: number) => ({
      url: `https://agent.example/rpc/${i}`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    const values: Array<[unknown, unknown]> = [
      [modes(30, 'a'), modes(31, 'a')],
      [
        { interfaces: [iface(0), iface(1)], delivery: ['poll'] },
        { interfaces: Array.from({ length: 12 }, (_, i) => iface(i)), delivery: [] },
      ],
      [
        { description: 'd'.repeat(500), modes: modes(3, 'b') },
        { description: `${'😀'.repeat(90)}"\\`, modes: modes(9, 'b') },
      ],
      ['s'.repeat(200), { nested: { deeper: { deepest: modes(20, 'c') } } }],
      [[[[modes(12, 'd')]]], [[[modes(13, 'd')]]]],
    ];
    for (const [a, b] of values) {
      const known = strings([a, b]);
      for (const text of [...showPair(a, b), show(a), show(b)]) {
        expect(text.length, text).toBeLessThanOrEqual(120);
        const parsed = parse(text);
        for (const x of strings(parsed)) expect(known, text).toContain(x);
      }
    }
  });

  it('sorts keys on both sides and never cuts a character in two', () => {
    const long = (tokenUrl: string) => ({
      zeta: 'z'.repeat(60),
      flows: { clientCredentials: { tokenUrl, scopes: {} } },
      alpha: 'a'.repeat(60),
    });
    const served = {
      alpha: 'a'.repeat(60),
      flows: { clientCredentials: { scopes: {}, tokenUrl: 'https://b.example/t' } },
      zeta: 'z'.repeat(60),
    };
    const [was, now] = showPair(long('https://a.example/t'), served);
    // One side alone (an added or removed member) is written the same canonical way as a pair.
    expect(show({ url: 'https://a.example/a2a', protocolBinding: 'JSONRPC' })).toBe(
      '{"protocolBinding":"JSONRPC","url":"https://a.example/a2a"}',
    );
    expect(showPair(undefined, { url: 'u', binding: 'b' })).toEqual(['(absent)', '{"binding":"b","url":"u"}']);
    expect(was).toContain('a.example');
    expect(now).toContain('b.example');
    for (let n = 50; n < 70; n++) {
      const [x, y] = showPair(`${'😀'.repeat(n)}A${'😀'.repeat(60)}`, `${'😀'.repeat(n)}B${'😀'.repeat(60)}`);
      for (const text of [x, y])
        expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
  });
});
