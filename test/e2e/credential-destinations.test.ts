/**
 * The manifest's `credentialDestinations` (issue 36): `lock`, `update` and `add` refuse a plan, a
 * token URL, an extended card request or an `originAuth` origin outside the list, naming the
 * destination and the list and writing nothing; `verify` fails an entry outside it (every format);
 * a plain-http entry to a host that is not loopback is a manifest error naming its JSON path.
 * Real `@a2a-js/sdk` agents and node:http token endpoints on 127.0.0.1.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { grpcFirstCard, type StartedAgent } from '../helpers/agents.js';
import { extendedCard, publicCard } from './cards.js';
import {
  git,
  jsonOf,
  lockedRepository,
  lockPath,
  manifest,
  PROFILE,
  readLockBytes,
  readManifestBytes,
  research,
  resources,
  runCli,
  show,
  writeManifest,
} from './helpers.js';

const TOKEN = 'cd-bearer-7f3a';
const ENV = { RESEARCH_TOKEN: TOKEN };
const a2aRequests = (agent: StartedAgent) => agent.requests.filter((r) => r.path.startsWith('/a2a'));

describe('credentialDestinations in a2a.json', () => {
  it('a plain-http entry to a host that is not loopback, a path or a wildcard IP is a manifest error naming the JSON path', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    for (const [entry, message] of [
      ['http://agents.example.com', /\$\.credentialDestinations\[1\].*plain http only to a loopback host/],
      ['https://agents.example.com/', /\$\.credentialDestinations\[1\].*must be an origin/],
      ['https://*.10.0.0.1', /\$\.credentialDestinations\[1\].*must be an origin/],
    ] as const) {
      const dir = await res.dir({
        ...manifest({ research: research(agent.origin) }),
        credentialDestinations: ['https://*.run.app', entry],
      });
      const r = await runCli(['lock'], { cwd: dir, env: ENV });
      expect(r.code, show(r)).toBe(2);
      expect(r.stderr).toMatch(/manifest-invalid/);
      expect(r.stderr).toMatch(message);
      expect(existsSync(lockPath(dir))).toBe(false);
    }
    expect(agent.requests).toEqual([]);
  });

  it('lock refuses a plan whose credential would go to an origin outside the list (naming it and the list), writing nothing; within the list it locks, and verify then passes', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent({ bearerToken: TOKEN });
    const dir = await res.dir({
      ...manifest({ research: research(agent.origin) }),
      credentialDestinations: ['https://*.run.app', 'https://agents.example.com'],
    });
    const refused = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(refused.code, show(refused)).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('credential-destination-refused');
    expect(refused.stdout + refused.stderr).toContain(
      `plan market-size (scheme bearer) would send a credential to ${agent.origin}, which a2a.json's credentialDestinations does not allow (https://*.run.app, https://agents.example.com)`,
    );
    expect(existsSync(lockPath(dir))).toBe(false);
    const json = jsonOf(await runCli(['lock', '--json'], { cwd: dir, env: ENV }));
    expect(json.agents.research.error).toMatchObject({
      code: 'credential-destination-refused',
      message: expect.stringContaining(`to ${agent.origin}, which`),
    });
    expect(a2aRequests(agent)).toEqual([]);

    await writeManifest(dir, {
      ...manifest({ research: research(agent.origin) }),
      credentialDestinations: [agent.origin],
    });
    const locked = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(locked.code, show(locked)).toBe(0);
    const verify = await runCli(['verify'], { cwd: dir, env: ENV });
    expect(verify.code, show(verify)).toBe(0);
  });

  it('a gRPC plan goes to the origin its channel is dialled at (a loopback host:port: http://host:port), which the list can allow; outside it, lock refuses naming that origin', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ grpc: true, bearerToken: TOKEN, card: grpcFirstCard() });
    const dialled = `http://${agent.grpcUrl}`;
    const grpcFirst = (list: string[]) => ({
      ...manifest({ research: research(agent.origin) }, { ...PROFILE, bindings: ['GRPC', 'JSONRPC'] }),
      credentialDestinations: list,
    });
    const dir = await res.dir(grpcFirst([agent.origin]));
    const refused = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(refused.code, show(refused)).toBe(1);
    expect(refused.stdout + refused.stderr).toContain(
      `plan market-size (scheme bearer) would send a credential to ${dialled}, which a2a.json's credentialDestinations does not allow (${agent.origin})`,
    );
    expect(existsSync(lockPath(dir))).toBe(false);

    await writeManifest(dir, grpcFirst([dialled, agent.origin]));
    const locked = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(locked.code, show(locked)).toBe(0);
    const lock = JSON.parse(await readFile(lockPath(dir), 'utf8'));
    expect(lock.agents.research.plans['market-size']).toMatchObject({ protocolBinding: 'GRPC', url: agent.grpcUrl });
    const verify = await runCli(['verify'], { cwd: dir, env: ENV });
    expect(verify.code, show(verify)).toBe(0);
  });

  it('an entry outside a narrowed list: verify fails it in every format (nothing sent), lock and update refuse, the lockfile byte for byte as it was; add refuses and writes neither file', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent({ bearerToken: TOKEN });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    expect((await runCli(['lock'], { cwd: dir, env: ENV })).code).toBe(0);
    const before = await readLockBytes(dir);
    // The manifest edited by hand: the list no longer names the agent's origin.
    await writeManifest(dir, {
      ...manifest({ research: research(agent.origin) }),
      credentialDestinations: ['https://*.run.app'],
    });
    const manifestBefore = await readManifestBytes(dir);
    agent.requests.length = 0;
    const [text, json, sarif, offline] = await Promise.all([
      runCli(['verify'], { cwd: dir, env: ENV }),
      runCli(['verify', '--json'], { cwd: dir, env: ENV }),
      runCli(['verify', '--format', 'sarif'], { cwd: dir, env: ENV }),
      runCli(['verify', '--offline', '--json'], { cwd: dir, env: ENV }),
    ]);
    for (const r of [text, json, sarif, offline]) expect(r.code, show(r)).toBe(1);
    expect(text.stdout + text.stderr).toContain('credential-destination-refused');
    expect(text.stdout + text.stderr).toContain(`would send a credential to ${agent.origin}`);
    for (const doc of [jsonOf(json), jsonOf(offline)])
      expect(doc.agents.research).toMatchObject({
        status: 'error',
        exitCode: 1,
        error: { code: 'credential-destination-refused', message: expect.stringContaining(agent.origin) },
      });
    expect(sarif.stdout).toContain('credential-destination-refused');
    expect(agent.requests).toEqual([]);
    const ci = await runCli(['verify'], { cwd: dir, env: { ...ENV, GITHUB_ACTIONS: 'true' } });
    expect(ci.stdout + ci.stderr).toMatch(/::error .*credential-destination-refused/);

    for (const args of [['lock'], ['update'], ['update', 'research']]) {
      const r = await runCli(args, { cwd: dir, env: ENV });
      expect(r.code, show(r)).toBe(1);
      expect(r.stdout + r.stderr).toContain('credential-destination-refused');
    }
    const other = await res.sampleAgent({ bearerToken: TOKEN });
    const add = await runCli(
      ['add', 'other', other.origin, '--skill', 'market-size', '--credential', 'bearer=RESEARCH_TOKEN'],
      { cwd: dir, env: ENV },
    );
    expect(add.code, show(add)).toBe(1);
    expect(add.stdout + add.stderr).toContain(`would send a credential to ${other.origin}`);
    expect(await readLockBytes(dir)).toEqual(before);
    expect(await readManifestBytes(dir)).toEqual(manifestBefore);
    expect(a2aRequests(agent)).toEqual([]);
    expect(a2aRequests(other)).toEqual([]);
  });

  it('the extended card request and an OAuth client secret to a token URL are refused before they are sent; originAuth to an origin outside the list is refused before any request', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    // Extended card: the agent's origin is not listed, so its GetExtendedAgentCard is never sent.
    const agent = await res.agent({
      card: (o: string) => publicCard(o),
      extendedCard: (o: string) => extendedCard(o),
      bearerToken: TOKEN,
    });
    const dir = await res.dir({
      ...manifest({ research: { ...research(agent.origin), skills: ['deep-research'] } }),
      credentialDestinations: ['https://agents.example.com'],
    });
    const extended = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(extended.code, show(extended)).toBe(1);
    expect(extended.stdout + extended.stderr).toContain(
      `the extended card request (scheme bearer) would send a credential to ${agent.origin}`,
    );
    expect(a2aRequests(agent)).toEqual([]);

    // A client secret to a token endpoint whose origin is not listed (the agent's is): no token request.
    const seen: string[] = [];
    const tokens = await res.http((req, reply) => {
      seen.push(req.url ?? '');
      reply.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"x","token_type":"Bearer"}');
    });
    const card = (o: string) => ({
      ...publicCard(o),
      capabilities: { ...publicCard(o).capabilities, extendedAgentCard: false },
      securitySchemes: {
        oauth: {
          oauth2SecurityScheme: {
            flows: { clientCredentials: { tokenUrl: `${tokens.origin}/oauth/token`, scopes: { 'a2a.read': 'read' } } },
          },
        },
      },
      securityRequirements: [{ schemes: { oauth: { list: ['a2a.read'] } } }],
    });
    const oauthAgent = await res.agent({ card });
    const oauthDir = await res.dir({
      ...manifest({
        research: {
          card: oauthAgent.origin,
          skills: ['market-size'],
          credentials: { oauth: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'CSECRET' } } } } as never,
        },
      }),
      credentialDestinations: [oauthAgent.origin],
    });
    const oauth = await runCli(['lock'], { cwd: oauthDir, env: { CID: 'id', CSECRET: 'secret-9' } });
    expect(oauth.code, show(oauth)).toBe(1);
    expect(oauth.stdout + oauth.stderr).toContain(
      `the OAuth client secret of scheme oauth (token URL) would send a credential to ${tokens.origin}`,
    );
    expect(existsSync(lockPath(oauthDir))).toBe(false);
    expect(seen).toEqual([]);

    // originAuth for an origin outside the list: refused before the card is even fetched.
    const platform = await res.sampleAgent();
    const platformDir = await res.dir({
      ...manifest({ research: research(platform.origin) }),
      originAuth: { [platform.origin]: { bearer: { env: 'PLATFORM_TOKEN' } } },
      credentialDestinations: ['https://*.run.app'],
    });
    const originAuth = await runCli(['lock'], { cwd: platformDir, env: { ...ENV, PLATFORM_TOKEN: 'p-7' } });
    expect(originAuth.code, show(originAuth)).toBe(1);
    expect(originAuth.stdout + originAuth.stderr).toContain(
      `originAuth (the platform credential) would send a credential to ${platform.origin}`,
    );
    expect(platform.requests).toEqual([]);
    expect(JSON.parse(await readFile(join(platformDir, 'a2a.json'), 'utf8')).credentialDestinations).toEqual([
      'https://*.run.app',
    ]);
  });

  it('diff: a change of the list itself is one high credential-policy-changed (text, markdown, --json, --fail-on, --ignore)', async ({
    onTestFinished,
  }) => {
    const { agent, dir } = await lockedRepository(onTestFinished);
    const path = join(dir, 'a2a.json');
    const value = JSON.parse(await readFile(path, 'utf8'));
    await writeManifest(dir, { ...value, credentialDestinations: [agent.origin, 'https://*.run.app'] });
    const [text, markdown, json, failed, ignored] = await Promise.all([
      runCli(['diff'], { cwd: dir }),
      runCli(['diff', '--format', 'markdown'], { cwd: dir }),
      runCli(['diff', '--json'], { cwd: dir }),
      runCli(['diff', '--fail-on', 'high'], { cwd: dir }),
      runCli(['diff', '--fail-on', 'high', '--ignore', 'credential-policy-changed'], { cwd: dir }),
    ]);
    const said = `a2a.json credentialDestinations: (none: no limit) → [${agent.origin}, https://*.run.app]`;
    expect(text.code, show(text)).toBe(0);
    expect(text.stdout.split('\n').filter((l) => l.includes('credential-policy-changed'))).toEqual([
      `high credential-policy-changed: ${said}`,
    ]);
    expect(text.stdout).toMatch(/· 1 high/);
    expect(markdown.stdout).toContain('**high** credential-policy-changed: a2a.json credentialDestinations');
    expect(markdown.stdout).toContain('\\*.run.app');
    expect(jsonOf(json).policy).toEqual({
      new: [agent.origin, 'https://*.run.app'],
      risk: { code: 'credential-policy-changed', level: 'high', message: said },
    });
    expect(jsonOf(json).counts.high).toBe(1);
    expect(failed.code, show(failed)).toBe(1);
    expect(ignored.code, show(ignored)).toBe(0);
    // The list unchanged: nothing said.
    git(dir, 'commit', '-qam', 'policy');
    const same = await runCli(['diff', '--json'], { cwd: dir });
    expect(jsonOf(same).policy).toBeUndefined();
  });
});
