/**
 * Issue 33: a credential echoed in a URL never reaches the lockfile. A real `@a2a-js/sdk` agent
 * behind a node:http origin on 127.0.0.1 that demands the platform bearer (`originAuth`) on the
 * card request and answers it with `302 Location: …?echo=<token>` (percent-encoded, base64url, to
 * another origin, to plain http elsewhere, after a chain of hops): `a2a lock` refuses the card as
 * one that quotes the credential, the lockfile stays byte-for-byte as it was, no output holds the
 * token in any spelling, the redirect target is never asked; `lock.refresh()` of the runtime does
 * not follow such a redirect either.
 */
import http from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLock } from '../../src/runtime/index.js';
import {
  expectSecretContained,
  lockPath,
  manifest,
  readLockBytes,
  research,
  resources,
  runCli,
  SLOW,
  show,
  writeManifest,
} from './helpers.js';

const TOKEN = 'platform-echo-T0ken-4d7e91c2';
const ENV = { ORIGIN_TOKEN: TOKEN, RESEARCH_TOKEN: 'research-bearer-value' };

/** Where each mode's origin redirects an authenticated card request (`token` is what it received). */
function echoTarget(mode: string, token: string, origin: string, other: string): string | undefined {
  switch (mode) {
    case 'percent':
      return `/card.json?echo=${encodeURIComponent(token)}`;
    case 'base64':
      return `/card.json?echo=${Buffer.from(token).toString('base64url')}`;
    case 'cross':
      return `${other}/card.json?echo=${encodeURIComponent(token)}`;
    case 'plain':
      return `http://agent.invalid/card.json?echo=${encodeURIComponent(token)}`;
    case 'hops':
      return `${origin}/hops/1/v1/card?echo=${encodeURIComponent(token)}`;
    default:
      return undefined;
  }
}

/**
 * An origin in front of `agentOrigin` (a real SDK agent): `/<mode>/v1/card` with the bearer is
 * answered per {@link echoTarget} (or with the card for `direct`); `/card.json` (any query) serves
 * the card, as does the other origin; `/hops/<n>/...` redirects onwards forever (too many hops).
 */
function originHandler(agentOrigin: string, self: () => string, other: () => string): http.RequestListener {
  const card = (res: http.ServerResponse) =>
    http.get(`${agentOrigin}/.well-known/agent-card.json`, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' });
      answer.pipe(res);
    });
  return (req, res) => {
    const url = new URL(req.url ?? '/', self());
    const hops = /^\/hops\/(\d+)\//.exec(url.pathname);
    if (hops) {
      res.writeHead(302, { location: `/hops/${Number(hops[1]) + 1}/v1/card${url.search}` });
      return void res.end();
    }
    if (url.pathname === '/card.json') return void card(res);
    const mode = url.pathname.split('/')[1] ?? '';
    const auth = req.headers.authorization ?? '';
    if (auth !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      return void res.end('{"error":"unauthenticated"}');
    }
    const target = echoTarget(mode, auth.slice('Bearer '.length), self(), other());
    if (target === undefined) return void card(res);
    res.writeHead(302, { location: target });
    res.end();
  };
}

describe.concurrent('a credential echoed in a redirect URL', { timeout: SLOW }, () => {
  it('a2a lock with originAuth: every echoing redirect is refused like a card quoting the credential; the lockfile is unchanged and no output holds the token', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    let originUrl = '';
    let otherUrl = '';
    const origin = await res.http(
      originHandler(
        agent.origin,
        () => originUrl,
        () => otherUrl,
      ),
    );
    const other = await res.http(
      originHandler(
        agent.origin,
        () => otherUrl,
        () => otherUrl,
      ),
    );
    originUrl = origin.origin;
    otherUrl = other.origin;
    const entry = (mode: string) => ({ ...research(`${origin.origin}/${mode}/v1/card`), cardPath: '' });
    const project = (agents: Record<string, unknown>) => ({
      ...manifest({}),
      agents,
      originAuth: { [origin.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    });
    const dir = await res.dir(project({ direct: entry('direct') }));
    const first = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(first.code, show(first)).toBe(0);
    const before = await readLockBytes(dir);
    expect(before?.toString('utf8')).toContain(`"resolved": "${origin.origin}/direct/v1/card"`);

    for (const mode of ['percent', 'base64', 'cross', 'plain', 'hops']) {
      await writeManifest(dir, project({ direct: entry('direct'), echo: entry(mode) }));
      const [locked, card] = await Promise.all([
        runCli(['lock'], { cwd: dir, env: ENV }),
        runCli(['card', `${origin.origin}/${mode}/v1/card`], { cwd: dir, env: ENV }),
      ]);
      expect(locked.code, `${mode}\n${show(locked)}`).toBe(1);
      expect(locked.stdout + locked.stderr, mode).toContain(
        `card-invalid: ${origin.origin}/${mode}/v1/card: the card request was redirected to a URL that holds the credential it carried`,
      );
      expect(card.code, `${mode}\n${show(card)}`).toBe(1);
      expect(await readLockBytes(dir), mode).toEqual(before);
      await expectSecretContained(TOKEN, {
        results: { [`lock (${mode})`]: locked, [`card (${mode})`]: card },
        files: [lockPath(dir)],
      });
    }
    // The redirect targets were never asked for: the other origin saw nothing, the origin no echo.
    expect(other.requests).toEqual([]);
    const asked = /^\/(direct|percent|base64|cross|plain|hops)\/v1\/card(\/\.well-known\/agent-card\.json)?$/;
    expect(origin.requests.map((r) => r.path).filter((p) => !asked.test(p))).toEqual([]);
    await expectSecretContained(TOKEN, { requests: other.requests });
  });

  it('lock.refresh(): an origin that now redirects the card request to another origin with the token in the URL is not followed', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    let originUrl = '';
    let otherUrl = '';
    const handler = originHandler(
      agent.origin,
      () => originUrl,
      () => otherUrl,
    );
    const origin = await res.http(handler);
    const other = await res.http(
      originHandler(
        agent.origin,
        () => otherUrl,
        () => otherUrl,
      ),
    );
    originUrl = origin.origin;
    otherUrl = other.origin;
    const dir = await res.dir({
      ...manifest({ research: { ...research(`${origin.origin}/direct/v1/card`), cardPath: '' } as never }),
      originAuth: { [origin.origin]: { bearer: { env: 'ORIGIN_TOKEN' } } },
    });
    const locked = await runCli(['lock'], { cwd: dir, env: ENV });
    expect(locked.code, show(locked)).toBe(0);
    // The origin now answers with the echoing cross-origin redirect.
    origin.setHandler((req, res) => {
      req.url = (req.url ?? '').replace('/direct/', '/cross/');
      handler(req, res);
    });
    const lock = await loadLock({ lockfile: join(dir, 'a2a.lock.json'), env: { ...ENV } });
    const events: unknown[] = [];
    lock.on('drift', (e: unknown) => events.push(e));
    await lock.refresh();
    lock.close();
    expect(origin.requests.map((r) => r.path)).toContain('/direct/v1/card');
    expect(other.requests).toEqual([]);
    await expectSecretContained(TOKEN, { texts: { events: JSON.stringify(events) } });
  });
});
