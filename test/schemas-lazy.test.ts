/**
 * Reading valid documents builds no zod schema: the runtime's first `lock.agent()` checks (the
 * manifest, the agent's entry and settings, its card snapshot) and the CLI's reads of a lockfile and
 * a card take the generated accept paths. A refused document builds the schemas, and its error is
 * the schema's. Every schema constructor of `zod/mini` is counted.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';

const made = vi.hoisted(() => ({ count: 0 }));
vi.mock('zod/mini', async (importOriginal) => {
  const mod = await importOriginal<typeof import('zod/mini')>();
  const z = new Proxy(mod.z, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        made.count++;
        return (value as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
  return { ...mod, z };
});

const { readCardText } = await import('../src/card/read.js');
const { parseLockfile } = await import('../src/lock/format.js');
const { checkLockfileTop, parseLockfileJson } = await import('../src/lock/top.js');
const { checkAgent, checkManifest } = await import('../src/runtime/checks.js');
const { CORPUS_DIR, CORPUS_FILES } = await import('./helpers/corpus.js');

const example = readFileSync('a2a.lock.json.example', 'utf8');
/** The manifest the example lockfile was locked from (each agent's settings as its own profile). */
const locked = JSON.parse(example) as {
  agents: Record<string, { card: string; plans: object }>;
  settings: Record<string, { credentials: string[]; versionRange?: string } & Record<string, unknown>>;
};
const manifest = JSON.stringify({
  profile: { bindings: ['JSONRPC'], versions: ['1.0'], accepts: ['application/json'] },
  agents: Object.fromEntries(
    Object.entries(locked.agents).map(([name, e]) => {
      const { credentials, versionRange, ...profile } = locked.settings[name]!;
      const agent = {
        card: e.card,
        skills: Object.keys(e.plans),
        profile,
        credentials: Object.fromEntries(credentials.map((c) => [c, { env: 'TOKEN' }])),
        ...(versionRange ? { version: versionRange } : {}),
      };
      return [name, agent];
    }),
  ),
});

describe('valid documents build no zod schema', () => {
  it('the first lock.agent() checks, a lockfile read and the corpus cards: none built; a refused manifest: built, and worded', () => {
    const lock = checkLockfileTop(parseLockfileJson(example, 'a2a.lock.json'), 'a2a.lock.json');
    const checked = checkManifest(manifest, 'a2a.json', lock);
    for (const name of Object.keys(lock.agents)) {
      const agent = checkAgent(lock, 'a2a.lock.json', name, checked);
      expect('error' in agent ? agent.error.message : 'ok').toBe('ok');
    }
    parseLockfile(example, 'a2a.lock.json');
    expect(made.count).toBe(0);
    // A corpus card read without an error built nothing; an invalid one may build the card schemas.
    let cards = 0;
    for (const file of CORPUS_FILES) {
      const before = made.count;
      try {
        readCardText(readFileSync(`${CORPUS_DIR}${file}`, 'utf8'), { source: file, baseUrl: 'https://agent.example/' });
      } catch {
        continue;
      }
      expect(made.count, file).toBe(before);
      cards++;
    }
    expect(cards).toBeGreaterThan(20);
    const beforeRefusal = made.count;

    expect(() => checkManifest('{"profile": {"bindings": []}}', 'a2a.json', lock)).toThrow(
      /a2a\.json.*profile\.bindings|must not be empty/,
    );
    expect(made.count).toBeGreaterThan(beforeRefusal);
  });
});
