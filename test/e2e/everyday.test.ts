/**
 * The everyday commands (issue 16), through the built CLI against real SDK agents: the manifest
 * found upward (up to the git root), `a2a remove` (manifest and lockfile together, or neither),
 * `a2a ls`, `a2a update <agent> --card <url>`, a rename that is not a laundering path, and the
 * hints that lead somewhere (a newer lockfile, a missing credential at `add`, `lock --json` listing
 * every agent on failure).
 */
import { execFileSync } from 'node:child_process';
import { chown, lchown, mkdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extendedCard, publicCard } from './cards.js';
import {
  expectOneLineError,
  manifest,
  oneJsonDocument,
  readLock,
  readLockBytes,
  readManifestBytes,
  research,
  resources,
  runCli,
  sampleCard,
  show,
  writeLockBytes,
  writeManifest,
} from './helpers.js';

const TOKEN = { RESEARCH_TOKEN: 'unused' };

describe.concurrent('the manifest is looked for upward, up to the git root', () => {
  it('from a subdirectory: verify, ls and lock use the project root a2a.json and its lockfile', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const root = await res.dir(manifest({ research: research(agent.origin) }));
    await mkdir(join(root, '.git'));
    const sub = join(root, 'src', 'deep');
    await mkdir(sub, { recursive: true });
    const lock = await runCli(['lock'], { cwd: sub });
    expect(lock.code, show(lock)).toBe(0);
    expect(lock.stdout).toContain(`wrote ${join(root, 'a2a.lock.json')}`);
    const [verify, ls] = await Promise.all([
      runCli(['verify', '--offline'], { cwd: sub }),
      runCli(['ls', '--json'], { cwd: sub }),
    ]);
    expect(verify.code, show(verify)).toBe(0);
    expect(ls.code, show(ls)).toBe(0);
    expect(Object.keys(oneJsonDocument(ls).agents)).toEqual(['research']);
    // init still writes where it runs.
    const init = await runCli(['init'], { cwd: sub });
    expect(init.code, show(init)).toBe(0);
    expect(init.stdout).toContain(`wrote ${join(sub, 'a2a.json')}`);
  });

  it('stops at the git root: a manifest above it is not used; the error has its own code and a hint that helps', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const outer = await res.dir(manifest({ research: research(agent.origin) }));
    const repo = join(outer, 'repo');
    const sub = join(repo, 'pkg');
    await mkdir(join(repo, '.git'), { recursive: true });
    await mkdir(sub);
    const [human, json, named] = await Promise.all([
      runCli(['verify'], { cwd: sub }),
      runCli(['lock', '--json'], { cwd: sub }),
      runCli(['verify', '--manifest', 'other.json'], { cwd: sub }),
    ]);
    expect(human.code, show(human)).toBe(2);
    expect(human.stderr).toBe(
      `error manifest-not-found: no a2a.json in ${sub} or any parent directory up to ${repo}\n` +
        '  hint: run a2a in the project (or a folder inside it), or pass --manifest <file>; a2a init starts a new project here\n',
    );
    expect(json.code).toBe(2);
    expect(oneJsonDocument(json).error).toMatchObject({ code: 'manifest-not-found', source: join(sub, 'a2a.json') });
    expect(named.code).toBe(2);
    expect(named.stderr).toBe(
      `error manifest-not-found: ${join(sub, 'other.json')}: not found\n  hint: check the --manifest path; a2a init writes a new manifest\n`,
    );
    expect(await readLockBytes(outer)).toBeUndefined();
  });
});

/**
 * Issue 22, "the manifest search climbs above a folder that is not a git repository": a manifest
 * planted in a shared parent folder (another user's, or `/tmp` itself) must not be used, nor one
 * another user owns; one found above the working directory is named on stderr.
 */
describe.concurrent('the manifest search never reaches a folder someone else controls', () => {
  it('outside git the search stops at the working directory: a manifest planted in a parent folder gets no secret', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const secret = 'victim-secret-9f3e1c7a5b';
    // The planted manifest names the victim's secret variable for the attacker's agent.
    const attacker = await res.agent({
      card: publicCard,
      bearerToken: 'attacker-only',
      extendedCard: (o: string) => extendedCard(o),
    });
    const shared = await res.dir(
      manifest({
        evil: { card: attacker.origin, skills: ['deep-research'], credentials: { bearer: { env: 'RESEARCH_TOKEN' } } },
      }),
    );
    const victim = join(shared, 'victim', 'work');
    await mkdir(victim, { recursive: true });
    const [lock, outdated, json] = await Promise.all([
      runCli(['lock'], { cwd: victim, env: { RESEARCH_TOKEN: secret } }),
      runCli(['outdated'], { cwd: victim, env: { RESEARCH_TOKEN: secret } }),
      runCli(['ls', '--json'], { cwd: victim, env: { RESEARCH_TOKEN: secret } }),
    ]);
    for (const r of [lock, outdated]) {
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr).toContain(`error manifest-not-found: no a2a.json in ${victim}\n`);
    }
    expect(oneJsonDocument(json).error).toMatchObject({ code: 'manifest-not-found' });
    expect(attacker.requests).toEqual([]);
    expect(await readLockBytes(shared)).toBeUndefined();
  });

  it('under $HOME the search goes up to $HOME and no further; a manifest found above the working directory is named on stderr (human output only)', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const outer = await res.dir(manifest({ above: research('http://127.0.0.1:1') }));
    const home = join(outer, 'home');
    const project = join(home, 'project');
    const sub = join(project, 'src', 'deep');
    await mkdir(sub, { recursive: true });
    await writeManifest(project, manifest({ mine: research('http://127.0.0.1:1') }));
    const [human, json, noHome] = await Promise.all([
      runCli(['ls'], { cwd: sub, env: { HOME: home } }),
      runCli(['ls', '--json'], { cwd: sub, env: { HOME: home } }),
      runCli(['ls'], { cwd: sub, env: {} }),
    ]);
    expect(human.code, show(human)).toBe(0);
    expect(human.stderr).toBe(`using ${join('..', '..', 'a2a.json')}\n`);
    expect(human.stdout).toContain('mine');
    expect(json.code, show(json)).toBe(0);
    expect(Object.keys(oneJsonDocument(json).agents)).toEqual(['mine']);
    expect(json.stderr).toBe('');
    // Without $HOME (or outside it) only the working directory is searched.
    expect(noHome.code, show(noHome)).toBe(2);
    expect(noHome.stderr).toContain('manifest-not-found');
    // $HOME itself is searched; the folder above it never is.
    const inHome = join(home, 'other');
    await mkdir(inHome);
    const above = await runCli(['ls'], { cwd: inHome, env: { HOME: home } });
    expect(above.code, show(above)).toBe(2);
    expect(above.stderr).toContain(`no a2a.json in ${inHome} or any parent directory up to ${home}`);
  });

  it("a manifest owned by another user is never used (git's safe.directory rule): manifest-unsafe, exit 2; --manifest names it deliberately", async ({
    onTestFinished,
  }) => {
    const uid = process.getuid?.();
    if (uid === undefined) return; // no owners to compare (Windows)
    const res = resources(onTestFinished);
    const other = uid === 12345 ? 12346 : 12345;
    const repo = await res.dir(manifest({ planted: research('http://127.0.0.1:1') }));
    await mkdir(join(repo, '.git'));
    const sub = join(repo, 'pkg');
    await mkdir(sub);
    await chown(join(repo, 'a2a.json'), other, other);
    const [here, below, json, named] = await Promise.all([
      runCli(['ls'], { cwd: repo }),
      runCli(['verify', '--offline'], { cwd: sub }),
      runCli(['ls', '--json'], { cwd: sub }),
      runCli(['ls', '--json', '--manifest', 'a2a.json'], { cwd: repo }),
    ]);
    for (const r of [here, below]) {
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr).toBe(
        `error manifest-unsafe: ${join(repo, 'a2a.json')} is owned by another user (uid ${other}, this process runs as uid ${uid}), so it is not used\n` +
          '  hint: run a2a in your own project folder; to use this file anyway, name it: --manifest <file>\n',
      );
    }
    expect(json.code).toBe(2);
    expect(oneJsonDocument(json).error).toMatchObject({
      code: 'manifest-unsafe',
      source: join(repo, 'a2a.json'),
      owner: other,
    });
    expect(named.code, show(named)).toBe(0);
    expect(Object.keys(oneJsonDocument(named).agents)).toEqual(['planted']);
  });

  it("a symlink another user planted to one of this user's manifests is not used either (its folder, lockfile and card files are theirs)", async ({
    onTestFinished,
  }) => {
    const uid = process.getuid?.();
    if (uid === undefined) return;
    const res = resources(onTestFinished);
    const other = uid === 12345 ? 12346 : 12345;
    const mine = await res.dir(manifest({ mine: research('http://127.0.0.1:1') }));
    const shared = await res.dir(manifest({}));
    await mkdir(join(shared, '.git'));
    await rm(join(shared, 'a2a.json'));
    await symlink(join(mine, 'a2a.json'), join(shared, 'a2a.json'));
    await lchown(join(shared, 'a2a.json'), other, other);
    const r = await runCli(['ls'], { cwd: shared });
    expect(r.code, show(r)).toBe(2);
    expect(r.stderr).toContain(
      `error manifest-unsafe: ${join(shared, 'a2a.json')} is owned by another user (uid ${other}`,
    );
    // This user's own symlink is used as before.
    await lchown(join(shared, 'a2a.json'), uid, uid);
    expect((await runCli(['ls'], { cwd: shared })).code).toBe(0);
  });
});

describe.concurrent('a2a remove, a2a ls, a2a update --card', () => {
  it('remove drops agents from a2a.json and the lockfile in one step; an unknown agent or a bad lockfile writes neither', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const [a, b] = await Promise.all([res.sampleAgent(), res.sampleAgent()]);
    const dir = await res.dir(manifest({ research: research(a.origin), other: research(b.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const [manifestBefore, lockBefore] = [await readManifestBytes(dir), await readLockBytes(dir)];

    const unknown = await runCli(['remove', 'research', 'nobody'], { cwd: dir });
    expect(unknown.code, show(unknown)).toBe(2);
    expectOneLineError(unknown, /usage: unknown agent "nobody"/);
    expect(await readManifestBytes(dir)).toEqual(manifestBefore);
    expect(await readLockBytes(dir)).toEqual(lockBefore);

    const removed = await runCli(['remove', 'other', '--json'], { cwd: dir });
    expect(removed.code, show(removed)).toBe(0);
    expect(oneJsonDocument(removed)).toEqual({
      ok: true,
      removed: ['other'],
      written: { manifest: true, lockfile: true },
      warnings: [],
    });
    expect(Object.keys(JSON.parse(await readFile(join(dir, 'a2a.json'), 'utf8')).agents)).toEqual(['research']);
    const lock = await readLock(dir);
    expect(Object.keys(lock.agents)).toEqual(['research']);
    expect(Object.keys(lock.settings)).toEqual(['research']);
    // The lockfile still satisfies the manifest: nothing to do, nothing fetched.
    const verify = await runCli(['verify', '--offline'], { cwd: dir });
    expect(verify.code, show(verify)).toBe(0);

    await writeLockBytes(dir, '{"lockfileVersion": 1, "settings": {}, "agents": {"research": {"card": 7}}}\n');
    const manifestNow = await readManifestBytes(dir);
    const bad = await runCli(['remove', 'research'], { cwd: dir });
    expect(bad.code, show(bad)).toBe(2);
    expectOneLineError(bad, /lockfile-invalid/);
    expect(await readManifestBytes(dir)).toEqual(manifestNow);
  });

  it('remove: when the manifest cannot be written, the lockfile gets its old bytes back', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin), other: research(agent.origin) }));
    const lockDir = await res.dir();
    const lockfile = join(lockDir, 'a2a.lock.json');
    expect((await runCli(['lock', '--lockfile', lockfile], { cwd: dir })).code).toBe(0);
    const [manifestBefore, lockBefore] = [await readManifestBytes(dir), await readFile(lockfile)];
    // An immutable directory: not even root can create the manifest's temp file there.
    execFileSync('chattr', ['+i', dir]);
    let r;
    try {
      r = await runCli(['remove', 'other', '--lockfile', lockfile], { cwd: dir });
    } finally {
      execFileSync('chattr', ['-i', dir]);
    }
    expect(r.code, show(r)).toBe(2);
    expectOneLineError(r, /write-failed: .*a2a\.json: cannot write/);
    expect(await readManifestBytes(dir)).toEqual(manifestBefore);
    expect(await readFile(lockfile)).toEqual(lockBefore);
  });

  it('ls lists agents, skills and each plan in one line (--json too); a skill not locked says so', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    await writeManifest(dir, manifest({ research: research(agent.origin, { skills: ['market-size', 'later'] }) }));
    const [human, json] = await Promise.all([runCli(['ls'], { cwd: dir }), runCli(['ls', '--json'], { cwd: dir })]);
    expect(human.code, show(human)).toBe(0);
    const version = sampleCard(agent.origin).version;
    expect(human.stdout).toBe(
      `research ${agent.origin} (version ${version})\n  market-size: JSONRPC 1.0 · stream · bearer · application/json · 1 extension\n  later: not locked (run a2a lock)\n  credential bearer (env RESEARCH_TOKEN) → ${agent.origin}\n`,
    );
    const doc = oneJsonDocument(json);
    expect(doc.agents.research).toMatchObject({
      card: agent.origin,
      version,
      skills: { later: null, 'market-size': { protocolBinding: 'JSONRPC', url: agent.jsonRpcUrl } },
    });
  });

  it('update <agent> --card <url> writes the manifest and the lock together and prints the change; a failure writes neither', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const [a, b] = await Promise.all([res.sampleAgent(), res.sampleAgent()]);
    const dir = await res.dir(manifest({ research: research(a.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = [await readManifestBytes(dir), await readLockBytes(dir)];

    const [usage, down] = await Promise.all([
      runCli(['update', '--card', b.origin], { cwd: dir }),
      runCli(['update', 'research', '--card', 'http://127.0.0.1:1/'], { cwd: dir }),
    ]);
    expect(usage.code, show(usage)).toBe(2);
    expectOneLineError(usage, /usage: --card needs exactly one agent/);
    expect(down.code, show(down)).toBe(3);
    expect(down.stdout).toMatch(/a2a\.json not written/);
    expect([await readManifestBytes(dir), await readLockBytes(dir)]).toEqual(before);

    const moved = await runCli(['update', 'research', '--card', b.origin], { cwd: dir, env: TOKEN });
    expect(moved.code, show(moved)).toBe(0);
    expect(moved.stdout).toMatch(/~ research updated/);
    expect(moved.stdout).toContain(`plan market-size › url: "${a.jsonRpcUrl}" → "${b.jsonRpcUrl}"`);
    expect(moved.stdout).toMatch(/wrote .*a2a\.lock\.json\nwrote .*a2a\.json\n$/);
    expect(JSON.parse(await readFile(join(dir, 'a2a.json'), 'utf8')).agents.research.card).toBe(b.origin);
    expect((await readLock(dir)).agents.research.card).toBe(b.origin);
    const verify = await runCli(['verify'], { cwd: dir });
    expect(verify.code, show(verify)).toBe(0);
  });
});

describe.concurrent('a new card for a locked agent at add', () => {
  it('add <existing> <new-url> beyond the lock names a2a update <agent> --card <url>, which moves it', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const [a, b] = await Promise.all([res.sampleAgent(), res.sampleAgent()]);
    const dir = await res.dir(manifest({ research: research(a.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const [human, json] = await Promise.all([
      runCli(['add', 'research', b.origin, '--skill', 'market-size'], { cwd: dir }),
      runCli(['add', 'research', b.origin, '--skill', 'market-size', '--json'], { cwd: dir }),
    ]);
    expect(human.code, show(human)).toBe(1);
    expect(human.stdout).toContain(`    run: a2a update research --card ${b.origin}\n`);
    expect(oneJsonDocument(json).agents.research).toMatchObject({
      status: 'drift',
      next: `a2a update research --card ${b.origin}`,
    });
    const moved = await runCli(['update', 'research', '--card', b.origin], { cwd: dir, env: TOKEN });
    expect(moved.code, show(moved)).toBe(0);
    expect((await readLock(dir)).agents.research.card).toBe(b.origin);
  });
});

describe.concurrent('a rename is not a laundering path', () => {
  it('renamed with the same card: the old entry under the new name, "renamed research → research-v2"', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const old = (await readLock(dir)).agents.research;
    await writeManifest(dir, manifest({ 'research-v2': research(agent.origin) }));
    const [json, human] = [await runCli(['lock', '--json'], { cwd: dir }), await runCli(['lock'], { cwd: dir })];
    expect(json.code, show(json)).toBe(0);
    expect(oneJsonDocument(json).agents).toEqual({ 'research-v2': { status: 'renamed', from: 'research' } });
    expect(human.code, show(human)).toBe(0);
    expect(human.stdout).toMatch(/is up to date/);
    const lock = await readLock(dir);
    expect(Object.keys(lock.agents)).toEqual(['research-v2']);
    expect(lock.agents['research-v2']).toEqual(old);
  });

  it('renamed while the card drifted: refused like any drift, naming a2a update <new name>; nothing written', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readLockBytes(dir);
    const card = sampleCard(agent.origin);
    card.skills[0]!.outputModes = ['text/plain'];
    agent.setCard(card);
    await writeManifest(dir, manifest({ 'research-v2': research(agent.origin) }));
    const [human, json] = await Promise.all([runCli(['lock'], { cwd: dir }), runCli(['lock', '--json'], { cwd: dir })]);
    expect(human.code, show(human)).toBe(1);
    expect(human.stdout).toMatch(/✗ research-v2: beyond the lockfile/);
    expect(human.stdout).toContain('acceptedOutputModes:\n      - application/json\n      + text/plain');
    expect(human.stdout).toMatch(/run: a2a update research-v2\n/);
    expect(oneJsonDocument(json).agents['research-v2']).toMatchObject({ status: 'drift', from: 'research' });
    expect(await readLockBytes(dir)).toEqual(before);
    // update accepts it under the new name.
    const update = await runCli(['update', 'research-v2'], { cwd: dir, env: TOKEN });
    expect(update.code, show(update)).toBe(0);
    expect(Object.keys((await readLock(dir)).agents)).toEqual(['research-v2']);
  });
});

describe.concurrent('hints that lead somewhere', () => {
  it('a lockfile from a newer a2a-lock: "upgrade a2a-lock", and the file is kept', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const newer = '{"lockfileVersion": 99, "settings": {}, "agents": {}}\n';
    await writeLockBytes(dir, newer);
    const [lock, verify] = await Promise.all([
      runCli(['lock'], { cwd: dir }),
      runCli(['verify', '--json'], { cwd: dir }),
    ]);
    expect(lock.code, show(lock)).toBe(2);
    expect(lock.stderr).toMatch(/lockfileVersion 99 needs a newer a2a-lock/);
    expect(lock.stderr).toMatch(/hint: upgrade a2a-lock/);
    expect(lock.stderr).not.toMatch(/delete/);
    expect(oneJsonDocument(verify).error.hint).toMatch(/^upgrade a2a-lock/);
    expect((await readLockBytes(dir))!.toString()).toBe(newer);
  });

  it('missing-credential at add names --credential <scheme>=<ENV>; lock --json on failure lists every agent', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readManifestBytes(dir);
    const [human, json] = await Promise.all([
      runCli(['add', 'more', agent.origin, '--skill', 'market-size'], { cwd: dir }),
      runCli(['add', 'more', agent.origin, '--skill', 'market-size', '--json'], { cwd: dir }),
    ]);
    expect(human.code, show(human)).toBe(1);
    expect(human.stdout).toMatch(
      /✗ more › market-size: refused: missing-credential: .*\n {4}hint: a2a add more http:\/\/127\.0\.0\.1:\d+ --skill market-size --credential bearer=<ENV> /,
    );
    const doc = oneJsonDocument(json);
    expect(doc.agents.more.refusals['market-size']).toMatchObject({
      code: 'missing-credential',
      hint: expect.stringContaining('--credential bearer=<ENV>'),
    });
    // Every agent with its outcome: the one that would have stayed as it is, too.
    expect(doc.agents.research).toEqual({ status: 'unchanged' });
    expect(await readManifestBytes(dir)).toEqual(before);
  });
});
