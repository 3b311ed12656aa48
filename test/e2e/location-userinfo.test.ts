/**
 * A password in a location that does not parse is never printed (issue 22): `http://user:tok+/=en@host`
 * (a `/` in the password) is no WHATWG URL, and `add`, `update --card`, `plan`, `card`, `lock` and `ls`
 * once printed it raw. Now a card, `trust.jwks` or interface location never shows anything between
 * its `//` and its last `@`, and the message says the URL is not shown (in full). Built CLI; the
 * card with such an interface is served by a node:http server on 127.0.0.1, which must also never
 * be asked for anything at a location holding credentials.
 */
import { describe, expect, it } from 'vitest';
import {
  allOutput,
  handlers,
  manifest,
  noStack,
  oneJsonDocument,
  research,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
  writeManifest,
} from './helpers.js';

const PASSWORD = 'tok+/=en';

/** A location with the password `tok+/=en` on the host of `origin` (does not parse: the `/` ends the authority early). */
const withPassword = (origin: string) => origin.replace('http://', `http://user:${PASSWORD}@`);

/** No part of the user name and password is printed, and the message says the URL is not shown. */
function expectHidden(label: string, r: { stdout: string; stderr: string; code: number | null }): void {
  const all = allOutput(r as Parameters<typeof allOutput>[0]);
  expect(r.code, `${label}: ${show(r as Parameters<typeof show>[0])}`).not.toBe(0);
  expect(all, label).not.toContain('tok+');
  expect(all, label).not.toContain('=en@');
  expect(all, label).not.toContain('user:');
  expect(all, label).toMatch(/not shown/);
  noStack(r as Parameters<typeof noStack>[0]);
}

describe.concurrent('a password holding "/" in a location is never printed', () => {
  it('the location does not parse as a URL (the case the old check missed)', () => {
    expect(URL.canParse(withPassword('http://127.0.0.1:1'))).toBe(false);
  });

  it('card, plan, add, update --card, lock and ls: exit non-zero, nothing between // and @ shown, "not shown" said; no request made', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const server = await res.http(handlers.json({}));
    server.setHandler(handlers.json(sampleCard(server.origin)));
    const bad = withPassword(server.origin);
    const good = await res.dir(manifest({ research: research(server.origin) }));
    const broken = await res.dir(manifest({ research: research(bad) }));
    const trust = await res.dir(
      manifest({ research: research(server.origin, { trust: { jwks: `${bad}/jwks.json` } } as never) }),
    );
    const runs = {
      card: await runCli(['card', bad], { cwd: good }),
      'card --json': await runCli(['card', bad, '--json'], { cwd: good }),
      plan: await runCli(['plan', bad, '--skill', 'market-size'], { cwd: good }),
      add: await runCli(['add', 'other', bad, '--skill', 'market-size'], { cwd: good }),
      'update --card': await runCli(['update', 'research', '--card', bad], { cwd: good }),
      'update --card --json': await runCli(['update', 'research', '--card', bad, '--json'], { cwd: good }),
      lock: await runCli(['lock'], { cwd: broken }),
      'lock --json': await runCli(['lock', '--json'], { cwd: broken }),
      ls: await runCli(['ls'], { cwd: broken }),
      'ls --json': await runCli(['ls', '--json'], { cwd: broken }),
      'lock (trust.jwks)': await runCli(['lock'], { cwd: trust }),
    };
    for (const [label, r] of Object.entries(runs)) expectHidden(label, r);
    expect(oneJsonDocument(runs['card --json']).error).toMatchObject({ code: 'insecure-url', source: server.origin });
    expect(oneJsonDocument(runs['ls --json']).error).toMatchObject({
      code: 'manifest-invalid',
      path: '$.agents.research.card',
    });
    expect(server.requests).toEqual([]);
  });

  it('an interface URL holding such a password in a served card: card-invalid naming its path, the URL not shown (card, plan, lock)', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const server = await res.http(handlers.json({}));
    const card = sampleCard(server.origin) as { supportedInterfaces: Array<{ url: string }> };
    card.supportedInterfaces[0]!.url = `${withPassword(server.origin)}/a2a/jsonrpc`;
    server.setHandler(handlers.json(card));
    const dir = await res.dir(manifest({ research: research(server.origin) }));
    const runs = {
      card: await runCli(['card', server.origin], { cwd: dir }),
      plan: await runCli(['plan', server.origin, '--skill', 'market-size'], { cwd: dir }),
      lock: await runCli(['lock'], { cwd: dir }),
    };
    for (const [label, r] of Object.entries(runs)) {
      expectHidden(label, r);
      expect(allOutput(r), label).toContain('card-invalid');
      expect(allOutput(r), label).toContain('$.supportedInterfaces[0]');
    }
  });

  it('a password without "/" (a URL that parses) stays refused and unshown, and the message now says so', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    await writeManifest(dir, manifest({ research: research('http://user:tokpw@127.0.0.1:1') }));
    const r = await runCli(['card', 'http://user:tokpw@127.0.0.1:1'], { cwd: dir });
    expect(allOutput(r)).not.toContain('tokpw');
    expect(allOutput(r)).toMatch(/not shown/);
  });

  it('a password past a "#" that makes the rest a port and a fragment (http://user:123#abc@host) is found too: never printed, no request', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const server = await res.http(handlers.json({}));
    server.setHandler(handlers.json(sampleCard(server.origin)));
    // A URL that parses: host "user", port 123, the rest of the password a fragment.
    const bad = server.origin.replace('http://', 'http://user:123#tok+=en@');
    expect(new URL(bad).username).toBe('');
    const good = await res.dir(manifest({ research: research(server.origin) }));
    const broken = await res.dir(manifest({ research: research(bad) }));
    const runs = {
      card: await runCli(['card', bad], { cwd: good }),
      plan: await runCli(['plan', bad, '--skill', 'market-size'], { cwd: good }),
      lock: await runCli(['lock'], { cwd: broken }),
      ls: await runCli(['ls'], { cwd: broken }),
    };
    for (const [label, r] of Object.entries(runs)) expectHidden(label, r);
    expect(server.requests).toEqual([]);
  });
});
