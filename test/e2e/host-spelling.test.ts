/**
 * A host written with another full stop (issue 22): U+3002 `。` (and U+FF0E `．`, U+FF61 `｡`) is a dot
 * to a WHATWG URL parser, so `research.example.com。evil.example` is contacted as
 * `research.example.com.evil.example`. `a2a card`, `a2a plan`, `a2a why` and `a2a diff` now show the
 * host that is contacted beside the card's spelling, with the `host-international` warning (a risk
 * line in the diff). Built CLI against a real `@a2a-js/sdk` agent serving the cards.
 */

import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockPath, manifest, research, resources, runCli, SLOW, sampleCard, show } from './helpers.js';

const SPELT = 'research.example.com\u3002evil.example';
const SENT = 'research.example.com.evil.example';
const NOTE = `(host ${SPELT} is sent as ${SENT})`;

/** The sample card with its JSON-RPC interface at `https://<host>/a2a/jsonrpc` (and no other). */
function cardAt(origin: string, host: string) {
  return sampleCard(origin, {
    supportedInterfaces: [{ url: `https://${host}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  });
}

describe.concurrent('a host written with U+3002 is shown as it is contacted', () => {
  it('the URL parser contacts another host than the one written', () => {
    expect(new URL(`https://${SPELT}/a2a/jsonrpc`).hostname).toBe(SENT);
    expect(new URL('https://a\uff0eb\uff61c/').hostname).toBe('a.b.c');
  });

  it('a2a card and a2a plan: the interface and the plan url name the host contacted; host-international warning (also U+FF0E, U+FF61)', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({
      card: (origin) =>
        sampleCard(origin, {
          supportedInterfaces: [
            { url: `https://${SPELT}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
            {
              url: 'https://research.example.com\uff0eevil\uff61example/a2a/rest',
              protocolBinding: 'HTTP+JSON',
              protocolVersion: '1.0',
            },
          ],
        }),
    });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const [card, json, plan] = await Promise.all([
      runCli(['card', agent.origin], { cwd: dir }),
      runCli(['card', agent.origin, '--json'], { cwd: dir }),
      runCli(['plan', agent.origin, '--skill', 'market-size', '--credential', 'bearer'], { cwd: dir }),
    ]);
    expect(card.code, show(card)).toBe(0);
    expect(card.stdout).toContain(`JSONRPC 1.0 https://${SPELT}/a2a/jsonrpc ${NOTE}`);
    expect(card.stdout).toContain(
      `HTTP+JSON 1.0 https://research.example.com\uff0eevil\uff61example/a2a/rest (host research.example.com\uff0eevil\uff61example is sent as ${SENT})`,
    );
    expect(card.stderr).toContain(
      `warning host-international: interface host ${SPELT} is sent as ${SENT} ($.supportedInterfaces[0].url)`,
    );
    expect(JSON.parse(json.stdout).warnings).toEqual(
      expect.arrayContaining([
        {
          code: 'host-international',
          message: `interface host ${SPELT} is sent as ${SENT}`,
          path: '$.supportedInterfaces[0].url',
        },
      ]),
    );
    expect(plan.code, show(plan)).toBe(0);
    expect(plan.stdout).toContain(`url          https://${SPELT}/a2a/jsonrpc ${NOTE}`);
    expect(plan.stderr).toContain(`warning host-international: interface host ${SPELT} is sent as ${SENT}`);
  });

  it('a2a why and a2a diff: the locked plan, its explanation and the diff name the host contacted', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (origin) => cardAt(origin, 'research.example.com') });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const base = await runCli(['lock'], { cwd: dir });
    expect(base.code, show(base)).toBe(0);
    await copyFile(lockPath(dir), join(dir, 'base.lock.json'));
    agent.setCard(cardAt(agent.origin, SPELT));
    const update = await runCli(['update', 'research'], { cwd: dir });
    expect(update.code, show(update)).toBe(0);

    const [why, whyJson, diff, diffJson] = await Promise.all([
      runCli(['why', 'research'], { cwd: dir }),
      runCli(['why', 'research', '--json'], { cwd: dir }),
      runCli(['diff', join(dir, 'base.lock.json'), lockPath(dir)], { cwd: dir }),
      runCli(['diff', join(dir, 'base.lock.json'), lockPath(dir), '--json'], { cwd: dir }),
    ]);
    expect(why.code, show(why)).toBe(0);
    expect(why.stdout).toContain(`JSONRPC 1.0 at https://${SPELT}/a2a/jsonrpc ${NOTE}`);
    expect(why.stdout).toContain(`offered at https://${SPELT}/a2a/jsonrpc ${NOTE}`);
    expect(why.stderr).toContain(`warning host-international: plan market-size url host ${SPELT} is sent as ${SENT}`);
    expect(JSON.parse(whyJson.stdout).warnings).toEqual([
      { code: 'host-international', message: `plan market-size url host ${SPELT} is sent as ${SENT}` },
    ]);

    expect(diff.stdout, show(diff)).toContain(
      `host-international: plan market-size url host ${SPELT} is sent as ${SENT}`,
    );
    expect(diff.stdout).toContain(`now sends bearer → https://${SENT} (plan market-size)`);
    const risks = Object.values(JSON.parse(diffJson.stdout).agents as Record<string, { risks: unknown[] }>).flatMap(
      (a) => a.risks,
    );
    expect(risks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'host-international', level: 'info', skill: 'market-size' }),
      ]),
    );
  });
});

describe.concurrent('a host a URL parser reads otherwise than it is written', () => {
  it('%2e and a backslash in the host: a2a card and a2a plan name the host contacted, with host-international', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({
      card: (origin) =>
        sampleCard(origin, {
          supportedInterfaces: [
            {
              url: 'https://research.example.com%2eevil.example/a2a/jsonrpc',
              protocolBinding: 'JSONRPC',
              protocolVersion: '1.0',
            },
            {
              url: 'https://evil.example\\.research.example.com/a2a/rest',
              protocolBinding: 'HTTP+JSON',
              protocolVersion: '1.0',
            },
          ],
        }),
    });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const [card, plan] = await Promise.all([
      runCli(['card', agent.origin], { cwd: dir }),
      runCli(['plan', agent.origin, '--skill', 'market-size', '--credential', 'bearer'], { cwd: dir }),
    ]);
    expect(new URL('https://evil.example\\.research.example.com/a2a/rest').hostname).toBe('evil.example');
    expect(card.code, show(card)).toBe(0);
    expect(card.stdout).toContain(
      `https://research.example.com%2eevil.example/a2a/jsonrpc (host research.example.com%2eevil.example is sent as ${SENT})`,
    );
    expect(card.stdout).toContain(
      'https://evil.example\\.research.example.com/a2a/rest (host evil.example\\.research.example.com is sent as evil.example)',
    );
    expect(card.stderr).toContain(
      `warning host-international: interface host research.example.com%2eevil.example is sent as ${SENT} ($.supportedInterfaces[0].url)`,
    );
    expect(plan.stdout).toContain(
      `url          https://research.example.com%2eevil.example/a2a/jsonrpc (host research.example.com%2eevil.example is sent as ${SENT})`,
    );
  });

  it('http://127.0.0.1<TAB>.evil.example/ is not loopback (it goes to 127.0.0.1.evil.example): a credentialed plain-http route there is passed over, never locked', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const url = 'http://127.0.0.1\t.evil.example/a2a/jsonrpc';
    expect(new URL(url).hostname).toBe('127.0.0.1.evil.example');
    const agent = await res.agent({
      card: (origin) =>
        sampleCard(origin, { supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }),
    });
    const dir = await res.dir(manifest({ research: research(agent.origin) }));
    const [lock, card] = await Promise.all([
      runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: 'tok-0123456789abcdef' } }),
      runCli(['card', agent.origin], { cwd: dir }),
    ]);
    expect(lock.code, show(lock)).not.toBe(0);
    expect(lock.stdout + lock.stderr).toContain('plain http to a host that is not loopback');
    // The tab is shown escaped (\u0009) and the warning names the host contacted.
    expect(card.stderr).toContain(
      'warning host-international: interface host 127.0.0.1 is sent as 127.0.0.1.evil.example ($.supportedInterfaces[0].url)',
    );
    const { existsSync } = await import('node:fs');
    expect(existsSync(lockPath(dir))).toBe(false);
  });
});
