/**
 * Cards the end-to-end tests share: the sample card advertising an extended card and the extended
 * card (the public one plus the paid `deep-research` skill). Signing keys and signed cards:
 * `test/helpers/signed-agent.ts`.
 */
import { sampleCard } from './helpers.js';

export type Card = ReturnType<typeof sampleCard>;

/** The skill only the extended card lists. */
export const DEEP = {
  id: 'deep-research',
  name: 'Deep research',
  description: 'Long-form research briefs for paying customers.',
  tags: ['research'],
  inputModes: ['text/plain'],
  outputModes: ['application/json', 'text/markdown'],
};

/** The sample card advertising an extended card (bearer security comes with the sample card). */
export function publicCard(origin: string): Card {
  const card = sampleCard(origin);
  card.capabilities = { ...card.capabilities, extendedAgentCard: true };
  return card;
}

/** The extended card: the public one plus `deep-research` (with `outputModes` overridable). */
export function extendedCard(origin: string, outputModes: string[] = DEEP.outputModes): Card {
  const card = publicCard(origin);
  return {
    ...card,
    description: 'Extended: includes the paid skills.',
    skills: [...card.skills, { ...DEEP, outputModes }],
  };
}
