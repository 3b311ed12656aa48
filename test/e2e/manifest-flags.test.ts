/**
 * Every manifest setting from the CLI (issue 36): `a2a add` and `a2a update` write each per-agent
 * setting from a flag, its value checked by the manifest's schema (exit 2, one line naming the flag);
 * `add` writes the agents in name order under the file lock (two real processes at once both land);
 * `a2a ls` shows each agent's credential routes, `originAuth` origins and rebased interfaces.
 * Real SDK agents on 127.0.0.1; the built CLI.
 */
import { describe, expect, it } from 'vitest';
import {
  cardRequests,
  expectOneLineError,
  jsonOf,
  manifest,
  oneJsonDocument,
  readLock,
  readLockBytes,
  readManifestBytes,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
} from './helpers.js';

const PROFILE = { bindings: ['JSONRPC'], versions: ['1.0'], accepts: ['application/json'] };

describe.concurrent('every manifest setting from the CLI', () => {
  it(
    'add takes every per-agent setting as a flag, writes each beside its key, and ls shows the routes, originAuth and rebased interfaces',
    async ({ onTestFinished }) => {
      const res = resources(onTestFinished);
      // ADK's to_a2a() on Cloud Run: the card advertises its bind address.
      const agent = await res.agent({
        card: (o) => sampleCard(o.replace('127.0.0.1', '0.0.0.0'), { securitySchemes: {}, securityRequirements: [] }),
      });
      const bound = `${agent.origin.replace('127.0.0.1', '0.0.0.0')}/a2a/jsonrpc`;
      const dir = await res.dir(manifest({}, PROFILE));
      const added = await runCli(
        [
          'add',
          'hosted',
          agent.origin,
          '--skill',
          'market-size',
          '--rebase-interfaces',
          '--origin-auth',
          `${agent.origin}/=bearer:PLATFORM_TOKEN`,
          '--credential',
          'oauth=oauth:CLIENT_ID:CLIENT_SECRET',
          '--range',
          '^2.0.0',
          '--card-path',
          '.well-known/agent-card.json',
          '--allow-http',
        ],
        { cwd: dir, env: { PLATFORM_TOKEN: 'platform-t0ken-5e1f' } },
      );
      expect(added.code, show(added)).toBe(0);
      const m = JSON.parse((await readManifestBytes(dir)).toString());
      expect(m.agents.hosted).toEqual({
        card: agent.origin,
        skills: ['market-size'],
        credentials: { oauth: { oauth: { clientId: { env: 'CLIENT_ID' }, clientSecret: { env: 'CLIENT_SECRET' } } } },
        rebaseInterfaces: true,
        allowHttp: true,
        cardPath: '.well-known/agent-card.json',
        version: '^2.0.0',
      });
      expect(m.originAuth).toEqual({ [agent.origin]: { bearer: { env: 'PLATFORM_TOKEN' } } });
      const lock = await readLock(dir);
      expect(lock.settings.hosted).toMatchObject({ rebaseInterfaces: true, allowHttp: true, versionRange: '^2.0.0' });
      expect(lock.agents.hosted.plans['market-size'].url).toBe(`${agent.origin}/a2a/jsonrpc`);
      for (const r of cardRequests(agent.requests)) expect(r.headers.authorization).toBe('Bearer platform-t0ken-5e1f');

      const [text, json] = await Promise.all([runCli(['ls'], { cwd: dir }), runCli(['ls', '--json'], { cwd: dir })]);
      expect(text.code, show(text)).toBe(0);
      expect(text.stdout).toContain('  credential oauth (oauth client CLIENT_ID / CLIENT_SECRET) → nowhere locked\n');
      expect(text.stdout).toContain(`  originAuth ${agent.origin}: Authorization: Bearer $PLATFORM_TOKEN\n`);
      expect(text.stdout).toContain(`  rebased ${bound} → ${agent.origin}/a2a/jsonrpc (rebaseInterfaces)\n`);
      expect(oneJsonDocument(json).agents.hosted).toMatchObject({
        credentials: { oauth: { source: m.agents.hosted.credentials.oauth, to: [] } },
        originAuth: { [agent.origin]: 'Authorization: Bearer $PLATFORM_TOKEN' },
        rebased: { [bound]: `${agent.origin}/a2a/jsonrpc` },
      });
    },
    SLOW,
  );

  it('ls shows where each credential goes (its locked origins)', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const { dir } = await res.locked(
      manifest({ research: { card: agent.origin, skills: ['market-size'], credentials: { bearer: { env: 'T' } } } }),
    );
    const json = await runCli(['ls', '--json'], { cwd: dir });
    expect(jsonOf(json).agents.research.credentials).toEqual({ bearer: { source: { env: 'T' }, to: [agent.origin] } });
  });

  it('a bad flag value is exit 2 with one line naming the flag (a secret-looking value not echoed); nothing fetched, nothing written', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const { dir } = await res.locked(
      manifest({ research: { card: agent.origin, skills: ['market-size'], credentials: { bearer: { env: 'T' } } } }),
    );
    const before = [await readManifestBytes(dir), await readLockBytes(dir)];
    const fetched = cardRequests(agent.requests).length;
    const add = (...flags: string[]) =>
      runCli(['add', 'x', agent.origin, '--skill', 'market-size', ...flags], { cwd: dir });
    const cases: Array<[Promise<Awaited<ReturnType<typeof runCli>>>, RegExp]> = [
      [
        add('--origin-auth', 'https://p.example.com/path=bearer:T'),
        /usage: --origin-auth origin "https:\/\/p\.example\.com\/path": must be an origin/,
      ],
      [
        add('--origin-auth', 'http://p.example.com=bearer:T'),
        /usage: --origin-auth origin .*plain http only to a loopback host/,
      ],
      [
        add('--origin-auth', 'https://p.example.com=bearer:sk-live-9f8e7d6c'),
        /usage: --origin-auth for https:\/\/p\.example\.com: .*environment variable/,
      ],
      [
        add('--origin-auth', 'https://p.example.com=kerberos:T'),
        /usage: --origin-auth for https:\/\/p\.example\.com: an originAuth placement is/,
      ],
      [add('--credential', 'bearer=sk-live-9f8e7d6c'), /usage: --credential for "bearer": .*environment variable/],
      [add('--credential', 'oauth=oauth:ONLY_ID'), /usage: --credential for "oauth": /],
      [add('--card-path', '../x'), /usage: --card-path "\.\.\/x": must be a path/],
      [runCli(['update', '--rebase-interfaces'], { cwd: dir }), /usage: a setting needs exactly one agent/],
      [
        runCli(['update', 'research', '--credential', 'bearer'], { cwd: dir }),
        /usage: --credential: expected <scheme>=<ENV_VAR>/,
      ],
    ];
    const results = await Promise.all(cases.map(([run]) => run));
    results.forEach((r, i) => {
      expect(r.code, show(r)).toBe(2);
      expectOneLineError(r, cases[i]![1]);
      expect(r.stderr).not.toContain('sk-live-9f8e7d6c');
    });
    expect(cardRequests(agent.requests)).toHaveLength(fetched);
    expect([await readManifestBytes(dir), await readLockBytes(dir)]).toEqual(before);
  });

  it(
    'update <agent> takes the settings too: --rebase-interfaces and --origin-auth written with the lockfile',
    async ({ onTestFinished }) => {
      const res = resources(onTestFinished);
      const agent = await res.agent({
        card: (o) => sampleCard(o, { securitySchemes: {}, securityRequirements: [] }),
      });
      const { dir } = await res.locked(
        manifest({ research: { card: agent.origin, skills: ['market-size'] } }, PROFILE),
      );
      const updated = await runCli(
        ['update', 'research', '--rebase-interfaces', '--origin-auth', `${agent.origin}=header:X-Platform:PT:Bearer `],
        { cwd: dir, env: { PT: 'pt-value' } },
      );
      expect(updated.code, show(updated)).toBe(0);
      const m = JSON.parse((await readManifestBytes(dir)).toString());
      expect(m.agents.research).toEqual({ card: agent.origin, skills: ['market-size'], rebaseInterfaces: true });
      expect(m.originAuth).toEqual({
        [agent.origin]: { header: { name: 'X-Platform', env: 'PT', prefix: 'Bearer ' } },
      });
      expect((await readLock(dir)).settings.research.rebaseInterfaces).toBe(true);
      const verified = await runCli(['verify', '--strict'], { cwd: dir, env: { PT: 'pt-value' } });
      expect(verified.code, show(verified)).toBe(0);
      const removed = await runCli(['update', 'research', '--no-rebase-interfaces'], {
        cwd: dir,
        env: { PT: 'pt-value' },
      });
      expect(removed.code, show(removed)).toBe(0);
      expect(JSON.parse((await readManifestBytes(dir)).toString()).agents.research.rebaseInterfaces).toBeUndefined();
    },
    SLOW,
  );

  it(
    'add writes the agents in name order, under the file lock: two add processes at once both land',
    async ({ onTestFinished }) => {
      const res = resources(onTestFinished);
      const agent = await res.sampleAgent();
      const { dir } = await res.locked(
        manifest({ zeta: { card: agent.origin, skills: ['market-size'], credentials: { bearer: { env: 'T' } } } }),
      );
      const add = (name: string) =>
        runCli(['add', name, agent.origin, '--skill', 'market-size', '--credential', 'bearer=T'], {
          cwd: dir,
          spawn: true,
        });
      const [beta, alpha] = await Promise.all([add('beta'), add('alpha')]);
      expect(beta.code, show(beta)).toBe(0);
      expect(alpha.code, show(alpha)).toBe(0);
      expect(Object.keys(JSON.parse((await readManifestBytes(dir)).toString()).agents)).toEqual([
        'alpha',
        'beta',
        'zeta',
      ]);
      expect(Object.keys((await readLock(dir)).agents).sort()).toEqual(['alpha', 'beta', 'zeta']);
      const verified = await runCli(['verify', '--offline'], { cwd: dir });
      expect(verified.code, show(verified)).toBe(0);
    },
    SLOW,
  );
});
