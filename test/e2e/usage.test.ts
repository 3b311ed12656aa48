/**
 * Command-line usage: a bad argument is an exit-2 `usage` error on one line, before anything is
 * fetched, read or written. `--timeout` within setTimeout's range and given once; `a2a add` and
 * `a2a plan` argument checks (names, ranges, `--credential`, `--skill`); `--lockfile` naming the
 * manifest; unknown commands and flags answered with the closest suggestion; `--help` with an
 * example for every command; colour only on a TTY or when forced.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import { DEFAULT_PROFILE } from '../../src/manifest/schema.js';
import {
  allOutput,
  BIN,
  cardRequests,
  expectOneLineError,
  handlers,
  manifest,
  oneJsonDocument,
  readLockBytes,
  readManifestBytes,
  research,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
} from './helpers.js';

describe.concurrent('--timeout bounds', () => {
  it('2147483648 (above setTimeout range) and a repeated --timeout are usage errors; 1e3 is 1000 ms', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
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

  it('--timeout 0, -1, 1.5, abc are usage errors', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir(manifest({}));
    const values = ['0', '-1', '1.5', 'abc'];
    const runs = await Promise.all(values.map((v) => runCli(['lock', `--timeout=${v}`], { cwd: dir })));
    runs.forEach((r, i) => {
      expect(r.code, `${values[i]}: ${show(r)}`).toBe(2);
      expectOneLineError(r, /usage: --timeout/);
    });
  });
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

describe.concurrent('a2a add argument checks', () => {
  it.for([
    {
      label: "a name with a space ('bad name')",
      args: ['bad name', '{url}', '--skill', 's'],
      message: /usage: agent name "bad name"/,
    },
    {
      label: "a name starting with '_' ('_x')",
      args: ['_x', '{url}', '--skill', 's'],
      message: /usage: agent name "_x"/,
    },
    {
      label: "--range '^^2'",
      args: ['x', '{url}', '--skill', 's', '--range', '^^2'],
      message: /usage: --range "\^\^2": not a semver range/,
    },
  ])(
    '$label: exit 2 usage naming the argument (not manifest-invalid); nothing fetched, nothing written',
    ({ args, message }, { onTestFinished }) => addIsUsageError(resources(onTestFinished), args, message),
  );

  it('--credential without =ENV: exit 2 usage naming the argument; nothing fetched, nothing written', ({
    onTestFinished,
  }) =>
    addIsUsageError(
      resources(onTestFinished),
      ['x', '{url}', '--skill', 's', '--credential', 'bearer'],
      /usage: --credential: expected <scheme>=<ENV_VAR>/,
    ));
});

describe.concurrent('a2a plan argument checks', () => {
  it('--credential bearer=RESEARCH_TOKEN plans with bearer (the variable is not read); --skill twice is a usage error', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    await writeFile(join(dir, 'card.json'), JSON.stringify(sampleCard('https://research.example.com')));
    const [withEnv, bare, twice, twiceJson] = await Promise.all([
      runCli(['plan', 'card.json', '--skill', 'market-size', '--credential', 'bearer=RESEARCH_TOKEN', '--json'], {
        cwd: dir,
      }),
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
        fallbacks: {
          interfaces: [
            { url: 'https://research.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
          ],
          delivery: ['poll'],
        },
      },
      warnings: [],
    });
    expect(bare.code, show(bare)).toBe(0);
    expect(bare.stdout).toMatch(/security +bearer\n/);
    expect(allOutput(bare)).not.toMatch(/RESEARCH_TOKEN/);
    expect(twice.code, show(twice)).toBe(2);
    expectOneLineError(twice, /usage: --skill given more than once \(a, b\)/);
    expect(twiceJson.code).toBe(2);
    expect(oneJsonDocument(twiceJson).error).toMatchObject({
      code: 'usage',
      message: expect.stringMatching(/--skill given more than once/),
    });
  });
});

describe.concurrent('--lockfile and --manifest', () => {
  it('--lockfile naming the manifest is a usage error before anything is read or written', async ({
    onTestFinished,
  }) => {
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
});

describe.concurrent('commands, flags, help and colour', () => {
  it('unknown commands and flags suggest the closest; every command has --help with an example; colour only on a TTY or when forced', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    const commands = [
      'plan',
      'card',
      'init',
      'add',
      'lock',
      'install',
      'verify',
      'update',
      'outdated',
      'diff',
      'why',
      'remove',
      'ls',
      'info',
    ];
    const [command, flag, stray, ...helps] = await Promise.all([
      runCli(['verfy'], { cwd: dir }),
      runCli(['verify', '--strcit', '--ofline'], { cwd: dir }),
      runCli(['lock', 'extra'], { cwd: dir }),
      ...commands.map((c) => runCli([c, '--help'], { cwd: dir })),
    ]);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "verfy"; did you mean verify?');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(
      'unknown options --strcit (did you mean --strict?), --ofline (did you mean --offline?)',
    );
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('unknown argument "extra"');
    helps.forEach((help, i) => {
      expect(help.code, show(help)).toBe(0);
      expect(help.stdout, commands[i]).toMatch(new RegExp(`Examples:\\n\\s+a2a ${commands[i]}\\b`));
    });

    // Colour: the same refusal with NO_COLOR unset and stdout a pipe (no ANSI), and with FORCE_COLOR (ANSI).
    const color = (env: NodeJS.ProcessEnv) =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'verify'], {
          cwd: dir,
          env: { PATH: process.env.PATH, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', () => resolve(out));
      });
    // NO_COLOR disables only when non-empty (no-color.org); FORCE_COLOR=1..3 enables even then, 0 disables.
    const [piped, forced, emptyNoColor, forcedOverNoColor, forcedOff] = await Promise.all([
      color({}),
      color({ FORCE_COLOR: '1' }),
      color({ FORCE_COLOR: '3', NO_COLOR: '' }),
      color({ FORCE_COLOR: '2', NO_COLOR: '1' }),
      color({ FORCE_COLOR: '0' }),
    ]);
    expect(piped).toMatch(/manifest-not-found/);
    expect(piped).not.toContain('\x1b[');
    expect(forced).toContain('\x1b[31merror');
    expect(emptyNoColor).toContain('\x1b[31merror');
    expect(forcedOverNoColor).toContain('\x1b[31merror');
    expect(forcedOff).toMatch(/manifest-not-found/);
    expect(forcedOff).not.toContain('\x1b[');
  });
});

describe('found by a new user, with the review commands', () => {
  it('a reader that closes the pipe early (a2a diff | head, a pager) ends the run quietly: no EPIPE stack trace', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({ profile: {}, agents: {} });
    // A large review: 3000 agents added, each a few lines, more than a pipe buffer.
    const snapshot = sampleCard('https://a.example.com');
    const agents = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [
        `agent-${i}`,
        {
          card: `https://a${i}.example.com`,
          resolved: `https://a${i}.example.com/.well-known/agent-card.json`,
          a2aVersion: '1.0',
          version: '1.0.0',
          integrity: integrityOf(snapshot),
          snapshot,
          plans: {},
        },
      ]),
    );
    const settings = Object.fromEntries(
      Object.keys(agents).map((name) => [name, { ...DEFAULT_PROFILE, credentials: [] }]),
    );
    await writeFile(join(dir, 'head.json'), JSON.stringify({ lockfileVersion: 1, settings, agents }));
    await writeFile(join(dir, 'base.json'), JSON.stringify({ lockfileVersion: 1, settings: {}, agents: {} }));
    // As a shell runs it: `a2a diff … | head -1`, the exit status of a2a kept by `pipefail`.
    const line = `set -o pipefail 2>/dev/null; "${process.execPath}" "${BIN}" diff base.json head.json | head -1`;
    // Outside CI, as a person runs it: under CI (CI=true) a bare word would be a revision.
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' };
    const child = spawn('bash', ['-c', line], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(stdout).toMatch(/^a2a\.json: file base\.json → file head\.json\n$/);
    expect(stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
    expect(code).toBe(0);
  });

  it("yargs' own messages read as one line; --base with --no-base says they contradict", async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({ profile: {}, agents: {} });
    const bogus = await runCli(['diff', '--fail-on', 'bogus', 'a.json', 'b.json'], { cwd: dir, env: {} });
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain(
      'Invalid values: Argument: fail-on, Given: "bogus", Choices: "high", "medium", "low", "any"',
    );
    expect(bogus.stderr).not.toContain('\\u000a');
    const both = await runCli(['verify', '--base', 'main', '--no-base'], { cwd: dir, env: {} });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--base and --no-base contradict each other');
  });
});
