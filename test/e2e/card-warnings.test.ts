/**
 * A card's warnings are said when they are new to the lockfile (docs/reference/warnings.md, "When a
 * warning is said"), against a real @a2a-js/sdk agent serving an interface without `protocolVersion`
 * (as a2a-sdk for Python serves every one): `lock` says it; `verify`, `outdated` and `update` do not
 * repeat it when the served card changes elsewhere, and say only the one a new interface brings.
 */
import { describe, expect, it } from 'vitest';
import { closeFetcher } from '../../src/index.js';
import { jsonOf, manifest, research, resources, runCli, sampleCard, show } from './helpers.js';

type Warned = Array<{ code: string; path?: string; agent?: string }>;
const missing = (warnings: Warned) =>
  warnings.filter((w) => w.code === 'interface-version-missing').map((w) => `${w.agent} ${w.path}`);

describe('interface-version-missing is said when new to the lockfile, not on every run', () => {
  it('locked with it: a description change does not repeat it; a second interface without a version is said once, at its path, by verify, outdated and update', async ({
    onTestFinished,
  }) => {
    onTestFinished(() => closeFetcher());
    const res = resources(onTestFinished);
    const withoutVersion = (origin: string) => {
      const card = sampleCard(origin);
      return {
        ...card,
        supportedInterfaces: [card.supportedInterfaces[0], { url: `${origin}/a2a/rest`, protocolBinding: 'HTTP+JSON' }],
      };
    };
    const agent = await res.agent({ card: withoutVersion });
    const { dir, lock } = await res.locked(manifest({ research: research(agent.origin) }), undefined, [
      'lock',
      '--json',
    ]);
    expect(missing(jsonOf(lock).warnings)).toEqual(['research $.supportedInterfaces[1].protocolVersion']);

    const said = async (args: string[]): Promise<string[]> => {
      const r = await runCli([...args, '--json'], { cwd: dir });
      expect(r.code === 0 || r.code === 1, show(r)).toBe(true);
      const text = await runCli(args, { cwd: dir });
      // The text says what the document says.
      expect(text.stderr.split('interface-version-missing').length - 1, show(text)).toBe(
        missing(jsonOf(r).warnings).length,
      );
      return missing(jsonOf(r).warnings);
    };

    // A descriptive change: the card is read again, its interfaces as locked.
    agent.setCard({ ...withoutVersion(agent.origin), description: 'Sizes markets, now with charts.' });
    expect(await said(['verify'])).toEqual([]);
    expect(await said(['outdated'])).toEqual([]);

    // A new interface without a version, first in the list (the locked one moves to [2]).
    const card = withoutVersion(agent.origin);
    agent.setCard({
      ...card,
      supportedInterfaces: [{ url: `${agent.origin}/a2a/v2`, protocolBinding: 'JSONRPC' }, ...card.supportedInterfaces],
    });
    const fresh = ['research $.supportedInterfaces[0].protocolVersion'];
    expect(await said(['verify'])).toEqual(fresh);
    expect(await said(['outdated'])).toEqual(fresh);
    const update = await runCli(['update', '--json', '--no-probe'], { cwd: dir });
    expect(update.code, show(update)).toBe(0);
    expect(missing(jsonOf(update).warnings)).toEqual(fresh);
    // Locked now: said no more.
    expect(await said(['verify'])).toEqual([]);
    expect(await said(['outdated'])).toEqual([]);
  });
});
