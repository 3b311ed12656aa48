/**
 * The risks of a review (issue 36, "A review shows only what changed"): listed high → medium →
 * low → info, and one fact stated once: a credential newly sent to a new destination is the high
 * `new-credential-destination` line, not again a medium `credential-source-changed` one.
 */
import { describe, expect, it } from 'vitest';
import { diffLockfiles } from '../../src/lock/lockfile-diff.js';
import { RISK_LEVELS } from '../../src/lock/risk-codes.js';
import type { LockEntry, Lockfile } from '../../src/lock/schema.js';
import { parseManifest } from '../../src/manifest/parse.js';
import { type AgentSettings, DEFAULT_PROFILE, type Manifest } from '../../src/manifest/schema.js';
import { keyedWorkedExample, lockEntryFor, workedExample } from '../helpers/worked-example.js';

type Json = Record<string, any>;
const WITH_KEY: AgentSettings = { ...DEFAULT_PROFILE, credentials: ['key'] };
const NO_CREDENTIALS: AgentSettings = { ...DEFAULT_PROFILE, credentials: [] };

function lockfile(research: LockEntry, settings: AgentSettings): Lockfile {
  return { lockfileVersion: 1, settings: { research: settings }, agents: { research } };
}

function manifestWith(credentials: Record<string, { env: string }>): Manifest {
  return parseManifest(
    JSON.stringify({
      profile: DEFAULT_PROFILE,
      agents: { research: { card: 'https://research.example.com', skills: ['market-size'], credentials } },
    }),
    'a2a.json',
  );
}

const rank = (level: string) => RISK_LEVELS.indexOf(level as (typeof RISK_LEVELS)[number]);

describe('the risks of a review', () => {
  it('are listed high → medium → low → info, whatever group found them', () => {
    const base = lockfile(lockEntryFor(keyedWorkedExample(), WITH_KEY, ['market-size']), WITH_KEY);
    // A plan url moved within its origin (low, found with the plans), the card version down (medium,
    // found with the card), and at head the key read from another variable (high, found last).
    const head = lockfile(
      lockEntryFor(
        keyedWorkedExample((c: Json) => {
          c.version = '0.0.1';
          for (const i of c.supportedInterfaces) i.url = `${i.url}/v2`;
          c.description = `${c.description} (new)`;
        }),
        WITH_KEY,
        ['market-size'],
      ),
      WITH_KEY,
    );
    const agent = diffLockfiles(base, head, {
      base: manifestWith({ key: { env: 'RESEARCH_KEY' } }),
      head: manifestWith({ key: { env: 'OTHER_KEY' } }),
    }).agents[0]!;
    const levels = agent.risks.map((r) => r.level);
    expect(new Set(levels)).toEqual(new Set(['high', 'medium', 'low', 'info']));
    expect(levels).toEqual([...levels].sort((a, b) => rank(a) - rank(b)));
    expect(agent.risks[0]!.code).toBe('credential-source-changed');
  });

  it('a credential newly sent to a new destination is stated once, high; its new source is no medium line', () => {
    const base = lockfile(lockEntryFor(workedExample(), NO_CREDENTIALS, ['market-size']), NO_CREDENTIALS);
    const head = lockfile(lockEntryFor(keyedWorkedExample(), WITH_KEY, ['market-size']), WITH_KEY);
    const agent = diffLockfiles(base, head, {
      base: manifestWith({}),
      head: manifestWith({ key: { env: 'RESEARCH_KEY' } }),
    }).agents[0]!;
    expect(agent.risks.filter((r) => r.code === 'new-credential-destination')).toHaveLength(1);
    expect(agent.risks.map((r) => r.code)).not.toContain('credential-source-changed');
    // The source is still shown as what changed in a2a.json.
    expect(agent.credentialSources).toEqual([{ scheme: 'key', new: 'RESEARCH_KEY' }]);
  });
});
