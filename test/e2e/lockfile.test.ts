/**
 * Lockfile contracts end to end: deterministic bytes and format, no secret ever, all-or-nothing
 * `a2a lock`, untouched entries kept without network, removed agents dropped, `a2a install`,
 * `a2a verify --offline`, integrity of snapshots, and the `verify --json` shape.
 */
import { rm } from 'node:fs/promises';
import stableStringify from 'json-stable-stringify';
import { describe, expect, it } from 'vitest';
import {
  allOutput,
  cardRequests,
  jsonOf,
  lockPath,
  manifest,
  readLock,
  readLockBytes,
  research,
  resources,
  runCli,
  sampleCard,
  show,
  writeLockBytes,
  writeManifest,
} from './helpers.js';

/** Every object in `value` has its keys in code-unit order. */
function assertSortedKeys(value: unknown, path = '$'): void {
  if (Array.isArray(value)) value.forEach((v, i) => assertSortedKeys(v, `${path}[${i}]`));
  else if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    expect(keys, `keys of ${path}`).toEqual([...keys].sort());
    for (const k of keys) assertSortedKeys((value as Record<string, unknown>)[k], `${path}.${k}`);
  }
}

describe.concurrent('determinism, format, secrets', () => {
  it('locking twice and re-locking from scratch give identical bytes; sorted, 2-space, LF, no timestamps, no secret', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const SECRET = 'sekret-123';
    const v1 = await res.sampleAgent({ bearerToken: SECRET });
    const v03 = await res.sampleAgent({ legacy: true });
    const dir = await res.dir(
      manifest({
        research: research(v1.origin),
        legacy: research(v03.origin, { profile: { versions: ['0.3'] } }),
      }),
    );
    const env = { RESEARCH_TOKEN: SECRET };
    const cli = (...args: string[]) => runCli(args, { cwd: dir, env });

    const first = await cli('lock');
    expect(first.code, show(first)).toBe(0);
    const bytes1 = await readLockBytes(dir);
    const second = await cli('lock');
    expect(second.code, show(second)).toBe(0);
    expect(second.stdout).toMatch(/is up to date/);
    expect(await readLockBytes(dir)).toEqual(bytes1);
    await rm(lockPath(dir));
    const third = await cli('lock');
    expect(third.code, show(third)).toBe(0);
    expect(await readLockBytes(dir)).toEqual(bytes1);

    // Format: keys sorted at every level, 2-space indent, LF only, one trailing newline.
    const text = bytes1!.toString('utf8');
    const parsed = JSON.parse(text);
    assertSortedKeys(parsed);
    expect(text).toBe(`${JSON.stringify(parsed, null, 2)}\n`);
    expect(text).not.toContain('\r');
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.endsWith('\n\n')).toBe(false);
    for (const line of text.split('\n'))
      expect(line.length - line.trimStart().length).toSatisfy((n: number) => n % 2 === 0);
    expect(text.split('\n')[1]).toMatch(/^ {2}"/);
    expect(parsed.lockfileVersion).toBe(1);
    expect(Object.keys(parsed).sort()).toEqual(['$schema', 'agents', 'lockfileVersion', 'settings']);
    // Editors resolve the packaged schema beside node_modules.
    expect(parsed.$schema).toBe('./node_modules/a2a-lock/schemas/a2a-lock.schema.json');
    // No timestamps anywhere.
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    expect(text).not.toMatch(/"(fetchedAt|lockedAt|timestamp|date|time|generated)"/i);
    // integrity = sha256 of the canonical snapshot; credentials only by scheme name and env var.
    expect(parsed.agents.research.integrity).toMatch(/^sha256-[A-Za-z0-9+/]{43}=$/);
    expect(parsed.settings.research.credentials).toEqual(['bearer']);

    // The secret goes nowhere: not in the lockfile, no output of any command, not to the card endpoint.
    const others = await Promise.all([
      cli('verify', '--json', '--verbose'),
      cli('install'),
      cli('update', '--json'),
      cli('plan', v1.origin, '--skill', 'market-size', '--credential', 'bearer', '--json'),
    ]);
    for (const r of others) expect(r.code, show(r)).toBe(0);
    for (const r of [first, second, third, ...others]) expect(allOutput(r)).not.toContain(SECRET);
    const after = await readLockBytes(dir);
    expect(after).toEqual(bytes1);
    expect(after!.toString('utf8')).not.toContain(SECRET);
    expect(after!.toString('utf8')).not.toContain('RESEARCH_TOKEN');
    for (const r of cardRequests(v1.requests)) {
      expect(r.headers.authorization).toBeUndefined();
      expect(JSON.stringify(r.headers)).not.toContain(SECRET);
    }
  });
});

describe.concurrent('a2a lock: all or nothing, minimal network', () => {
  it('one refused agent: exit 1, no lockfile created', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const good = await res.sampleAgent();
    const bad = await res.sampleAgent();
    const dir = await res.dir(
      manifest({ good: research(good.origin), bad: research(bad.origin, { skills: ['no-such-skill'] }) }),
    );
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toMatch(/bad › no-such-skill: refused: skill-not-found/);
    expect(r.stdout).toMatch(/not written/);
    expect(await readLockBytes(dir)).toBeUndefined();
  });

  it('one refused agent: exit 1, existing lockfile byte-identical', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const good = await res.sampleAgent();
    const other = await res.sampleAgent();
    const dir = await res.dir(manifest({ good: research(good.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readLockBytes(dir);

    // A new good agent and a refused one (the skill exists but no credential for the bearer scheme).
    await writeManifest(
      dir,
      manifest({
        good: research(good.origin),
        other: research(other.origin),
        nocred: research(other.origin, { credentials: {} }),
      }),
    );
    const r = await runCli(['lock', '--json'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    const out = jsonOf(r);
    expect(out).toMatchObject({ ok: false, written: false });
    expect(out.agents.nocred).toMatchObject({
      status: 'refused',
      refusals: { 'market-size': { code: 'missing-credential' } },
    });
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('keeps untouched entries without network and drops agents removed from the manifest', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await res.sampleAgent();
    const b = await res.sampleAgent();
    const c = await res.sampleAgent();
    const dir = await res.dir(manifest({ a: research(a.origin), b: research(b.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const first = await readLock(dir);

    // a's server is gone; b is up but must not be asked; c is new.
    await a.close();
    const bSeen = b.requests.length;
    await writeManifest(dir, manifest({ a: research(a.origin), b: research(b.origin), c: research(c.origin) }));
    const add = await runCli(['lock'], { cwd: dir });
    expect(add.code, show(add)).toBe(0);
    expect(add.stdout).toMatch(/\+ c added/);
    const second = await readLock(dir);
    expect(stableStringify(second.agents.a)).toBe(stableStringify(first.agents.a));
    expect(stableStringify(second.agents.b)).toBe(stableStringify(first.agents.b));
    expect(second.agents.c.plans['market-size'].url).toBe(c.jsonRpcUrl);
    expect(b.requests.length).toBe(bSeen);

    // Remove b (and keep a, still down): b is dropped, nothing is fetched.
    const cSeen = c.requests.length;
    await writeManifest(dir, manifest({ a: research(a.origin), c: research(c.origin) }));
    const drop = await runCli(['lock'], { cwd: dir });
    expect(drop.code, show(drop)).toBe(0);
    expect(drop.stdout).toMatch(/- b removed/);
    const third = await readLock(dir);
    expect(Object.keys(third.agents).sort()).toEqual(['a', 'c']);
    expect(Object.keys(third.settings).sort()).toEqual(['a', 'c']);
    expect(stableStringify(third.agents.a)).toBe(stableStringify(first.agents.a));
    expect(b.requests.length).toBe(bSeen);
    expect(c.requests.length).toBe(cSeen);
  });

  it('re-resolves an agent whose effective profile changed', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const a = await res.sampleAgent();
    const dir = await res.dir(manifest({ a: research(a.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const seen = cardRequests(a.requests).length;
    await writeManifest(dir, manifest({ a: research(a.origin, { profile: { accepts: ['application/pdf'] } }) }));
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(cardRequests(a.requests).length).toBeGreaterThan(seen);
    const lock = await readLock(dir);
    expect(lock.settings.a.accepts).toEqual(['application/pdf']);
    expect(lock.agents.a.plans['market-size'].acceptedOutputModes).toEqual(['application/pdf']);
  });
});

describe.concurrent('a2a install', () => {
  it('lockfile missing → exit 1 "run a2a lock"', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const a = await res.sampleAgent();
    const dir = await res.dir(manifest({ a: research(a.origin) }));
    const r = await runCli(['install'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(allOutput(r)).toMatch(/run a2a lock/);
    expect(await readLockBytes(dir)).toBeUndefined();
  });

  it('clean → exit 0; manifest changed since lock → exit 1 "run a2a lock"; drift → exit 1; never writes', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await res.sampleAgent();
    const dir = await res.dir(manifest({ a: research(a.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readLockBytes(dir);
    const seen = cardRequests(a.requests).length;

    const clean = await runCli(['install'], { cwd: dir, env: { RESEARCH_TOKEN: 'x' } });
    expect(clean.code, show(clean)).toBe(0);
    // install writes nothing: it says checked, never installed (issue 27).
    expect(clean.stdout).toMatch(/^checked 1 agent \(1 skill\) against .*a2a\.lock\.json$/m);
    expect(clean.stdout).not.toContain('installed');
    // every card is re-fetched
    expect(cardRequests(a.requests).length).toBe(seen + 1);

    // A skill added to the manifest.
    await writeManifest(dir, manifest({ a: research(a.origin, { skills: ['market-size', 'other-skill'] }) }));
    const changed = await runCli(['install'], { cwd: dir });
    expect(changed.code, show(changed)).toBe(1);
    expect(allOutput(changed)).toMatch(/run a2a lock/);
    expect(allOutput(changed)).toMatch(/skills changed/);
    expect(await readLockBytes(dir)).toEqual(before);

    // Back to the locked manifest, but the card drifted: install is constrained by the lock.
    await writeManifest(dir, manifest({ a: research(a.origin) }));
    const card = sampleCard(a.origin);
    card.capabilities = { ...card.capabilities, streaming: false };
    a.setCard(card);
    const drift = await runCli(['install'], { cwd: dir });
    expect(drift.code, show(drift)).toBe(1);
    expect(drift.stdout).toMatch(/market-size › delivery: "stream" → "poll"/);
    // The last line counts the outcomes, as verify's does.
    expect(drift.stdout.trimEnd().split('\n').at(-1)).toBe('install failed (exit 1): 1 drift');
    expect(await readLockBytes(dir)).toEqual(before);
  });
});

describe.concurrent('a2a verify --offline, integrity, --json', () => {
  it('offline verify needs no network; online verify of a stopped agent exits 3; --json shape', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await res.sampleAgent();
    const b = await res.sampleAgent({ legacy: true });
    const dir = await res.dir(
      manifest({ a: research(a.origin), b: research(b.origin, { profile: { versions: ['0.3'] } }) }),
    );
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readLockBytes(dir);
    await Promise.all([a.close(), b.close()]);

    const [offline, offlineJson, online, onlineJson] = await Promise.all([
      runCli(['verify', '--offline'], { cwd: dir }),
      runCli(['verify', '--offline', '--json'], { cwd: dir }),
      runCli(['verify', 'a'], { cwd: dir }),
      runCli(['verify', '--json'], { cwd: dir }),
    ]);
    expect(offline.code, show(offline)).toBe(0);
    expect(offline.stdout).toMatch(/verified 2 agents \(offline\)/);
    expect(offlineJson.code).toBe(0);
    const ok = jsonOf(offlineJson);
    expect(ok).toEqual({
      ok: true,
      agents: { a: expect.objectContaining({ status: 'ok' }), b: expect.objectContaining({ status: 'ok' }) },
      warnings: [],
    });

    expect(online.code, show(online)).toBe(3);
    expect(online.stdout).toMatch(/a: unreachable/);
    expect(online.stdout).not.toMatch(/\bb\b.*unreachable/);
    expect(onlineJson.code).toBe(3);
    const failed = jsonOf(onlineJson);
    expect(failed.ok).toBe(false);
    expect(failed.agents.a).toMatchObject({ status: 'error', error: { code: 'unreachable' } });
    expect(failed.agents.b).toMatchObject({ status: 'error', error: { code: 'unreachable' } });
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('a tampered snapshot fails verify (offline and online) naming integrity; lock does not trust it', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await res.sampleAgent();
    const dir = await res.dir(manifest({ a: research(a.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const lock = await readLock(dir);
    lock.agents.a.snapshot.description = 'Tampered with.';
    const tampered = `${stableStringify(lock, { space: 2 })}\n`;
    await writeLockBytes(dir, tampered);

    const [online, offline] = await Promise.all([
      runCli(['verify'], { cwd: dir }),
      runCli(['verify', '--offline', '--json'], { cwd: dir }),
    ]);
    expect(online.code, show(online)).not.toBe(0);
    expect(online.stdout).toMatch(/a: .*integrity/);
    expect(offline.code, show(offline)).not.toBe(0);
    expect(jsonOf(offline)).toMatchObject({
      ok: false,
      agents: { a: { status: 'error', error: { message: expect.stringMatching(/integrity/) } } },
    });
    expect((await readLockBytes(dir))!.toString()).toBe(tampered);

    // Tampered plan (snapshot intact): offline verify notices the plan no longer follows from the snapshot.
    const lock2 = JSON.parse(tampered);
    lock2.agents.a.snapshot.description = sampleCard(a.origin).description;
    lock2.agents.a.plans['market-size'].delivery = 'poll';
    await writeLockBytes(dir, `${stableStringify(lock2, { space: 2 })}\n`);
    const plan = await runCli(['verify', '--offline'], { cwd: dir });
    expect(plan.code, show(plan)).toBe(1);
    expect(plan.stdout).toMatch(/delivery/);
    // ... and `a2a lock` re-plans it from the snapshot, offline, showing the diff (no loop between the two).
    const replan = await runCli(['lock'], { cwd: dir });
    expect(replan.code, show(replan)).toBe(0);
    expect(replan.stdout).toMatch(/plan market-size › delivery: "poll" → "stream"/);
    expect((await runCli(['verify', '--offline'], { cwd: dir })).code).toBe(0);

    // `a2a lock` never launders a tampered snapshot: exit 2, bytes kept, `a2a update` named.
    await writeLockBytes(dir, tampered);
    const relock = await runCli(['lock'], { cwd: dir });
    expect(relock.code, show(relock)).toBe(2);
    expect(relock.stdout).toMatch(/integrity/);
    expect(relock.stdout).toMatch(/run: a2a update a/);
    expect((await readLockBytes(dir))!.toString()).toBe(tampered);
    const update = await runCli(['update', 'a'], { cwd: dir });
    expect(update.code, show(update)).toBe(0);
    expect((await readLock(dir)).agents.a.snapshot.description).toBe(sampleCard(a.origin).description);
    const again = await runCli(['verify', '--offline'], { cwd: dir });
    expect(again.code, show(again)).toBe(0);
  });
});
