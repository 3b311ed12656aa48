/**
 * Reviewer and CI experience against a real SDK agent: `a2a outdated`/`diff` (what update would
 * change, never written, exit 1), GitHub annotations from `verify`, `a2a why`, colour only on a
 * TTY, unknown commands and flags with suggestions, `--help` with an example.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { basename, dirname, join } from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { closeFetcher, UsageError, verifyLockfile } from '../../src/index.js';
import { BIN, jsonOf, manifest, readLock, readLockBytes, research, resources, runCli, sampleCard, show, writeLockBytes } from './helpers.js';

describe.concurrent('reviewer and CI output', () => {
  it('outdated lists every agent it cannot resolve, with its exit code (was: hidden, "current", exit 0)', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    onTestFinished(() => closeFetcher());
    const [refusing, broken] = await Promise.all([res.sampleAgent(), res.sampleAgent()]);
    const dir = await res.dir(manifest({ research: research(refusing.origin), other: research(broken.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readLockBytes(dir);
    const renamed = sampleCard(refusing.origin);
    renamed.skills[0]!.id = 'market-sizing'; // the locked skill is gone: update would refuse
    refusing.setCard(renamed);
    broken.setCard({ ...sampleCard(broken.origin), supportedInterfaces: 'none' } as never); // invalid card
    const [human, json] = await Promise.all([runCli(['outdated'], { cwd: dir }), runCli(['outdated', '--json'], { cwd: dir })]);
    expect(human.code, show(human)).toBe(1);
    expect(human.stdout).toMatch(/research/);
    expect(human.stdout).toMatch(/other/);
    expect(human.stdout).not.toMatch(/is current/);
    expect(json.code).toBe(1);
    const doc = jsonOf(json);
    expect(doc.ok).toBe(false);
    expect(doc.agents.research).toMatchObject({ exitCode: 1 });
    expect(doc.agents.other).toMatchObject({ exitCode: 2, status: 'error' });
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('outdated: a snapshot edited after locking is an error naming its integrity (exit 2), not a change update would make', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    onTestFinished(() => closeFetcher());
    const [one, two] = await Promise.all([res.sampleAgent(), res.sampleAgent()]);
    const dir = await res.dir(manifest({ research: research(one.origin), other: research(two.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const locked = await readLock(dir);
    locked.agents.research.snapshot.description = 'edited by hand';
    await writeLockBytes(dir, `${JSON.stringify(locked, null, 2)}\n`);
    const before = await readLockBytes(dir);
    const r = await runCli(['outdated', '--json'], { cwd: dir });
    expect(r.code, show(r)).toBe(2);
    const doc = jsonOf(r);
    expect(doc.agents.research).toMatchObject({ status: 'error', error: { code: 'lockfile-invalid' } });
    expect(doc.agents.research.error.message).toMatch(/snapshot does not match its integrity/);
    expect(doc.agents.other).toEqual({ status: 'current' });
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('--lockfile naming the manifest is a usage error before anything is read or written', async ({ onTestFinished }) => {
    const dir = await resources(onTestFinished).dir(manifest({}));
    const before = await readFile(join(dir, 'a2a.json'));
    for (const command of ['lock', 'verify', 'install']) {
      const r = await runCli([command, '--lockfile', 'a2a.json'], { cwd: dir });
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr).toMatch(/--lockfile and --manifest name the same file/);
    }
    expect(await readFile(join(dir, 'a2a.json'))).toEqual(before);
    // And an unknown agent name lists the ones there are (as update and outdated do).
    await writeFile(join(dir, 'a2a.lock.json'), '{"lockfileVersion":1,"settings":{},"agents":{}}\n');
    const nobody = await runCli(['verify', 'nobody'], { cwd: dir });
    expect(nobody.code, show(nobody)).toBe(2);
    expect(nobody.stderr).toMatch(/unknown agent "nobody" \(agents: none\)/);
  });

  it('outdated/diff show what update would change without writing; verify annotates under GitHub Actions; why explains', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    onTestFinished(() => closeFetcher());
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env });
    expect((await cli(['lock'])).code).toBe(0);

    const current = await cli(['outdated']);
    expect(current.code, show(current)).toBe(0);
    expect(current.stdout).toMatch(/✓ research: up to date \(version 2\.4\.0\)/);

    const card = sampleCard(agent.origin, { version: '2.5.0', description: 'Sizes markets (v2.5).' });
    card.skills[0]!.outputModes = ['text/plain'];
    agent.setCard(card);
    const before = await readLockBytes(dir);

    const [human, json, gha, ghaJson, plain] = await Promise.all([
      cli(['outdated']),
      cli(['diff', '--json']),
      cli(['verify'], { GITHUB_ACTIONS: 'true' }),
      cli(['verify', '--json'], { GITHUB_ACTIONS: 'true' }),
      cli(['verify']),
    ]);
    expect(human.code, show(human)).toBe(1);
    expect(human.stdout).toContain('~ research: would be updated (structural card change)');
    expect(human.stdout).toContain('    version: 2.4.0 → 2.5.0');
    expect(human.stdout).toContain('$.skills["market-size"].outputModes[0]: "application/json" → "text/plain" structural');
    expect(human.stdout).toContain('$.description: "Sizes markets and produces research briefs with citations." → "Sizes markets (v2.5)." descriptive');
    expect(human.stdout).toContain('plan market-size › acceptedOutputModes: ["application/json"] → ["text/plain"]');
    expect(human.stdout).toContain('1 agent would change: run a2a update research');

    expect(json.code, show(json)).toBe(1);
    const doc = jsonOf(json);
    expect(doc).toMatchObject({ ok: false, outdated: ['research'], warnings: [] });
    expect(doc.agents.research).toMatchObject({
      status: 'outdated',
      change: 'structural',
      version: { old: '2.4.0', new: '2.5.0' },
      planChanges: { 'market-size': [{ field: 'acceptedOutputModes', old: ['application/json'], new: ['text/plain'] }] },
      signatureChanges: [],
    });
    expect(doc.agents.research.cardChanges).toContainEqual({ path: '$.version', kind: 'changed', old: '2.4.0', new: '2.5.0', structural: false });
    // outdated never writes.
    expect(await readLockBytes(dir)).toEqual(before);
    // An agent gone from the manifest is a2a lock's to remove (a2a update does not know it any more).
    const manifestNow = JSON.parse(await readFile(join(dir, 'a2a.json'), 'utf8'));
    await writeFile(join(dir, 'removed.json'), JSON.stringify({ ...manifestNow, agents: {} }));
    const removed = await cli(['outdated', '--manifest', 'removed.json', '--lockfile', 'a2a.lock.json']);
    expect(removed.code, show(removed)).toBe(1);
    expect(removed.stdout).toContain('- research: would be removed (no longer in the manifest)');
    expect(removed.stdout).toContain('1 agent would change: run a2a lock');
    expect(await readLockBytes(dir)).toEqual(before);

    // One annotation per agent beyond the lockfile, on stdout; under --json on stderr (stdout stays one document).
    const annotation = '::error file=a2a.lock.json,title=research beyond the lockfile::market-size: refused with the locked choices (no-common-output-mode); market-size › acceptedOutputModes: ["application/json"] → ["text/plain"]; run: a2a update research';
    expect(gha.code, show(gha)).toBe(1);
    expect(gha.stdout.split('\n'), gha.stdout).toContain(annotation);
    expect(ghaJson.code).toBe(1);
    expect(jsonOf(ghaJson).agents.research.status).toBe('drift');
    expect(ghaJson.stderr.split('\n')).toContain(annotation);
    expect(plain.code).toBe(1);
    expect(`${plain.stdout}${plain.stderr}`).not.toContain('::error');
    // Relative to the repository root (GITHUB_WORKSPACE), not to where verify ran.
    const nested = await cli(['verify'], { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dirname(dir) });
    expect(nested.stdout).toContain(`::error file=${basename(dir)}/a2a.lock.json,title=research beyond the lockfile::`);
    // A workspace that does not hold the lockfile: the path from where verify ran.
    const outside = await cli(['verify'], { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: join(dirname(dir), 'elsewhere') });
    expect(outside.stdout).toContain('::error file=a2a.lock.json,title=research beyond the lockfile::');

    // The same check as a library call (package root): data, not output.
    const verified = await verifyLockfile({ manifest: join(dir, 'a2a.json'), env: {} });
    expect(verified).toMatchObject({ ok: false, exitCode: 1, agents: { research: { status: 'drift', change: 'structural' } } });
    const offline = await verifyLockfile({ manifest: join(dir, 'a2a.json'), offline: true, strict: true });
    expect(offline).toMatchObject({ ok: true, exitCode: 0, agents: { research: { status: 'ok' } } });
    await expect(verifyLockfile({ manifest: join(dir, 'a2a.json'), agents: ['nobody'] })).rejects.toThrow(UsageError);
    // Options the CLI's flags would refuse are refused here too (were TypeErrors or timeouts).
    for (const bad of [{ concurrency: 0 }, { concurrency: 'x' }, { timeoutMs: -1 }, { retries: 11 }]) {
      await expect(verifyLockfile({ manifest: join(dir, 'a2a.json'), ...(bad as object) })).rejects.toThrow(UsageError);
    }

    // why is offline: the locked snapshot still explains the locked plan.
    const why = await cli(['why', 'research', 'market-size']);
    expect(why.code, show(why)).toBe(0);
    expect(why.stdout).toContain(`→ JSONRPC 1.0    offered at ${agent.jsonRpcUrl}`);
    expect(why.stdout).toContain(`✓ HTTP+JSON 1.0  offered at ${agent.origin}/a2a/rest; a more preferred pair won`);
    expect(why.stdout).toContain('→ [bearer]  every scheme held');
    expect(why.stdout).toContain('✓ accept application/json  the skill outputs application/json');
    expect(why.stdout).toContain('✓ the locked plan');
  });

  it('why: unknown agent or skill is usage (exit 2); a hand-edited plan is exit 1 with the difference', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    const { readFile, writeFile } = await import('node:fs/promises');
    const lock = JSON.parse(await readFile('a2a.lock.json.example', 'utf8'));
    lock.agents['research-agent'].plans['market-size'].delivery = 'poll';
    await writeFile(`${dir}/a2a.lock.json`, JSON.stringify(lock));
    const [edited, unknownAgent, unknownSkill] = await Promise.all([
      runCli(['why', 'research-agent', '--json'], { cwd: dir }),
      runCli(['why', 'reserch-agent'], { cwd: dir }),
      runCli(['why', 'currency-agent', 'market-size'], { cwd: dir }),
    ]);
    expect(edited.code, show(edited)).toBe(1);
    const doc = jsonOf(edited);
    expect(doc.ok).toBe(false);
    expect(doc.skills['market-size'].matchesLock).toBe(false);
    expect(doc.skills['market-size'].differences).toEqual([{ skill: 'market-size', field: 'delivery', locked: 'poll', fresh: 'stream' }]);
    expect(doc.skills['market-size'].steps.map((s: { step: string }) => s.step)).toEqual(['skill', 'version', 'interface', 'security', 'media', 'delivery', 'extensions']);
    expect(unknownAgent.code, show(unknownAgent)).toBe(2);
    expect(unknownAgent.stderr).toContain('unknown agent "reserch-agent" (locked agents: currency-agent, research-agent)');
    expect(unknownSkill.code, show(unknownSkill)).toBe(2);
    expect(unknownSkill.stderr).toContain('agent "currency-agent" has no locked skill "market-size" (locked skills: convert)');
  });

  it('unknown commands and flags suggest the closest; every command has --help with an example; colour only on a TTY or when forced', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    const commands = ['plan', 'card', 'init', 'add', 'lock', 'install', 'verify', 'update', 'outdated', 'diff', 'why'];
    const [command, flag, stray, ...helps] = await Promise.all([
      runCli(['verfy'], { cwd: dir }),
      runCli(['verify', '--strcit', '--ofline'], { cwd: dir }),
      runCli(['lock', 'extra'], { cwd: dir }),
      ...commands.map((c) => runCli([c, '--help'], { cwd: dir })),
    ]);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "verfy"; did you mean verify?');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown options --strcit (did you mean --strict?), --ofline (did you mean --offline?)');
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('unknown argument "extra"');
    helps.forEach((help, i) => {
      expect(help.code, show(help)).toBe(0);
      expect(help.stdout, commands[i]).toMatch(new RegExp(`Examples:\\n\\s+a2a ${commands[i] === 'diff' ? 'outdated' : commands[i]}\\b`));
    });

    // Colour: the same refusal with NO_COLOR unset and stdout a pipe (no ANSI), and with FORCE_COLOR (ANSI).
    const color = (env: NodeJS.ProcessEnv) =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'verify'], { cwd: dir, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', () => resolve(out));
      });
    const [piped, forced] = await Promise.all([color({}), color({ FORCE_COLOR: '1' })]);
    expect(piped).toMatch(/manifest-invalid/);
    expect(piped).not.toContain('\x1b[');
    expect(forced).toContain('\x1b[31merror');
  });
});
