/**
 * Issue 14, points 4 and 6 through the built CLI against real SDK agents: a card version that is
 * not semver but plain Major[.Minor] is coerced for the manifest range (warning
 * `version-not-semver`); a 0.3 card without protocolVersion is linted; a 0.3 card whose url +
 * preferredTransport contradict its own additionalInterfaces locks the explicit entries.
 */
import { describe, expect, it } from 'vitest';
import {
  allOutput,
  jsonOf,
  manifest,
  PROFILE,
  readLock,
  research,
  resources,
  runCli,
  sampleCard,
  show,
} from './helpers.js';

describe.concurrent('card versions that are not semver', () => {
  for (const range of ['^1.0.0', '>=1.0', '1.x']) {
    it(`"1.0" satisfies ${range} with a version-not-semver warning naming both spellings`, async ({
      onTestFinished,
    }) => {
      const res = resources(onTestFinished);
      const agent = await res.agent({ card: (origin) => sampleCard(origin, { version: '1.0' }) });
      const dir = await res.dir(manifest({ research: research(agent.origin, { version: range }) }));
      const lock = await runCli(['lock', '--json'], { cwd: dir, env: { RESEARCH_TOKEN: 't' } });
      expect(lock.code, show(lock)).toBe(0);
      const warning = jsonOf(lock).warnings.find((w: { code: string }) => w.code === 'version-not-semver');
      expect(warning?.message).toContain('"1.0"');
      expect(warning?.message).toContain('1.0.0');
      expect((await readLock(dir)).agents.research.plans['market-size'].url).toBe(agent.jsonRpcUrl);
      const verify = await runCli(['verify'], { cwd: dir, env: { RESEARCH_TOKEN: 't' } });
      expect(verify.code, show(verify)).toBe(0);
    });
  }

  it('a version that cannot be coerced is refused as before; one out of range names the coerced reading', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const dated = await res.agent({ card: (origin) => sampleCard(origin, { version: '2026-07-03' }) });
    const old = await res.agent({ card: (origin) => sampleCard(origin, { version: '1.0' }) });
    const dir = await res.dir(
      manifest({ dated: research(dated.origin, { version: '*' }), old: research(old.origin, { version: '^2.0.0' }) }),
    );
    const lock = await runCli(['lock'], { cwd: dir, env: { RESEARCH_TOKEN: 't' } });
    expect(lock.code, show(lock)).not.toBe(0);
    expect(allOutput(lock)).toContain('card version "2026-07-03" is not semver');
    expect(allOutput(lock)).toContain('card version 1.0 (read as 1.0.0) does not satisfy ^2.0.0');
  });
});

describe.concurrent('0.3 cards the linter warns on', () => {
  /** VoltAgent / Mastra-like 0.3 card: no protocolVersion, url /rpc with preferredTransport HTTP+JSON, explicit entries. */
  const contradictory = (rpc: string, rest: string) => ({
    name: 'Picky',
    description: 'a 0.3 card',
    url: rpc,
    preferredTransport: 'HTTP+JSON',
    additionalInterfaces: [
      { url: rpc, transport: 'JSONRPC' },
      { url: rest, transport: 'HTTP+JSON' },
    ],
    version: '1.0.0',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'market-size', name: 'Market size', description: 'd', tags: [] }],
  });

  it('a card: protocol-version-missing and preferred-transport-contradicted; lock locks HTTP+JSON on the REST endpoint', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    const agent = await res.agent({ card: (origin) => contradictory(`${origin}/a2a/jsonrpc`, `${origin}/a2a/rest`) });
    const card = await runCli(['card', agent.origin, '--json'], { cwd: await res.dir() });
    expect(card.code, show(card)).toBe(0);
    const doc = jsonOf(card);
    expect(doc.warnings.map((w: { code: string }) => w.code).sort()).toEqual([
      'preferred-transport-contradicted',
      'protocol-version-missing',
    ]);
    expect(doc.card.supportedInterfaces).toEqual([
      { url: agent.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: agent.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);

    const dir = await res.dir(
      manifest(
        { picky: { card: agent.origin, skills: ['market-size'] } },
        { ...PROFILE, bindings: ['HTTP+JSON', 'JSONRPC'], versions: ['0.3'] },
      ),
    );
    const lock = await runCli(['lock'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    expect(allOutput(lock)).toContain('preferred-transport-contradicted');
    expect((await readLock(dir)).agents.picky.plans['market-size']).toMatchObject({
      url: agent.restUrl,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '0.3',
    });
  });
});
