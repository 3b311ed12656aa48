/**
 * The formats' zod schemas (`zod/mini`) are built on first use, once: loading the modules that read
 * a lockfile, a manifest or a card builds none, the first read builds them, and no later read or
 * refusal builds them again. Every schema constructor of `zod/mini` is counted.
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
type LockfileTop = import('../src/lock/top.js').LockfileTop;
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

/** Every read: a lockfile, the runtime's first `lock.agent()` checks (manifest, entry, settings, card snapshot), the corpus cards. */
function readAll(): LockfileTop {
  parseLockfile(example, 'a2a.lock.json');
  const lock = checkLockfileTop(parseLockfileJson(example, 'a2a.lock.json'), 'a2a.lock.json');
  const checked = checkManifest(manifest, 'a2a.json', lock);
  for (const name of Object.keys(lock.agents)) {
    const agent = checkAgent(lock, 'a2a.lock.json', name, checked);
    expect('error' in agent ? agent.error.message : 'ok').toBe('ok');
  }
  let cards = 0;
  for (const file of CORPUS_FILES) {
    try {
      readCardText(readFileSync(`${CORPUS_DIR}${file}`, 'utf8'), { source: file, baseUrl: 'https://agent.example/' });
      cards++;
    } catch {
      // An invalid corpus card, refused by the same schemas.
    }
  }
  expect(cards).toBeGreaterThan(20);
  return lock;
}

describe('the zod schemas are built lazily, once', () => {
  it('importing builds none; the first reads build them; later reads and refusals build none again', () => {
    // Loading every module that reads a format built nothing.
    expect(made.count).toBe(0);

    readAll();
    const built = made.count;
    expect(built).toBeGreaterThan(0);

    const lock = readAll();
    expect(made.count).toBe(built);

    // A refusal is worded by the schemas already built.
    expect(() => checkManifest('{"profile": {"bindings": []}}', 'a2a.json', lock)).toThrow(
      /a2a\.json.*profile\.bindings|must not be empty/,
    );
    expect(made.count).toBe(built);
  });
});
