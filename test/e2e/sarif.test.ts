/**
 * `--format sarif` through the built CLI: `a2a diff` of a pull request with several risks in a real
 * git repository (lockfile and manifest both changed), `a2a verify` with an agent on a dead port;
 * each log valid against the OASIS SARIF 2.1.0 schema (test/fixtures/sarif), every result at the
 * agent's line of the lockfile (or the manifest), its fingerprint unchanged when the lines move,
 * and the same exit codes as the text format.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeFetcher } from '../../src/index.js';
import { located, sarifErrors } from '../helpers/sarif.js';
import { git, lockedRepository, manifest, ROOT, research, resources, runCli, sampleCard, show } from './helpers.js';

type Json = any;

/** The one run of a SARIF log printed on stdout, after checking it against the schema. */
function runOf(stdout: string): Json {
  const log = JSON.parse(stdout);
  expect(sarifErrors(log)).toEqual([]);
  expect(log.runs).toHaveLength(1);
  return log.runs[0];
}

/** The 1-based line of `"name": {` under `agents` in a file written with 2-space indent. */
function lineOf(dir: string, file: string, name: string): number {
  return (
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .indexOf(`    ${JSON.stringify(name)}: {`) + 1
  );
}

describe.concurrent('--format sarif', () => {
  it('a2a diff: a pull request with several risks, one result each at the agent line of the lockfile (the manifest for a credential source); fingerprints survive lines moving; --fail-on still exits 1', async ({
    onTestFinished,
  }) => {
    onTestFinished(() => closeFetcher());
    const { agent, dir } = await lockedRepository(onTestFinished);
    const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env });

    // The pull request: the card drops application/json (update takes it), the manifest reads the
    // bearer token from another variable, and a new agent holding a credential is added.
    const card = sampleCard(agent.origin, { version: '2.5.0' });
    card.skills[0]!.outputModes = ['application/pdf', 'text/plain'];
    agent.setCard(card);
    git(dir, 'checkout', '-q', '-b', 'feature');
    const update = await cli(['update', 'research']);
    expect(update.code, show(update)).toBe(0);
    const edited = JSON.parse(readFileSync(join(dir, 'a2a.json'), 'utf8'));
    edited.agents.research.credentials.bearer.env = 'PROD_DEPLOY_TOKEN';
    edited.agents.writer = research(agent.origin);
    writeFileSync(join(dir, 'a2a.json'), `${JSON.stringify(edited, null, 2)}\n`);
    const lock = await cli(['lock']);
    expect(lock.code, show(lock)).toBe(0);

    const [sarif, failHigh, text, annotated] = await Promise.all([
      cli(['diff', 'main', '--format', 'sarif']),
      cli(['diff', 'main', '--format', 'sarif', '--fail-on', 'high']),
      cli(['diff', 'main', '--fail-on', 'high']),
      cli(['diff', 'main', '--format', 'sarif'], { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir }),
    ]);
    expect(sarif.code, show(sarif)).toBe(0);
    expect(sarif.stderr).toBe('');
    const run = runOf(sarif.stdout);
    expect(run.tool.driver.name).toBe('a2a-lock');
    expect(run.tool.driver.version).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    expect(run.automationDetails.id).toBe('a2a-lock/diff/a2a.json/');
    const researchLine = lineOf(dir, 'a2a.lock.json', 'research');
    const writerLine = lineOf(dir, 'a2a.lock.json', 'writer');
    expect(researchLine).toBeGreaterThan(1);
    expect(writerLine).toBeGreaterThan(researchLine);
    // A result's row as `located` gives it, its line read from the file as it is now.
    const row = (code: string, level: string, file: string, agent: string, skill?: string) => [
      code,
      level,
      file,
      lineOf(dir, file, agent),
      agent,
      skill,
    ];
    const results = located(run);
    expect(results).toEqual(
      expect.arrayContaining([
        row('credential-source-changed', 'error', 'a2a.json', 'research'),
        row('new-credential-destination', 'error', 'a2a.lock.json', 'writer', 'market-size'),
        row('output-modes-changed', 'warning', 'a2a.lock.json', 'research', 'market-size'),
        row('agent-added', 'note', 'a2a.lock.json', 'writer'),
      ]),
    );
    // One result per risk of the review, highest level first, each with a rule.
    const json = JSON.parse((await cli(['diff', 'main', '--json'])).stdout);
    const risks = Object.values(json.agents).flatMap((a: Json) => a.risks);
    expect(results).toHaveLength(risks.length);
    expect(results.length).toBeGreaterThanOrEqual(5);
    const rank = ['error', 'warning', 'note'];
    expect(results.map((r) => rank.indexOf(r[1]))).toEqual(results.map((r) => rank.indexOf(r[1])).sort());
    const ruleIds = run.tool.driver.rules.map((r: Json) => r.id);
    for (const r of run.results) expect(ruleIds[r.ruleIndex]).toBe(r.ruleId);
    // The exit code is the text format's.
    expect([failHigh.code, text.code]).toEqual([1, 1]);
    runOf(failHigh.stdout);
    // Under GitHub Actions stdout stays the log: the annotations go to stderr.
    expect(annotated.code, show(annotated)).toBe(0);
    runOf(annotated.stdout);
    expect(annotated.stderr).toMatch(/^::error file=a2a\.lock\.json,line=\d+,title=writer/m);

    // Lines move (an agent sorted before the others is added): every earlier alert keeps its fingerprint.
    edited.agents.alpha = research(agent.origin);
    writeFileSync(join(dir, 'a2a.json'), `${JSON.stringify(edited, null, 2)}\n`);
    expect((await cli(['lock'])).code).toBe(0);
    expect(lineOf(dir, 'a2a.lock.json', 'research')).toBeGreaterThan(researchLine);
    const moved = runOf((await cli(['diff', 'main', '--format', 'sarif'])).stdout);
    const prints = (r: Json) =>
      r.results
        .filter((x: Json) => x.properties.agent !== 'alpha')
        .map((x: Json) => [x.ruleId, x.properties.agent, x.partialFingerprints.primaryLocationLineHash])
        .sort();
    expect(prints(moved)).toEqual(prints(run));
    expect(located(moved)).toContainEqual(
      row('output-modes-changed', 'warning', 'a2a.lock.json', 'research', 'market-size'),
    );

    // A second manifest in a folder (none at the base): its paths from the repository root, its own category.
    mkdirSync(join(dir, 'svc'));
    copyFileSync(join(dir, 'a2a.json'), join(dir, 'svc', 'a2a.json'));
    copyFileSync(join(dir, 'a2a.lock.json'), join(dir, 'svc', 'a2a.lock.json'));
    const svc = await runCli(['diff', 'main', '--format', 'sarif', '--manifest', 'svc/a2a.json'], { cwd: dir });
    expect(svc.code, show(svc)).toBe(0);
    const svcRun = runOf(svc.stdout);
    expect(svcRun.automationDetails.id).toBe('a2a-lock/diff/svc/a2a.json/');
    expect(located(svcRun)).toContainEqual(row('agent-added', 'note', 'svc/a2a.lock.json', 'research'));

    // --json and --format sarif contradict each other.
    const both = await cli(['diff', 'main', '--format', 'sarif', '--json']);
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stdout).error.message).toContain('--json and --format sarif contradict each other');
  });

  it('card text in a message is literal plain text: an interface URL holding a SARIF link, `[Approved by security](https://…)`, reaches message.text escaped, never as a link', async ({
    onTestFinished,
  }) => {
    onTestFinished(() => closeFetcher());
    const { agent, dir } = await lockedRepository(onTestFinished);
    const link = '[Approved-by-security](https://evil.example/ok)';
    const card = sampleCard(agent.origin);
    card.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i, url: `${i.url}/${link}` }));
    agent.setCard(card);
    const verify = await runCli(['verify', '--format', 'sarif'], { cwd: dir, env: { RESEARCH_TOKEN: 't' } });
    expect(verify.code, show(verify)).toBe(1);
    const texts: string[] = runOf(verify.stdout).results.map((r: Json) => r.message.text);
    expect(texts.join('\n')).toContain('/\\[Approved-by-security\\](https://evil.example/ok)');
    for (const text of texts) expect(text).not.toMatch(/(^|[^\\])(\\\\)*\[Approved-by-security\]\(/);
  });

  it('a2a verify: an agent on a dead port is one error result at its lockfile line (exit 3, as text); an agent the lockfile lacks, at its manifest line; --format json is --json', async ({
    onTestFinished,
  }) => {
    const res = resources(onTestFinished);
    onTestFinished(() => closeFetcher());
    const [live, gone] = await Promise.all([res.sampleAgent(), res.sampleAgent()]);
    const dir = await res.dir(manifest({ research: research(live.origin), down: research(gone.origin) }));
    git(dir, 'init', '-q', '-b', 'main');
    expect((await runCli(['lock'], { cwd: dir })).code).toBe(0);
    await gone.close();
    const cli = (args: string[], env: Record<string, string> = {}) =>
      runCli(args, { cwd: dir, env: { RESEARCH_TOKEN: 't', ...env } });
    const [sarif, text, formatJson, json, annotated] = await Promise.all([
      cli(['verify', '--format', 'sarif']),
      cli(['verify']),
      cli(['verify', '--format', 'json']),
      cli(['verify', '--json']),
      cli(['verify', '--format', 'sarif'], { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir }),
    ]);
    expect([sarif.code, text.code, formatJson.code, json.code, annotated.code], show(sarif)).toEqual([3, 3, 3, 3, 3]);
    // Under GitHub Actions stdout stays the log: the annotation goes to stderr.
    expect(runOf(annotated.stdout).results).toHaveLength(1);
    // The annotation sits where the SARIF result does: the agent's line of the lockfile.
    const at = runOf(annotated.stdout).results[0].locations[0].physicalLocation.region.startLine;
    expect(annotated.stderr).toMatch(
      new RegExp(`^::error file=a2a\\.lock\\.json,line=${at},title=down not verified::unreachable: `, 'm'),
    );
    expect(JSON.parse(formatJson.stdout)).toEqual(JSON.parse(json.stdout));
    const run = runOf(sarif.stdout);
    expect(run.automationDetails.id).toBe('a2a-lock/verify/a2a.json/');
    expect(located(run)).toEqual([
      ['unreachable', 'error', 'a2a.lock.json', lineOf(dir, 'a2a.lock.json', 'down'), 'down', undefined],
    ]);
    expect(run.results[0].message.text).toMatch(/^down not verified: unreachable: http:\/\/127\.0\.0\.1:\d+\//);
    expect(run.tool.driver.rules.map((r: Json) => r.id)).toEqual(
      expect.arrayContaining(['drift', 'out-of-date', 'unreachable', 'auth-refused', 'timeout']),
    );

    // An agent added to the manifest and not locked: out of date, on the manifest's line of it.
    const edited = JSON.parse(readFileSync(join(dir, 'a2a.json'), 'utf8'));
    edited.agents.late = research(live.origin);
    writeFileSync(join(dir, 'a2a.json'), `${JSON.stringify(edited, null, 2)}\n`);
    const stale = await cli(['verify', 'late', '--format', 'sarif']);
    expect(stale.code, show(stale)).toBe(1);
    expect(located(runOf(stale.stdout))).toEqual([
      ['out-of-date', 'error', 'a2a.json', lineOf(dir, 'a2a.json', 'late'), 'late', undefined],
    ]);
  });
});
