/**
 * explainNegotiation() (what `a2a why` prints): every candidate per step, the winner and the rule,
 * the requirement satisfied, the modes intersected; winners always those of negotiate().
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeCard } from '../../src/card/normalize.js';
import { type ExplainedStep, explainNegotiation } from '../../src/negotiate/explain.js';
import { negotiate } from '../../src/negotiate/negotiate.js';
import type { ClientProfile } from '../../src/negotiate/types.js';
import { workedExample as rawWorkedExample } from '../helpers/worked-example.js';

const CITATIONS = 'https://example.com/ext/citations/v1';

function workedExample(
  patch: (c: Record<string, any>) => void = () => {
    /* unchanged */
  },
) {
  return normalizeCard(rawWorkedExample(patch), { source: 'worked-example.json' }).card;
}

/** The worked example's orchestrator profile. */
const PROFILE = JSON.parse(
  readFileSync(new URL('../fixtures/orchestrator-profile.json', import.meta.url), 'utf8'),
) as ClientProfile;

const step = (steps: ExplainedStep[], name: ExplainedStep['step']) => steps.find((s) => s.step === name)!;
const brief = (s: ExplainedStep) => s.candidates.map((c) => [c.value, c.ok, c.chosen ?? false, c.note]);

describe('explainNegotiation', () => {
  it('lists every candidate of every step, marks the winner, and says the rule', () => {
    const card = workedExample((c) => {
      c.securitySchemes = {
        oauth: {
          oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t.example.com', scopes: {} } } },
        },
        bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
      };
      c.securityRequirements = [{ schemes: { oauth: { list: ['read'] } } }, { schemes: { bearer: { list: [] } } }];
    });
    const result = explainNegotiation(card, 'market-size', PROFILE, ['bearer'], { versionRange: '^2.0.0' });
    expect(result.plan).toEqual(negotiate(card, 'market-size', PROFILE, ['bearer'], { versionRange: '^2.0.0' }).plan);
    expect(result.steps.map((s) => s.step)).toEqual([
      'skill',
      'version',
      'interface',
      'security',
      'media',
      'delivery',
      'extensions',
    ]);

    const iface = step(result.steps, 'interface');
    expect(brief(iface)).toEqual([
      ['GRPC 1.0', true, true, 'offered at https://research.example.com/a2a/grpc'],
      ['JSONRPC 1.0', true, false, 'offered at https://research.example.com/a2a/v1; a more preferred pair won'],
      ['GRPC 0.3', false, false, 'not offered by the card'],
      ['JSONRPC 0.3', true, false, 'offered at https://research.example.com/a2a/legacy; a more preferred pair won'],
    ]);
    expect(iface.why).toMatch(/preference order/);

    // Which requirement was satisfied, and why the other was not.
    expect(brief(step(result.steps, 'security'))).toEqual([
      ['[oauth (read)]', false, false, 'not held: oauth'],
      ['[bearer]', true, true, 'every scheme held'],
    ]);
    // Which modes intersected.
    expect(brief(step(result.steps, 'media'))).toEqual([
      ['send text/plain', true, false, 'the skill takes text/plain'],
      ['accept application/json', true, false, 'the skill outputs application/json'],
      ['accept text/plain', false, false, 'the skill does not output it'],
    ]);
    expect(
      step(result.steps, 'delivery')
        .candidates.filter((c) => c.chosen)
        .map((c) => c.value),
    ).toEqual(['stream']);
    expect(brief(step(result.steps, 'extensions'))).toEqual([
      [CITATIONS, true, false, 'optional; the client implements it: active'],
    ]);
  });

  it('an interface outside the profile is listed as such; a refusal explains the failing step', () => {
    const card = workedExample((c) => {
      c.skills[0].outputModes = ['application/pdf'];
    });
    const result = explainNegotiation(
      card,
      'market-size',
      { ...PROFILE, bindings: ['JSONRPC'], versions: ['1.0'] },
      [],
    );
    expect(result.refusal?.code).toBe('no-common-output-mode');
    expect(brief(step(result.steps, 'interface'))).toEqual([
      ['JSONRPC 1.0', true, true, 'offered at https://research.example.com/a2a/v1'],
      ['GRPC 1.0', false, false, 'offered at https://research.example.com/a2a/grpc; not in the client profile'],
      ['JSONRPC 0.3', false, false, 'offered at https://research.example.com/a2a/legacy; not in the client profile'],
    ]);
    const media = step(result.steps, 'media');
    expect(media.ok).toBe(false);
    expect(media.candidates.filter((c) => c.value.startsWith('accept')).every((c) => !c.ok)).toBe(true);
    expect(result.steps.at(-1)!.step).toBe('media');
  });
});
