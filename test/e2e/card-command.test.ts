/**
 * `a2a card <file|url> [--json]` (issue 3: "fetch, validate and print the normalised card with its
 * warnings (a linter for agent authors; exit 0 valid, 2 invalid)"), running the built CLI against
 * card files and real `@a2a-js/sdk` agents.
 *
 * JSON contract: `{"valid": true, "resolved", "card", "warnings"}` (exit 0); an invalid card is
 * `{"error": {"code": "card-invalid", "message", "source", "path"}}` (exit 2), and in human mode one
 * line on stderr naming the file or URL and the JSON path.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  allOutput,
  cardRequests,
  expectOneLineError,
  jsonOf,
  manifest,
  PROFILE,
  research,
  resources,
  runCli,
  SLOW,
  sampleCard,
  show,
  writeManifest,
} from './helpers.js';

/** A valid 1.0 card with things a linter warns about: a lower-case binding name and a bare `text` mode. */
function lintableCard(origin: string) {
  const card = sampleCard(origin);
  card.supportedInterfaces[0]!.protocolBinding = 'jsonrpc';
  card.defaultInputModes = ['text', 'application/json'];
  return card;
}

describe.concurrent('a2a card <file>', () => {
  it('a valid card: exit 0, the normalised card with its warnings (human on stdout/stderr, and --json)', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    await writeFile(join(dir, 'card.json'), JSON.stringify(lintableCard('https://research.example.com')));
    await writeFile(join(dir, 'clean.json'), JSON.stringify(sampleCard('https://research.example.com')));
    const [human, json, clean] = await Promise.all([
      runCli(['card', 'card.json'], { cwd: dir }),
      runCli(['card', 'card.json', '--json'], { cwd: dir }),
      runCli(['card', 'clean.json', '--json'], { cwd: dir }),
    ]);

    expect(human.code, show(human)).toBe(0);
    const out = human.stdout.split('\n');
    expect(out[0]).toBe('Market Research Agent 2.4.0 (A2A 1.0 card from card.json)');
    // Normalised: the binding is spelled canonically; `text` is kept in the agent's spelling (compared as text/plain).
    expect(human.stdout).toContain('    JSONRPC 1.0 https://research.example.com/a2a/jsonrpc');
    expect(human.stdout).toContain('    HTTP+JSON 1.0 https://research.example.com/a2a/rest');
    expect(human.stdout).toMatch(/capabilities: streaming=true pushNotifications=false extendedAgentCard=false/);
    expect(human.stdout).toMatch(/securitySchemes: bearer \(http\)/);
    expect(human.stdout).toMatch(/modes: in text, application\/json; out text\/plain, application\/pdf/);
    expect(human.stdout).toMatch(
      /market-size: Market sizing \(in text\/plain; out application\/json, application\/pdf\)/,
    );
    // Warnings go to stderr, with the JSON path.
    expect(human.stderr).toMatch(
      /warning noncanonical-binding-name: .*\(\$\.supportedInterfaces\[0\]\.protocolBinding\)/,
    );
    expect(human.stderr).toMatch(/warning \S+: .*"text".*\(\$\.defaultInputModes\[0\]\)/);
    expect(human.stdout).not.toMatch(/warning/);

    expect(json.code, show(json)).toBe(0);
    expect(json.stderr).toBe('');
    const doc = jsonOf(json);
    expect(Object.keys(doc).sort()).toEqual(['card', 'resolved', 'valid', 'warnings']);
    expect(doc.valid).toBe(true);
    expect(doc.resolved).toBe('card.json');
    expect(doc.card).toMatchObject({
      name: 'Market Research Agent',
      version: '2.4.0',
      shape: '1.0',
      supportedInterfaces: [
        { url: 'https://research.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://research.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
      securitySchemes: { bearer: { type: 'http', scheme: 'Bearer' } },
      securityRequirements: [{ bearer: [] }],
      defaultInputModes: ['text', 'application/json'],
      skills: [expect.objectContaining({ id: 'market-size', outputModes: ['application/json', 'application/pdf'] })],
    });
    expect(doc.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'noncanonical-binding-name',
          path: '$.supportedInterfaces[0].protocolBinding',
        }),
        expect.objectContaining({ path: '$.defaultInputModes[0]', message: expect.stringContaining('text') }),
      ]),
    );
    expect(doc.warnings).toHaveLength(2);

    expect(clean.code, show(clean)).toBe(0);
    expect(jsonOf(clean).warnings).toEqual([]);
  });

  it.for([
    {
      name: 'skills: null',
      patch: (c: any) => {
        c.skills = null;
      },
      path: '$.skills',
      detail: /expected array, got null/,
    },
    {
      name: 'a skill without id',
      patch: (c: any) => void delete c.skills[0].id,
      path: '$.skills[0].id',
      detail: /missing/,
    },
    {
      name: 'a string boolean ("True")',
      patch: (c: any) => {
        c.capabilities.streaming = 'True';
      },
      path: '$.capabilities.streaming',
      detail: /expected boolean/,
    },
    {
      name: 'a snake_case key',
      patch: (c: any) => {
        c.default_input_modes = c.defaultInputModes;
      },
      path: '$.default_input_modes',
      detail: /snake_case/,
    },
    {
      name: 'a requirement naming an undefined scheme',
      patch: (c: any) => {
        c.skills[0].securityRequirements = [{ schemes: { oauth: { list: [] } } }];
      },
      path: '$.skills[0].securityRequirements[0].schemes.oauth',
      detail: /unknown-security-scheme.*market-size/,
    },
    {
      name: 'a relative interface URL (file card)',
      patch: (c: any) => {
        c.supportedInterfaces[0].url = '/a2a/jsonrpc';
      },
      path: '$.supportedInterfaces[0].url',
      detail: /relative/,
    },
    {
      name: 'no interfaces at all',
      patch: (c: any) => void delete c.supportedInterfaces,
      path: '$.supportedInterfaces',
      detail: /supportedInterfaces/,
    },
  ])(
    'an invalid card ($name): exit 1, one line naming the file and $path',
    async ({ patch, path, detail }, { onTestFinished }) => {
      const res = resources(onTestFinished);
      const dir = await res.dir();
      const card = sampleCard('https://research.example.com');
      patch(card);
      await writeFile(join(dir, 'bad-card.json'), JSON.stringify(card));
      const [human, json] = await Promise.all([
        runCli(['card', 'bad-card.json'], { cwd: dir }),
        runCli(['card', 'bad-card.json', '--json'], { cwd: dir }),
      ]);
      expect(human.code, show(human)).toBe(1);
      expect(human.stdout).toBe('');
      expectOneLineError(human, 'card-invalid', `bad-card.json ${path}: `, detail);
      expect(json.code, show(json)).toBe(1);
      expect(json.stderr).toBe('');
      expect(jsonOf(json)).toEqual({
        error: { code: 'card-invalid', message: expect.stringMatching(detail), source: 'bad-card.json', path },
      });
    },
  );

  it('not JSON, not an object, nested too deep: exit 1 naming the file (and path)', async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    await writeFile(join(dir, 'broken.json'), '{"name": "x",\n  "version": "1.0"\n');
    await writeFile(join(dir, 'array.json'), '[1, 2, 3]\n');
    const deep = JSON.stringify(sampleCard('https://research.example.com'));
    await writeFile(join(dir, 'deep.json'), `${deep.slice(0, -1)},"meta":${'{"x":'.repeat(200)}1${'}'.repeat(200)}}`);
    const [broken, array, tooDeep] = await Promise.all([
      runCli(['card', 'broken.json'], { cwd: dir }),
      runCli(['card', 'array.json'], { cwd: dir }),
      runCli(['card', 'deep.json'], { cwd: dir }),
    ]);
    expect(broken.code, show(broken)).toBe(1);
    expectOneLineError(broken, /card-invalid: broken\.json: invalid JSON at line 3 column 1$/);
    expect(array.code, show(array)).toBe(1);
    expectOneLineError(array, /card-invalid: array\.json: /);
    expect(tooDeep.code, show(tooDeep)).toBe(1);
    expectOneLineError(tooDeep, /card-invalid: deep\.json \$\.meta(\.x)+: nested deeper than 64 levels/);
  });
});

describe.concurrent('a2a card <url> against real SDK agents', () => {
  it('served card: the URL that answered is resolved; A2A-Version 1.0 without a manifest; relative URLs resolve with a warning', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const dir = await res.dir();
    const [byOrigin, byCardUrl] = await Promise.all([
      runCli(['card', agent.origin, '--json'], { cwd: dir }),
      runCli(['card', agent.cardUrl], { cwd: dir }),
    ]);
    expect(byOrigin.code, show(byOrigin)).toBe(0);
    const doc = jsonOf(byOrigin);
    expect(doc).toMatchObject({ valid: true, resolved: agent.cardUrl, warnings: [] });
    expect(doc.card.supportedInterfaces).toEqual([
      { url: agent.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: agent.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    expect(byCardUrl.code, show(byCardUrl)).toBe(0);
    expect(byCardUrl.stdout.split('\n')[0]).toBe(`Market Research Agent 2.4.0 (A2A 1.0 card from ${agent.cardUrl})`);
    const requests = cardRequests(agent.requests);
    expect(requests).toHaveLength(2);
    for (const r of requests) {
      expect(r.headers['a2a-version']).toBe('1.0');
      expect(r.headers.accept).toBe('application/json');
    }

    // A relative interface URL in a served card resolves against the URL it was fetched from.
    const card = sampleCard(agent.origin);
    card.supportedInterfaces[0]!.url = '/a2a/jsonrpc';
    agent.setCard(card);
    const relative = await runCli(['card', agent.origin, '--json'], { cwd: dir });
    expect(relative.code, show(relative)).toBe(0);
    const rel = jsonOf(relative);
    expect(rel.card.supportedInterfaces[0]).toEqual({
      url: agent.jsonRpcUrl,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(rel.warnings).toEqual([
      expect.objectContaining({ code: 'relative-interface-url', path: '$.supportedInterfaces[0].url' }),
    ]);
  });

  it('an invalid served card: exit 1 naming the URL and the JSON path; a missing agent: exit 3', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent();
    const dir = await res.dir();
    agent.setCard({ ...sampleCard(agent.origin), skills: null });
    const [human, json] = await Promise.all([
      runCli(['card', agent.origin], { cwd: dir }),
      runCli(['card', agent.origin, '--json'], { cwd: dir }),
    ]);
    expect(human.code, show(human)).toBe(1);
    expectOneLineError(human, `card-invalid: ${agent.cardUrl} $.skills: expected array, got null`);
    expect(json.code, show(json)).toBe(1);
    expect(jsonOf(json).error).toMatchObject({ code: 'card-invalid', source: agent.cardUrl, path: '$.skills' });

    await agent.close();
    const gone = await runCli(['card', agent.origin, '--json'], { cwd: dir });
    expect(gone.code, show(gone)).toBe(3);
    expect(jsonOf(gone).error.code).toBe('unreachable');
  });

  it('the manifest profile picks A2A-Version: 0.3 gets the compat card from a 0.3-compat agent', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.sampleAgent({ legacy: true });
    const dir = await res.dir(manifest({}, { ...PROFILE, versions: ['0.3', '1.0'] }));
    const r = await runCli(['card', agent.origin, '--json'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    const doc = jsonOf(r);
    // The SDK's compat card carries 0.3 fields next to supportedInterfaces: a hybrid.
    expect(doc.card.shape).toBe('hybrid');
    expect(cardRequests(agent.requests).map((q) => q.headers['a2a-version'])).toEqual(['0.3']);
  });
});

describe.concurrent('a2a card does not depend on the manifest', () => {
  // Each invalid manifest asks for A2A 0.3 first, so a card request sending 1.0 proves it was not half-read.
  it.for([
    { label: 'broken JSON', text: '{"profile": {"versions": ["0.3"], ' },
    {
      label: 'a schema error',
      text: JSON.stringify(
        manifest({ x: research('https://x.example.com') }, { ...PROFILE, versions: ['0.3', '1.0'], accepts: ['*/*'] }),
      ),
    },
    {
      label: 'a __proto__ agent',
      text: '{"profile": {"bindings": ["JSONRPC"], "versions": ["0.3"], "accepts": ["text/plain"]}, "agents": {"__proto__": {"card": "x", "skills": ["s"]}}}',
    },
  ])(
    'a cwd whose a2a.json has $label: card still works (file and URL, human and --json), sending A2A-Version 1.0',
    async ({ label, text }, { onTestFinished }) => {
      const res = resources(onTestFinished);
      const agent = await res.sampleAgent();
      const dir = await res.dir();
      await writeFile(join(dir, 'card.json'), JSON.stringify(sampleCard('https://research.example.com')));
      await writeManifest(dir, text);
      const [lock, file, url, human] = await Promise.all([
        runCli(['lock'], { cwd: dir }),
        runCli(['card', 'card.json', '--json'], { cwd: dir }),
        runCli(['card', agent.origin, '--json'], { cwd: dir }),
        runCli(['card', agent.origin], { cwd: dir }),
      ]);
      // The manifest really is invalid for the commands that read it.
      expect(lock.code, `${label}: ${show(lock)}`).toBe(2);
      expect(lock.stderr, label).toMatch(/manifest-invalid/);
      for (const r of [file, url, human]) {
        expect(r.code, `${label}: ${show(r)}`).toBe(0);
        expect(allOutput(r), label).not.toMatch(/manifest/);
      }
      expect(jsonOf(file)).toMatchObject({ valid: true, resolved: 'card.json' });
      expect(jsonOf(url)).toMatchObject({ valid: true, resolved: agent.cardUrl });
      expect(human.stdout).toMatch(/^Market Research Agent 2\.4\.0/);
      expect(cardRequests(agent.requests).map((q) => q.headers['a2a-version'])).toEqual(['1.0', '1.0']);
    },
  );

  it('--manifest pointing at a missing file is fine too; an unknown flag is still a usage error', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir();
    await writeFile(join(dir, 'card.json'), JSON.stringify(sampleCard('https://research.example.com')));
    const [ok, usage, none] = await Promise.all([
      runCli(['card', 'card.json', '--manifest', 'nowhere/a2a.json', '--json'], { cwd: dir }),
      runCli(['card', 'card.json', '--frobnicate'], { cwd: dir }),
      runCli(['card'], { cwd: dir }),
    ]);
    expect(ok.code, show(ok)).toBe(0);
    expect(jsonOf(ok).valid).toBe(true);
    expect(usage.code, show(usage)).toBe(2);
    expect(usage.stderr).toMatch(/usage/);
    expect(none.code, show(none)).toBe(2);
    expect(none.stderr).toMatch(/usage/);
  });
});

describe('a2a card --card-path', () => {
  it("a path the manifest would refuse as an agent's cardPath is a usage error, and nothing is fetched", async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (origin: string) => sampleCard(origin) });
    const dir = await res.dir();
    for (const cardPath of [
      '../admin/card.json',
      '//other.example/card.json',
      'card.json?x=1',
      'https://other.example/',
    ]) {
      const run = await runCli(['card', `${agent.origin}/agents`, '--card-path', cardPath], { cwd: dir });
      expect(run.code, show(run)).toBe(2);
      expect(allOutput(run)).toContain('must be a path (no scheme, host, query, fragment or "..")');
    }
    expect(cardRequests(agent.requests)).toEqual([]);
  });
});

describe('card text on a terminal', () => {
  it('control characters in a card (a forged line, cursor movement) are shown escaped; colour from kleur is not touched', async ({
    onTestFinished,
  }) => {
    const dir = await resources(onTestFinished).dir();
    const card = sampleCard('https://agent.example');
    card.name = 'evil\u001b[2K\rforged\nerror fake: line';
    card.skills[0]!.name = 'bell\u0007';
    await writeFile(join(dir, 'evil.json'), JSON.stringify(card));
    const [human, plan] = await Promise.all([
      runCli(['card', 'evil.json'], { cwd: dir }),
      runCli(['plan', 'evil.json', '--skill', card.skills[0]!.id, '--credential', 'bearer'], { cwd: dir }),
    ]);
    for (const r of [human, plan]) {
      expect(r.code, show(r)).toBe(0);
      expect(allOutput(r)).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
      expect(r.stdout.split('\n')[0]).toContain('evil\\u001b[2K\\u000dforged\\u000aerror fake: line');
      expect(r.stdout).not.toMatch(/^error fake/m);
    }
    expect(human.stdout).toContain('bell\\u0007');
  });
});

describe.concurrent('card text cannot paint the terminal', () => {
  // A card that draws its own green tick, conceals text (ESC[8m) and reverses it (U+202E); and a bidi isolate in a skill name.
  const hostile = () => {
    const card = sampleCard('https://agent.example');
    card.name = '\u001b[32m✓ trusted\u001b[0m\u001b[8mhidden\u202eevil';
    card.skills[0]!.name = 'isolate\u2066x\u2069\u200f\u061c';
    return card;
  };
  const noData = (text: string) => {
    expect(text).not.toContain('\u001b[32m✓ trusted');
    expect(text).not.toContain('\u001b[8m');
    expect(text).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  };

  it('a2a card and a2a why escape SGR, conceal and bidi controls from a card, without colour and under FORCE_COLOR=1 (whose own colour still shows)', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const dir = await resources(onTestFinished).dir();
    await writeFile(join(dir, 'evil.json'), JSON.stringify(hostile()));
    await writeManifest(dir, manifest({ evil: research('evil.json') }));
    const lock = await runCli(['lock'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    const [card, why, forcedCard, forcedWhy] = await Promise.all([
      runCli(['card', 'evil.json'], { cwd: dir }),
      runCli(['why', 'evil'], { cwd: dir }),
      runCli(['card', 'evil.json'], { cwd: dir, env: { FORCE_COLOR: '1' } }),
      runCli(['why', 'evil'], { cwd: dir, env: { FORCE_COLOR: '1' } }),
    ]);
    for (const r of [card, why, forcedCard, forcedWhy]) {
      expect(r.code, show(r)).toBe(0);
      noData(allOutput(r));
      expect(r.stdout).toContain('\\u001b[32m✓ trusted\\u001b[0m\\u001b[8mhidden\\u202eevil');
    }
    expect(card.stdout).toContain('isolate\\u2066x\\u2069\\u200f\\u061c');
    expect(allOutput(card) + allOutput(why)).not.toContain('\u001b[');
    // The CLI's own colour is not escaped: why's ✓ is green.
    expect(forcedWhy.stdout).toContain(`\u001b[32m✓\u001b[39m the locked plan`);
  });

  it('warnings and errors carrying card text are escaped too (FORCE_COLOR=1: the CLI still colours its own words)', async ({
    onTestFinished,
  }) => {
    const dir = await resources(onTestFinished).dir();
    const warned = hostile();
    warned.defaultInputModes = ['text/plain', 'bad\u001b[8m\u202emode'];
    const invalid = hostile() as any;
    invalid.capabilities = { ...invalid.capabilities, streaming: '\u202eTrue\u001b[8m' };
    await writeFile(join(dir, 'warned.json'), JSON.stringify(warned));
    await writeFile(join(dir, 'invalid.json'), JSON.stringify(invalid));
    const [w, e] = await Promise.all([
      runCli(['card', 'warned.json'], { cwd: dir, env: { FORCE_COLOR: '1' } }),
      runCli(['card', 'invalid.json'], { cwd: dir, env: { FORCE_COLOR: '1' } }),
    ]);
    expect(w.code, show(w)).toBe(0);
    expect(w.stderr).toContain('\u001b[33mwarning\u001b[39m mode-not-media-type');
    expect(w.stderr).toContain('bad\\u001b[8m\\u202emode');
    expect(e.code, show(e)).toBe(1);
    expect(e.stderr).toContain('\u001b[31merror\u001b[39m card-invalid');
    expect(e.stderr).toContain('\\u202eTrue');
    for (const r of [w, e]) noData(allOutput(r));
  });
});
