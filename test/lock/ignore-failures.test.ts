/** `verify --ignore` (lock/report.ts): the codes a report fails with, and which reports an ignore list passes over. */
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import {
  type AgentReport,
  changedReport,
  driftReport,
  errorReportOf,
  failureCodes,
  ignoreFailures,
  okReport,
  outOfDateReport,
  strictExitCode,
  VERIFY_FAILURE_CODES,
  withUnchecked,
} from '../../src/lock/report.js';
import { cells, page, section } from '../helpers/markdown.js';

const strict = (r: AgentReport): AgentReport => ({ ...r, exitCode: strictExitCode(r, true) });
const unset = { reason: 'credential-unset' as const, message: 'extended card not checked (TOKEN unset)' };
const routeNew = { reason: 'credential-route-new' as const, message: 'checked after merge' };

describe('failureCodes', () => {
  it('the error code, drift, out-of-date; under --strict changed and the unchecked reason; none for a passing report', () => {
    const down = errorReportOf({ code: 'unreachable', message: 'x' });
    const changed = changedReport({ change: 'descriptive', warnings: [] });
    expect(failureCodes(down)).toEqual(['unreachable']);
    expect(failureCodes(driftReport({ drift: [{ skill: 's', field: 'url' }], warnings: [] }))).toEqual(['drift']);
    expect(failureCodes(outOfDateReport(['skills changed']))).toEqual(['out-of-date']);
    expect(failureCodes(changed)).toEqual([]);
    expect(failureCodes(strict(changed))).toEqual(['changed']);
    expect(failureCodes(strict(withUnchecked(changed, unset)))).toEqual(['changed', 'credential-unset']);
    expect(failureCodes(strict(withUnchecked(okReport(), routeNew)))).toEqual(['credential-route-new']);
    expect(failureCodes(strict(withUnchecked(okReport(), unset)))).toEqual(['credential-unset']);
    expect(failureCodes(okReport())).toEqual([]);
    // Every code a report can fail with (but integrity) is one --ignore takes.
    for (const code of ['unreachable', 'drift', 'out-of-date', 'changed', 'credential-unset', 'credential-route-new'])
      expect(VERIFY_FAILURE_CODES).toContain(code);
    expect(VERIFY_FAILURE_CODES).not.toContain('lockfile-invalid');
  });
});

describe('ignoreFailures', () => {
  it('marks a failing report whose every code is ignored, keeps its exitCode, and takes the run exit code from the others', () => {
    const reports = {
      ok: okReport(),
      down: errorReportOf({ code: 'unreachable', message: 'x' }),
      slow: errorReportOf({ code: 'timeout', message: 'x' }),
      both: strict(withUnchecked(changedReport({ change: 'structural', warnings: [] }), unset)),
      tampered: errorReportOf({ code: 'lockfile-invalid', message: 'integrity' }),
    };
    const none = ignoreFailures(reports, new Set());
    expect(none.exitCode).toBe(ExitCode.Drift);
    expect(Object.values(none.agents).some((r) => r.ignored)).toBe(false);
    const some = ignoreFailures(reports, new Set(['unreachable', 'changed', 'lockfile-invalid']));
    expect(some.agents.down).toMatchObject({ ignored: true, exitCode: ExitCode.Unreachable });
    expect(some.agents.both).not.toHaveProperty('ignored');
    expect(some.agents.ok).not.toHaveProperty('ignored');
    // A snapshot failing its integrity is never ignored, even named (the CLI refuses the code).
    expect(some.agents.tampered).not.toHaveProperty('ignored');
    expect(some.exitCode).toBe(ExitCode.Drift);
    const all = ignoreFailures(
      reports,
      new Set(['unreachable', 'timeout', 'changed', 'credential-unset', 'lockfile-invalid']),
    );
    expect(all.exitCode).toBe(ExitCode.Invalid);
    expect(
      ignoreFailures({ down: reports.down, slow: reports.slow }, new Set(['unreachable', 'timeout'])).exitCode,
    ).toBe(ExitCode.Ok);
  });
});

describe('ignoreFailures under --strict', () => {
  it('a drifted agent with an unchecked part fails with both under --strict: --ignore drift alone does not pass over the unchecked part', () => {
    const drifted = withUnchecked(driftReport({ drift: [{ skill: 's', field: 'url' }], warnings: [] }), routeNew);
    expect(failureCodes(strict(drifted))).toEqual(['drift']);
    expect(failureCodes(strict(drifted), true)).toEqual(['drift', 'credential-route-new']);
    const reports = { drifted: strict(drifted) };
    // Without --strict the unchecked part passes: ignoring drift passes the agent over.
    expect(ignoreFailures({ drifted }, new Set(['drift'])).agents.drifted).toMatchObject({ ignored: true });
    // Under --strict an agent merely unchecked fails; one that also drifted must not pass for ignoring drift.
    const underStrict = ignoreFailures(reports, new Set(['drift']), true);
    expect(underStrict.agents.drifted).not.toHaveProperty('ignored');
    expect(underStrict.exitCode).toBe(ExitCode.Drift);
    expect(ignoreFailures(reports, new Set(['drift', 'credential-route-new']), true).exitCode).toBe(ExitCode.Ok);
  });
});

describe('VERIFY_FAILURE_CODES', () => {
  it("docs/reference/commands/verify.md's table of failure codes lists exactly these", () => {
    const table = section(page('docs/reference/commands/verify.md'), 'Failure codes').filter((l) =>
      l.startsWith('| `'),
    );
    const listed = table.flatMap((l) => [...cells(l)[0]!.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!));
    expect(listed.sort()).toEqual([...VERIFY_FAILURE_CODES].sort());
  });
});
