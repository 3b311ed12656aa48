/**
 * GitHub Actions workflow commands (`::error file=…,title=…::message`), printed by `verify` when
 * `GITHUB_ACTIONS=true` so a pull request shows each agent beyond the lockfile as an annotation
 * on the lockfile. Escaping follows the workflow-command rules: `%`, CR and LF in the message;
 * additionally `:` and `,` in property values.
 */
import type { AgentReport } from '../lock/report.js';
import { show } from './render/common.js';

/** What the annotations read of an agent's report: all of it but its warnings (a report with them will do). */
type AnnotatedReport = Omit<AgentReport, 'warnings'> & { warnings?: AgentReport['warnings'] };

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One `::error` workflow command. `file` is relative to the repository root. */
export function errorAnnotation(file: string, title: string, message: string): string {
  return `::error file=${escapeProperty(file)},title=${escapeProperty(title)}::${escapeData(message)}`;
}

/**
 * The annotations for a verify run, one per failing agent: beyond the lockfile (its plan fields,
 * refusals and signature changes on one line), lock entry out of date, not verifiable (its error),
 * or under `--strict` a card change or an unchecked part.
 */
export function verifyAnnotations(file: string, reports: Record<string, AnnotatedReport>): string[] {
  const out: string[] = [];
  for (const [name, r] of Object.entries(reports)) {
    if (r.status === 'drift') {
      const parts = [
        ...(r.drift ?? []).map((d) => (d.refusal ? `${d.skill}: refused with the locked choices (${d.refusal.code})` : `${d.skill} › ${d.field}: ${show(d.locked)} → ${show(d.fresh)}`)),
        ...(r.signatureDrift ?? []).map((s) => `signature (${s.snapshot}): ${s.locked.status} → ${s.fresh.status}`),
      ];
      out.push(errorAnnotation(file, `${name} beyond the lockfile`, `${parts.join('; ')}; run: a2a update ${name}`));
    } else if (r.status === 'out-of-date') {
      out.push(errorAnnotation(file, `${name} lockfile out of date`, `${(r.reasons ?? []).join('; ')}; run: a2a lock`));
    } else if (r.status === 'error' && r.error) {
      out.push(errorAnnotation(file, `${name} not verified`, `${r.error.code}: ${r.error.message}`));
    } else if (r.exitCode !== 0) {
      // --strict: a card change that leaves every plan equal, or a part that could not be checked.
      if (r.status === 'unchecked') {
        out.push(errorAnnotation(file, `${name} not checked`, `${r.reason}: ${r.unchecked} (--strict)`));
        continue;
      }
      const why = r.unchecked ? `not checked: ${r.unchecked}` : `${r.change ?? 'card'} card change`;
      out.push(errorAnnotation(file, `${name} card changed`, `${why} (--strict); run: a2a update ${name}`));
    }
  }
  return out;
}
