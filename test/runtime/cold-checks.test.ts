/**
 * What the runtime's per-agent check skips on a cold start changes nothing it reads: a locked
 * snapshot is normalised without its host warnings (`CardSource.hostWarnings: false`, which
 * `lock/offline.ts` passes, since it keeps only the card), and that card is the one the full read
 * gives; the warnings it still makes are the others. `canonicalJson` (integrity, signatures, files)
 * writes json-stable-stringify's text (a dev dependency, kept as the oracle), on arbitrary values.
 * `loadLock` reads the lockfile and the manifest at once, and the lockfile's error still comes first.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import stableStringify from 'json-stable-stringify';
import { describe, expect, it } from 'vitest';
import { canonicalJson, stableFileJson } from '../../src/canonical.js';
import { normalizeCard } from '../../src/card/normalize.js';
import { lockedNegotiationCard } from '../../src/lock/offline.js';
import { loadLock } from '../../src/runtime/index.js';
import { sampleCard } from '../helpers/agents.js';

/** A card whose interfaces sit on an unspecified address, a mixed-script host and an internationalised one; one URL relative. */
const hostile = () =>
  sampleCard('https://agent.example', {
    supportedInterfaces: [
      { url: 'http://0.0.0.0:9999/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://p\u0430ypal.com/a2a', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'https://bücher.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: '/relative', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ],
  });
const cardUrl = 'https://p\u0430ypal.com/.well-known/agent-card.json';

describe('host warnings off for a locked snapshot', () => {
  it('the same card as the full read, without the host warnings; the other warnings stay', () => {
    const full = normalizeCard(hostile(), { source: 'card', baseUrl: cardUrl });
    const skipped = normalizeCard(hostile(), { source: 'card', baseUrl: cardUrl, hostWarnings: false });
    expect(full.warnings.map((w) => w.code)).toEqual(
      expect.arrayContaining([
        'interface-host-unspecified',
        'host-mixed-script',
        'host-international',
        'relative-interface-url',
      ]),
    );
    expect(skipped.card).toEqual(full.card);
    expect(skipped.warnings).toEqual(full.warnings.filter((w) => !/^(interface-host-unspecified|host-)/.test(w.code)));
    expect(skipped.warnings.map((w) => w.code)).toContain('relative-interface-url');
  });

  it('a locked entry reads the card the full read gives', () => {
    const snapshot = hostile();
    const entry = {
      card: cardUrl,
      resolved: cardUrl,
      a2aVersion: '1.0',
      version: '1',
      integrity: '',
      snapshot,
      plans: {},
    };
    expect(lockedNegotiationCard(entry, 'agents.x')).toEqual(
      normalizeCard(snapshot, { source: 'agents.x', baseUrl: cardUrl }).card,
    );
  });
});

describe('canonicalJson is json-stable-stringify (the package is the test oracle)', () => {
  /** The package's text, or the error it throws. */
  const theirs = (v: unknown) => {
    try {
      return stableStringify(v);
    } catch (error) {
      return `throws ${(error as Error).name}`;
    }
  };
  const ours = (v: unknown) => {
    try {
      return canonicalJson(v);
    } catch (error) {
      // canonicalJson refuses a value with no JSON form, where the package returns undefined.
      return (error as Error).message === 'value has no JSON form' ? undefined : `throws ${(error as Error).name}`;
    }
  };

  it('the same text for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => ours(v) === theirs(v)),
      { numRuns: 2000 },
    );
  });

  it('the same text (or error) for any value: undefined members, holes, -0, NaN, dates, boxed values, maps, null prototypes, toJSON', () => {
    const anything = fc.anything({
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withBigInt: true,
      withUnicodeString: true,
    });
    const withToJson = anything.map((v) => ({ toJSON: () => v }));
    fc.assert(
      fc.property(
        fc.oneof(anything, withToJson, fc.array(withToJson), fc.dictionary(fc.string(), withToJson)),
        (v) => ours(v) === theirs(v),
      ),
      { numRuns: 3000 },
    );
  });

  it("files: stableFileJson is the package's text indented by 2 with empty containers collapsed, plus a newline", () => {
    const theirsFile = (v: unknown) => {
      const text = stableStringify(v, { space: 2, collapseEmpty: true });
      return text === undefined ? undefined : `${text}\n`;
    };
    const oursFile = (v: unknown) => {
      try {
        return stableFileJson(v);
      } catch {
        return undefined;
      }
    };
    const nested = fc.jsonValue().chain((v) => fc.constantFrom(v, [v, [], {}], { a: v, b: {}, c: [[], { d: [] }] }));
    fc.assert(
      fc.property(
        fc.oneof(nested, fc.anything({ withSparseArray: true, withNullPrototype: true })),
        (v) => oursFile(v) === theirsFile(v),
      ),
      { numRuns: 2000 },
    );
  });

  it('a cycle through an object is a TypeError, as there; shared (non-cyclic) objects are written each time', () => {
    const shared = { b: 1 };
    expect(ours({ x: shared, y: [shared, shared] })).toBe(theirs({ x: shared, y: [shared, shared] }));
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { again: cyclic };
    expect(ours(cyclic)).toBe('throws TypeError');
    expect(theirs(cyclic)).toBe('throws TypeError');
  });
});

describe('loadLock reads both files at once, the lockfile first in its errors', () => {
  it('a missing or invalid lockfile is the error, whatever the manifest (missing, unreadable); a valid one then meets the manifest error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'a2a-cold-read-'));
    try {
      await mkdir(join(dir, 'unreadable.json'));
      const missing = join(dir, 'missing.json');
      const unreadable = join(dir, 'unreadable.json');
      for (const manifest of [missing, unreadable]) {
        await expect(loadLock({ lockfile: join(dir, 'none.lock.json'), manifest })).rejects.toMatchObject({
          code: 'lockfile-invalid',
          message: expect.stringMatching(/no lockfile here/),
        });
      }
      await writeFile(join(dir, 'bad.lock.json'), '{"lockfileVersion": 1, "settings": {}, "agents": []}');
      await expect(loadLock({ lockfile: join(dir, 'bad.lock.json'), manifest: unreadable })).rejects.toMatchObject({
        code: 'lockfile-invalid',
        data: expect.objectContaining({ path: '$.agents' }),
      });
      await writeFile(join(dir, 'ok.lock.json'), '{"lockfileVersion": 1, "settings": {}, "agents": {}}');
      await expect(loadLock({ lockfile: join(dir, 'ok.lock.json'), manifest: missing })).rejects.toMatchObject({
        code: 'manifest-not-found',
      });
      await expect(loadLock({ lockfile: join(dir, 'ok.lock.json'), manifest: unreadable })).rejects.toMatchObject({
        code: 'manifest-invalid',
        message: expect.stringMatching(/cannot read \(EISDIR\)/),
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
