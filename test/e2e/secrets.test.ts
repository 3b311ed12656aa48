/**
 * Secret hygiene: recognisable credential values go to the one request that needs them (the
 * extended card, same origin) and nowhere else: not the lockfile, stdout, stderr, `--json` or
 * `--verbose` output, nor any thrown error (message, stack, causes), even when the agent echoes
 * the request headers back in its error. Card requests never carry Authorization; a credentialed
 * request is never redirected to another origin. A secret pasted into a2a.json where an
 * environment variable belongs is reported by its JSON path, never echoed.
 *
 * Covers every CLI command (init, add, lock, install, verify, update, plan, card) on success and
 * failure paths. Every "appears nowhere" check is {@link expectSecretContained} (raw,
 * percent-encoded and base64 forms).
 */

import type http from 'node:http';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/manifest/parse.js';
import { agentSettings } from '../../src/manifest/schema.js';
import { closeFetcher } from '../../src/resolve/load-card.js';
import { resolveAgent } from '../../src/resolve/resolve-agent.js';
import type { StartedAgent } from '../helpers/agents.js';
import {
  type CliResult,
  cardRequests,
  expectSecretContained,
  jsonOf,
  lockPath,
  manifest,
  oneJsonDocument,
  readLockBytes,
  research,
  resources,
  runCli,
  STACK,
  sampleCard,
  show,
} from './helpers.js';

const TOKEN = 'sEcReT-bearer-7f3a9c0d51';
const WRONG = 'wr0ng-sEcReT-e41b77a2c9';
const PROXY_PASS = 'pr0xy-sEcReT-5d2c';
const SECRETS = [TOKEN, WRONG, PROXY_PASS];

function publicCard(origin: string) {
  const card = sampleCard(origin);
  card.capabilities = { ...card.capabilities, extendedAgentCard: true };
  return card;
}

const MODES = ['rpc-error', '401', '500', 'redirect'];

/**
 * Misbehaving agents at `/m/<mode>`: a valid public card whose extended-card endpoint echoes the
 * request headers back (in a JSON-RPC error, a 401, a 500), or redirects to another origin.
 */
function echoing(elsewhere: () => string): http.RequestListener {
  return (req, res) => {
    const [, , mode = '', rest = ''] = (req.url ?? '').split('/');
    if (rest === '.well-known') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify(publicCard(`http://${req.headers.host}/m/${mode}`)));
    }
    const echo = JSON.stringify(req.headers);
    switch (mode) {
      case 'rpc-error': // a JSON-RPC error whose message quotes the Authorization header
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return void res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            error: { code: -32001, message: `bad token ${req.headers.authorization} in ${echo}`, data: req.headers },
          }),
        );
      case '401':
        res.writeHead(401, {
          'Content-Type': 'application/json',
          'WWW-Authenticate': `Bearer error="${req.headers.authorization}"`,
        });
        return void res.end(
          JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: `unauthorized: ${echo}` } }),
        );
      case '500':
        res.writeHead(500, { 'Content-Type': 'text/plain', 'X-Echo': String(req.headers.authorization) });
        return void res.end(`internal error handling ${echo}`);
      default: // redirect the credentialed request to another origin
        res.writeHead(307, {
          Location: `${elsewhere()}/steal?auth=${encodeURIComponent(String(req.headers.authorization))}`,
        });
        return void res.end();
    }
  };
}

describe('secrets never leak', () => {
  it('every command, success and failure, human/--json/--verbose: no secret in output, lockfile or errors; Authorization only on the extended card, same origin', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent: StartedAgent = await res.agent({
      card: publicCard,
      bearerToken: TOKEN,
      extendedCard: (o: string) => publicCard(o),
    });
    const thief = await res.http((_req, r) => r.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
    const echo = await res.http(echoing(() => thief.origin));
    const ok = { RESEARCH_TOKEN: TOKEN, OTHER_TOKEN: WRONG };
    const bad = { RESEARCH_TOKEN: WRONG };
    const proxied = {
      ...ok,
      HTTP_PROXY: `http://user:${PROXY_PASS}@127.0.0.1:9`,
      HTTPS_PROXY: `http://user:${PROXY_PASS}@127.0.0.1:9`,
    };

    // Success paths, in order, every one with --verbose.
    const dir = await res.dir(manifest({}));
    const initDir = await res.dir();
    const runs: Array<[string, CliResult]> = [];
    const run = async (label: string, args: string[], env: Record<string, string>, cwd = dir) => {
      const r = await runCli([...args, '--verbose'], { cwd, env });
      runs.push([label, r]);
      return r;
    };
    expect((await run('init', ['init'], ok, initDir)).code).toBe(0);
    const added = await run(
      'add',
      ['add', 'research', agent.origin, '--skill', 'market-size', '--credential', 'bearer=RESEARCH_TOKEN'],
      ok,
    );
    expect(added.code, show(added)).toBe(0);
    const lockBytes = await readLockBytes(dir);
    await Promise.all([
      run('lock', ['lock'], ok),
      run('install', ['install'], ok),
      run('verify', ['verify'], ok),
      run('update', ['update', 'research', '--json'], ok),
      run('plan', ['plan', agent.origin, '--skill', 'market-size', '--credential', 'bearer=RESEARCH_TOKEN'], ok),
      run('card', ['card', agent.origin], ok),
      // A proxy is set (with a password), but loopback is never proxied: the agent is reached directly.
      run('install (proxy set, loopback direct)', ['install', '--json'], proxied),
    ]);
    for (const [label, r] of runs) expect(r.code, `${label}\n${show(r)}`).toBe(0);

    // Failure paths: a wrong token, an unreachable proxy with a password, and the echoing agent.
    const echoDir = await res.dir(
      manifest(Object.fromEntries(MODES.map((m) => [m, research(`${echo.origin}/m/${m}`)]))),
    );
    const failures: Array<[string, CliResult]> = [];
    const fail = async (label: string, args: string[], env: Record<string, string>, cwd = dir) => {
      failures.push([label, await runCli([...args, '--verbose'], { cwd, env })]);
    };
    await Promise.all([
      fail('verify (wrong token)', ['verify'], bad),
      fail('update (wrong token)', ['update', '--json'], bad),
      fail('card (proxy down)', ['card', 'https://agent.example/'], proxied),
      fail('lock (echoing agents)', ['lock'], ok, echoDir),
      fail('lock --json (echoing agents)', ['lock', '--json'], ok, echoDir),
    ]);
    for (const [label, r] of failures) expect(r.code, `${label}\n${show(r)}`).not.toBe(0);
    const echoed = failures.find(([l]) => l === 'lock (echoing agents)')![1].stdout;
    for (const line of [
      '✗ 401: auth-refused: ',
      '✗ 500: unreachable: ',
      '✗ redirect: unreachable: ',
      '✗ rpc-error: unreachable: ',
    ])
      expect(echoed).toContain(line);
    expect(echoed).toContain('bad token ***');

    // No secret in any run's output, in the lockfile (as add wrote it, and as it is now), nor in a card request.
    const cards = [...agent.requests, ...echo.requests].filter((r) => r.path.includes('/.well-known/'));
    expect(cards.length).toBeGreaterThan(10);
    await expectSecretContained(SECRETS, {
      results: Object.fromEntries([...runs, ...failures]),
      texts: { 'the lockfile a2a add wrote': lockBytes!.toString('utf8') },
      files: [lockPath(dir)],
      requests: cards,
    });
    expect(await readLockBytes(echoDir)).toBeUndefined();

    // Authorization: never on a card request, never across origins; only the extended card asks for it.
    for (const r of cards) expect(r.headers.authorization, r.path).toBeUndefined();
    expect(thief.requests).toEqual([]);
    expect(echo.requests.filter((r) => r.headers.authorization === `Bearer ${TOKEN}`).length).toBe(8); // 2 runs × 4 modes, one try each
  });

  it('errors thrown by the library carry no secret in message, stack, causes or data, even when the agent echoes it', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const thief = await res.http((_req, r) => r.writeHead(200).end('{}'));
    const echo = await res.http(echoing(() => thief.origin));
    const m = parseManifest(
      JSON.stringify(manifest(Object.fromEntries(MODES.map((mode) => [mode, research(`${echo.origin}/m/${mode}`)])))),
      'a2a.json',
    );
    const seen: string[] = [];
    for (const mode of MODES) {
      const error = await resolveAgent(m.agents[mode]!, agentSettings(m, mode), {
        baseDir: '.',
        env: { RESEARCH_TOKEN: TOKEN },
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, mode).toBeInstanceOf(Error);
      const everything = `${inspect(error, { depth: 10 })}\n${JSON.stringify(error)}\n${(error as Error).stack}`;
      await expectSecretContained(TOKEN, { texts: { [`the ${mode} error (inspect, JSON, stack)`]: everything } });
      seen.push((error as { code: string }).code);
    }
    await closeFetcher();
    expect(seen).toEqual(['unreachable', 'auth-refused', 'unreachable', 'unreachable']);
    expect(thief.requests).toEqual([]);
  });
});

const SECRET = 'topsecret-42';

/**
 * A manifest whose agent `research` has `credentials` as given: every command in `commands`
 * ({url}: a live agent's origin) exits 2 naming `path` with `detail`, and SECRET appears nowhere.
 */
async function secretNeverEchoed(
  res: ReturnType<typeof resources>,
  credentials: unknown,
  path: string,
  detail: RegExp,
  commands: string[][],
): Promise<void> {
  const agent = await res.sampleAgent();
  const dir = await res.dir(
    manifest({ research: { card: agent.origin, skills: ['market-size'], credentials: credentials as any } }),
  );
  const escaped = path.replace(/[.[\]$]/g, '\\$&');
  const runs = await Promise.all(
    commands
      .map((c) => c.map((a) => (a === '{url}' ? agent.origin : a)))
      .map((args) => runCli(args, { cwd: dir }).then((r) => [args, r] as const)),
  );
  await expectSecretContained(SECRET, {
    results: Object.fromEntries(runs.map(([args, r]) => [args.join(' '), r])),
    requests: agent.requests,
  });
  for (const [args, r] of runs) {
    expect(r.code, `${args.join(' ')}: ${show(r)}`).toBe(2);
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
    secretNeverEchoed(
      resources(onTestFinished),
      { bearer: SECRET },
      '$.agents.research.credentials.bearer',
      /expected object, got string$/m,
      [
        ['lock'],
        ['lock', '--json'],
        ['lock', '--verbose'],
        ['verify', '--json'],
        ['install'],
        ['update', '--json', '--verbose'],
        ['plan', '{url}', '--skill', 'market-size'],
        ['add', 'other', '{url}', '--skill', 'market-size', '--json'],
      ],
    ));

  it.for([
    {
      label: 'the secret as the env name',
      credentials: { bearer: { env: SECRET } },
      path: '$.agents.research.credentials.bearer.env',
      detail: /environment variable name/,
    },
    {
      label: 'an extra "value" key',
      credentials: { bearer: { env: 'RESEARCH_TOKEN', value: SECRET } },
      path: '$.agents.research.credentials.bearer',
      detail: /unknown key "value"/,
    },
  ])('a secret as $label is not echoed ($path)', ({ credentials, path, detail }, { onTestFinished }) =>
    secretNeverEchoed(resources(onTestFinished), credentials, path, detail, [['lock'], ['lock', '--json']]),
  );
});

describe.concurrent('a password in a manifest card URL', () => {
  it('https://user:pass@host as "card": exit 2 naming $.agents["x"].card with a hint to use credentials; the password is never printed (human, --json, --verbose) nor sent', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const password = 'hunter2-card-password';
    const url = agent.origin.replace('://', `://alice:${password}@`);
    const dir = await res.dir(manifest({ x: research(url) }));
    const commands = [
      ['lock'],
      ['lock', '--json'],
      ['lock', '--verbose'],
      ['verify', '--json', '--verbose'],
      ['ls'],
      ['outdated', '--json'],
      ['update', 'x', '--verbose'],
    ];
    const runs = await Promise.all(
      commands.map((args) => runCli(args, { cwd: dir }).then((r) => [args.join(' '), r] as const)),
    );
    await expectSecretContained(password, { results: Object.fromEntries(runs), requests: agent.requests });
    for (const [args, r] of runs) {
      expect(r.code, `${args}: ${show(r)}`).toBe(2);
      if (args.includes('--json')) {
        expect((args.includes('--verbose') ? jsonOf(r) : oneJsonDocument(r)).error, args).toMatchObject({
          code: 'manifest-invalid',
          path: '$.agents.x.card',
          hint: expect.stringContaining('"credentials"'),
        });
      } else {
        expect(r.stderr, args).toMatch(
          /manifest-invalid: .*a2a\.json \$\.agents\.x\.card: a user name or password in the URL is not allowed/,
        );
        expect(r.stderr, args).toMatch(/hint: name the scheme the card offers in "credentials"/);
      }
    }
    expect(cardRequests(agent.requests)).toHaveLength(0);
    expect(await readLockBytes(dir)).toBeUndefined();
  });
});
