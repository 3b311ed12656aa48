/**
 * `--json`: every command (init, add, lock, verify, update, install, plan, card) prints exactly one
 * JSON document on stdout and nothing on stderr, on success and on failure. Every document carries a
 * `warnings` array (the warnings of the run: a legacy well-known path, an unset credential, ...);
 * a refusal is `{"refusal": {...}, "warnings"}`, an error `{"error": {code, message}}` with the
 * command's exit code.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  closedPort,
  jsonOf,
  oneJsonDocument,
  readManifestBytes,
  research,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
  writeManifest,
} from './helpers.js';

describe.concurrent('--json: one JSON document with a warnings array, for every command', () => {
  it('init, add, lock, verify, update, install, plan, card (with warnings to carry), and their failures', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    // Serves its card only at the legacy path: every fetch of it warns legacy-well-known-path.
    const old = await res.sampleAgent({ serveLegacyPathOnly: true });
    const dir = await res.dir();
    const cli = (...args: string[]) => runCli([...args, '--json'], { cwd: dir });
    const legacy = expect.objectContaining({ code: 'legacy-well-known-path', message: expect.any(String) });

    const init = await cli('init');
    expect(init.code, show(init)).toBe(0);
    expect(oneJsonDocument(init)).toEqual({ ok: true, manifest: join(dir, 'a2a.json'), written: true, warnings: [] });

    const add = await cli('add', 'old', old.origin, '--skill', 'market-size', '--credential', 'bearer=OLD_TOKEN');
    expect(add.code, show(add)).toBe(0);
    const added = oneJsonDocument(add);
    expect(added).toMatchObject({ ok: true, written: true, agents: { old: { status: 'added' } } });
    expect(added.warnings).toEqual([expect.objectContaining({ code: 'legacy-well-known-path', agent: 'old' })]);

    const [lock, verify, update, install, plan, card] = await Promise.all([
      cli('lock'),
      cli('verify'),
      cli('update', 'old'),
      cli('install'),
      cli('plan', old.origin, '--skill', 'market-size', '--credential', 'bearer'),
      cli('card', old.origin),
    ]);
    for (const r of [lock, verify, update, install, plan, card]) {
      expect(r.code, show(r)).toBe(0);
      expect(Array.isArray(oneJsonDocument(r).warnings), show(r)).toBe(true);
    }
    expect(jsonOf(lock)).toMatchObject({
      ok: true,
      written: false,
      agents: { old: { status: 'unchanged' } },
      warnings: [],
    });
    expect(jsonOf(verify)).toMatchObject({ ok: true, agents: { old: { status: 'ok' } } });
    expect(jsonOf(verify).warnings).toEqual([
      expect.objectContaining({ code: 'legacy-well-known-path', agent: 'old' }),
    ]);
    expect(jsonOf(update).warnings).toEqual([
      expect.objectContaining({ code: 'legacy-well-known-path', agent: 'old' }),
    ]);
    expect(jsonOf(install)).toMatchObject({
      ok: true,
      credentialsUnset: [{ agent: 'old', scheme: 'bearer', env: 'OLD_TOKEN' }],
    });
    expect(jsonOf(install).warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'legacy-well-known-path' }),
        expect.objectContaining({ code: 'credential-unset', agent: 'old' }),
      ]),
    );
    expect(jsonOf(plan).warnings).toEqual([legacy]);
    expect(jsonOf(card).warnings).toEqual([legacy]);

    // Failures carry warnings too: a refusal, drift, and a refused lock.
    const card2 = sampleCard(old.origin);
    card2.capabilities = { ...card2.capabilities, streaming: false };
    old.setCard(card2);
    const written = JSON.parse((await readManifestBytes(dir)).toString());
    await writeManifest(dir, {
      ...written,
      agents: { ...written.agents, nope: research(old.origin, { skills: ['no-such-skill'] }) },
    });
    const [refusal, drift, refusedLock] = await Promise.all([
      cli('plan', old.origin, '--skill', 'market-size'),
      cli('verify', 'old'),
      cli('lock'),
    ]);
    expect(refusal.code, show(refusal)).toBe(1);
    expect(oneJsonDocument(refusal)).toMatchObject({ refusal: { code: 'missing-credential' }, warnings: [legacy] });
    expect(drift.code, show(drift)).toBe(1);
    expect(oneJsonDocument(drift)).toMatchObject({
      ok: false,
      agents: { old: { status: 'drift' } },
      warnings: [expect.objectContaining({ code: 'legacy-well-known-path' })],
    });
    expect(refusedLock.code, show(refusedLock)).toBe(1);
    expect(oneJsonDocument(refusedLock)).toMatchObject({
      ok: false,
      written: false,
      agents: { nope: { status: 'refused' } },
      warnings: [expect.objectContaining({ code: 'legacy-well-known-path', agent: 'nope' })],
    });
  });

  it('errors under --json are one JSON document too ({"error": {code, message}}), for every command', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const port = await closedPort();
    const dir = await res.dir(); // no manifest
    const cases: Array<[string[], number, string]> = [
      // A manifest in a directory that does not exist: exit 2 write-failed.
      [['init', '--manifest', 'no/such/dir/a2a.json'], 2, 'write-failed'],
      [['add', 'x', `http://127.0.0.1:${port}`, '--skill', 's'], 2, 'manifest-not-found'],
      [['lock'], 2, 'manifest-not-found'],
      [['verify'], 2, 'manifest-not-found'],
      [['update'], 2, 'manifest-not-found'],
      [['install'], 2, 'manifest-not-found'],
      [['plan', `http://127.0.0.1:${port}`, '--skill', 's'], 3, 'unreachable'],
      [['card', 'missing.json'], 3, 'unreachable'],
    ];
    const runs = await Promise.all(cases.map(([args]) => runCli([...args, '--json'], { cwd: dir })));
    cases.forEach(([args, code, error], i) => {
      const r = runs[i]!;
      expect(r.code, `${args.join(' ')}: ${show(r)}`).toBe(code);
      const doc = oneJsonDocument(r);
      expect(doc.error, args.join(' ')).toEqual(expect.objectContaining({ code: error, message: expect.any(String) }));
    });
  });
});
