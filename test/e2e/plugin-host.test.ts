/**
 * `a2a lock` through the official A2A CLI (a2aproject/a2a-cli): this test plays the host. A PATH
 * holds `a2a-lock` (the package's bin) and a minimal `a2a` that does what the official CLI does
 * with a plugin: `a2a <name> args...` execs `a2a-<name> args...` with the environment inherited,
 * so the plugin's exit code is the caller's; `a2a-<name> info` is asked with a 3 s timeout for one
 * JSON object `{name, version, description}` and exit 0.
 */
import { execFile } from 'node:child_process';
import { chmod, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BIN,
  type CliResult,
  manifest,
  oneJsonDocument,
  ROOT,
  readLockBytes,
  research,
  resources,
  sampleCard,
  show,
  writeManifest,
} from './helpers.js';

/** The host's dispatch, as the official CLI's docs describe it: the first `a2a-<name>` on PATH, exec'd with the rest of the arguments. */
const HOST = `#!/bin/sh
name="$1"
shift
old_ifs="$IFS"; IFS=:
for d in $PATH; do
  if [ -x "$d/a2a-$name" ]; then IFS="$old_ifs"; exec "$d/a2a-$name" "$@"; fi
done
echo "a2a: unknown command \\"$name\\"" >&2
exit 2
`;

/** A bin directory holding `a2a` (the host) and `a2a-lock` (our bin), and a PATH that finds them and node. */
async function hostPath(res: ReturnType<typeof resources>): Promise<string> {
  const bin = await res.dir();
  await writeFile(join(bin, 'a2a'), HOST);
  await chmod(join(bin, 'a2a'), 0o755);
  await symlink(BIN, join(bin, 'a2a-lock'));
  return [bin, dirname(process.execPath), '/usr/bin', '/bin'].join(':');
}

/** Run `file args...` in `cwd` with only PATH and NO_COLOR set; `timeout` kills it (the host's 3 s for info). */
function run(file: string, args: string[], cwd: string, path: string, timeout = 15_000): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: { PATH: path, NO_COLOR: '1' }, timeout }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

describe.concurrent('the official a2a CLI runs a2a-lock as `a2a lock`', () => {
  it('info: exactly {"name":"lock","version","description"} on stdout, exit 0, within the 3 s timeout, with no manifest and an unreadable one', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const path = await hostPath(res);
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const empty = await res.dir();
    const broken = await res.dir();
    await writeManifest(broken, '{not json');
    const expected = `${JSON.stringify({ name: 'lock', version, description: 'Lockfile for A2A agents: lock, verify, update' })}\n`;
    for (const cwd of [empty, broken]) {
      const info = await run(join(path.split(':')[0]!, 'a2a-lock'), ['info'], cwd, path, 3000);
      expect(info.code, show(info)).toBe(0);
      expect(info.stdout).toBe(expected);
      expect(info.stderr).toBe('');
    }
    // The bundle answers from itself: the version is written in (in the bundle or a chunk it imports
    // statically, shared with the User-Agent), so info reads no package.json.
    const bin = await readFile(BIN, 'utf8');
    const statics = [...bin.matchAll(/^import .* from "\.\/(chunks\/[^"]+)";$/gm)].map((m) => m[1]!);
    const bundled = [bin, ...(await Promise.all(statics.map((c) => readFile(join(dirname(BIN), c), 'utf8'))))].join(
      '\n',
    );
    expect(bundled).toMatch(
      new RegExp(
        `function packageVersion\\(\\) \\{\\s*return ${JSON.stringify(version).replace(/\./g, '\\.')};\\s*\\}`,
      ),
    );
    // Through our own bins too: `a2a lock info` (the host forwarding) and `a2a-lock info --json` (the parser) say the same.
    const forwarded = await run(join(path.split(':')[0]!, 'a2a'), ['lock', 'info'], empty, path, 3000);
    expect(forwarded.stdout).toBe(expected);
    const parsed = await run(process.execPath, [BIN, 'lock', 'info', '--verbose'], empty, path);
    expect(parsed.code, show(parsed)).toBe(0);
    expect(parsed.stdout).toBe(expected);
  });

  it('`a2a lock` locks, `a2a lock verify --json` verifies, and exit codes pass through (0, 1 drift, 2 usage, 3 unreachable)', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const path = await hostPath(res);
    const a2a = join(path.split(':')[0]!, 'a2a');
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));

    const lock = await run(a2a, ['lock'], dir, path);
    expect(lock.code, show(lock)).toBe(0);
    expect(lock.stdout).toMatch(/\+ research added/);
    expect(await readLockBytes(dir)).toBeDefined();

    const verify = await run(a2a, ['lock', 'verify', '--json'], dir, path);
    expect(verify.code, show(verify)).toBe(0);
    expect(oneJsonDocument(verify)).toMatchObject({ ok: true, agents: { research: { status: 'ok', exitCode: 0 } } });

    // The same command, spelt both ways, with the same answer.
    const [plain, viaLock] = await Promise.all([
      run(a2a, ['lock', 'ls', '--json'], dir, path),
      run(process.execPath, [BIN, 'ls', '--json'], dir, path),
    ]);
    expect(plain.code, show(plain)).toBe(0);
    expect(plain.stdout).toBe(viaLock.stdout);

    const usage = await run(a2a, ['lock', 'verify', '--strcit'], dir, path);
    expect(usage.code, show(usage)).toBe(2);

    const card = sampleCard(agent.origin);
    card.skills[0]!.outputModes = ['text/plain'];
    agent.setCard(card);
    const drift = await run(a2a, ['lock', 'verify'], dir, path);
    expect(drift.code, show(drift)).toBe(1);
    expect(drift.stdout).toMatch(/run: a2a update research/);

    await agent.close();
    const down = await run(a2a, ['lock', 'verify', '--json'], dir, path);
    expect(down.code, show(down)).toBe(3);
    expect(oneJsonDocument(down).agents.research).toMatchObject({
      status: 'error',
      exitCode: 3,
      error: { code: 'unreachable' },
    });
  });

  it('a2a-lock with no command (only options) runs lock', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const path = await hostPath(res);
    const agent = await res.sampleAgent();
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const bare = await run(join(path.split(':')[0]!, 'a2a-lock'), [], dir, path);
    expect(bare.code, show(bare)).toBe(0);
    // The change view of what it wrote (the risks of the new agent, the count line), then the file.
    expect(bare.stdout).toMatch(
      /\+ research added[^\n]*\n(?: {4}[^\n]*\n)*0 changed, 1 added, 0 removed[^\n]*\nwrote .*a2a\.lock\.json\n$/,
    );
    const json = await run(join(path.split(':')[0]!, 'a2a-lock'), ['--json'], dir, path);
    expect(json.code, show(json)).toBe(0);
    expect(oneJsonDocument(json)).toMatchObject({
      ok: true,
      written: false,
      agents: { research: { status: 'unchanged' } },
    });
  });
});
