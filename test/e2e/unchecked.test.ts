/**
 * Issue 33, "an agent that was not checked is never ok", end to end: the built CLI against real
 * `@a2a-js/sdk` agents on 127.0.0.1, one behind a node:http platform gateway that demands a bearer
 * token on every request (`originAuth`), in a real git repository (`main` the reviewed base, `pr`
 * the pull request).
 *
 * A pull request that edits only a2a.lock.json (the plan and the snapshot of the agent behind
 * `originAuth` moved to another host, the integrity recomputed) while the platform variable is unset
 * (a fork's pull request) verified `ok (credential-unset)`, exit 0: after merge the runtime would
 * send the card scheme's token to that host.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import { startGateway } from '../helpers/gateway.js';
import {
  git,
  jsonOf,
  type ManifestAgent,
  manifest,
  readLock,
  research,
  resources,
  runCli,
  SLOW,
  show,
  writeLockBytes,
} from './helpers.js';

const ORIGIN = 'platform-T0ken-33aa';

describe.concurrent('an agent that was not checked is never ok', { timeout: SLOW }, () => {
  it('originAuth unset: unchecked (credential-unset) in the count line, --json, the job summary and SARIF; --strict fails counting it; a PR that moves the entry to another host is credential-route-new naming the host', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const [behind, plain, evil] = await Promise.all([res.sampleAgent(), res.sampleAgent(), res.sampleAgent()]);
    const gateway = await startGateway(behind.origin, { bearer: ORIGIN });
    onTestFinished(() => gateway.close());
    const dir = await res.dir({
      ...manifest({
        hosted: { ...research(`${gateway.origin}/v1/card`), cardPath: '' } as ManifestAgent,
        plain: research(plain.origin),
      }),
      originAuth: { [gateway.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    });
    const lock = await runCli(['lock'], { cwd: dir, env: { ORIGIN_TOKEN: ORIGIN, RESEARCH_TOKEN: 'r' } });
    expect(lock.code, show(lock)).toBe(0);
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', 'a2a.json', 'a2a.lock.json');
    git(dir, 'commit', '-q', '-m', 'reviewed');
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'main');

    // Without a pull request: the platform variable unset (a forgotten secret).
    const summary = join(dir, 'summary.md');
    const [text, strict, json, sarif, withToken] = await Promise.all([
      runCli(['verify'], { cwd: dir, env: { GITHUB_STEP_SUMMARY: summary } }),
      runCli(['verify', '--strict'], { cwd: dir }),
      runCli(['verify', '--json'], { cwd: dir }),
      runCli(['verify', '--format', 'sarif'], { cwd: dir }),
      runCli(['verify', '--json', '--strict'], { cwd: dir, env: { ORIGIN_TOKEN: ORIGIN } }),
    ]);
    const message = `not checked against the card served now: ORIGIN_TOKEN is not set (originAuth for ${gateway.origin})`;
    expect(text.code, show(text)).toBe(0);
    expect(text.stdout).toContain(`! hosted: unchecked (credential-unset): ${message}`);
    expect(text.stdout).toContain('verified 2 agents: 1 ok · 1 unchecked');
    expect(strict.code, show(strict)).toBe(1);
    expect(strict.stdout).toContain('verify failed (exit 1): 1 ok · 1 unchecked');
    expect(jsonOf(json).agents.hosted).toEqual({
      status: 'unchecked',
      exitCode: 0,
      reason: 'credential-unset',
      unchecked: message,
    });
    expect(jsonOf(json).agents.plain).toMatchObject({ status: 'ok' });
    const markdown = await readFile(summary, 'utf8');
    expect(markdown).toContain('⚠️ verified 2 agents, 1 unchecked');
    expect(markdown).toMatch(/\| hosted \| ⚠️ unchecked \| credential\\?-unset/);
    const results = jsonOf(sarif).runs[0].results as Array<{ ruleId: string; level: string }>;
    expect(results).toEqual([expect.objectContaining({ ruleId: 'credential-unset', level: 'warning' })]);
    // With the token the card is read: ok.
    expect(withToken.code, show(withToken)).toBe(0);
    expect(jsonOf(withToken).agents.hosted).toEqual({ status: 'ok', exitCode: 0 });

    // The pull request edits only a2a.lock.json: hosted's plan and snapshot moved to `evil`, integrity recomputed.
    git(dir, 'checkout', '-q', '-b', 'pr');
    const locked = await readLock(dir);
    const entry = JSON.parse(JSON.stringify(locked.agents.hosted).split(behind.origin).join(evil.origin));
    entry.integrity = integrityOf(entry.snapshot);
    locked.agents.hosted = entry;
    await writeLockBytes(dir, `${JSON.stringify(locked, null, 2)}\n`);
    git(dir, 'commit', '-q', '-am', 'pull request');
    expect(entry.plans['market-size'].url).toBe(`${evil.origin}/a2a/jsonrpc`);
    const offline = await runCli(['verify', '--offline'], { cwd: dir });
    expect(offline.code, show(offline)).toBe(0);

    // A fork's pull request: no secret at all.
    const fork = { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main' };
    const asked = gateway.requests.length;
    const [prText, prStrict, prJson] = await Promise.all([
      runCli(['verify'], { cwd: dir, env: fork }),
      runCli(['verify', '--strict'], { cwd: dir, env: fork }),
      runCli(['verify', '--json'], { cwd: dir, env: fork }),
    ]);
    expect(prText.code, show(prText)).toBe(0);
    expect(prText.stdout).toContain('! hosted: unchecked (credential-route-new)');
    expect(prText.stdout).not.toMatch(/✓ hosted/);
    expect(prStrict.code, show(prStrict)).toBe(1);
    expect(prStrict.stdout).toContain('verify failed (exit 1): 1 ok · 1 unchecked');
    expect(jsonOf(prJson).agents.hosted).toMatchObject({
      status: 'unchecked',
      reason: 'credential-route-new',
      routes: [{ origin: evil.origin, scheme: 'bearer' }],
    });
    expect(gateway.requests.length).toBe(asked);
    expect(evil.requests.filter((q) => q.headers.authorization !== undefined)).toEqual([]);

    // The same run with the base's entry unchanged: unchecked credential-unset, not a new route.
    git(dir, 'checkout', '-q', 'main', '--', 'a2a.lock.json');
    const same = await runCli(['verify', '--json'], { cwd: dir, env: fork });
    expect(jsonOf(same).agents.hosted).toMatchObject({ status: 'unchecked', reason: 'credential-unset' });
  });
});
