/**
 * `a2a outdated`: what `a2a update` would change (card, version, plan and signature
 * changes; agents that would be removed), exit 1, never written; an agent it cannot resolve is
 * listed with its own exit code, never hidden as "current"; a snapshot edited after locking is an
 * integrity error, not a change to accept. The same drift seen by `a2a verify` under GitHub Actions
 * is one `::error` annotation per agent (on stderr under --json), and by `verifyLockfile()` as data.
 */

import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeFetcher, UsageError, verifyLockfile } from '../../src/index.js';
import {
  jsonOf,
  manifest,
  readLock,
  readLockBytes,
  research,
  resources,
  runCli,
  sampleCard,
  show,
  writeLockBytes,
} from './helpers.js';

describe.concurrent('a2a outdated', () => {
  it('outdated lists every agent it cannot resolve, with its exit code', async ({ onTestFinished }) => {
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
    const [human, json] = await Promise.all([
      runCli(['outdated'], { cwd: dir }),
      runCli(['outdated', '--json'], { cwd: dir }),
    ]);
    expect(human.code, show(human)).toBe(1);
    expect(human.stdout).toMatch(/research/);
    expect(human.stdout).toMatch(/other/);
    expect(human.stdout).not.toMatch(/is current/);
    expect(json.code).toBe(1);
    const doc = jsonOf(json);
    expect(doc.ok).toBe(false);
    expect(doc.agents.research).toMatchObject({ exitCode: 1 });
    expect(doc.agents.other).toMatchObject({ exitCode: 1, status: 'error', error: { code: 'card-invalid' } }); // an invalid card: exit 1
    expect(await readLockBytes(dir)).toEqual(before);
  });

  it('outdated: a snapshot edited after locking is an error naming its integrity (exit 2), not a change update would make', async ({
    onTestFinished,
  }) => {
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

  it('outdated/diff show what update would change without writing; verify annotates under GitHub Actions; why explains', async ({
    onTestFinished,
  }) => {
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
      cli(['outdated', '--json']),
      cli(['verify'], { GITHUB_ACTIONS: 'true' }),
      cli(['verify', '--json'], { GITHUB_ACTIONS: 'true' }),
      cli(['verify']),
    ]);
    expect(human.code, show(human)).toBe(1);
    expect(human.stdout).toContain('~ research: would be updated (structural card change)');
    expect(human.stdout).toContain('    version: 2.4.0 → 2.5.0');
    expect(human.stdout).toContain('- $.skills["market-size"].outputModes: "application/json" structural');
    expect(human.stdout).not.toContain('outputModes[0]');
    expect(human.stdout).toContain(
      '$.description: "Sizes markets and produces research briefs with citations." → "Sizes markets (v2.5)." descriptive',
    );
    expect(human.stdout).toContain(
      'plan market-size › acceptedOutputModes:\n      - application/json\n      + text/plain',
    );
    expect(human.stdout).toContain('1 agent would change: run a2a update research');

    expect(json.code, show(json)).toBe(1);
    const doc = jsonOf(json);
    expect(doc).toMatchObject({ ok: false, outdated: ['research'], warnings: [] });
    expect(doc.agents.research).toMatchObject({
      status: 'outdated',
      change: 'structural',
      version: { old: '2.4.0', new: '2.5.0' },
      planChanges: {
        'market-size': [{ field: 'acceptedOutputModes', old: ['application/json'], new: ['text/plain'] }],
      },
      signatureChanges: [],
    });
    expect(doc.agents.research.cardChanges).toContainEqual({
      path: '$.version',
      kind: 'changed',
      old: '2.4.0',
      new: '2.5.0',
      structural: false,
    });
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
    const annotation =
      '::error file=a2a.lock.json,line=4,title=research beyond the lockfile::market-size: refused with the locked choices (no-common-output-mode); market-size › acceptedOutputModes: ["application/json"] → ["text/plain"]; run: a2a update research';
    expect(gha.code, show(gha)).toBe(1);
    expect(gha.stdout.split('\n'), gha.stdout).toContain(annotation);
    expect(ghaJson.code).toBe(1);
    expect(jsonOf(ghaJson).agents.research.status).toBe('drift');
    expect(ghaJson.stderr.split('\n')).toContain(annotation);
    expect(plain.code).toBe(1);
    expect(`${plain.stdout}${plain.stderr}`).not.toContain('::error');
    // Relative to the repository root (GITHUB_WORKSPACE), not to where verify ran.
    const nested = await cli(['verify'], { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dirname(dir) });
    expect(nested.stdout).toContain(
      `::error file=${basename(dir)}/a2a.lock.json,line=4,title=research beyond the lockfile::`,
    );
    // A workspace that does not hold the lockfile: the path from where verify ran.
    const outside = await cli(['verify'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: join(dirname(dir), 'elsewhere'),
    });
    expect(outside.stdout).toContain('::error file=a2a.lock.json,line=4,title=research beyond the lockfile::');

    // The same check as a library call (package root): data, not output.
    const verified = await verifyLockfile({ manifest: join(dir, 'a2a.json'), env: {} });
    expect(verified).toMatchObject({
      ok: false,
      exitCode: 1,
      agents: { research: { status: 'drift', change: 'structural' } },
    });
    const offline = await verifyLockfile({ manifest: join(dir, 'a2a.json'), offline: true, strict: true });
    expect(offline).toMatchObject({ ok: true, exitCode: 0, agents: { research: { status: 'ok' } } });
    await expect(verifyLockfile({ manifest: join(dir, 'a2a.json'), agents: ['nobody'] })).rejects.toThrow(UsageError);
    // Options the CLI's flags would refuse are refused here too, as UsageErrors.
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
});
