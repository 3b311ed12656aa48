/**
 * Regression tests for bugs fixed after the fresh-user run (commit "lock never moves a locked plan
 * silently ... fixes from the fresh-user run"), running the built CLI against real
 * `@a2a-js/sdk` agents and tiny node:http servers. Each test names the old behaviour it guards
 * against and fails on it (checked by running this file against a build of the commit before the
 * fixes, a0dc5c5; the --json warnings test against e0b16e0, before "warnings in every --json document").
 *
 * - A card nested 10,000 levels deep crashed the recursive card walkers (stack overflow → exit 70).
 * - Agent names that are Object.prototype members (`constructor`, `toString`) were looked up through
 *   the prototype (crash on the next lock; an agent removed from the manifest was never reported),
 *   and `__proto__` was not rejected clearly.
 * - `a2a lock` re-resolved an agent (a skill was added) and silently moved its locked plans; a
 *   changed profile re-resolved without printing the plan diff.
 * - An invalid lockfile was silently replaced by `a2a lock` / `a2a update`; merge conflicts must be.
 * - `--timeout` above setTimeout's range (2^31-1) or given twice was accepted.
 * - `a2a add` with a bad name or range reported `manifest-invalid` for a file the user never wrote.
 * - `a2a plan --credential bearer=ENV` named a scheme "bearer=ENV"; `--skill a --skill b` was "a,b".
 * - A secret pasted into the manifest was echoed in the validation error.
 * - Every `--json` document carries `warnings` (fixed earlier, in "warnings in every --json document");
 *   error documents are `{"error": {...}}` (README), and `a2a init` into a missing directory was exit 70.
 *
 * The last describe block holds guards: neighbouring behaviour that was already right and must stay so.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  allOutput,
  cardRequests,
  closedPort,
  handlers,
  jsonOf,
  manifest,
  PROFILE,
  readLock,
  readLockBytes,
  readManifestBytes,
  research,
  runCli,
  sampleCard,
  show,
  resources,
  writeLockBytes,
  writeManifest,
  type CliResult,
} from './helpers.js';

const STACK = /\n\s+at .+:\d+:\d+/;
/** For tests that run several CLI stages one after another (a loaded 2-CPU CI box needs more than 20 s). */
const SLOW = 60_000;

function noStack(r: CliResult): void {
  expect(allOutput(r), show(r)).not.toMatch(STACK);
  expect(allOutput(r), show(r)).not.toMatch(/internal error|"internal"/);
}

/** Exactly one line on stderr containing every needle; nothing on stdout; no stack trace. */
function expectOneLineError(r: CliResult, ...needles: Array<string | RegExp>): void {
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, show(r)).toHaveLength(1);
  for (const n of needles) expect(lines[0], show(r)).toMatch(n);
  noStack(r);
}

/** Stdout is exactly one JSON document (nothing before or after it) and stderr is empty. */
function oneJsonDocument(r: CliResult): any {
  const doc = jsonOf(r);
  expect(r.stdout, show(r)).toBe(`${JSON.stringify(doc, null, 2)}\n`);
  expect(r.stderr, show(r)).toBe('');
  return doc;
}

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
  it('a2a lock: exit 2 card-invalid naming the URL and the JSON path (not 70); nothing written', async ({ onTestFinished }) => {
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
    expect(lock.code, show(lock)).toBe(2);
    expect(lock.stdout).toContain(`deep: card-invalid: ${url} $.extra.x`);
    expect(lock.stdout).toMatch(DEEP_PATH);
    expect(lock.stdout).toMatch(/not written/);
    noStack(lock);
    expect(json.code, show(json)).toBe(2);
    expect(oneJsonDocument(json)).toMatchObject({
      ok: false,
      written: false,
      agents: { deep: { status: 'error', exitCode: 2, error: { code: 'card-invalid', message: expect.stringMatching(DEEP_PATH) } } },
      warnings: [],
    });
    expect(plan.code, show(plan)).toBe(2);
    expectOneLineError(plan, `card-invalid: ${url} $.extra.x`, DEEP_PATH);
    expect(card.code, show(card)).toBe(2);
    expect(oneJsonDocument(card).error).toMatchObject({ code: 'card-invalid', source: url, path: expect.stringMatching(/^\$\.extra(\.x){63}$/) });
    expect(await readLockBytes(dir)).toBeUndefined();
  });

  it('a2a verify: the healthy agent is ok, the deep one an error (exit 2), per agent under --json; update refuses it', { timeout: SLOW }, async ({ onTestFinished }) => {
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
    expect(human.code, show(human)).toBe(2);
    expect(human.stdout).toMatch(/✓ healthy\n/);
    expect(human.stdout).toMatch(/✗ deep: card-invalid: .*agent-card\.json \$\.extra(\.x){63}: nested deeper than 64 levels/);
    expect(human.stdout).toMatch(/verify failed \(exit 2\)/);
    noStack(human);
    expect(json.code, show(json)).toBe(2);
    const doc = oneJsonDocument(json);
    expect(doc.ok).toBe(false);
    expect(doc.agents.healthy).toMatchObject({ status: 'ok', exitCode: 0 });
    expect(doc.agents.deep).toMatchObject({ status: 'error', exitCode: 2, error: { code: 'card-invalid', message: expect.stringMatching(DEEP_PATH) } });
    expect(Array.isArray(doc.warnings)).toBe(true);
    expect(update.code, show(update)).toBe(2);
    expect(update.stdout).toMatch(DEEP_PATH);
    noStack(update);
    expect(await readLockBytes(dir)).toEqual(before);
  });
});

describe.concurrent('agent names that are Object.prototype members', () => {
  it('constructor and toString lock, verify and are reported once gone from the manifest', { timeout: SLOW }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const a = await res.sampleAgent();
    const b = await res.sampleAgent();
    const dir = await res.dir(manifest({ toString: research(a.origin) }));
    const cli = (...args: string[]) => runCli(args, { cwd: dir });

    const first = await cli('lock');
    expect(first.code, show(first)).toBe(0);
    expect(first.stdout).toMatch(/\+ toString added/);

    // Adding `constructor` next to a locked `toString`: the old lookup found Object.prototype.constructor.
    await writeManifest(dir, manifest({ toString: research(a.origin), constructor: research(b.origin) }));
    const second = await cli('lock', '--json');
    expect(second.code, show(second)).toBe(0);
    expect(oneJsonDocument(second)).toMatchObject({ ok: true, written: true, agents: { constructor: { status: 'added' }, toString: { status: 'unchanged' } } });
    const lock = await readLock(dir);
    expect(Object.keys(lock.agents).sort()).toEqual(['constructor', 'toString']);
    expect(Object.keys(lock.settings).sort()).toEqual(['constructor', 'toString']);
    expect(lock.agents.constructor.plans['market-size'].url).toBe(b.jsonRpcUrl);
    expect(lock.agents.toString.plans['market-size'].url).toBe(a.jsonRpcUrl);

    const verify = await cli('verify', 'constructor', 'toString');
    expect(verify.code, show(verify)).toBe(0);
    expect(verify.stdout).toMatch(/✓ toString/);
    expect(verify.stdout).toMatch(/✓ constructor/);

    // toString leaves the manifest: verify must say so (the old `name in manifest.agents` was always true).
    const before = await readLockBytes(dir);
    await writeManifest(dir, manifest({ constructor: research(b.origin) }));
    const [gone, goneJson] = await Promise.all([cli('verify'), cli('verify', '--json')]);
    expect(gone.code, show(gone)).toBe(1);
    expect(gone.stdout).toMatch(/✗ toString: lockfile out of date: no longer in the manifest/);
    expect(gone.stdout).toMatch(/run: a2a lock/);
    expect(gone.stdout).toMatch(/✓ constructor/);
    const doc = oneJsonDocument(goneJson);
    expect(doc.agents.toString).toMatchObject({ status: 'out-of-date', exitCode: 1, reasons: ['no longer in the manifest'] });
    expect(doc.agents.constructor).toMatchObject({ status: 'ok' });
    expect(await readLockBytes(dir)).toEqual(before);

    const drop = await cli('lock');
    expect(drop.code, show(drop)).toBe(0);
    expect(drop.stdout).toMatch(/- toString removed/);
    expect(Object.keys((await readLock(dir)).agents)).toEqual(['constructor']);
  });

  it('an agent named __proto__ in a2a.json: exit 2 with a clear message naming the path', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const a = await res.sampleAgent();
    const dir = await res.dir();
    // Written as text: an object literal with a __proto__ key would set the prototype instead.
    await writeManifest(dir, `{"profile": ${JSON.stringify(PROFILE)}, "agents": {"__proto__": ${JSON.stringify(research(a.origin))}}}\n`);
    const results = await Promise.all([['lock'], ['verify'], ['lock', '--json']].map((args) => runCli(args, { cwd: dir })));
    for (const r of results.slice(0, 2)) {
      expect(r.code, show(r)).toBe(2);
      expectOneLineError(r, /manifest-invalid: .*a2a\.json \$\.agents\["__proto__"\]: agent name "__proto__" is not allowed/);
    }
    const json = results[2]!;
    expect(json.code).toBe(2);
    expect(oneJsonDocument(json).error).toMatchObject({ code: 'manifest-invalid', path: '$.agents["__proto__"]' });
    expect(await readLockBytes(dir)).toBeUndefined();
    expect(cardRequests(a.requests)).toHaveLength(0);
  });
});

describe.concurrent('a2a lock never moves a locked plan silently', () => {
  /** The sample card with a second skill, `competitors`, and market-size's output modes as given. */
  function twoSkillCard(origin: string, marketSizeOutputs: string[]) {
    const card = sampleCard(origin);
    card.skills = [
      { ...card.skills[0]!, outputModes: marketSizeOutputs },
      { id: 'competitors', name: 'Competitors', description: 'Lists competitors.', tags: ['market'], outputModes: ['application/json'] },
    ];
    return card;
  }

  it('a skill added while the agent dropped a locked output mode: exit 1 naming the drift and a2a update; then update shows the diff', { timeout: SLOW }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (origin) => twoSkillCard(origin, ['application/json', 'application/pdf']) });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const cli = (...args: string[]) => runCli(args, { cwd: dir });
    expect((await cli('lock')).code).toBe(0);
    expect((await readLock(dir)).agents.research.plans['market-size'].acceptedOutputModes).toEqual(['application/json']);
    const before = await readLockBytes(dir);

    // The agent drops application/json for market-size; the user adds a second skill to the manifest.
    agent.setCard(twoSkillCard(agent.origin, ['text/plain', 'application/pdf']));
    await writeManifest(dir, manifest({ research: research(agent.origin, { skills: ['market-size', 'competitors'] }) }));

    const [human, json] = await Promise.all([cli('lock'), cli('lock', '--json')]);
    expect(human.code, show(human)).toBe(1);
    expect(human.stdout).toMatch(/✗ research: beyond the lockfile/);
    expect(human.stdout).toContain('market-size › acceptedOutputModes: ["application/json"] → ["text/plain"]');
    expect(human.stdout).toMatch(/run: a2a update research\b/);
    expect(human.stdout).toMatch(/a2a\.lock\.json not written/);
    expect(human.stdout).not.toMatch(/competitors ›/);
    noStack(human);
    expect(json.code, show(json)).toBe(1);
    const doc = oneJsonDocument(json);
    expect(doc).toMatchObject({ ok: false, written: false });
    expect(doc.agents.research.status).toBe('drift');
    expect(doc.agents.research.drift).toContainEqual({ skill: 'market-size', field: 'acceptedOutputModes', locked: ['application/json'], fresh: ['text/plain'] });
    expect(await readLockBytes(dir)).toEqual(before);

    // a2a update accepts it and prints the card and plan diff.
    const update = await cli('update', 'research');
    expect(update.code, show(update)).toBe(0);
    expect(update.stdout).toMatch(/~ research updated/);
    expect(update.stdout).toMatch(/\$\.skills\["market-size"\]\.outputModes\[0\]: "application\/json" → "text\/plain"/);
    expect(update.stdout).toContain('plan market-size › acceptedOutputModes: ["application/json"] → ["text/plain"]');
    expect(update.stdout).toMatch(/plan competitors › plan: \(absent\) → \{.*"acceptedOutputModes":\["application\/json"\]/);
    const after = await readLock(dir);
    expect(after.agents.research.plans['market-size'].acceptedOutputModes).toEqual(['text/plain']);
    expect(Object.keys(after.agents.research.plans).sort()).toEqual(['competitors', 'market-size']);
    const verify = await cli('verify');
    expect(verify.code, show(verify)).toBe(0);
  });

  it('a skill added while the locked plan still holds: lock adds it and keeps the locked plan byte for byte', { timeout: SLOW }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (origin) => twoSkillCard(origin, ['application/json', 'application/pdf']) });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const locked = (await readLock(dir)).agents.research.plans['market-size'];
    await writeManifest(dir, manifest({ research: research(agent.origin, { skills: ['market-size', 'competitors'] }) }));
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toMatch(/~ research updated/);
    expect(r.stdout).toMatch(/plan competitors › plan: \(absent\) →/);
    expect(r.stdout).not.toMatch(/plan market-size/);
    const after = (await readLock(dir)).agents.research.plans;
    expect(after['market-size']).toEqual(locked);
    expect(after.competitors.acceptedOutputModes).toEqual(['application/json']);
  });

  it('a changed profile (accepts order) re-resolves and prints the plan diff, exit 0', { timeout: SLOW }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const profile = (accepts: string[]) => ({ ...PROFILE, accepts });
    const dir = await res.dir(manifest({ research: research(agent.origin) }, profile(['application/json', 'application/pdf'])));
    const cli = (...args: string[]) => runCli(args, { cwd: dir });
    expect((await cli('lock')).code).toBe(0);
    expect((await readLock(dir)).agents.research.plans['market-size'].acceptedOutputModes).toEqual(['application/json', 'application/pdf']);
    const seen = cardRequests(agent.requests).length;

    await writeManifest(dir, manifest({ research: research(agent.origin) }, profile(['application/pdf', 'application/json'])));
    const human = await cli('lock');
    expect(human.code, show(human)).toBe(0);
    expect(human.stdout).toMatch(/~ research updated/);
    expect(human.stdout).toContain('plan market-size › acceptedOutputModes: ["application/json","application/pdf"] → ["application/pdf","application/json"]');
    expect(cardRequests(agent.requests).length).toBeGreaterThan(seen);
    const lock = await readLock(dir);
    expect(lock.settings.research.accepts).toEqual(['application/pdf', 'application/json']);
    expect(lock.agents.research.plans['market-size'].acceptedOutputModes).toEqual(['application/pdf', 'application/json']);

    // And back, under --json: planChanges per skill.
    await writeManifest(dir, manifest({ research: research(agent.origin) }, profile(['application/json', 'application/pdf'])));
    const json = await cli('lock', '--json');
    expect(json.code, show(json)).toBe(0);
    expect(oneJsonDocument(json).agents.research).toMatchObject({
      status: 'updated',
      cardChanges: [],
      planChanges: { 'market-size': [{ field: 'acceptedOutputModes', old: ['application/pdf', 'application/json'], new: ['application/json', 'application/pdf'] }] },
    });
  });
});

describe.concurrent('invalid lockfiles are never replaced; merge conflicts are re-resolved', () => {
  /** A locked project; returns its dir and the lockfile text. */
  async function lockedProject(res: ReturnType<typeof resources>) {
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    return { agent, dir, text: (await readLockBytes(dir))!.toString('utf8') };
  }

  it.for([
    // (Node 20's JSON.parse gives no position for "Unexpected end of JSON input", so no line/column here.)
    { name: 'truncated JSON', corrupt: (t: string) => t.slice(0, Math.floor(t.length / 2)), detail: /a2a\.lock\.json: invalid JSON/ },
    {
      name: 'a bad integrity format',
      corrupt: (t: string) => t.replace(/"integrity": "sha256-[^"]+"/, '"integrity": "md5-0123456789abcdef"'),
      detail: /\$\.agents\.research\.integrity: must be sha256-<base64>/,
    },
  ])('$name: lock and update exit 2 with a hint; the lockfile stays byte-identical', async ({ corrupt, detail }, { onTestFinished }) => {
    const res = resources(onTestFinished);
    const { dir, text } = await lockedProject(res);
    const bad = corrupt(text);
    expect(bad).not.toBe(text);
    await writeLockBytes(dir, bad);
    const [lock, update, json] = await Promise.all([
      runCli(['lock'], { cwd: dir }),
      runCli(['update', 'research'], { cwd: dir }),
      runCli(['lock', '--json'], { cwd: dir }),
    ]);
    for (const r of [lock, update]) {
      expect(r.code, show(r)).toBe(2);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines, show(r)).toHaveLength(2);
      expect(lines[0]).toMatch(/lockfile-invalid: .*a2a\.lock\.json/);
      expect(lines[0]).toMatch(detail);
      expect(lines[1]).toMatch(/^ {2}hint: .*a2a\.lock\.json.*(git checkout|delete it and run a2a lock)/);
      noStack(r);
    }
    expect(json.code).toBe(2);
    expect(oneJsonDocument(json).error).toMatchObject({ code: 'lockfile-invalid', hint: expect.stringMatching(/a2a lock/) });
    expect((await readLockBytes(dir))!.toString('utf8')).toBe(bad);
  });

  it('merge-conflict markers: verify exit 2 "merge conflict, run a2a lock"; lock re-resolves with a lockfile-merge-conflict warning', { timeout: SLOW }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const { dir, text } = await lockedProject(res);
    const lines = text.split('\n');
    const i = lines.findIndex((l) => l.includes('"integrity"'));
    const theirs = lines[i]!.replace(/sha256-[^"]+/, `sha256-${'B'.repeat(43)}=`);
    const conflicted = [...lines.slice(0, i), '<<<<<<< HEAD', lines[i], '=======', theirs, '>>>>>>> feature/other-agent', ...lines.slice(i + 1)].join('\n');
    await writeLockBytes(dir, conflicted);

    const [verify, json] = await Promise.all([runCli(['verify'], { cwd: dir }), runCli(['verify', '--json'], { cwd: dir })]);
    expect(verify.code, show(verify)).toBe(2);
    expectOneLineError(verify, /lockfile-invalid: .*a2a\.lock\.json: merge conflict, run a2a lock/);
    expect(json.code).toBe(2);
    expect(oneJsonDocument(json).error).toMatchObject({ code: 'lockfile-invalid', message: expect.stringMatching(/merge conflict, run a2a lock/) });
    expect((await readLockBytes(dir))!.toString('utf8')).toBe(conflicted);

    // A second copy for --json (the first lock fixes the file).
    const copy = await res.dir(JSON.parse((await readManifestBytes(dir)).toString()));
    await writeLockBytes(copy, conflicted);
    const [lock, lockJson] = await Promise.all([runCli(['lock'], { cwd: dir }), runCli(['lock', '--json'], { cwd: copy })]);
    expect(lock.code, show(lock)).toBe(0);
    expect(lock.stderr).toMatch(/warning lockfile-merge-conflict: .*a2a\.lock\.json had merge conflict markers/);
    expect(lock.stdout).toMatch(/wrote .*a2a\.lock\.json/);
    // Re-resolved from the manifest: the same bytes a clean lock wrote.
    expect((await readLockBytes(dir))!.toString('utf8')).toBe(text);
    expect(lockJson.code, show(lockJson)).toBe(0);
    expect(oneJsonDocument(lockJson)).toMatchObject({ ok: true, written: true, warnings: [expect.objectContaining({ code: 'lockfile-merge-conflict' })] });
    expect((await readLockBytes(copy))!.toString('utf8')).toBe(text);
    const after = await runCli(['verify'], { cwd: dir });
    expect(after.code, show(after)).toBe(0);
  });
});

describe.concurrent('--timeout bounds', () => {
  it('2147483648 (above setTimeout range) and a repeated --timeout are usage errors; 1e3 is 1000 ms', { timeout: SLOW }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const hang = await res.http(handlers.hang());
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    const before = await readLockBytes(dir);
    const seen = cardRequests(agent.requests).length;

    const [tooBig, twice, twiceConcurrency, max, sci, sciHang] = await Promise.all([
      runCli(['verify', '--timeout', '2147483648'], { cwd: dir }),
      runCli(['verify', '--timeout', '5', '--timeout', '7'], { cwd: dir }),
      runCli(['verify', '--concurrency', '1', '--concurrency', '2'], { cwd: dir }),
      runCli(['verify', '--timeout', '2147483647'], { cwd: dir }),
      runCli(['verify', '--timeout', '1e3'], { cwd: dir }),
      runCli(['plan', hang.origin, '--skill', 'market-size', '--timeout', '1e3'], { cwd: dir }),
    ]);
    expect(tooBig.code, show(tooBig)).toBe(2);
    expectOneLineError(tooBig, /usage: --timeout must be a whole number from 1 to 2147483647 \(got 2147483648\)/);
    expect(twice.code, show(twice)).toBe(2);
    expectOneLineError(twice, /usage: --timeout given more than once/);
    expect(twiceConcurrency.code, show(twiceConcurrency)).toBe(2);
    expectOneLineError(twiceConcurrency, /usage: --concurrency given more than once/);
    // The usage errors never reached the agent.
    expect(cardRequests(agent.requests).length).toBe(seen + 2);

    expect(max.code, show(max)).toBe(0);
    expect(sci.code, show(sci)).toBe(0);
    expect(sci.stdout).toMatch(/verified 1 agent/);
    expect(sciHang.code, show(sciHang)).toBe(5);
    expectOneLineError(sciHang, /timeout: .*within 1000 ms/);
    expect(await readLockBytes(dir)).toEqual(before);
  });
});

describe.concurrent('a2a add argument checks', () => {
  it.for([
    { label: "a name with a space ('bad name')", args: ['bad name', '{url}', '--skill', 's'], message: /usage: agent name "bad name"/ },
    { label: "a name starting with '_' ('_x')", args: ['_x', '{url}', '--skill', 's'], message: /usage: agent name "_x"/ },
    { label: "--range '^^2'", args: ['x', '{url}', '--skill', 's', '--range', '^^2'], message: /usage: --range "\^\^2" is not a semver range/ },
  ])('$label: exit 2 usage naming the argument (not manifest-invalid); nothing fetched, nothing written', ({ args, message }, { onTestFinished }) =>
    addIsUsageError(resources(onTestFinished), args, message),
  );
});

/** `a2a add <args>` ({url}: a live agent's origin) is a usage error matching `message`; nothing fetched or written. */
async function addIsUsageError(res: ReturnType<typeof resources>, args: string[], message: RegExp): Promise<void> {
  const agent = await res.sampleAgent();
  const dir = await res.dir(manifest({}));
  const before = await readManifestBytes(dir);
  const argv = ['add', ...args.map((a) => (a === '{url}' ? agent.origin : a))];
  const [human, json] = await Promise.all([runCli(argv, { cwd: dir }), runCli([...argv, '--json'], { cwd: dir })]);
  expect(human.code, show(human)).toBe(2);
  expectOneLineError(human, message);
  expect(human.stderr).not.toMatch(/manifest-invalid/);
  expect(json.code).toBe(2);
  expect(oneJsonDocument(json).error.code).toBe('usage');
  expect(await readManifestBytes(dir)).toEqual(before);
  expect(await readLockBytes(dir)).toBeUndefined();
  expect(cardRequests(agent.requests)).toHaveLength(0);
}

describe.concurrent('a2a plan argument checks', () => {
  it('--credential bearer=RESEARCH_TOKEN plans with bearer (the variable is not read); --skill twice is a usage error', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    await writeFile(join(dir, 'card.json'), JSON.stringify(sampleCard('https://research.example.com')));
    const [withEnv, bare, twice, twiceJson] = await Promise.all([
      runCli(['plan', 'card.json', '--skill', 'market-size', '--credential', 'bearer=RESEARCH_TOKEN', '--json'], { cwd: dir }),
      runCli(['plan', 'card.json', '--skill', 'market-size', '--credential', 'bearer=RESEARCH_TOKEN'], { cwd: dir }),
      runCli(['plan', 'card.json', '--skill', 'a', '--skill', 'b'], { cwd: dir }),
      runCli(['plan', 'card.json', '--skill', 'market-size', '--skill', 'market-size', '--json'], { cwd: dir }),
    ]);
    expect(withEnv.code, show(withEnv)).toBe(0);
    expect(oneJsonDocument(withEnv)).toEqual({
      plan: {
        url: 'https://research.example.com/a2a/jsonrpc',
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
        security: { bearer: [] },
        acceptedOutputModes: ['application/json'],
        delivery: 'stream',
        extensions: [],
        fallbacks: { interfaces: [{ url: 'https://research.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }], delivery: ['poll'] },
      },
      warnings: [],
    });
    expect(bare.code, show(bare)).toBe(0);
    expect(bare.stdout).toMatch(/security +bearer\n/);
    expect(allOutput(bare)).not.toMatch(/RESEARCH_TOKEN/);
    expect(twice.code, show(twice)).toBe(2);
    expectOneLineError(twice, /usage: --skill given more than once \(a, b\)/);
    expect(twiceJson.code).toBe(2);
    expect(oneJsonDocument(twiceJson).error).toMatchObject({ code: 'usage', message: expect.stringMatching(/--skill given more than once/) });
  });
});

const SECRET = 'topsecret-42';

/**
 * A manifest whose agent `research` has `credentials` as given: every command in `commands`
 * ({url}: a live agent's origin) exits 2 naming `path` with `detail`, and SECRET appears nowhere.
 */
async function secretNeverEchoed(res: ReturnType<typeof resources>, credentials: unknown, path: string, detail: RegExp, commands: string[][]): Promise<void> {
  const agent = await res.sampleAgent();
  const dir = await res.dir(manifest({ research: { card: agent.origin, skills: ['market-size'], credentials: credentials as any } }));
  const escaped = path.replace(/[.[\]$]/g, '\\$&');
  const runs = await Promise.all(
    commands.map((c) => c.map((a) => (a === '{url}' ? agent.origin : a))).map((args) => runCli(args, { cwd: dir }).then((r) => [args, r] as const)),
  );
  for (const [args, r] of runs) {
    expect(r.code, `${args.join(' ')}: ${show(r)}`).toBe(2);
    expect(allOutput(r), args.join(' ')).not.toContain(SECRET);
    if (args.includes('--verbose')) expect(r.stderr, args.join(' ')).toMatch(STACK); // --verbose: the stack, still without the secret
    if (args.includes('--json')) {
      const doc = args.includes('--verbose') ? jsonOf(r) : oneJsonDocument(r);
      expect(doc.error).toMatchObject({ code: 'manifest-invalid', path, message: expect.stringMatching(detail) });
    } else {
      expect(r.stderr, args.join(' ')).toMatch(new RegExp(`manifest-invalid: .*a2a\\.json ${escaped}: `));
      expect(r.stderr).toMatch(detail);
    }
  }
  expect(await readLockBytes(dir)).toBeUndefined();
  expect(cardRequests(agent.requests)).toHaveLength(0);
}

describe.concurrent('a secret pasted into the manifest is never echoed', () => {
  it('"credentials": {"bearer": "topsecret-42"}: exit 2 naming $.agents.research.credentials.bearer for every command; the secret appears nowhere (human, --json, --verbose)', ({
    onTestFinished,
  }) =>
    secretNeverEchoed(resources(onTestFinished), { bearer: SECRET }, '$.agents.research.credentials.bearer', /expected object, got string$/m, [
      ['lock'],
      ['lock', '--json'],
      ['lock', '--verbose'],
      ['verify', '--json'],
      ['install'],
      ['update', '--json', '--verbose'],
      ['plan', '{url}', '--skill', 'market-size'],
      ['add', 'other', '{url}', '--skill', 'market-size', '--json'],
    ]));
});

describe.concurrent('--json: one JSON document with a warnings array, for every command', () => {
  it('init, add, lock, verify, update, install, plan, card (with warnings to carry), and their failures', { timeout: SLOW }, async ({ onTestFinished }) => {
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
    expect(jsonOf(lock)).toMatchObject({ ok: true, written: false, agents: { old: { status: 'unchanged' } }, warnings: [] });
    expect(jsonOf(verify)).toMatchObject({ ok: true, agents: { old: { status: 'ok' } } });
    expect(jsonOf(verify).warnings).toEqual([expect.objectContaining({ code: 'legacy-well-known-path', agent: 'old' })]);
    expect(jsonOf(update).warnings).toEqual([expect.objectContaining({ code: 'legacy-well-known-path', agent: 'old' })]);
    expect(jsonOf(install)).toMatchObject({ ok: true, credentialsUnset: [{ agent: 'old', scheme: 'bearer', env: 'OLD_TOKEN' }] });
    expect(jsonOf(install).warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'legacy-well-known-path' }), expect.objectContaining({ code: 'credential-unset', agent: 'old' })]),
    );
    expect(jsonOf(plan).warnings).toEqual([legacy]);
    expect(jsonOf(card).warnings).toEqual([legacy]);

    // Failures carry warnings too: a refusal, drift, and a refused lock.
    const card2 = sampleCard(old.origin);
    card2.capabilities = { ...card2.capabilities, streaming: false };
    old.setCard(card2);
    const written = JSON.parse((await readManifestBytes(dir)).toString());
    await writeManifest(dir, { ...written, agents: { ...written.agents, nope: research(old.origin, { skills: ['no-such-skill'] }) } });
    const [refusal, drift, refusedLock] = await Promise.all([
      cli('plan', old.origin, '--skill', 'market-size'),
      cli('verify', 'old'),
      cli('lock'),
    ]);
    expect(refusal.code, show(refusal)).toBe(1);
    expect(oneJsonDocument(refusal)).toMatchObject({ refusal: { code: 'missing-credential' }, warnings: [legacy] });
    expect(drift.code, show(drift)).toBe(1);
    expect(oneJsonDocument(drift)).toMatchObject({ ok: false, agents: { old: { status: 'drift' } }, warnings: [expect.objectContaining({ code: 'legacy-well-known-path' })] });
    expect(refusedLock.code, show(refusedLock)).toBe(1);
    expect(oneJsonDocument(refusedLock)).toMatchObject({ ok: false, written: false, agents: { nope: { status: 'refused' } }, warnings: [expect.objectContaining({ code: 'legacy-well-known-path', agent: 'nope' })] });
  });

  it('errors under --json are one JSON document too ({"error": {code, message}}), for every command', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const port = await closedPort();
    const dir = await res.dir(); // no manifest
    const cases: Array<[string[], number, string]> = [
      // A manifest in a directory that does not exist: exit 2 write-failed (was 70, "internal").
      [['init', '--manifest', 'no/such/dir/a2a.json'], 2, 'write-failed'],
      [['add', 'x', `http://127.0.0.1:${port}`, '--skill', 's'], 2, 'manifest-invalid'],
      [['lock'], 2, 'manifest-invalid'],
      [['verify'], 2, 'manifest-invalid'],
      [['update'], 2, 'manifest-invalid'],
      [['install'], 2, 'manifest-invalid'],
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

// ------------------------------------------------------------------------------------------------
// Guards next to the fixes: behaviour that was already right before them and must stay so (these
// pass on the old code; they fail if a fix overreaches or a neighbouring path regresses).

describe.concurrent('guards around the fixes', () => {
  it('--timeout 0, -1, 1.5, abc stay usage errors', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir(manifest({}));
    const values = ['0', '-1', '1.5', 'abc'];
    const runs = await Promise.all(values.map((v) => runCli(['lock', `--timeout=${v}`], { cwd: dir })));
    runs.forEach((r, i) => {
      expect(r.code, `${values[i]}: ${show(r)}`).toBe(2);
      expectOneLineError(r, /usage: --timeout/);
    });
  });

  it('a2a add --credential without =ENV stays a usage error', ({ onTestFinished }) =>
    addIsUsageError(resources(onTestFinished), ['x', '{url}', '--skill', 's', '--credential', 'bearer'], /usage: --credential "bearer": use <scheme>=<ENV_VAR>/));

  it.for([
    { label: 'the secret as the env name', credentials: { bearer: { env: SECRET } }, path: '$.agents.research.credentials.bearer.env', detail: /environment variable name/ },
    { label: 'an extra "value" key', credentials: { bearer: { env: 'RESEARCH_TOKEN', value: SECRET } }, path: '$.agents.research.credentials.bearer', detail: /unknown key "value"/ },
  ])('a secret as $label is not echoed either ($path)', ({ credentials, path, detail }, { onTestFinished }) =>
    secretNeverEchoed(resources(onTestFinished), credentials, path, detail, [['lock'], ['lock', '--json']]),
  );
});
