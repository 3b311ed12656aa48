/**
 * Signature work is bounded (issue 15): all `jku` key fetches of one card end inside that card's
 * deadline (`--timeout`, not per fetch), at most 8 signature entries are tried, a `jku` is fetched
 * only on the card's own origin, and JWKS requests share the run's `--concurrency`.
 *
 * The card and its key sets come from node:http servers (the faults, slow or off-origin key sets,
 * are HTTP-layer ones); the signature entries carry real protected headers (alg, kid, jku) and a
 * signature that never verifies, so every entry is tried.
 */
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { manifest, readLock, research, resources, runCli, SLOW, sampleCard, show } from './helpers.js';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** `count` signature entries, entry i naming kid `k<i>` and the jku `jkuOf(i)`. */
function signatures(count: number, jkuOf: (i: number) => string) {
  return Array.from({ length: count }, (_, i) => ({
    protected: b64url({ alg: 'ES256', kid: `k${i}`, typ: 'JOSE', jku: jkuOf(i) }),
    signature: 'c2lnbmF0dXJl',
  }));
}

/** A node:http server serving a sample card (signed by `sign(origin)`) and answering other paths with `keys`. */
async function cardServer(
  res: ReturnType<typeof resources>,
  sign: (origin: string) => unknown[],
  keys: http.RequestListener,
) {
  let origin = '';
  const server = await res.http((req, response) => {
    if (req.url === '/.well-known/agent-card.json') {
      response
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ ...sampleCard(origin), signatures: sign(origin) }));
      return;
    }
    keys(req, response);
  });
  origin = server.origin;
  return server;
}

const keyRequests = (server: { requests: Array<{ path: string }> }) =>
  server.requests.filter((r) => r.path.startsWith('/keys/')).length;

describe.concurrent('signature work is bounded', () => {
  it('ten slow key sets under --timeout 2000: the card ends in about one deadline (was 10 × 2 s), exit 5', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const timeout = 2000;
    // Each key set answers after 3 s: later than the deadline, so every fetch would time out on its own.
    const server = await cardServer(
      res,
      (origin) => signatures(10, (i) => `${origin}/keys/${i}.json`),
      (_req, response) => {
        const timer = setTimeout(
          () => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"keys":[]}'),
          3000,
        );
        response.on('close', () => clearTimeout(timer));
      },
    );
    const dir = await res.dir(manifest({ research: research(server.origin) }));
    const started = performance.now();
    const r = await runCli(['lock', '--timeout', String(timeout)], { cwd: dir });
    const elapsed = performance.now() - started;
    expect(r.code, show(r)).toBe(5);
    expect(r.stdout + r.stderr).toMatch(/keys\/0\.json/);
    // One deadline for the card's key fetches (plus the run's start and the card fetch on a busy
    // machine), not one per signature: the old code took 10 × timeout.
    expect(elapsed).toBeLessThan(3 * timeout);
    // The deadline passed during the first key fetch: no other key set was asked for.
    expect(keyRequests(server)).toBe(1);
  });

  it('a card with 20 signatures: at most 8 are tried (8 key-set requests), signatures-truncated', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const server = await cardServer(
      res,
      (origin) => signatures(20, (i) => `${origin}/keys/${i}.json`),
      (_req, response) => {
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"keys":[]}');
      },
    );
    const dir = await res.dir(manifest({ research: research(server.origin) }));
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(keyRequests(server)).toBe(8);
    expect(r.stderr).toMatch(/signatures-truncated: .*20 signatures; only the first 8 were tried/);
    expect((await readLock(dir)).agents.research.signature).toEqual({
      status: 'unverifiable',
      kid: 'k0',
      alg: 'ES256',
    });
  });

  it('a jku on another origin is not fetched: signature-unverifiable with the reason, the key host sees no request', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const elsewhere = await res.http((_req, response) =>
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"keys":[]}'),
    );
    const server = await cardServer(
      res,
      () =>
        signatures(2, (i) =>
          i === 0 ? `${elsewhere.origin}/keys/0.json` : 'http://169.254.169.254/latest/meta-data/',
        ),
      (_req, response) => {
        response.writeHead(404).end();
      },
    );
    const dir = await res.dir(manifest({ research: research(server.origin) }));
    const r = await runCli(['lock'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(elsewhere.requests).toEqual([]);
    expect(r.stderr).toMatch(
      /signature-unverifiable: .*keys\/0\.json" not fetched: it is not on the card's origin \(http:\/\/127\.0\.0\.1:\d+\); pin the signer's keys with trust\.jwks/,
    );
    expect(r.stderr).toMatch(/169\.254\.169\.254.*not fetched/);
    expect((await readLock(dir)).agents.research.signature.status).toBe('unverifiable');
  });

  it('JWKS requests share --concurrency: with 1, never two key sets in flight across agents', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    let inFlight = 0;
    let most = 0;
    const slowKeys: http.RequestListener = (_req, response) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"keys":[]}');
      }, 150);
    };
    // Three agents on one origin (distinct card paths would need a router: distinct servers share the counters instead).
    const servers = await Promise.all(
      [0, 1, 2].map(() => cardServer(res, (origin) => signatures(2, (i) => `${origin}/keys/${i}.json`), slowKeys)),
    );
    const dir = await res.dir(manifest(Object.fromEntries(servers.map((s, i) => [`agent${i}`, research(s.origin)]))));
    const r = await runCli(['lock', '--concurrency', '1'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(servers.map(keyRequests)).toEqual([2, 2, 2]);
    expect(most).toBe(1);
  });
});
