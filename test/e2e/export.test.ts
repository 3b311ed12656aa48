/**
 * `a2a export --format cyclonedx` (the built CLI): the lockfile of real SDK agents on 127.0.0.1 as a
 * CycloneDX 1.6 BOM the CycloneDX library's strict validator accepts; the same bytes on stdout,
 * in `--output`, and run after run; the lockfile digest in metadata; `--timestamp` and
 * `--first-party`; a missing lockfile (exit 1) and bad flags (exit 2).
 */
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { describe, expect, it } from 'vitest';
import { lockDigest } from '../../src/lock/digest.js';
import { jsonOf, manifest, research, resources, runCli, show } from './helpers.js';

/** The CycloneDX library's strict JSON Schema validation: null when valid. */
function validate(text: string): Promise<unknown> {
  return new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text);
}

describe.concurrent('a2a export', () => {
  it('exports the lockfile of two real agents: valid CycloneDX 1.6, the same bytes each run and in --output', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const [plain, legacy] = await Promise.all([res.sampleAgent(), res.sampleAgent({ legacy: true })]);
    const dir = await res.dir(manifest({ research: research(plain.origin), compat: research(legacy.origin) }));
    const lock = await runCli(['lock'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    const [first, second, written] = await Promise.all([
      runCli(['export', '--format', 'cyclonedx'], { cwd: dir }),
      runCli(['export'], { cwd: dir }),
      runCli(['export', '--output', 'bom.cdx.json'], { cwd: dir }),
    ]);
    expect(first.code, show(first)).toBe(0);
    expect(first.stderr).toBe('');
    expect(await validate(first.stdout)).toBeNull();
    expect(second.stdout).toBe(first.stdout);
    expect(written.code, show(written)).toBe(0);
    expect(await readFile(join(dir, 'bom.cdx.json'), 'utf8')).toBe(first.stdout);
    expect(written.stdout).toMatch(
      /^wrote bom\.cdx\.json: CycloneDX 1\.6 BOM of 2 agents \(urn:uuid:[0-9a-f-]{36}\)\n$/,
    );

    const bom = JSON.parse(first.stdout);
    expect(bom.services.map((s: { name: string }) => s.name)).toEqual(['compat', 'research']);
    const service = bom.services[1];
    expect(service).toMatchObject({
      'bom-ref': 'a2a-agent:research',
      authenticated: true,
      // Loopback is inside the client's trust boundary.
      'x-trust-boundary': false,
      externalReferences: [{ type: 'documentation', url: `${plain.origin}/.well-known/agent-card.json` }],
    });
    expect(service.endpoints.every((u: string) => u.startsWith(`${plain.origin}/`))).toBe(true);
    expect(service.data.some((d: { flow: string }) => d.flow === 'outbound')).toBe(true);
    expect(bom.metadata).not.toHaveProperty('timestamp');
    // The digest in metadata is the lockfile's (lock digest / verify --expect-digest compare the same).
    const digest = lockDigest(JSON.parse(await readFile(join(dir, 'a2a.lock.json'), 'utf8')));
    expect(bom.metadata.properties).toContainEqual({ name: 'a2a-lock:lockfile-digest', value: digest });
  });

  it('--timestamp, --first-party and --json with --output; a missing lockfile is exit 1; bad flags exit 2', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    const empty = await res.dir();
    await writeFile(join(dir, 'a2a.lock.json'), await readFile('a2a.lock.json.example', 'utf8'));
    const [stamped, json, missing, notOrigin, overLock, twoFormats, otherFormat, noFolder, withPath] =
      await Promise.all([
        runCli(['export', '--timestamp', '--first-party', 'https://agents.example.com/'], { cwd: dir }),
        runCli(['export', '--output', join(dir, 'bom.json'), '--json'], { cwd: dir }),
        runCli(['export'], { cwd: empty }),
        runCli(['export', '--first-party', 'agents.example.com'], { cwd: dir }),
        runCli(['export', '--output', 'a2a.lock.json'], { cwd: dir }),
        runCli(['export', '--format', 'cyclonedx', '--format', 'cyclonedx'], { cwd: dir }),
        runCli(['export', '--format', 'spdx'], { cwd: dir }),
        runCli(['export', '--output', join('missing', 'bom.json')], { cwd: dir }),
        // A path would not narrow first-party to it: the whole origin would count, so it is refused.
        runCli(['export', '--first-party', 'https://gateway.example.com/team-a'], { cwd: dir }),
      ]);
    expect(stamped.code, show(stamped)).toBe(0);
    const bom = JSON.parse(stamped.stdout);
    expect(Date.parse(bom.metadata.timestamp)).not.toBeNaN();
    expect(bom.metadata.properties).toContainEqual({
      name: 'a2a-lock:first-party-origin',
      value: 'https://agents.example.com',
    });
    expect(await validate(stamped.stdout)).toBeNull();

    expect(json.code, show(json)).toBe(0);
    const doc = jsonOf(json);
    expect(doc).toMatchObject({ ok: true, format: 'cyclonedx', output: join(dir, 'bom.json'), services: 2 });
    expect(doc.lockfileDigest).toMatch(/^sha256-/);
    expect(doc).not.toHaveProperty('human');
    expect(JSON.parse(await readFile(join(dir, 'bom.json'), 'utf8')).serialNumber).toBe(doc.serialNumber);

    expect(missing.code, show(missing)).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('lockfile-out-of-date');
    expect(missing.stderr).toContain('a2a.lock.json: not found');
    expect(notOrigin.code, show(notOrigin)).toBe(2);
    expect(notOrigin.stderr).toContain('--first-party agents.example.com: not an http(s) origin');
    expect(withPath.code, show(withPath)).toBe(2);
    expect(withPath.stdout).toBe('');
    expect(withPath.stderr).toContain(
      '--first-party https://gateway.example.com/team-a: an origin has no path, query or user (https://gateway.example.com)',
    );
    expect(overLock.code, show(overLock)).toBe(2);
    expect(overLock.stderr).toContain('--output a2a.lock.json names the lockfile');
    expect(twoFormats.code, show(twoFormats)).toBe(2);
    expect(otherFormat.code, show(otherFormat)).toBe(2);
    // The folder of --output must exist: nothing is created but the file.
    expect(noFolder.code, show(noFolder)).toBe(2);
    expect(noFolder.stderr).toContain('write-failed');
  });

  it('--output through a symlinked folder, or at the target of a symlinked lockfile, is refused: the lockfile and the manifest are never replaced', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    const lockText = await readFile('a2a.lock.json.example', 'utf8');
    await writeFile(join(dir, 'a2a.lock.json'), lockText);
    await symlink('.', join(dir, 'via'));
    // A lockfile that is a symlink to a file elsewhere in the project.
    const linked = await res.dir();
    await mkdir(join(linked, 'locks'));
    await writeFile(join(linked, 'locks', 'app.json'), lockText);
    await symlink(join('locks', 'app.json'), join(linked, 'a2a.lock.json'));
    const [viaFolder, viaManifest, atTarget] = await Promise.all([
      runCli(['export', '--output', join('via', 'a2a.lock.json')], { cwd: dir }),
      runCli(['export', '--output', join('via', 'a2a.json')], { cwd: dir }),
      runCli(['export', '--output', join('locks', 'app.json')], { cwd: linked }),
    ]);
    expect(viaFolder.code, show(viaFolder)).toBe(2);
    expect(viaFolder.stderr).toContain('names the lockfile');
    expect(viaManifest.code, show(viaManifest)).toBe(2);
    expect(viaManifest.stderr).toContain('names the manifest');
    expect(atTarget.code, show(atTarget)).toBe(2);
    expect(await readFile(join(dir, 'a2a.lock.json'), 'utf8')).toBe(lockText);
    expect(await readFile(join(linked, 'locks', 'app.json'), 'utf8')).toBe(lockText);
  });
});
