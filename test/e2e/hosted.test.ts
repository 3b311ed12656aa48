/**
 * Issue 24, agents where they are hosted, end to end through the built CLI: real `@a2a-js/sdk`
 * agents behind node:http gateways on 127.0.0.1 that demand a platform credential on every request
 * (a bearer token, a custom header, an AWS SigV4 signature checked by signing again), serve the
 * card at `/v1/card` (`cardPath: ""`), and whose cards advertise the bind address
 * `http://0.0.0.0:<port>` (`rebaseInterfaces`).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { StartedAgent } from '../helpers/agents.js';
import { AWS_TEST, type Demand, type Gateway, startGateway } from '../helpers/gateway.js';
import { newKey, sign } from '../helpers/signed-agent.js';
import { extendedCard, publicCard } from './cards.js';
import {
  expectSecretContained,
  git,
  jsonOf,
  lockPath,
  manifest,
  ROOT,
  readLock,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
  writeManifest,
} from './helpers.js';

type Res = ReturnType<typeof resources>;

const TOKEN = 'platform-T0ken-9c1e55ab';
const OTHER = 'attacker-platform-t0ken-77';

/** An SDK agent with no A2A security whose card advertises its bind address (`http://0.0.0.0:<port>`). */
function boundAgent(res: Res): Promise<StartedAgent> {
  return res.agent({
    card: (origin: string) =>
      sampleCard(origin.replace('127.0.0.1', '0.0.0.0'), { securitySchemes: {}, securityRequirements: [] }),
  });
}

/** {@link boundAgent} behind a gateway demanding `demand`; the gateway closes with the test. */
async function hosted(
  res: Res,
  demand: Demand,
  onFinished: (fn: () => Promise<void>) => void,
): Promise<{ agent: StartedAgent; gateway: Gateway }> {
  const agent = await boundAgent(res);
  const gateway = await startGateway(agent.origin, demand);
  onFinished(() => gateway.close());
  return { agent, gateway };
}

/** A manifest agent at `gateway`'s `/v1/card`, rebased. */
function hostedEntry(gateway: Gateway, extra: Record<string, unknown> = {}) {
  return { card: `${gateway.origin}/v1/card`, cardPath: '', rebaseInterfaces: true, skills: ['market-size'], ...extra };
}

/** Whether any request `server` recorded carries `secret` in any header. */
function sawSecret(server: { requests: Array<{ headers: Record<string, unknown> }> }, secret: string): boolean {
  return server.requests.some((r) => JSON.stringify(r.headers).includes(secret));
}

describe.concurrent('agents where they are hosted', { timeout: SLOW }, () => {
  it('bearer originAuth: the card at /v1/card and the rebased interface are locked, the token reaches only its origin, why/ls show it, verify --strict twice leaves the lockfile byte-identical', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { agent, gateway } = await hosted(res, { bearer: TOKEN }, onTestFinished);
    const other = await res.sampleAgent();
    const dir = await res.dir({
      ...manifest({
        hosted: hostedEntry(gateway),
        other: { card: other.origin, skills: ['market-size'], credentials: { bearer: { env: 'RESEARCH_TOKEN' } } },
      }),
      originAuth: { [gateway.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    });
    // --no-probe: every request through the gateway is asserted below (the probe's: lock-probe.test.ts).
    const lock = await runCli(['lock', '--no-probe'], {
      cwd: dir,
      env: { ORIGIN_TOKEN: TOKEN, RESEARCH_TOKEN: 'research' },
    });
    expect(lock.code, show(lock)).toBe(0);
    const locked = await readLock(dir);
    const port = new URL(agent.origin).port;
    expect(locked.agents.hosted.resolved).toBe(`${gateway.origin}/v1/card`);
    // The plan holds the rebased URL; the snapshot what the agent advertised.
    expect(locked.agents.hosted.plans['market-size'].url).toBe(`${gateway.origin}/a2a/jsonrpc`);
    expect(locked.agents.hosted.snapshot.supportedInterfaces[0].url).toBe(`http://0.0.0.0:${port}/a2a/jsonrpc`);
    expect(locked.settings.hosted).toMatchObject({ cardPath: '', rebaseInterfaces: true });
    expect(locked.agents.hosted.originAuth).toEqual({ [gateway.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } });
    expect(locked.agents.other.originAuth).toBeUndefined();
    // The card was asked for at /v1/card (no well-known path appended), with the token.
    expect(gateway.requests.map((r) => r.path)).toEqual(['/v1/card']);
    expect(gateway.refused).toBe(0);
    expect(sawSecret(other, TOKEN)).toBe(false);
    expect(sawSecret(agent, TOKEN)).toBe(false); // the gateway removes it
    expect(await readFile(lockPath(dir), 'utf8')).not.toContain(TOKEN);

    const [why, whyJson, ls] = await Promise.all([
      runCli(['why', 'hosted'], { cwd: dir }),
      runCli(['why', 'hosted', '--json'], { cwd: dir }),
      runCli(['ls', '--json'], { cwd: dir }),
    ]);
    expect(why.code, show(why)).toBe(0);
    expect(why.stdout).toContain(`rebased from http://0.0.0.0:${port}/a2a/jsonrpc (rebaseInterfaces)`);
    expect(why.stdout).toContain(`originAuth ${gateway.origin}: Authorization: Bearer $ORIGIN_TOKEN`);
    expect(jsonOf(whyJson).skills['market-size'].rebasedFrom).toBe(`http://0.0.0.0:${port}/a2a/jsonrpc`);
    expect(jsonOf(ls).agents.hosted.originAuth).toEqual({ [gateway.origin]: 'Authorization: Bearer $ORIGIN_TOKEN' });

    const before = await readFile(lockPath(dir));
    const first = await runCli(['verify', '--strict'], { cwd: dir, env: { ORIGIN_TOKEN: TOKEN } });
    const second = await runCli(['verify', '--strict'], { cwd: dir, env: { ORIGIN_TOKEN: TOKEN } });
    expect(first.code, show(first)).toBe(0);
    expect(second.code, show(second)).toBe(0);
    expect((await readFile(lockPath(dir))).equals(before)).toBe(true);
    // And locking again: the same bytes (the card is asked for again, with the token).
    const again = await runCli(['lock'], { cwd: dir, env: { ORIGIN_TOKEN: TOKEN, RESEARCH_TOKEN: 'research' } });
    expect(again.code, show(again)).toBe(0);
    expect((await readFile(lockPath(dir))).equals(before)).toBe(true);
    expect(gateway.refused).toBe(0);
    expect(sawSecret(other, TOKEN)).toBe(false);

    // The token in no output, no file, and at no other server.
    await expectSecretContained(TOKEN, {
      results: [lock, why, whyJson, ls, first, second, again],
      files: [lockPath(dir), `${dir}/a2a.json`],
      requests: [...other.requests, ...agent.requests],
    });

    // No token in this run (a fork's pull request): nothing is asked for; said, and --strict fails.
    const asked = gateway.requests.length;
    const [unset, unsetStrict] = await Promise.all([
      runCli(['verify', '--json'], { cwd: dir }),
      runCli(['verify', '--strict'], { cwd: dir }),
    ]);
    expect(unset.code, show(unset)).toBe(0);
    expect(jsonOf(unset).agents.hosted).toMatchObject({
      status: 'unchecked',
      reason: 'credential-unset',
      unchecked: `not checked against the card served now: ORIGIN_TOKEN is not set (originAuth for ${gateway.origin})`,
    });
    expect(unsetStrict.code, show(unsetStrict)).toBe(1);
    expect(gateway.requests.length).toBe(asked);
  });

  it('a card behind authentication without originAuth: the error names originAuth with an example; a refused placement is named; without rebaseInterfaces the bind address is refused naming it', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { agent, gateway } = await hosted(res, { bearer: TOKEN }, onTestFinished);
    const bare = await res.dir(manifest({ hosted: hostedEntry(gateway) }));
    const wrong = await res.dir({
      ...manifest({ hosted: hostedEntry(gateway) }),
      originAuth: { [gateway.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    });
    const unrebased = await res.dir({
      ...manifest({ hosted: hostedEntry(gateway, { rebaseInterfaces: undefined }) }),
      originAuth: { [gateway.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    });
    // Without originAuth, the token in the environment is not sent.
    const needs = await runCli(['lock'], { cwd: bare, env: { ORIGIN_TOKEN: TOKEN } });
    expect(sawSecret(gateway, TOKEN)).toBe(false);
    const [refused, unset, bound] = await Promise.all([
      runCli(['lock'], { cwd: wrong, env: { ORIGIN_TOKEN: 'stale' } }),
      runCli(['lock'], { cwd: wrong, env: {} }),
      runCli(['lock'], { cwd: unrebased, env: { ORIGIN_TOKEN: TOKEN } }),
    ]);
    expect(needs.code, show(needs)).toBe(4);
    expect(needs.stdout + needs.stderr).toContain(`the card needs authentication at ${gateway.origin}`);
    expect(needs.stdout + needs.stderr).toContain(
      `"originAuth": {"${gateway.origin}": {"bearer": {"env": "ORIGIN_TOKEN"}}}`,
    );
    // The hint names the flag that writes it, and the page that says how.
    expect(needs.stdout + needs.stderr).toContain(`--origin-auth ${gateway.origin}=bearer:<ENV>`);
    expect(needs.stdout + needs.stderr).toContain('docs/guide/hosted-agents.md#platform-authentication-originauth');
    expect(refused.code, show(refused)).toBe(4);
    expect(refused.stdout + refused.stderr).toContain(
      'the origin refused its originAuth placement Authorization: Bearer $ORIGIN_TOKEN',
    );
    expect(unset.code, show(unset)).not.toBe(0);
    expect(unset.stdout + unset.stderr).toContain('ORIGIN_TOKEN is not set');
    expect(bound.code, show(bound)).not.toBe(0);
    expect(bound.stdout + bound.stderr).toContain(
      `advertises its bind address (http://0.0.0.0:${new URL(agent.origin).port}/a2a/jsonrpc)`,
    );
    expect(bound.stdout + bound.stderr).toContain('"rebaseInterfaces": true');
  });

  it('a redirect to another origin carries nothing', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const target = await res.agent({
      card: (origin: string) => sampleCard(origin, { securitySchemes: {}, securityRequirements: [] }),
    });
    const front = await res.http((_req, answer) => {
      answer.writeHead(302, { Location: `${target.origin}/.well-known/agent-card.json` });
      answer.end();
    });
    const dir = await res.dir({
      ...manifest({ moved: { card: `${front.origin}/v1/card`, cardPath: '', skills: ['market-size'] } as never }),
      originAuth: {
        [front.origin]: { header: { name: 'X-Serverless-Authorization', env: 'ORIGIN_TOKEN', prefix: 'Bearer ' } },
      },
    });
    const lock = await runCli(['lock'], { cwd: dir, env: { ORIGIN_TOKEN: TOKEN } });
    expect(lock.code, show(lock)).toBe(0);
    expect(front.requests[0]!.headers['x-serverless-authorization']).toBe(`Bearer ${TOKEN}`);
    expect(target.requests.length).toBeGreaterThan(0);
    expect(sawSecret(target, TOKEN)).toBe(false);
    expect(target.requests.every((r) => r.headers['x-serverless-authorization'] === undefined)).toBe(true);
  });

  it('a custom header and AWS SigV4 (checked by signing again): each gateway lets the lock through', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const header = await hosted(
      res,
      { header: 'X-Serverless-Authorization', value: `Bearer ${TOKEN}` },
      onTestFinished,
    );
    const scope = { region: 'us-west-2', service: 'bedrock-agentcore' };
    const aws = await hosted(res, { awsSigV4: scope }, onTestFinished);
    const dir = await res.dir({
      ...manifest({ run: hostedEntry(header.gateway), core: hostedEntry(aws.gateway) }),
      originAuth: {
        [header.gateway.origin]: {
          header: { name: 'X-Serverless-Authorization', env: 'RUN_TOKEN', prefix: 'Bearer ' },
        },
        [aws.gateway.origin]: { awsSigV4: scope },
      },
    });
    const env = {
      RUN_TOKEN: TOKEN,
      AWS_ACCESS_KEY_ID: AWS_TEST.accessKeyId,
      AWS_SECRET_ACCESS_KEY: AWS_TEST.secretAccessKey,
      AWS_SESSION_TOKEN: AWS_TEST.sessionToken,
    };
    const lock = await runCli(['lock', '--no-probe'], { cwd: dir, env });
    expect(lock.code, show(lock)).toBe(0);
    expect(header.gateway.passed).toBe(1);
    expect(aws.gateway.passed).toBe(1);
    expect(aws.gateway.refused).toBe(0);
    expect(String(aws.gateway.requests[0]!.headers.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-west-2\/bedrock-agentcore\/aws4_request, SignedHeaders=[^,]*a2a-version/,
    );
    // Each credential only at its own origin.
    expect(sawSecret(aws.gateway, TOKEN)).toBe(false);
    expect(sawSecret(header.gateway, AWS_TEST.sessionToken)).toBe(false);
    const locked = await readLock(dir);
    expect(locked.agents.core.originAuth).toEqual({ [aws.gateway.origin]: { awsSigV4: scope } });
    expect(JSON.stringify(locked)).not.toContain(AWS_TEST.secretAccessKey);
    // A wrong secret key: the signature does not verify and the placement is named.
    const bad = await runCli(['verify'], { cwd: dir, env: { ...env, AWS_SECRET_ACCESS_KEY: 'not-the-key' } });
    expect(bad.code, show(bad)).toBe(4);
    expect(bad.stdout + bad.stderr).toContain(
      'refused its originAuth placement AWS SigV4 (us-west-2, bedrock-agentcore)',
    );
  });

  it('pull request: a new originAuth entry is withheld (unchecked, credential-route-new) while the reviewed one is sent; a2a diff calls it a new credential destination', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const trusted = await hosted(res, { bearer: TOKEN }, onTestFinished);
    const evil = await hosted(res, { bearer: OTHER }, onTestFinished);
    const base = {
      ...manifest({ hosted: hostedEntry(trusted.gateway) }),
      originAuth: { [trusted.gateway.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    };
    const dir = await res.dir(base);
    expect((await runCli(['lock'], { cwd: dir, env: { ORIGIN_TOKEN: TOKEN } })).code).toBe(0);
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', 'a2a.json', 'a2a.lock.json');
    git(dir, 'commit', '-q', '-m', 'reviewed');
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'main');
    git(dir, 'checkout', '-q', '-b', 'pr');
    // The attacker adds its agent and an originAuth entry naming the CI's variable, locked with its own token.
    await writeManifest(dir, {
      ...manifest({ hosted: hostedEntry(trusted.gateway), evil: hostedEntry(evil.gateway) }),
      originAuth: { ...base.originAuth, [evil.gateway.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    });
    expect((await runCli(['lock'], { cwd: dir, env: { ORIGIN_TOKEN: OTHER } })).code).toBe(0);
    git(dir, 'commit', '-q', '-am', 'pull request');
    evil.gateway.requests.length = 0;
    trusted.gateway.requests.length = 0;

    const PR_ENV = { GITHUB_ACTIONS: 'true', GITHUB_BASE_REF: 'main', ORIGIN_TOKEN: TOKEN };
    const [verify, json, diff] = await Promise.all([
      runCli(['verify'], { cwd: dir, env: PR_ENV }),
      runCli(['verify', '--json'], { cwd: dir, env: PR_ENV }),
      runCli(['diff', 'main', 'a2a.lock.json', '--json'], { cwd: dir }),
    ]);
    expect(verify.code, show(verify)).toBe(0);
    expect(verify.stdout).toContain('evil: unchecked (credential-route-new)');
    const doc = jsonOf(json);
    expect(doc.agents.evil).toMatchObject({
      status: 'unchecked',
      reason: 'credential-route-new',
      routes: [{ origin: evil.gateway.origin, scheme: 'originAuth' }],
    });
    expect(doc.agents.hosted).toEqual({ status: 'ok', exitCode: 0 });
    // Nothing at all went to the new origin; the reviewed one got the token.
    expect(evil.gateway.requests).toEqual([]);
    expect(trusted.gateway.requests.length).toBeGreaterThan(0);
    expect(trusted.gateway.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    // lock, update and add on the pull request send no platform credential either.
    const before = trusted.gateway.requests.length;
    const update = await runCli(['update', 'hosted'], { cwd: dir, env: PR_ENV });
    expect(update.code, show(update)).not.toBe(0);
    expect(update.stdout + update.stderr).toContain('this is a pull request run');
    expect(trusted.gateway.requests.length).toBe(before);
    const risks = JSON.stringify(jsonOf(diff));
    expect(risks).toContain('new-credential-destination');
    expect(risks).toContain(`originAuth Authorization: Bearer $ORIGIN_TOKEN → ${evil.gateway.origin}`);
  });

  it('a2a card --card-path "" reads a card at /v1/card with the manifest\'s originAuth; a2a add --card-path records it; a changed cardPath or originAuth makes the lock out of date', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const { gateway } = await hosted(res, { bearer: TOKEN }, onTestFinished);
    const plain = await res.agent({
      card: (origin: string) => sampleCard(origin, { securitySchemes: {}, securityRequirements: [] }),
    });
    const dir = await res.dir({
      ...manifest({}),
      originAuth: { [gateway.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    });
    const [card, cardJson] = await Promise.all([
      runCli(['card', `${gateway.origin}/v1/card`, '--card-path', ''], { cwd: dir, env: { ORIGIN_TOKEN: TOKEN } }),
      runCli(['card', `${gateway.origin}/v1/card`, '--card-path=', '--json'], {
        cwd: dir,
        env: { ORIGIN_TOKEN: TOKEN },
      }),
    ]);
    expect(card.code, show(card)).toBe(0);
    expect(jsonOf(cardJson).resolved).toBe(`${gateway.origin}/v1/card`);
    expect(gateway.requests.every((r) => r.path === '/v1/card' && r.headers.authorization === `Bearer ${TOKEN}`)).toBe(
      true,
    );

    const add = await runCli(
      [
        'add',
        'plain',
        `${plain.origin}/agents`,
        '--card-path',
        '/../.well-known/agent-card.json',
        '--skill',
        'market-size',
      ],
      { cwd: dir },
    );
    expect(add.code, show(add)).not.toBe(0); // ".." is not a card path
    const added = await runCli(
      ['add', 'plain', plain.origin, '--card-path', '.well-known/agent-card.json', '--skill', 'market-size'],
      { cwd: dir },
    );
    expect(added.code, show(added)).toBe(0);
    const written = JSON.parse(await readFile(`${dir}/a2a.json`, 'utf8'));
    expect(written.agents.plain.cardPath).toBe('.well-known/agent-card.json');
    expect((await readLock(dir)).settings.plain.cardPath).toBe('.well-known/agent-card.json');
    expect((await runCli(['verify', '--offline'], { cwd: dir })).code).toBe(0);

    await writeManifest(dir, { ...written, agents: { plain: { ...written.agents.plain, cardPath: '' } } });
    const changedPath = await runCli(['verify', '--offline'], { cwd: dir });
    expect(changedPath.code, show(changedPath)).toBe(1);
    // originAuth now names the plain agent's origin: its lock entry no longer says what is sent there.
    await writeManifest(dir, {
      ...written,
      originAuth: { ...written.originAuth, [plain.origin]: { header: { name: 'X-Api-Key', env: 'K' } } },
    });
    const changedAuth = await runCli(['verify', '--offline'], { cwd: dir });
    expect(changedAuth.code, show(changedAuth)).toBe(1);
    expect(changedAuth.stdout + changedAuth.stderr).toContain(`originAuth changed in the manifest for ${plain.origin}`);
  });

  it('awsSigV4 without the optional @smithy/signature-v4 installed: a usage error naming the package, nothing sent', async () => {
    // The package made unresolvable by a module hook, as where optional dependencies were not installed.
    const hooks =
      "export async function resolve(s, c, next) { if (s.startsWith('@smithy/')) { const e = new Error(\"Cannot find package '\" + s + \"'\"); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; } return next(s, c); }";
    const probe = [
      "import { register } from 'node:module';",
      `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}));`,
      `const { originAuthenticator } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'http', 'origin-auth.js')).href)});`,
      "const auth = originAuthenticator({ 'https://core.example': { awsSigV4: { region: 'us-west-2', service: 'bedrock-agentcore' } } }, { env: { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' } });",
      "try { await auth.headersFor({ url: new URL('https://core.example/v1/card'), method: 'GET', headers: {}, body: undefined }); console.log('signed'); } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message, hint: e.hint })); }",
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe], { cwd: ROOT });
    expect(JSON.parse(stdout)).toMatchObject({
      code: 'usage',
      message: expect.stringContaining(
        'originAuth for https://core.example is awsSigV4, which signs with the optional package @smithy/signature-v4: it is not installed',
      ),
      hint: 'npm install @smithy/signature-v4',
    });
  });

  it("the extended card through the rebased interface: the platform header and the agent's own bearer both go, each where it belongs", async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const AGENT = 'agent-own-bearer-4d2';
    const bind = (origin: string) => origin.replace('127.0.0.1', '0.0.0.0');
    const agent = await res.agent({
      card: (origin: string) => publicCard(bind(origin)),
      bearerToken: AGENT,
      extendedCard: (origin: string) => extendedCard(bind(origin)),
    });
    const gateway = await startGateway(agent.origin, {
      header: 'X-Serverless-Authorization',
      value: `Bearer ${TOKEN}`,
    });
    onTestFinished(() => gateway.close());
    const dir = await res.dir({
      ...manifest({
        hosted: hostedEntry(gateway, { skills: ['deep-research'], credentials: { bearer: { env: 'AGENT_TOKEN' } } }),
      }),
      originAuth: {
        [gateway.origin]: { header: { name: 'X-Serverless-Authorization', env: 'ORIGIN_TOKEN', prefix: 'Bearer ' } },
      },
    });
    const lock = await runCli(['lock'], { cwd: dir, env: { ORIGIN_TOKEN: TOKEN, AGENT_TOKEN: AGENT } });
    expect(lock.code, show(lock)).toBe(0);
    const locked = await readLock(dir);
    expect(locked.agents.hosted.extended.resolved).toBe(`${gateway.origin}/a2a/jsonrpc`);
    expect(locked.agents.hosted.plans['deep-research'].url).toBe(`${gateway.origin}/a2a/jsonrpc`);
    const extendedAsk = gateway.requests.find((r) => r.method === 'POST' && r.path === '/a2a/jsonrpc')!;
    expect(extendedAsk.headers['x-serverless-authorization']).toBe(`Bearer ${TOKEN}`);
    expect(extendedAsk.headers.authorization).toBe(`Bearer ${AGENT}`);
    // The agent behind the gateway got its own bearer, never the platform's token.
    expect(agent.requests.some((r) => r.headers.authorization === `Bearer ${AGENT}`)).toBe(true);
    expect(sawSecret(agent, TOKEN)).toBe(false);

    // Behind a gateway that takes Authorization, a bearer placement would replace the agent's own
    // for the extended card: refused, that request never sent.
    const bearerGateway = await startGateway(agent.origin, { bearer: TOKEN });
    onTestFinished(() => bearerGateway.close());
    const clash = await res.dir({
      ...manifest({
        hosted: hostedEntry(bearerGateway, {
          skills: ['deep-research'],
          credentials: { bearer: { env: 'AGENT_TOKEN' } },
        }),
      }),
      originAuth: { [bearerGateway.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    });
    const refused = await runCli(['lock'], { cwd: clash, env: { ORIGIN_TOKEN: TOKEN, AGENT_TOKEN: AGENT } });
    expect(refused.code, show(refused)).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain("would replace the request's own Authorization header");
    expect(bearerGateway.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/card']);
  });

  it('a signed card whose key set is on the same origin: the JWKS request carries the placement too', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const key = await newKey('k1');
    let jku = '';
    const agent = await res.agent({
      card: (origin: string) =>
        sampleCard(origin.replace('127.0.0.1', '0.0.0.0'), { securitySchemes: {}, securityRequirements: [] }),
      perRequestCard: (card) => sign(card as never, key, jku),
    });
    agent.serve('/keys/jwks.json', (_req, answer) => {
      answer.writeHead(200, { 'Content-Type': 'application/json' });
      answer.end(JSON.stringify({ keys: [key.jwk] }));
    });
    const gateway = await startGateway(agent.origin, { bearer: TOKEN });
    onTestFinished(() => gateway.close());
    jku = `${gateway.origin}/keys/jwks.json`;
    const dir = await res.dir({
      ...manifest({ hosted: hostedEntry(gateway, { requireSignature: true }) }),
      originAuth: { [gateway.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    });
    const lock = await runCli(['lock', '--no-probe'], { cwd: dir, env: { ORIGIN_TOKEN: TOKEN } });
    expect(lock.code, show(lock)).toBe(0);
    expect((await readLock(dir)).agents.hosted.signature).toMatchObject({
      status: 'verified',
      kid: 'k1',
      thumbprint: key.thumbprint,
    });
    expect(gateway.requests.map((r) => `${r.path} ${String(r.headers.authorization)}`)).toEqual([
      `/v1/card Bearer ${TOKEN}`,
      `/keys/jwks.json Bearer ${TOKEN}`,
    ]);
  });
});
