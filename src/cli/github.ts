/**
 * GitHub Actions workflow commands (`::error file=…,title=…::message`), printed by `verify` and
 * `diff` when `GITHUB_ACTIONS=true` so a pull request shows each agent beyond the lockfile (each
 * risky change) as an annotation on the lockfile. Escaping follows the workflow-command rules: `%`, CR and LF in the message;
 * additionally `:` and `,` in property values; other control characters become `\u` escapes.
 */
import { isAbsolute, relative, sep } from 'node:path';
import type { AgentFiles } from '../commands/locate.js';
import { updateResolves } from '../lock/hints.js';
import type { AgentDiff } from '../lock/lockfile-diff.js';
import type { AgentReport } from '../lock/report.js';
import { escapeUntrusted, show } from './render/common.js';

/** What the annotations read of an agent's report: all of it but its warnings (a report with them will do). */
type AnnotatedReport = Omit<AgentReport, 'warnings'> & { warnings?: AgentReport['warnings'] };

/**
 * A workflow command's message: `%`, CR and LF as the runner decodes them, then any other control,
 * bidi or line-separator character (a scheme name, a URL or an error from a card or a head
 * lockfile) as a `\u` escape, {@link escapeUntrusted}: annotations are printed as they are, not
 * through the CLI's terminal filter, and the runner's log renders escape sequences.
 */
function escapeData(text: string): string {
  return escapeUntrusted(text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * One failing agent of a verify run, as its annotation and its SARIF result say it: `level`
 * `error` (it fails the run) or `warning` (it passes, yet was left unchecked); `code` the status
 * (`drift`, `out-of-date`, `changed`), the error's code, or the unchecked part's reason.
 */
export interface VerifyFailure {
  agent: string;
  level: 'error' | 'warning';
  code: string;
  title: string;
  message: string;
}

/**
 * The failing agents of a verify run, one each: beyond the lockfile (its plan fields, refusals and
 * signature changes on one line), lock entry out of date, not verifiable (its error), or under
 * `--strict` a card change or an unchecked part (`error`); without `--strict`, an agent left
 * `unchecked` (`credential-unset`, `credential-route-new`, `extended-changed`, `base-unreadable`,
 * `interface-auth-required`, `interface-not-probed`) is
 * a `warning`: an agent not checked is never passed over in silence (issue 33). An agent `--ignore`
 * passed over is none (`ignored`: shown in the output and the summary, not on the pull request).
 */
export function verifyFailures(reports: Record<string, AnnotatedReport>): VerifyFailure[] {
  const out: VerifyFailure[] = [];
  const fail = (agent: string, level: VerifyFailure['level'], code: string, title: string, message: string) =>
    out.push({ agent, level, code, title: `${agent} ${title}`, message });
  for (const [name, r] of Object.entries(reports)) {
    if (r.ignored) continue;
    if (r.status === 'drift') {
      const parts = [
        ...(r.drift ?? []).map((d) =>
          d.refusal
            ? `${d.skill}: refused with the locked choices (${d.refusal.code})${d.hint ? `; ${d.hint}` : ''}`
            : `${d.skill} › ${d.field}: ${show(d.locked)} → ${show(d.fresh)}`,
        ),
        ...(r.signatureDrift ?? []).map((s) => `signature (${s.snapshot}): ${s.locked.status} → ${s.fresh.status}`),
      ];
      const run = updateResolves(r.drift ?? [], r.signatureDrift) ? `; run: a2a update ${name}` : '';
      fail(name, 'error', 'drift', 'beyond the lockfile', `${parts.join('; ')}${run}`);
    } else if (r.status === 'out-of-date') {
      fail(name, 'error', 'out-of-date', 'lockfile out of date', `${(r.reasons ?? []).join('; ')}; run: a2a lock`);
    } else if (r.status === 'error' && r.error) {
      fail(name, 'error', r.error.code, 'not verified', `${r.error.code}: ${r.error.message}`);
    } else if (r.exitCode !== 0) {
      // --strict: a card change that leaves every plan equal, or a part that could not be checked.
      if (r.status === 'unchecked') {
        fail(name, 'error', r.reason ?? 'unchecked', 'not checked', `${r.reason}: ${r.unchecked} (--strict)`);
        continue;
      }
      const why = r.unchecked ? `not checked: ${r.unchecked}` : `${r.change ?? 'card'} card change`;
      const code = r.unchecked ? (r.reason ?? 'unchecked') : 'changed';
      fail(name, 'error', code, 'card changed', `${why} (--strict); run: a2a update ${name}`);
    } else if (r.unchecked !== undefined && r.reason !== undefined) {
      // Passing without --strict, yet left unchecked (a credential not set, a new credential route on
      // a pull request, an edited extended snapshot, an unreadable base): the reviewer sees it on the lockfile.
      fail(name, 'warning', r.reason, 'not checked', `${r.reason}: ${r.unchecked}`);
    }
  }
  return out;
}

/**
 * Where a failure of `agent` points: its key's line in the lockfile, else in the manifest (an agent
 * not locked yet); the lockfile, at no line, when it is in neither or the files were not located.
 */
export function verifyFailureAt(
  files: AgentFiles | undefined,
  agent: string,
): { file: 'lockfile' | 'manifest'; line?: number } {
  if (files && Object.hasOwn(files.lockfile.lines, agent))
    return { file: 'lockfile', line: files.lockfile.lines[agent]! };
  if (files && Object.hasOwn(files.manifest.lines, agent))
    return { file: 'manifest', line: files.manifest.lines[agent]! };
  return { file: 'lockfile' };
}

/**
 * The annotations for a verify run, one per {@link verifyFailures} failure (`::error` or
 * `::warning`) on `file` (the lockfile); with `files` located, each at its line
 * ({@link verifyFailureAt}), an agent only the manifest names on the manifest.
 */
export function verifyAnnotations(
  file: string,
  reports: Record<string, AnnotatedReport>,
  files?: AgentFiles,
): string[] {
  return verifyFailures(reports).map((f) => {
    const at = verifyFailureAt(files, f.agent);
    return lineAnnotation(f.level, at.file === 'manifest' ? files!.manifest.path : file, at.line, f.title, f.message);
  });
}

/** The file an annotation names: `file` relative to the repository (`GITHUB_WORKSPACE`), else to the working directory; `/` separated. */
export function annotationFile(file: string, where: { cwd: string; env: NodeJS.ProcessEnv }): string {
  const inWorkspace = where.env.GITHUB_WORKSPACE ? relative(where.env.GITHUB_WORKSPACE, file) : '';
  const shown =
    inWorkspace && !inWorkspace.startsWith('..') && !isAbsolute(inWorkspace) ? inWorkspace : relative(where.cwd, file);
  return shown.split(sep).join('/');
}

/** Most annotations `a2a diff` prints (GitHub shows 10 per step anyway). */
const MAX_DIFF_ANNOTATIONS = 10;

/**
 * One `::error` or `::warning` workflow command at `line` of `file` (relative to the repository root).
 * @internal
 */
export function lineAnnotation(
  kind: 'error' | 'warning',
  file: string,
  line: number | undefined,
  title: string,
  message: string,
): string {
  return `::${kind} file=${escapeProperty(file)}${line !== undefined ? `,line=${line}` : ''},title=${escapeProperty(title)}::${escapeData(message)}`;
}

/**
 * The annotations of a diff: one per agent with a high (`::error`) or medium (`::warning`) risk,
 * high first, at most {@link MAX_DIFF_ANNOTATIONS}, each at the agent's line of the head lockfile
 * (`lines`: name → 1-based line; none for a removed agent).
 */
export function diffAnnotations(
  file: string,
  agents: ReadonlyArray<Pick<AgentDiff, 'name' | 'level' | 'risks'>>,
  lines: Readonly<Record<string, number>>,
): string[] {
  const risky = agents.filter((a) => a.level === 'high' || a.level === 'medium');
  const ordered = [...risky.filter((a) => a.level === 'high'), ...risky.filter((a) => a.level === 'medium')];
  return ordered.slice(0, MAX_DIFF_ANNOTATIONS).map((a) => {
    // `level` is already that of the risks not ignored (`--ignore`).
    const top = a.risks.filter((r) => !r.ignored && r.level === a.level);
    const codes = [...new Set(top.map((r) => r.code))].join(', ');
    const line = Object.hasOwn(lines, a.name) ? lines[a.name] : undefined;
    return lineAnnotation(
      a.level === 'high' ? 'error' : 'warning',
      file,
      line,
      `${a.name}: ${codes}`,
      `${top.map((r) => r.message).join('; ')}; review it in a2a diff`,
    );
  });
}
