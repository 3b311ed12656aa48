/** Types of scripts/accept.js (the accept-path generator; `npm run schemas` runs it). */
export function generateAccept(options: {
  source: string;
  roots: Record<string, unknown>;
  rules?: Record<string, (value: never) => boolean>;
  rulesImport?: string;
  root: string;
  file: string;
}): string;
