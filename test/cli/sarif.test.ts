/**
 * The SARIF builder (`src/cli/render/sarif.ts`) without a process: every log valid against the
 * OASIS SARIF 2.1.0 schema (test/fixtures/sarif), the 5,000-result cap (highest level first, the
 * rest counted), fingerprints that ignore the line, bounded messages, one rule per risk code and
 * verify's failures at the agent's line of the lockfile (of the manifest for an agent it lacks).
 */
import { describe, expect, it } from 'vitest';
import {
  diffSarif,
  SARIF_MAX_RESULTS,
  SARIF_TEXT_LIMIT,
  type SarifFinding,
  type SarifLevel,
  type SarifRunSpec,
  sarifLog,
  sarifMessageText,
  verifySarif,
} from '../../src/cli/render/sarif.js';
import type { DiffData } from '../../src/commands/diff.js';
import type { VerifyData } from '../../src/commands/verify.js';
import { memberLines } from '../../src/json-document.js';
import { noCounts } from '../../src/lock/lockfile-diff.js';
import { RISK_CODES } from '../../src/lock/risk-codes.js';
import { page } from '../helpers/markdown.js';
import { located, sarifErrors } from '../helpers/sarif.js';

const TOOL = { name: 'a2a-lock', version: '0.1.0' };

/** A run of `findings` with two rules. */
function spec(findings: SarifFinding[]): SarifRunSpec {
  return {
    tool: TOOL,
    command: 'diff',
    manifest: 'a2a.json',
    reference: 'docs/reference/risk-codes.md',
    rules: [
      { id: 'a', level: 'error', severity: 'high', text: 'Rule a. More about a.' },
      { id: 'b', level: 'note', text: 'Rule b.' },
    ],
    findings,
  };
}

/** `n` findings cycling through note, warning and error, each of its own agent, at line `line(i)`. */
function generated(n: number, line: (i: number) => number = (i) => i + 1): SarifFinding[] {
  const levels: SarifLevel[] = ['note', 'warning', 'error'];
  return Array.from({ length: n }, (_, i) => ({
    ruleId: i % 2 ? 'a' : 'b',
    level: levels[i % 3]!,
    message: `agent-${i}: finding ${i}`,
    agent: `agent-${i}`,
    ...(i % 4 === 0 ? { skill: `skill-${i}` } : {}),
    path: 'a2a.lock.json',
    line: line(i),
  }));
}

const runOf = (log: unknown): any => (log as { runs: unknown[] }).runs[0];

describe('the SARIF builder', () => {
  it('the schema copy validates: it refuses a log that is not SARIF 2.1.0', () => {
    expect(sarifErrors({ version: '2.0.0', runs: [] })).not.toEqual([]);
    expect(sarifErrors({ version: '2.1.0', runs: [{ tool: { driver: {} } }] })).not.toEqual([]);
    expect(sarifErrors({ version: '2.1.0', runs: [] })).toEqual([]);
  });

  it('at most 5,000 results, errors first, then warnings, then notes; the rest counted in properties and a notification; valid SARIF', () => {
    const log = sarifLog(spec(generated(7_000)));
    expect(sarifErrors(log)).toEqual([]);
    const run = runOf(log);
    expect(run.results).toHaveLength(SARIF_MAX_RESULTS);
    const levels = run.results.map((r: { level: SarifLevel }) => r.level);
    // 7,000 findings: 2,333 errors, 2,333 warnings, 2,334 notes; the notes past 5,000 are left out.
    const count = (level: SarifLevel) => levels.filter((l: string) => l === level).length;
    expect([count('error'), count('warning'), count('note')]).toEqual([2_333, 2_333, 334]);
    expect(levels).toEqual(
      [...levels].sort(
        (a: SarifLevel, b: SarifLevel) =>
          ['error', 'warning', 'note'].indexOf(a) - ['error', 'warning', 'note'].indexOf(b),
      ),
    );
    expect(run.properties).toEqual({ results: 7_000, resultsOmitted: 2_000 });
    expect(run.invocations[0].toolExecutionNotifications[0].message.text).toBe(
      '2000 of 7000 results left out: a run holds at most 5000 (highest level first); run a2a diff to see all',
    );
    // Under the cap: everything, no notification.
    const small = runOf(sarifLog(spec(generated(10))));
    expect(small.results).toHaveLength(10);
    expect(small.properties).toEqual({ results: 10, resultsOmitted: 0 });
    expect(small.invocations).toEqual([{ executionSuccessful: true }]);
  });

  it('a finding --ignore passed over carries a suppression (code scanning keeps it closed) and goes last past the cap; valid SARIF', () => {
    // The error is ignored: it goes after the warning and the note.
    const findings = generated(3).map((f, i) => (i === 2 ? { ...f, ignored: true } : f));
    const run = runOf(sarifLog(spec(findings)));
    expect(sarifErrors(sarifLog(spec(findings)))).toEqual([]);
    const suppressed = run.results.filter((r: { suppressions?: unknown }) => r.suppressions);
    expect(suppressed).toHaveLength(1);
    expect(suppressed[0].suppressions).toEqual([
      { kind: 'external', justification: `--ignore ${findings[2]!.ruleId}` },
    ]);
    expect(run.results.at(-1).suppressions).toBeDefined();
  });

  it('every result has a physical location with a region (line 1 at least), a rule, and a fingerprint', () => {
    const findings = generated(5, (i) => (i === 0 ? 0 : i * 10));
    const run = runOf(sarifLog(spec(findings)));
    for (const r of run.results) {
      expect(r.locations).toHaveLength(1);
      expect(r.locations[0].physicalLocation.artifactLocation.uri).toBe('a2a.lock.json');
      expect(r.locations[0].physicalLocation.region.startLine).toBeGreaterThanOrEqual(1);
      expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
      expect(r.partialFingerprints.primaryLocationLineHash).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(run.automationDetails.id).toBe('a2a-lock/diff/a2a.json/');
    expect(run.tool.driver.rules[0]).toEqual({
      id: 'a',
      shortDescription: { text: 'Rule a' },
      fullDescription: { text: 'Rule a. More about a.' },
      help: { text: 'Rule a. More about a. See docs/reference/risk-codes.md (a).' },
      defaultConfiguration: { level: 'error' },
      properties: { tags: ['security'], 'security-severity': '8.0', precision: 'very-high' },
    });
    expect(run.tool.driver.rules[1].properties).toEqual({ precision: 'very-high' });
  });

  it('fingerprints come from agent, skill and code, never the line: an alert survives lines moving; equal findings stay apart', () => {
    const prints = (line: (i: number) => number) =>
      runOf(sarifLog(spec(generated(50, line)))).results.map(
        (r: { partialFingerprints: { primaryLocationLineHash: string } }) =>
          r.partialFingerprints.primaryLocationLineHash,
      );
    const before = prints((i) => i + 1);
    const moved = prints((i) => 1_000 + 7 * i);
    expect(moved).toEqual(before);
    expect(new Set(before).size).toBe(50);
    // Two findings of one agent, skill and code (two new credential routes): two fingerprints.
    const twice = generated(1);
    const run = runOf(sarifLog(spec([...twice, { ...twice[0]!, message: 'another', line: 99 }])));
    expect(run.results[0].partialFingerprints).not.toEqual(run.results[1].partialFingerprints);
  });

  it('messages from cards are bounded and stay JSON: control and bidi characters escaped by JSON, the text cut at 1,000 code points', () => {
    const hostile = `x\u001b[31m\u202e\u0000"\\${'é'.repeat(5_000)}`;
    const log = sarifLog(
      spec([
        {
          ruleId: 'a',
          level: 'error',
          message: hostile,
          agent: hostile,
          path: 'dir with space/a2a.lock.json',
          line: 3,
        },
      ]),
    );
    expect(sarifErrors(log)).toEqual([]);
    const result = runOf(JSON.parse(JSON.stringify(log))).results[0];
    expect([...result.message.text]).toHaveLength(SARIF_TEXT_LIMIT);
    // Literal plain text: `[` and `\` escaped (the escaper's own test is below).
    expect(result.message.text.startsWith('x\u001b\\[31m\u202e\u0000"\\\\')).toBe(true);
    expect([...result.properties.agent]).toHaveLength(SARIF_TEXT_LIMIT);
    expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe('dir%20with%20space/a2a.lock.json');
    expect(JSON.stringify(log)).not.toMatch(/[\u0000-\u001f]/);
  });

  it('sarifMessageText: literal plain text (SARIF §3.11), no embedded link, no placeholder; cut never inside an escape', () => {
    const link = '[Approved by security](https://evil.example/ok)';
    expect(sarifMessageText(`version 2.4.0 → ${link}`)).toBe(
      'version 2.4.0 → \\[Approved by security\\](https://evil.example/ok)',
    );
    expect(sarifMessageText('C:\\cards\\{0} and {1}')).toBe('C:\\\\cards\\\\{{0}} and {{1}}');
    // At the limit: an escaped pair that would cross it is left out whole, before the ellipsis.
    expect(sarifMessageText(`${'a'.repeat(997)}[`)).toBe(`${'a'.repeat(997)}\\[`);
    expect(sarifMessageText(`${'a'.repeat(998)}[b`)).toBe(`${'a'.repeat(998)}…`);
    expect([...sarifMessageText(`${'a'.repeat(997)}[b[`)]).toHaveLength(SARIF_TEXT_LIMIT);
    expect(sarifMessageText(`${'a'.repeat(997)}[b[`)).toBe(`${'a'.repeat(997)}\\[…`);
  });

  it('diff and verify logs: a card version, an extension URI, an error and an agent name from a pull request reach message.text escaped', () => {
    const link = '[Approved by security](https://evil.example/ok)';
    const diff = {
      ok: true,
      base: { kind: 'revision', label: 'main', found: true },
      head: { kind: 'worktree', label: '/r/a2a.lock.json', found: true },
      counts: noCounts(),
      agents: {
        '[ok]': {
          verdict: 'changed',
          card: 'https://a.example/card.json',
          version: {},
          signature: {},
          changes: { cardChanges: [], planChanges: [], signatureChanges: [] } as never,
          settingsChanges: [],
          risks: [
            { code: 'card-version-rollback', level: 'medium', message: `card version went down: 2.4.0 → ${link}` },
            {
              code: 'required-extension-added',
              level: 'medium',
              message: `the card now requires extension {0}${link}`,
            },
          ],
          better: [],
          level: 'medium',
        },
      },
      human: { names: ['[ok]'], lockfile: '/r/a2a.lock.json', manifest: 'a2a.json', lines: {} },
    } as unknown as DiffData;
    const verify = {
      ok: false,
      agents: {
        research: {
          status: 'error',
          exitCode: 3,
          error: { code: 'card-invalid', message: `https://a.example/card.json: version ${link} \\` },
        },
      },
      human: { exitCode: 3, offline: false, strict: false, manifest: 'a2a.json', lockfile: '/r/a2a.lock.json' },
    } as unknown as VerifyData;
    const texts = [diffSarif(diff, TOOL), verifySarif(verify, TOOL)].flatMap((log) => {
      expect(sarifErrors(log)).toEqual([]);
      return runOf(log).results.map((r: { message: { text: string } }) => r.message.text as string);
    });
    expect(texts).toEqual([
      '\\[ok\\]: card version went down: 2.4.0 → \\[Approved by security\\](https://evil.example/ok)',
      '\\[ok\\]: the card now requires extension {{0}}\\[Approved by security\\](https://evil.example/ok)',
      'research not verified: card-invalid: https://a.example/card.json: version \\[Approved by security\\](https://evil.example/ok) \\\\',
    ]);
    // Read back as SARIF's grammar reads plain text, none of them holds an embedded link or a placeholder.
    for (const text of texts) {
      expect(text).not.toMatch(/(^|[^\\])(\\\\)*\[[^\]]*\]\(/);
      expect(text.replace(/\{\{|\}\}/g, '')).not.toMatch(/[{}]/);
    }
  });

  it("diff: one rule per risk code at its level; a credential source's risk on the manifest, an agent gone at line 1", () => {
    const data: DiffData = {
      ok: true,
      base: { kind: 'revision', label: 'main', found: true },
      head: { kind: 'worktree', label: '/r/a2a.lock.json', found: true },
      counts: noCounts(),
      agents: {
        research: {
          verdict: 'changed',
          card: 'https://a.example/card.json',
          version: {},
          signature: {},
          changes: { cardChanges: [], planChanges: [], signatureChanges: [] } as never,
          settingsChanges: [],
          risks: [
            { code: 'credential-source-changed', level: 'high', message: 'bearer now from X' },
            { code: 'output-modes-changed', level: 'medium', message: 'modes', skill: 'market-size' },
          ],
          better: [],
          level: 'high',
        },
        gone: {
          verdict: 'removed',
          card: 'https://b.example/card.json',
          version: {},
          signature: {},
          changes: { cardChanges: [], planChanges: [], signatureChanges: [] } as never,
          settingsChanges: [],
          risks: [{ code: 'agent-removed', level: 'info', message: 'agent removed from the lockfile' }],
          better: [],
          level: 'info',
        },
      },
      human: {
        names: ['gone', 'research'],
        lockfile: '/r/svc/a2a.lock.json',
        manifest: 'svc/a2a.json',
        lines: {},
        files: {
          lockfile: { path: 'svc/a2a.lock.json', lines: { research: 12 } },
          manifest: { path: 'svc/a2a.json', lines: { research: 4 } },
        },
      },
    };
    const log = diffSarif(data, TOOL);
    expect(sarifErrors(log)).toEqual([]);
    const run = runOf(log);
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual(Object.keys(RISK_CODES));
    const level = (id: string) =>
      run.tool.driver.rules.find((r: { id: string }) => r.id === id).defaultConfiguration.level;
    expect([
      level('new-credential-destination'),
      level('origin-changed'),
      level('skill-added'),
      level('agent-added'),
    ]).toEqual(['error', 'warning', 'note', 'note']);
    expect(run.automationDetails.id).toBe('a2a-lock/diff/svc/a2a.json/');
    expect(located(run)).toEqual([
      ['credential-source-changed', 'error', 'svc/a2a.json', 4, 'research', undefined],
      ['output-modes-changed', 'warning', 'svc/a2a.lock.json', 12, 'research', 'market-size'],
      ['agent-removed', 'note', 'svc/a2a.lock.json', 1, 'gone', undefined],
    ]);
    expect(run.results.map((r: { message: { text: string } }) => r.message.text)).toEqual([
      'research: bearer now from X',
      'research › market-size: modes',
      'gone: agent removed from the lockfile',
    ]);
  });

  it("verify: one result per failing agent (as its annotation), at its lockfile line, or the manifest's for an agent the lockfile lacks", () => {
    const data: VerifyData = {
      ok: false,
      agents: {
        fine: { status: 'ok', exitCode: 0 },
        down: {
          status: 'error',
          exitCode: 3,
          error: { code: 'unreachable', message: 'http://127.0.0.1:9/card.json: connection refused' },
        },
        moved: { status: 'drift', exitCode: 1, drift: [{ skill: 's', field: 'url', locked: 'a', fresh: 'b' }] },
        fresh: { status: 'out-of-date', exitCode: 1, reasons: ['not in the lockfile'] },
        routed: { status: 'unchecked', exitCode: 0, reason: 'credential-route-new', unchecked: 'not sent' },
        odd: { status: 'error', exitCode: 2, error: { code: 'profile-invalid', message: 'bad' } },
      },
      human: {
        exitCode: 1,
        offline: false,
        strict: false,
        manifest: 'a2a.json',
        lockfile: '/r/a2a.lock.json',
        files: {
          lockfile: { path: 'a2a.lock.json', lines: { fine: 5, down: 20, moved: 40, routed: 60, odd: 80 } },
          manifest: { path: 'a2a.json', lines: { fine: 3, down: 8, moved: 13, fresh: 18, routed: 23, odd: 28 } },
        },
      },
    };
    const log = verifySarif(data, TOOL);
    expect(sarifErrors(log)).toEqual([]);
    const run = runOf(log);
    expect(run.automationDetails.id).toBe('a2a-lock/verify/a2a.json/');
    expect(located(run)).toEqual([
      ['unreachable', 'error', 'a2a.lock.json', 20, 'down', undefined],
      ['drift', 'error', 'a2a.lock.json', 40, 'moved', undefined],
      ['out-of-date', 'error', 'a2a.json', 18, 'fresh', undefined],
      ['profile-invalid', 'error', 'a2a.lock.json', 80, 'odd', undefined],
      ['credential-route-new', 'warning', 'a2a.lock.json', 60, 'routed', undefined],
    ]);
    const ids = run.tool.driver.rules.map((r: { id: string }) => r.id);
    expect(ids).toEqual(expect.arrayContaining(['drift', 'out-of-date', 'changed', 'unreachable', 'profile-invalid']));
    expect(new Set(ids).size).toBe(ids.length);
    expect(run.results[0].message.text).toBe(
      'down not verified: unreachable: http://127.0.0.1:9/card.json: connection refused',
    );
  });

  it("verify's rules are the failure codes its reference page lists; diff's each have their text", () => {
    const data = {
      ok: true,
      agents: {},
      human: { exitCode: 0, offline: false, strict: false, lockfile: '/r/a2a.lock.json' },
    };
    const ids: string[] = runOf(verifySarif(data as VerifyData, TOOL)).tool.driver.rules.map(
      (r: { id: string }) => r.id,
    );
    const listed = page('docs/reference/commands/verify.md').split('## `--format sarif`')[1]!;
    expect(ids.filter((id) => !listed.includes(`\`${id}\``))).toEqual([]);
    expect(ids.length).toBeGreaterThan(10);
    for (const rule of runOf(
      diffSarif(
        {
          ...data,
          counts: noCounts(),
          base: {},
          head: {},
          human: { names: [], lockfile: 'a2a.lock.json', manifest: 'a2a.json', lines: {} },
        } as never,
        TOOL,
      ),
    ).tool.driver.rules)
      expect(rule.fullDescription.text.length, rule.id).toBeGreaterThan(20);
  });
});

describe('memberLines: the line of each agent key, however the JSON is laid out', () => {
  it('finds the keys of the top-level member only, not the same words elsewhere, escaped keys included', () => {
    const text = [
      '{"profile": {"research": {"x": 1}, "note": "\\"research\\": {"},',
      ' "agents": {',
      '   "writer": {"skills": ["research"], "credentials": {"research": {}}},',
      '',
      '   "research"  :',
      '     {"card": "x"}, "r\\u00e9sum\\u00e9": {}',
      ' },',
      ' "after": {"writer": 1}',
      '}',
    ].join('\n');
    JSON.parse(text);
    expect(memberLines(text, 'agents', ['research', 'writer', 'résumé', 'gone'])).toEqual({
      writer: 3,
      research: 5,
      résumé: 6,
    });
    expect(memberLines(text, 'agents', [])).toEqual({});
    expect(memberLines('{"agents": {}}', 'agents', ['a'])).toEqual({});
    expect(memberLines('{"a": [{"agents": {"x": 1}}]}', 'agents', ['x'])).toEqual({});
  });
});
