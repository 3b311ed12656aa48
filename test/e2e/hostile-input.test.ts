/**
 * Hostile input is an ordinary error, never a crash: a card nested 10,000 levels deep is
 * `card-invalid` (exit 2) naming the URL and the JSON path where the 64-level limit is crossed, for
 * every command that reads it; agent names that are Object.prototype members (`constructor`,
 * `toString`) are names like any other; `__proto__` is refused with a message naming its path.
 * Built CLI against real `@a2a-js/sdk` agents and tiny node:http servers.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cardRequests,
  expectOneLineError,
  handlers,
  manifest,
  noStack,
  oneJsonDocument,
  PROFILE,
  readLock,
  readLockBytes,
  research,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
  writeLockBytes,
  writeManifest,
} from './helpers.js';

/** The sample card with an unknown field nested `depth` levels deep, as text (JSON.stringify would overflow). */
function deepCardText(origin: string, depth = 10_000): string {
  const card = JSON.stringify(sampleCard(origin));
  return `${card.slice(0, -1)},"extra":${'{"x":'.repeat(depth)}{}${'}'.repeat(depth)}}`;
}

/** `$.extra.x.x...` down to where the 64-level limit is crossed. */
const DEEP_PATH = /\$\.extra(\.x){63}: nested deeper than 64 levels/;

/** A node:http "agent" serving a card, switchable to other bodies. */
async function cardServer(res: ReturnType<typeof resources>) {
  const server = await res.http(handlers.status(404));
  server.setHandler(handlers.json(sampleCard(server.origin)));
  return server;
}

describe.concurrent('a card nested 10,000 levels deep', () => {
  it('a2a lock: exit 1 card-invalid naming the URL and the JSON path (not 70); nothing written', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const deep = await res.http(handlers.status(404));
    const text = deepCardText(deep.origin);
    expect(text.length).toBeGreaterThan(55_000);
    expect(text.length).toBeLessThan(70_000);
    deep.setHandler(handlers.json(text));
    const dir = await res.dir(manifest({ deep: research(deep.origin) }));
    const [lock, json, plan, card] = await Promise.all([
      runCli(['lock'], { cwd: dir }),
      runCli(['lock', '--json'], { cwd: dir }),
      runCli(['plan', deep.origin, '--skill', 'market-size', '--credential', 'bearer'], { cwd: dir }),
      runCli(['card', deep.origin, '--json'], { cwd: dir }),
    ]);
    const url = `${deep.origin}/.well-known/agent-card.json`;
    expect(lock.code, show(lock)).toBe(1);
    expect(lock.stdout).toContain(`deep: card-invalid: ${url} $.extra.x`);
    expect(lock.stdout).toMatch(DEEP_PATH);
    expect(lock.stdout).toMatch(/not written/);
    noStack(lock);
    expect(json.code, show(json)).toBe(1);
    expect(oneJsonDocument(json)).toMatchObject({
      ok: false,
      written: false,
      agents: {
        deep: {
          status: 'error',
          exitCode: 1,
          error: { code: 'card-invalid', message: expect.stringMatching(DEEP_PATH) },
        },
      },
      warnings: [],
    });
    expect(plan.code, show(plan)).toBe(1);
    expectOneLineError(plan, `card-invalid: ${url} $.extra.x`, DEEP_PATH);
    expect(card.code, show(card)).toBe(1);
    expect(oneJsonDocument(card).error).toMatchObject({
      code: 'card-invalid',
      source: url,
      path: expect.stringMatching(/^\$\.extra(\.x){63}$/),
    });
    expect(await readLockBytes(dir)).toBeUndefined();
  });

  it('a2a verify: the healthy agent is ok, the deep one an error (exit 1, an invalid card), per agent under --json; update refuses it', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const healthy = await res.sampleAgent();
    const deep = await cardServer(res);
    const dir = await res.dir(manifest({ healthy: research(healthy.origin), deep: research(deep.origin) }));
    const lock = await runCli(['lock'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    const before = await readLockBytes(dir);

    deep.setHandler(handlers.json(deepCardText(deep.origin)));
    const [human, json, update] = await Promise.all([
      runCli(['verify'], { cwd: dir }),
      runCli(['verify', '--json'], { cwd: dir }),
      runCli(['update', 'deep'], { cwd: dir }),
    ]);
    expect(human.code, show(human)).toBe(1);
    expect(human.stdout).toMatch(/✓ healthy\n/);
    expect(human.stdout).toMatch(
      /✗ deep: card-invalid: .*agent-card\.json \$\.extra(\.x){63}: nested deeper than 64 levels/,
    );
    expect(human.stdout).toMatch(/verify failed \(exit 1\)/);
    noStack(human);
    expect(json.code, show(json)).toBe(1);
    const doc = oneJsonDocument(json);
    expect(doc.ok).toBe(false);
    expect(doc.agents.healthy).toMatchObject({ status: 'ok', exitCode: 0 });
    expect(doc.agents.deep).toMatchObject({
      status: 'error',
      exitCode: 1,
      error: { code: 'card-invalid', message: expect.stringMatching(DEEP_PATH) },
    });
    expect(Array.isArray(doc.warnings)).toBe(true);
    expect(update.code, show(update)).toBe(1);
    expect(update.stdout).toMatch(DEEP_PATH);
    noStack(update);
    expect(await readLockBytes(dir)).toEqual(before);
  });
});

describe.concurrent('agent names that are Object.prototype members', () => {
  it('constructor and toString lock, verify and are reported once gone from the manifest', { timeout: SLOW }, async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await res.sampleAgent();
    const b = await res.sampleAgent();
    const dir = await res.dir(manifest({ toString: research(a.origin) }));
    const cli = (...args: string[]) => runCli(args, { cwd: dir });

    const first = await cli('lock');
    expect(first.code, show(first)).toBe(0);
    expect(first.stdout).toMatch(/\+ toString added/);

    // Adding `constructor` next to a locked `toString`: a lookup through the prototype would find Object.prototype.constructor.
    await writeManifest(dir, manifest({ toString: research(a.origin), constructor: research(b.origin) }));
    const second = await cli('lock', '--json');
    expect(second.code, show(second)).toBe(0);
    expect(oneJsonDocument(second)).toMatchObject({
      ok: true,
      written: true,
      agents: { constructor: { status: 'added' }, toString: { status: 'unchanged' } },
    });
    const lock = await readLock(dir);
    expect(Object.keys(lock.agents).sort()).toEqual(['constructor', 'toString']);
    expect(Object.keys(lock.settings).sort()).toEqual(['constructor', 'toString']);
    expect(lock.agents.constructor.plans['market-size'].url).toBe(b.jsonRpcUrl);
    expect(lock.agents.toString.plans['market-size'].url).toBe(a.jsonRpcUrl);

    const verify = await cli('verify', 'constructor', 'toString');
    expect(verify.code, show(verify)).toBe(0);
    expect(verify.stdout).toMatch(/✓ toString/);
    expect(verify.stdout).toMatch(/✓ constructor/);

    // toString leaves the manifest: verify must say so (`name in manifest.agents` would always be true).
    const before = await readLockBytes(dir);
    await writeManifest(dir, manifest({ constructor: research(b.origin) }));
    const [gone, goneJson] = await Promise.all([cli('verify'), cli('verify', '--json')]);
    expect(gone.code, show(gone)).toBe(1);
    expect(gone.stdout).toMatch(/✗ toString: lockfile out of date: no longer in the manifest/);
    expect(gone.stdout).toMatch(/run: a2a lock/);
    expect(gone.stdout).toMatch(/✓ constructor/);
    const doc = oneJsonDocument(goneJson);
    expect(doc.agents.toString).toMatchObject({
      status: 'out-of-date',
      exitCode: 1,
      reasons: ['no longer in the manifest'],
    });
    expect(doc.agents.constructor).toMatchObject({ status: 'ok' });
    expect(await readLockBytes(dir)).toEqual(before);

    const drop = await cli('lock');
    expect(drop.code, show(drop)).toBe(0);
    expect(drop.stdout).toMatch(/- toString removed/);
    expect(Object.keys((await readLock(dir)).agents)).toEqual(['constructor']);
  });

  it('an agent named __proto__ in a2a.json: exit 2 with a clear message naming the path', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await res.sampleAgent();
    const dir = await res.dir();
    // Written as text: an object literal with a __proto__ key would set the prototype instead.
    await writeManifest(
      dir,
      `{"profile": ${JSON.stringify(PROFILE)}, "agents": {"__proto__": ${JSON.stringify(research(a.origin))}}}\n`,
    );
    const results = await Promise.all(
      [['lock'], ['verify'], ['lock', '--json']].map((args) => runCli(args, { cwd: dir })),
    );
    for (const r of results.slice(0, 2)) {
      expect(r.code, show(r)).toBe(2);
      expectOneLineError(
        r,
        /manifest-invalid: .*a2a\.json \$\.agents\["__proto__"\]: agent name "__proto__" is not allowed/,
      );
    }
    const json = results[2]!;
    expect(json.code).toBe(2);
    expect(oneJsonDocument(json).error).toMatchObject({ code: 'manifest-invalid', path: '$.agents["__proto__"]' });
    expect(await readLockBytes(dir)).toBeUndefined();
    expect(cardRequests(a.requests)).toHaveLength(0);
  });
});

describe.concurrent('duplicate keys in a2a.json and a2a.lock.json', () => {
  it('an agent written twice in a2a.json, or a plan field twice in the lockfile: exit 2, one line naming the JSON path and line', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const a = await res.sampleAgent();
    const dir = await res.dir();
    const m = JSON.stringify(manifest({ research: research(a.origin) }), null, 2);
    await writeManifest(dir, m);
    const lock = await runCli(['lock'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    const lockText = (await readLockBytes(dir))!.toString('utf8');
    // The reviewer reads the first "delivery"; JSON.parse would keep the last.
    const edited = lockText.replace(/("delivery": "[a-z]+",)/, '$1\n          "delivery": "push",');
    const line = edited.split('\n').findIndex((l) => l.includes('"delivery": "push"')) + 1;
    await writeLockBytes(dir, edited);
    const [verify, verifyJson] = await Promise.all([
      runCli(['verify', '--offline'], { cwd: dir }),
      runCli(['verify', '--offline', '--json'], { cwd: dir }),
    ]);
    expect(verify.code, show(verify)).toBe(2);
    expectOneLineError(
      verify,
      /lockfile-invalid: .*a2a\.lock\.json \$\.agents\.research\.plans\["market-size"\]\.delivery: duplicate key "delivery" at line (\d+)/,
    );
    expect(verify.stderr).toContain(`at line ${line}:`);
    expect(verifyJson.code).toBe(2);
    expect(oneJsonDocument(verifyJson).error).toMatchObject({
      code: 'lockfile-invalid',
      path: '$.agents.research.plans["market-size"].delivery',
    });

    const doubled = m.replace(
      '"agents": {',
      `"agents": {\n    "research": ${JSON.stringify(research('https://elsewhere.example'))},`,
    );
    const second = doubled.split('\n').reduce((last, l, i) => (l.includes('"research":') ? i + 1 : last), 0);
    await writeManifest(dir, doubled);
    const twice = await runCli(['lock'], { cwd: dir });
    expect(twice.code, show(twice)).toBe(2);
    expectOneLineError(
      twice,
      /manifest-invalid: .*a2a\.json \$\.agents\.research: duplicate key "research" at line (\d+):/,
    );
    expect(twice.stderr).toContain(`at line ${second}:`);
  });
});

describe.concurrent('file paths in a2a.json stay inside its folder', () => {
  it('a card or trust.jwks path that is absolute or climbs out with ..: exit 2 naming the JSON path, nothing read; inside the folder is fine; on the command line any path is', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const outside = await res.dir();
    const dir = await res.dir();
    const project = join(dir, 'project');
    await mkdir(join(project, 'cards'), { recursive: true });
    const card = JSON.stringify(sampleCard('https://agent.example'));
    await writeFile(join(outside, 'secret-card.json'), card);
    await writeFile(join(project, 'cards', 'inside.json'), card);
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    await writeFile(
      join(project, 'cards', 'keys.json'),
      JSON.stringify({ keys: [{ ...jwk, kid: 'k1', alg: 'ES256' }] }),
    );
    const relOut = relative(project, join(outside, 'secret-card.json'));
    const cases: Array<[object, string]> = [
      [research(relOut), '$.agents.x.card'],
      [research(join(outside, 'secret-card.json')), '$.agents.x.card'],
      [research('cards/../../x.json'), '$.agents.x.card'],
      [{ ...research('cards/inside.json'), trust: { jwks: join(outside, 'keys.json') } }, '$.agents.x.trust.jwks'],
      [{ ...research('cards/inside.json'), trust: { jwks: '../keys.json' } }, '$.agents.x.trust.jwks'],
    ];
    for (const [entry, path] of cases) {
      await writeManifest(project, manifest({ x: entry as any }));
      const [r, json] = await Promise.all([
        runCli(['lock'], { cwd: project }),
        runCli(['lock', '--json'], { cwd: project }),
      ]);
      expect(r.code, show(r)).toBe(2);
      expectOneLineError(
        r,
        new RegExp(
          `manifest-invalid: .*a2a\\.json ${path.replace(/[.[\]$]/g, '\\$&')}: file path ".*" leaves the manifest's folder`,
        ),
      );
      expect(oneJsonDocument(json).error).toMatchObject({ code: 'manifest-invalid', path });
      expect(await readLockBytes(project)).toBeUndefined();
    }
    await writeManifest(
      project,
      manifest({ x: { ...research('./cards/../cards/inside.json'), trust: { jwks: 'cards/keys.json' } } as any }),
    );
    const inside = await runCli(['lock'], { cwd: project });
    expect(inside.code, show(inside)).toBe(0);
    const [cardCmd, plan] = await Promise.all([
      runCli(['card', relOut], { cwd: project }),
      runCli(['plan', join(outside, 'secret-card.json'), '--skill', 'market-size', '--credential', 'bearer'], {
        cwd: project,
      }),
    ]);
    expect(cardCmd.code, show(cardCmd)).toBe(0);
    expect(plan.code, show(plan)).toBe(0);
  });
});
