/**
 * The vocabulary of a lockfile review: risk levels, every risk code with its level, improvement
 * codes, and the shapes of one risk and one improvement. What each code means:
 * docs/reference/risk-codes.md (held to {@link RISK_CODES} by test/docs.test.ts). Pure.
 */

/** How much a change needs a reviewer's eye; `info` is shown but never weighs. */
export type RiskLevel = 'high' | 'medium' | 'low' | 'info';

/** The levels, highest first. */
export const RISK_LEVELS: readonly RiskLevel[] = ['high', 'medium', 'low', 'info'];

/** Every risk code with its level (docs/reference/risk-codes.md, held to it by test/docs.test.ts). */
export const RISK_CODES = {
  'new-credential-destination': 'high',
  'scheme-redefined': 'high',
  'cleartext-transport': 'high',
  'signature-weakened': 'high',
  'signer-changed': 'high',
  'credential-source-changed': 'high',
  'credential-policy-changed': 'high',
  'origin-changed': 'medium',
  'scopes-widened': 'medium',
  'protocol-downgrade': 'medium',
  'extension-activated': 'medium',
  'required-extension-added': 'medium',
  'delivery-changed': 'medium',
  'output-modes-changed': 'medium',
  'card-version-rollback': 'medium',
  'push-endpoint-changed': 'medium',
  'skill-added': 'low',
  'skill-removed': 'low',
  'fallbacks-changed': 'low',
  'card-structural': 'low',
  descriptive: 'info',
  'interface-other-origin': 'info',
  'host-international': 'info',
  'agent-added': 'info',
  'agent-removed': 'info',
} as const satisfies Record<string, RiskLevel>;

/** A stable risk code (see {@link RISK_CODES}). */
export type RiskCode = keyof typeof RISK_CODES;

/** One risky change of one agent. */
export interface Risk {
  code: RiskCode;
  level: RiskLevel;
  /** What changed, in one line (may quote card text: escape before printing). */
  message: string;
  /** The skill whose plan it concerns, when one does. */
  skill?: string;
  /** Set when `a2a diff --ignore <code>` named its code: still listed, never weighed (`ignoreRisks`, lock/lockfile-diff.ts). */
  ignored?: true;
}

/** A stable improvement code. */
export type ImprovementCode = 'signature-verified' | 'cleartext-gone' | 'credential-destination-removed';

/** One change for the better. */
export interface Improvement {
  code: ImprovementCode;
  message: string;
  skill?: string;
}

/** `0 < rank` ordering of levels: high 3 … info 0. */
function rank(level: RiskLevel): number {
  return 3 - RISK_LEVELS.indexOf(level);
}

/** Whether `level` is at or above `threshold` (`any`: every level, info included). */
export function atOrAbove(level: RiskLevel, threshold: RiskLevel | 'any'): boolean {
  return threshold === 'any' || rank(level) >= rank(threshold);
}

/** The highest level of `risks`, undefined for none. */
export function highestLevel(risks: readonly Risk[]): RiskLevel | undefined {
  return RISK_LEVELS.find((level) => risks.some((r) => r.level === level));
}

/** A risk at its code's level (`level`: the codes whose level depends on the change, as docs/reference/risk-codes.md says). */
export function risk(code: RiskCode, message: string, skill?: string, level: RiskLevel = RISK_CODES[code]): Risk {
  return { code, level, message, ...(skill !== undefined ? { skill } : {}) };
}

/** An improvement with its code. */
export function better(code: ImprovementCode, message: string, skill?: string): Improvement {
  return { code, message, ...(skill !== undefined ? { skill } : {}) };
}
