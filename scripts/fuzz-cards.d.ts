/** Types of scripts/fuzz-cards.js (the card-reader fuzz generator). */
export function prng(seed: number): () => number;
export function fuzzCases(fixtures: unknown[], count: number, seed?: number): Generator<string>;
export interface FuzzLibrary {
  readCardText(text: string, from: { source: string; baseUrl?: string }): { card: { skills: Array<{ id: string }> } };
  negotiate(card: never, skillId: string, profile: never, credentials: string[]): unknown;
  integrityOf(value: unknown): string;
  isA2aLockError(value: unknown): value is { code: string };
}
export function readFuzzCard(lib: FuzzLibrary, text: string): string;
