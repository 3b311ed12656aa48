/**
 * `a2a plan` (one card, no lockfile), `a2a init` + `a2a add` (manifest + lock, all or nothing),
 * the legacy well-known path fallback, and the two bins.
 */
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BIN,
  cardRequests,
  jsonOf,
  manifest,
  PROFILE,
  ROOT,
  readLock,
  readLockBytes,
  readManifestBytes,
  resources,
  runCli,
  sampleCard,
  show,
} from './helpers.js';

describe.concurrent('a2a plan <url|file> --skill <id> --json', () => {
  it('URL: {"plan", "warnings"} exit 0; refusal: {"refusal": {code, message}, "warnings"} exit 1', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const v1 = await res.sampleAgent();
    const dir = await res.dir(); // no manifest: the default profile
    const [ok, refused, missingSkill, human] = await Promise.all([
      runCli(['plan', v1.origin, '--skill', 'market-size', '--credential', 'bearer', '--json'], { cwd: dir }),
      runCli(['plan', v1.origin, '--skill', 'market-size', '--json'], { cwd: dir }),
      runCli(['plan', v1.cardUrl, '--skill', 'nope', '--credential', 'bearer', '--json'], { cwd: dir }),
      runCli(['plan', v1.origin, '--skill', 'market-size', '--credential', 'bearer'], { cwd: dir }),
    ]);
    expect(ok.code, show(ok)).toBe(0);
    const out = jsonOf(ok);
    expect(Object.keys(out).sort()).toEqual(['plan', 'warnings']);
    expect(out.plan).toEqual({
      url: v1.jsonRpcUrl,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      security: { bearer: [] },
      acceptedOutputModes: ['application/json'],
      delivery: 'stream',
      extensions: [],
      fallbacks: {
        interfaces: [{ url: v1.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
        delivery: ['poll'],
      },
    });
    expect(out.warnings).toEqual([]);

    expect(refused.code, show(refused)).toBe(1);
    const r = jsonOf(refused);
    expect(Object.keys(r).sort()).toEqual(['refusal', 'warnings']);
    expect(Object.keys(r.refusal).sort()).toEqual(['code', 'message']);
    expect(r.refusal.code).toBe('missing-credential');
    expect(r.refusal.message).toMatch(/bearer/);
    expect(r.refusal.message).toMatch(/held: none/);

    expect(missingSkill.code, show(missingSkill)).toBe(1);
    expect(jsonOf(missingSkill).refusal).toMatchObject({
      code: 'skill-not-found',
      message: expect.stringContaining('"market-size"'),
    });

    expect(human.code, show(human)).toBe(0);
    expect(human.stdout).toMatch(/plan for skill "market-size"/);
    expect(human.stdout).toContain(`url          ${v1.jsonRpcUrl}`);
    expect(human.stdout).toMatch(/binding +JSONRPC 1\.0/);
    // A plan fetch sends the profile's first version.
    for (const req of cardRequests(v1.requests)) expect(req.headers['a2a-version']).toBe('1.0');
  });

  it('--profile file: versions ["0.3"] gets the 0.3 plan from a compat agent (with its warnings)', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const v03 = await res.sampleAgent({ legacy: true });
    const dir = await res.dir();
    await writeFile(join(dir, 'profile.json'), JSON.stringify({ ...PROFILE, versions: ['0.3'] }));
    await writeFile(join(dir, 'bad-profile.json'), JSON.stringify({ ...PROFILE, accepts: ['*/*'] }));
    const [r, bad] = await Promise.all([
      runCli(
        ['plan', v03.origin, '--skill', 'market-size', '--profile', 'profile.json', '--credential', 'bearer', '--json'],
        { cwd: dir },
      ),
      runCli(['plan', v03.origin, '--skill', 'market-size', '--profile', 'bad-profile.json', '--json'], { cwd: dir }),
    ]);
    expect(r.code, show(r)).toBe(0);
    const out = jsonOf(r);
    expect(out.plan).toMatchObject({
      url: v03.jsonRpcUrl,
      protocolBinding: 'JSONRPC',
      protocolVersion: '0.3',
      extensions: ['https://example.com/ext/citations/v1'],
    });
    expect(Array.isArray(out.warnings)).toBe(true);
    for (const w of out.warnings)
      expect(w).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.any(String) }));
    expect(cardRequests(v03.requests).map((q) => q.headers['a2a-version'])).toEqual(['0.3']);

    expect(bad.code, show(bad)).toBe(2);
    expect(jsonOf(bad).error).toMatchObject({
      code: 'profile-invalid',
      message: expect.stringMatching(/bad-profile\.json \$\.accepts\[0\]/),
    });
  });

  it('file card: plan and refusal', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    const card = sampleCard('https://research.example.com');
    await writeFile(join(dir, 'card.json'), JSON.stringify(card));
    const noJson = sampleCard('https://research.example.com');
    noJson.skills[0]!.outputModes = ['application/pdf'];
    await writeFile(join(dir, 'pdf-card.json'), JSON.stringify(noJson));
    const [ok, refused] = await Promise.all([
      runCli(['plan', 'card.json', '--skill', 'market-size', '--credential', 'bearer', '--json'], { cwd: dir }),
      runCli(['plan', 'pdf-card.json', '--skill', 'market-size', '--credential', 'bearer', '--json'], { cwd: dir }),
    ]);
    expect(ok.code, show(ok)).toBe(0);
    expect(jsonOf(ok).plan).toMatchObject({ url: 'https://research.example.com/a2a/jsonrpc', protocolVersion: '1.0' });
    expect(refused.code, show(refused)).toBe(1);
    expect(jsonOf(refused).refusal).toMatchObject({
      code: 'no-common-output-mode',
      message: expect.stringMatching(/application\/pdf.*application\/json/s),
    });
  });
});

describe.concurrent('a2a init + a2a add', () => {
  it('add writes the agent to the manifest and locks it; a refused add writes neither file', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const v1 = await res.sampleAgent();
    const dir = await res.dir();
    const init = await runCli(['init'], { cwd: dir });
    expect(init.code, show(init)).toBe(0);

    const add = await runCli(
      ['add', 'research', v1.origin, '--skill', 'market-size', '--credential', 'bearer=RESEARCH_TOKEN'],
      { cwd: dir },
    );
    expect(add.code, show(add)).toBe(0);
    const m = JSON.parse((await readManifestBytes(dir)).toString());
    expect(m.agents.research).toEqual({
      card: v1.origin,
      skills: ['market-size'],
      credentials: { bearer: { env: 'RESEARCH_TOKEN' } },
    });
    expect(m.$schema).toBe('./node_modules/a2a-lock/schemas/a2a.schema.json');
    const lock = await readLock(dir);
    expect(lock.$schema).toBe('./node_modules/a2a-lock/schemas/a2a-lock.schema.json');
    expect(lock.agents.research.plans['market-size'].url).toBe(v1.jsonRpcUrl);
    const manifestBefore = await readManifestBytes(dir);
    const lockBefore = await readLockBytes(dir);

    const verify = await runCli(['verify'], { cwd: dir });
    expect(verify.code, show(verify)).toBe(0);

    // Refused: the skill does not exist; then: no credential for the card's bearer requirement.
    const [noSkill, noCred] = await Promise.all([
      runCli(['add', 'other', v1.origin, '--skill', 'no-such-skill'], { cwd: dir }),
      runCli(['add', 'other', v1.origin, '--skill', 'market-size'], { cwd: dir }),
    ]);
    expect(noSkill.code, show(noSkill)).toBe(1);
    expect(noSkill.stdout).toMatch(/skill-not-found/);
    expect(noCred.code, show(noCred)).toBe(1);
    expect(noCred.stdout).toMatch(/missing-credential/);
    expect(await readManifestBytes(dir)).toEqual(manifestBefore);
    expect(await readLockBytes(dir)).toEqual(lockBefore);
  });

  it('a refused add into a project without a lockfile creates no lockfile', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const v1 = await res.sampleAgent();
    const dir = await res.dir(manifest({}));
    const before = await readManifestBytes(dir);
    const r = await runCli(['add', 'x', v1.origin, '--skill', 'nope'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(await readManifestBytes(dir)).toEqual(before);
    expect(await readLockBytes(dir)).toBeUndefined();
  });

  it('legacy /.well-known/agent.json: the URL that answered is locked with a legacy-well-known-path warning', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const old = await res.sampleAgent({ serveLegacyPathOnly: true });
    const dir = await res.dir(manifest({}));
    const r = await runCli(['add', 'old', old.origin, '--skill', 'market-size', '--credential', 'bearer=OLD_TOKEN'], {
      cwd: dir,
    });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toMatch(/warning legacy-well-known-path: old: /);
    const lock = await readLock(dir);
    expect(lock.agents.old.card).toBe(old.origin);
    expect(lock.agents.old.resolved).toBe(old.legacyCardUrl);
    expect(cardRequests(old.requests).map((q) => q.path)).toEqual([
      '/.well-known/agent-card.json',
      '/.well-known/agent.json',
    ]);
    const again = await runCli(['lock', '--json'], { cwd: dir });
    expect(again.code, show(again)).toBe(0);
    expect(jsonOf(again)).toMatchObject({ ok: true, written: false });
    // Under --json the warnings are in the document, not lost.
    const updated = await runCli(['update', 'old', '--json'], { cwd: dir });
    expect(updated.code, show(updated)).toBe(0);
    expect(jsonOf(updated).warnings).toEqual([
      expect.objectContaining({ code: 'legacy-well-known-path', agent: 'old' }),
    ]);
  });
});

describe.concurrent('a manifest saved with a UTF-8 byte-order mark', () => {
  it('add, update --card and remove edit it like any other (no internal error), and write it back without the mark', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const v1 = await res.sampleAgent();
    const dir = await res.dir();
    await writeFile(join(dir, 'a2a.json'), `\uFEFF${JSON.stringify(manifest({}), null, 2)}\n`);
    const added = await runCli(
      ['add', 'research', v1.origin, '--skill', 'market-size', '--credential', 'bearer=RESEARCH_TOKEN'],
      { cwd: dir },
    );
    expect(added.code, show(added)).toBe(0);
    const written = (await readManifestBytes(dir)).toString('utf8');
    expect(written.startsWith('\uFEFF'), 'the mark is not written back').toBe(false);
    expect(JSON.parse(written).agents.research.card).toBe(v1.origin);
    await writeFile(join(dir, 'a2a.json'), `\uFEFF${written}`);
    const moved = await runCli(['update', 'research', '--card', v1.cardUrl], { cwd: dir });
    expect(moved.code, show(moved)).toBe(0);
    expect(JSON.parse((await readManifestBytes(dir)).toString('utf8')).agents.research.card).toBe(v1.cardUrl);
    await writeFile(join(dir, 'a2a.json'), `\uFEFF${(await readManifestBytes(dir)).toString('utf8')}`);
    const removed = await runCli(['remove', 'research'], { cwd: dir });
    expect(removed.code, show(removed)).toBe(0);
    expect(JSON.parse((await readManifestBytes(dir)).toString('utf8')).agents).toEqual({});
  });
});

describe.concurrent('bins', () => {
  it('a2a and a2a-lock are the same entry; --version prints the package version', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ a2a: 'dist/a2a.js', 'a2a-lock': 'dist/a2a.js' });
    expect((await readFile(BIN, 'utf8')).startsWith('#!/usr/bin/env node\n')).toBe(true);

    // Run the entry through a link named like each bin, as npm installs it.
    const dir = await res.dir();
    await symlink(BIN, join(dir, 'a2a-lock'));
    const [direct, viaLink, full] = await Promise.all([
      runCli(['--version'], { cwd: dir }),
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        import('node:child_process').then(({ execFile }) =>
          execFile(process.execPath, [join(dir, 'a2a-lock'), '--version'], (error, stdout) =>
            resolve({ code: error ? 1 : 0, stdout }),
          ),
        );
      }),
      runCli(['--version', '--json'], { cwd: dir }), // through yargs (dist), not the fast path
    ]);
    expect(direct.code).toBe(0);
    expect(direct.stdout).toBe(`${pkg.version}\n`);
    expect(viaLink).toEqual({ code: 0, stdout: `${pkg.version}\n` });
    expect(full.code, show(full)).toBe(0);
    expect(full.stdout.trim()).toBe(pkg.version);
  });
});
