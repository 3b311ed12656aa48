/** The job summary of verify (GITHUB_STEP_SUMMARY): its markdown, the escaping of untrusted text, and the append. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifySummary } from '../../src/cli/render/verify.js';
import { annotationsOnce, appendStepSummary, escapeMarkdown, summaryMarker } from '../../src/cli/step-summary.js';
import type { VerifyData } from '../../src/commands/verify.js';
import { ExitCode } from '../../src/errors.js';

describe('escapeMarkdown', () => {
  it('leaves nothing a card wrote able to become HTML, a link, a mention, a table cell break or a new line', () => {
    const hostile =
      '<img src=x onerror=alert(1)> | [click](https://evil.example) **bold** `code` @octocat\n| forged | row |\u202e&amp;';
    const out = escapeMarkdown(hostile);
    expect(out).not.toMatch(/<|>|\n|\u202e/);
    // `(` and `)` make no link without `[` and `]`: those are escaped, the parentheses are left.
    expect(out).not.toMatch(/(^|[^\\])[|[\]*`]/);
    expect(out).not.toContain('@');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(out).toContain('\\[click\\](https\\://evil.example)');
    expect(out).toContain('\\\\u000a');
    expect(out).toContain('&amp;amp;');
    expect(escapeMarkdown('plain words')).toBe('plain words');
  });

  it('escapes only what markdown would read there: file names, ids, versions and URLs in running text stay readable', () => {
    expect(escapeMarkdown('a2a.json: revision HEAD (refs/heads/main at 0123456789ab)')).toBe(
      'a2a.json: revision HEAD (refs/heads/main at 0123456789ab)',
    );
    expect(escapeMarkdown('research-agent 2.4.0 snake_case ~/a2a.lock.json')).toBe(
      'research-agent 2.4.0 snake\\_case \\~/a2a.lock.json'.replace('snake\\_case', 'snake_case'),
    );
    // What would open a block at the start of a line, and emphasis at a word's edge, is escaped.
    expect(['# x', '- x', '+ x', '1. x', '2) x', '---', '===', '_x_', '*x*'].map(escapeMarkdown)).toEqual([
      '\\# x',
      '\\- x',
      '\\+ x',
      '1\\. x',
      '2\\) x',
      '\\---',
      '\\===',
      '\\_x\\_',
      '\\*x\\*',
    ]);
    // Still no link: no autolink, no image, no issue reference, no math, no strikethrough.
    expect(escapeMarkdown('https://evil.example www.evil.example mailto:a@b.c ![i](x) #12 $m$ ~s~')).toBe(
      'https\\://evil.example www\\.evil.example mailto\\:a&#64;&#8203;b.c !\\[i\\](x) \\#12 \\$m\\$ \\~s\\~',
    );
  });
});

describe('verifySummary', () => {
  const data: VerifyData = {
    ok: true,
    base: {
      status: 'read',
      rev: '0123456789abcdef0123',
      ref: 'refs/remotes/origin/main',
      source: 'GITHUB_BASE_REF',
      lockfile: 'present',
    },
    agents: {
      research: { status: 'ok', exitCode: ExitCode.Ok },
      evil: {
        status: 'unchecked',
        exitCode: ExitCode.Ok,
        reason: 'credential-route-new',
        unchecked: 'checked with credentials after this change is merged; review it in a2a diff',
        routes: [{ origin: 'https://evil.example.net', scheme: 'bearer' }],
      },
      moved: {
        status: 'drift',
        exitCode: ExitCode.Drift,
        drift: [{ skill: 'market-size', field: 'url', locked: 'https://a.example/x', fresh: 'https://b.example/<y>|' }],
      },
    },
    human: {
      exitCode: ExitCode.Drift,
      offline: false,
      strict: false,
      lockfile: '/repo/a2a.lock.json',
      manifest: 'a2a.json',
    },
  };

  it('a heading, counts, the base and a table, untrusted text escaped', () => {
    expect(verifySummary(data)).toBe(
      [
        '### a2a verify: ❌ verify failed (exit 1)',
        '',
        '1 ok · 1 unchecked · 1 drift',
        '',
        'Credentials were sent only along the routes the lockfile of base 0123456789ab (GITHUB_BASE_REF: merge-base with refs/remotes/origin/main) had.',
        '',
        '| Agent | Status | Detail |',
        '|---|---|---|',
        '| research | ✅ ok |  |',
        '| evil | ⚠️ unchecked | credential-route-new: checked with credentials after this change is merged; review it in a2a diff; credential withheld: bearer to https\\://evil.example.net |',
        '| moved | ❌ drift | market-size › url: "https\\://a.example/x" → "https\\://b.example/&lt;y&gt;\\|" |',
        '',
      ].join('\n'),
    );
  });

  it('exit 0 with an unchecked agent is no plain pass: the heading says how many were not checked (found by a new user)', () => {
    const { moved: _drifted, ...agents } = data.agents;
    const passed: VerifyData = { ...data, agents, human: { ...data.human, exitCode: ExitCode.Ok } };
    expect(verifySummary(passed).split('\n')[0]).toBe('### a2a verify: ⚠️ verified 2 agents, 1 unchecked');
    const { evil: _unchecked, ...clean } = agents;
    expect(verifySummary({ ...passed, agents: clean }).split('\n')[0]).toBe('### a2a verify: ✅ verified 1 agent');
  });

  it('a manifest other than the root a2a.json is named in the heading; counts by outcome (error codes, ignored); an ignored agent marked', () => {
    const agents: VerifyData['agents'] = {
      ...data.agents,
      down: { status: 'error', exitCode: ExitCode.Unreachable, error: { code: 'unreachable', message: 'x' } },
      slow: { status: 'error', exitCode: ExitCode.Timeout, error: { code: 'timeout', message: 'y' }, ignored: true },
    };
    const out = verifySummary({ ...data, agents, human: { ...data.human, manifest: 'services/billing/a2a.json' } });
    expect(out.split('\n')[0]).toBe('### a2a verify services/billing/a2a.json: ❌ verify failed (exit 1)');
    expect(out.split('\n')[2]).toBe('1 ok · 1 unchecked · 1 drift · 1 unreachable · 1 ignored');
    expect(out).toContain('| slow | ❌ error (ignored) | timeout: y |');
  });

  it('an unreadable base says no credential was sent and how to fetch it', () => {
    const unreadable: VerifyData = {
      ...data,
      base: {
        status: 'unreadable',
        source: 'GITHUB_BASE_REF',
        reason: "the pull request's base (origin/main) is not in this clone",
        hint: 'actions/checkout with `fetch-depth: 0`',
      },
    };
    expect(verifySummary(unreadable)).toContain(
      "**No credential was sent**: the pull request's base (origin/main) is not in this clone. To check with credentials, actions/checkout with \\`fetch-depth: 0\\`.",
    );
  });

  it('bounds each detail cell, and counts the rows past its limit instead of losing the summary', () => {
    const long = '@x'.repeat(10_000);
    const agents: VerifyData['agents'] = {};
    for (let i = 0; i < 600; i++)
      agents[`a${String(i).padStart(3, '0')}`] = {
        status: 'error',
        exitCode: ExitCode.Unreachable,
        error: { code: 'unreachable', message: long },
      } as VerifyData['agents'][string];
    const out = verifySummary({ ...data, ok: false, agents, human: { ...data.human, exitCode: ExitCode.Unreachable } });
    expect(out.length).toBeLessThan(600_000);
    const rows = out.split('\n').filter((l) => l.startsWith('| a'));
    for (const row of rows) expect(row.length).toBeLessThan(14_000);
    expect(rows[0]).toContain('…');
    expect(out).toMatch(
      new RegExp(
        `_${600 - rows.length} more agents not in the table \\(${600 - rows.length} error\\); run \`a2a verify\` to see all\\._`,
      ),
    );
  });
});

describe('appendStepSummary', () => {
  it('appends to the file GITHUB_STEP_SUMMARY names, nothing without it, and a warning when it cannot be written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-summary-'));
    try {
      const file = join(dir, 'summary.md');
      const errors: string[] = [];
      const target = (env: Record<string, string>) => ({ env, stderr: (t: string) => void errors.push(t) });
      appendStepSummary(target({ GITHUB_STEP_SUMMARY: file }), '# one');
      appendStepSummary(target({ GITHUB_STEP_SUMMARY: file }), '# two\n');
      appendStepSummary(target({}), '# never');
      expect(readFileSync(file, 'utf8')).toBe(
        `${summaryMarker('', '# one')}\n# one\n\n${summaryMarker('', '# two\n')}\n# two\n\n`,
      );
      appendStepSummary(target({ GITHUB_STEP_SUMMARY: join(dir, 'no', 'such', 'dir.md') }), '# lost');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^warning step-summary-failed: GITHUB_STEP_SUMMARY \(.*\) could not be written/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes a section once per job: not again in the same step (its marker is in the file), nor in a later step (the job state under RUNNER_TEMP); again in another job, or for another manifest or content', () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-summary-'));
    try {
      const errors: string[] = [];
      const job = { RUNNER_TEMP: join(dir, 'temp'), GITHUB_RUN_ID: '7', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'review' };
      const step = (n: number, env: Record<string, string> = job) => ({
        env: { ...env, GITHUB_STEP_SUMMARY: join(dir, `step-${n}.md`) },
        stderr: (t: string) => void errors.push(t),
      });
      const read = (n: number) => {
        try {
          return readFileSync(join(dir, `step-${n}.md`), 'utf8');
        } catch {
          return '';
        }
      };
      // One step, twice: the same file; without RUNNER_TEMP the marker in the file alone keeps it once.
      appendStepSummary(step(1, {}), '# diff', 'diff a2a.json');
      appendStepSummary(step(1, {}), '# diff', 'diff a2a.json');
      expect(read(1)).toBe(`${summaryMarker('diff a2a.json', '# diff')}\n# diff\n\n`);
      // Two steps of one job: two files, the second left empty.
      appendStepSummary(step(2), '# diff', 'diff a2a.json');
      appendStepSummary(step(3), '# diff', 'diff a2a.json');
      expect(read(2)).toContain('# diff');
      expect(read(3)).toBe('');
      // Another manifest, other content, another job (or attempt): written.
      appendStepSummary(step(3), '# diff', 'diff services/billing/a2a.json');
      appendStepSummary(step(3), '# diff changed', 'diff a2a.json');
      appendStepSummary(step(4, { ...job, GITHUB_JOB: 'deploy' }), '# diff', 'diff a2a.json');
      appendStepSummary(step(5, { ...job, GITHUB_RUN_ATTEMPT: '2' }), '# diff', 'diff a2a.json');
      expect(read(3).match(/^# diff/gm)).toHaveLength(2);
      expect(read(4)).toContain('# diff');
      expect(read(5)).toContain('# diff');
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('annotationsOnce', () => {
  it('prints each workflow command once per job (RUNNER_TEMP), every one outside a job', () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-annotations-'));
    try {
      const job = { RUNNER_TEMP: dir, GITHUB_RUN_ID: '7', GITHUB_JOB: 'review' };
      const a = '::error file=a2a.lock.json,line=3,title=x: new-credential-destination::…';
      const b = '::warning file=a2a.lock.json,line=9,title=y: scopes-widened::…';
      expect(annotationsOnce(job, [a])).toEqual([a]);
      expect(annotationsOnce(job, [a, b])).toEqual([b]);
      expect(annotationsOnce(job, [a, b])).toEqual([]);
      expect(annotationsOnce({ ...job, GITHUB_JOB: 'other' }, [a])).toEqual([a]);
      expect(annotationsOnce({}, [a, b])).toEqual([a, b]);
      expect(annotationsOnce({}, [a, b])).toEqual([a, b]);
      // A state that cannot be written removes nothing.
      expect(annotationsOnce({ RUNNER_TEMP: join(dir, 'missing', '\0') }, [a])).toEqual([a]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
