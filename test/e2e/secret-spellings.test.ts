/**
 * Secrets never appear, in any spelling (issue 15): an agent that echoes the credentialed request
 * URL in its error (percent-encoded, lower-cased, form-encoded, base64) gets none of the query API
 * key into human, `--json` or `--json --verbose` output, nor into a thrown error.
 *
 * The agent is a node:http server (the echo is an HTTP-layer fault): a valid public card with an
 * apiKey-in-query scheme and an extended card, whose JSON-RPC extended-card endpoint answers an
 * error quoting the request it got.
 */

import type http from 'node:http';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/manifest/parse.js';
import { agentSettings } from '../../src/manifest/schema.js';
import { closeFetcher } from '../../src/resolve/load-card.js';
import { resolveAgent } from '../../src/resolve/resolve-agent.js';
import { expectNoCutShortEcho } from '../helpers/secrets.js';
import { expectSecretContained, manifest, resources, runCli, sampleCard, secretForms, show } from './helpers.js';

/** Characters that every encoding changes: `/`, `+`, `=`, `&`, a space, mixed case. */
const KEY = 'Qk/9 sEcReT+k3y=x&Yz';

const MODES = ['percent-lower', 'raw-lower', 'form-upper', 'base64', 'json', 'reason'] as const;
/** Echoes cut short (issue 22): all but the last 3 characters (raw; percent-encoded), all but the first 3. */
const CUT = ['cut-end', 'cut-end-percent', 'cut-start'] as const;

/** The echo of the request URL `url` (which holds the key in its query) in each mode. */
function spelled(mode: (typeof MODES)[number] | (typeof CUT)[number], url: string): string {
  const query = new URL(url, 'http://x').searchParams.get('api_key') ?? '';
  switch (mode) {
    case 'cut-end':
      return `bad key ${query.slice(0, -3)}`;
    case 'cut-end-percent':
      return `bad key ${encodeURIComponent(query.slice(0, -3))}`;
    case 'cut-start':
      return `bad key …${query.slice(3)}`;
    case 'percent-lower':
      return `bad request ${encodeURIComponent(url).toLowerCase()}`;
    case 'raw-lower':
      return `bad key ${query.toLowerCase()} in ${url.toLowerCase()}`;
    case 'form-upper':
      return `bad key ${new URLSearchParams({ k: query }).toString().slice(2).toUpperCase()}`;
    case 'base64':
      return `bad key ${Buffer.from(query).toString('base64')} (${Buffer.from(`user:${query}`).toString('base64')})`;
    case 'json':
      return `bad key ${JSON.stringify({ query })}`;
    case 'reason': // the echo is in the ErrorInfo reason (below), printed as the error's name
      return 'refused';
  }
}

function card(origin: string) {
  const c = sampleCard(origin) as Record<string, any>;
  c.capabilities = { ...c.capabilities, extendedAgentCard: true };
  c.securitySchemes = { key: { apiKeySecurityScheme: { location: 'query', name: 'api_key' } } };
  c.securityRequirements = [{ schemes: { key: { list: [] } } }];
  return c;
}

/** Agents at `/m/<mode>`: a public card, and an extended-card endpoint that echoes the request URL spelled as `mode`. */
const echoing: http.RequestListener = (req, res) => {
  const [, , mode = '', rest = ''] = (req.url ?? '').split('/');
  if (rest === '.well-known') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return void res.end(JSON.stringify(card(`http://${req.headers.host}/m/${mode}`)));
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  const message = spelled(mode as (typeof MODES)[number] | (typeof CUT)[number], req.url ?? '');
  const data =
    mode === 'reason'
      ? [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: spelled('percent-lower', req.url ?? ''),
            domain: 'x',
          },
        ]
      : undefined;
  res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32099, message, ...(data ? { data } : {}) } }));
};

const agent = (origin: string, mode: string) => ({
  card: `${origin}/m/${mode}`,
  skills: ['market-size'],
  credentials: { key: { env: 'API_KEY' } },
});

describe('secrets never appear, in any spelling', () => {
  it('the echo spellings are ones the check looks for', () => {
    const url = `/a2a/jsonrpc?api_key=${encodeURIComponent(KEY)}`;
    for (const mode of MODES.filter((m) => m !== 'reason')) {
      const text = spelled(mode, url).toLowerCase();
      expect(
        secretForms(KEY).some(([, form]) => text.includes(form.toLowerCase())),
        mode,
      ).toBe(true);
    }
  });

  it('an agent echoing the query API key percent-encoded, lower-cased, form-encoded, base64 or JSON: nothing of it in human, --json or --json --verbose output', {
    timeout: 60_000,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const server = await res.http(echoing);
    const dir = await res.dir(manifest(Object.fromEntries(MODES.map((mode) => [mode, agent(server.origin, mode)]))));
    const env = { API_KEY: KEY };
    const runs = {
      lock: await runCli(['lock'], { cwd: dir, env }),
      'lock --json': await runCli(['lock', '--json'], { cwd: dir, env }),
      'lock --json --verbose': await runCli(['lock', '--json', '--verbose'], { cwd: dir, env }),
      'lock --verbose': await runCli(['lock', '--verbose'], { cwd: dir, env }),
    };
    // The agent did get the key (the echo is real), on the extended-card request only.
    expect(server.requests.filter((q) => q.path.endsWith('/a2a/jsonrpc')).length).toBeGreaterThanOrEqual(MODES.length);
    for (const [label, r] of Object.entries(runs))
      expect(r.stdout + r.stderr, `${label}: ${show(r)}`).toMatch(/\*\*\*/);
    await expectSecretContained(KEY, { results: runs });
  });

  it('errors thrown by the library carry no spelling of the key (message, stack, causes, data)', {
    timeout: 60_000,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const server = await res.http(echoing);
    const m = parseManifest(
      JSON.stringify(manifest(Object.fromEntries(MODES.map((mode) => [mode, agent(server.origin, mode)])))),
      'a2a.json',
    );
    for (const mode of MODES) {
      const error = await resolveAgent(m.agents[mode]!, agentSettings(m, mode), {
        baseDir: '.',
        env: { API_KEY: KEY },
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, mode).toBeInstanceOf(Error);
      const everything = `${inspect(error, { depth: 10 })}\n${JSON.stringify(error)}\n${(error as Error).stack}`;
      await expectSecretContained(KEY, { texts: { [`the ${mode} error`]: everything } });
    }
    await closeFetcher();
  });

  it('an agent echoing the key cut short (all but its last or first 3 characters, raw or percent-encoded): no run of 12 of them in human, --json or --json --verbose output', {
    timeout: 60_000,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const server = await res.http(echoing);
    const dir = await res.dir(manifest(Object.fromEntries(CUT.map((mode) => [mode, agent(server.origin, mode)]))));
    const env = { API_KEY: KEY };
    const runs = {
      lock: await runCli(['lock'], { cwd: dir, env }),
      'lock --json': await runCli(['lock', '--json'], { cwd: dir, env }),
      'lock --json --verbose': await runCli(['lock', '--json', '--verbose'], { cwd: dir, env }),
    };
    expect(server.requests.filter((q) => q.path.endsWith('/a2a/jsonrpc')).length).toBeGreaterThanOrEqual(CUT.length);
    for (const [label, r] of Object.entries(runs))
      expect(r.stdout + r.stderr, `${label}: ${show(r)}`).toMatch(/bad key (…)?\*\*\*/);
    await expectNoCutShortEcho(
      KEY,
      Object.fromEntries(Object.entries(runs).map(([label, r]) => [label, `${r.stdout}\n${r.stderr}`])),
    );
  });
});
