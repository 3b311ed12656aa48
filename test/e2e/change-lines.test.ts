/**
 * A change line of the review (text, and markdown where the command has it) is never cut in the
 * middle of a JSON value (issue 36, "A review shows only what changed"): a real SDK agent's card
 * gains many interfaces, a skill with many modes and a long description; every value shown by
 * verify, outdated, update (text and markdown) and diff (text and markdown) parses as whole values of the lockfiles around the `… N more`
 * markers, and each line stays bounded.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { closeFetcher } from '../../src/index.js';
import { git, lockedRepository, lockPath, runCli, sampleCard, show } from './helpers.js';

/** Every string (key or value) in a JSON value. */
function stringsOf(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, into);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      stringsOf(v, into);
    }
  return into;
}

/**
 * The JSON values one side of a change line shows: the `… N more` markers (with the comma beside
 * each) removed and a left-out string read as `null`, it must parse; every string in it must be a
 * whole string of the lockfiles (`known`).
 */
function expectWholeValues(side: string, known: Set<string>, line: string): void {
  const text = withoutMarkers(side);
  let parsed: unknown;
  expect(() => {
    parsed = JSON.parse(text);
  }, `not whole JSON values: ${side}\n  in: ${line}`).not.toThrow();
  for (const s of stringsOf(parsed))
    expect(known, `"${s}" is not a whole string of the card\n  in: ${line}`).toContain(s);
}

/** One side of a change line without its `… N more` markers (and the comma beside each), a left-out string read as `null`. */
function withoutMarkers(side: string): string {
  return side
    .replace(/… \(string, \d+ characters\)/g, 'null')
    .replace(/,?… \d+ more,?/g, (m) => (m.startsWith(',') && m.endsWith(',') ? ',' : ''));
}

/** The value sides of the change lines in `output`: card changes (`+ $.path: v tag`, `~ $.path: a → b tag`) and plan changes (`plan s › field: a → b`). */
function changeSides(output: string): Array<{ line: string; sides: string[] }> {
  const found: Array<{ line: string; sides: string[] }> = [];
  for (const line of output.split('\n')) {
    const card = /^\s*[+~-] \$.*?: (.*) (?:structural|descriptive)$/.exec(line);
    const plan = /^\s*plan \S+ › \S+: (.*)$/.exec(line);
    const value = card?.[1] ?? plan?.[1];
    if (value === undefined) continue;
    const sides = value.replace(/^reordered /, '').split(' → ');
    found.push({ line, sides: sides.filter((s) => s !== '(absent)') });
  }
  return found;
}

describe('change lines are cut only at value boundaries', () => {
  it('a long card change (many interfaces and modes, a long description) shows whole values around … N more in verify, outdated, update and diff (text and markdown)', async ({
    onTestFinished,
  }) => {
    onTestFinished(() => closeFetcher());
    const { agent, dir } = await lockedRepository(onTestFinished);
    const before = JSON.parse(await readFile(lockPath(dir), 'utf8'));
    const card = sampleCard(agent.origin);
    const modes = Array.from({ length: 14 }, (_, i) => `application/vnd.example.report-format-${i}+json`);
    const served = {
      ...card,
      description: `${'Sizes markets and produces research briefs with citations, region by region. '.repeat(8)}End.`,
      supportedInterfaces: [
        ...card.supportedInterfaces,
        ...Array.from({ length: 10 }, (_, i) => ({
          url: `${agent.origin}/a2a/region-${i}/jsonrpc`,
          protocolBinding: 'JSONRPC',
          protocolVersion: '1.0',
        })),
      ],
      skills: [
        ...card.skills,
        {
          id: 'competitor-scan',
          name: 'Competitor scan',
          description: `${'Lists the competitors of a product in a region with their market share. '.repeat(6)}End.`,
          tags: ['market', 'competitors', 'research', 'regions'],
          inputModes: ['text/plain', ...modes],
          outputModes: modes,
        },
      ],
    };
    agent.setCard(served);
    const known = stringsOf([before, served]);

    const outputs: string[] = [];
    for (const args of [['verify'], ['outdated'], ['update', '--format', 'markdown'], ['update']]) {
      const r = await runCli(args, { cwd: dir });
      expect(r.code === 0 || r.code === 1, show(r)).toBe(true);
      outputs.push(r.stdout);
      // The markdown update is undone so that the text one shows the same change.
      if (args.includes('markdown')) git(dir, 'checkout', '--', 'a2a.lock.json');
    }
    const after = JSON.parse(await readFile(lockPath(dir), 'utf8'));
    stringsOf(after, known);
    for (const args of [['diff'], ['diff', '--format', 'markdown']]) {
      const r = await runCli(args, { cwd: dir });
      expect(r.code, show(r)).toBe(0);
      outputs.push(r.stdout);
    }
    expect(git(dir, 'status', '--porcelain')).toMatch(/a2a\.lock\.json/);

    const lines = outputs.flatMap(changeSides);
    expect(outputs.map((o) => changeSides(o).length > 0)).toEqual(outputs.map(() => true));
    for (const { line, sides } of lines) {
      for (const side of sides) {
        expect(side.length, line).toBeLessThanOrEqual(120);
        expectWholeValues(side, known, line);
      }
    }
    // The long values are there to be shortened: the plan's fallbacks and the added skill.
    const elided = lines.filter((l) => l.sides.some((s) => s.includes('…')));
    expect(elided.map((l) => l.line).join('\n')).toMatch(/fallbacks: .*… \d+ more/);
    expect(elided.map((l) => l.line).join('\n')).toMatch(/competitor-scan|\$\.skills.*… \d+ more/);
  });

  it('every side of a change line is canonical JSON (keys sorted), served or locked: verify, outdated and update print an interface as diff does, and one without protocolVersion is keyed `<binding> <url>`', async ({
    onTestFinished,
  }) => {
    onTestFinished(() => closeFetcher());
    const { agent, dir } = await lockedRepository(onTestFinished);
    const card = sampleCard(agent.origin);
    // The card's own key order (url first), as SDKs write it; the lockfile stores it sorted. The REST
    // interface loses its protocolVersion (as a2a-sdk serves every interface) and one is added.
    agent.setCard({
      ...card,
      supportedInterfaces: [
        card.supportedInterfaces[0],
        { url: `${agent.origin}/a2a/rest`, protocolBinding: 'HTTP+JSON' },
        { url: `${agent.origin}/a2a/v2`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
    });
    const interfaceLines = (output: string) =>
      output
        .split('\n')
        .filter((l) => /^\s*[+~-] \$\.supportedInterfaces\[/.test(l))
        .map((l) => l.trim());
    const sortedKeys = (value: unknown): boolean =>
      Array.isArray(value)
        ? value.every(sortedKeys)
        : value === null || typeof value !== 'object'
          ? true
          : Object.keys(value).join('\n') === Object.keys(value).sort().join('\n') &&
            Object.values(value).every(sortedKeys);

    const seen: Record<string, string[]> = {};
    const outputs: string[] = [];
    for (const args of [['verify'], ['outdated'], ['update']]) {
      const r = await runCli(args, { cwd: dir });
      expect(r.code === 0 || r.code === 1, show(r)).toBe(true);
      seen[args[0]!] = interfaceLines(r.stdout);
      outputs.push(r.stdout);
    }
    const diff = await runCli(['diff'], { cwd: dir });
    expect(diff.code, show(diff)).toBe(0);
    seen.diff = interfaceLines(diff.stdout);
    outputs.push(diff.stdout);

    const rest = `$.supportedInterfaces["HTTP+JSON ${agent.origin}/a2a/rest"]`;
    expect(seen.diff).toEqual([
      `- $.supportedInterfaces["HTTP+JSON 1.0 ${agent.origin}/a2a/rest"]: {"protocolBinding":"HTTP+JSON","protocolVersion":"1.0","url":"${agent.origin}/a2a/rest"} structural`,
      `+ ${rest}: {"protocolBinding":"HTTP+JSON","url":"${agent.origin}/a2a/rest"} structural`,
      `+ $.supportedInterfaces["JSONRPC 1.0 ${agent.origin}/a2a/v2"]: {"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"${agent.origin}/a2a/v2"} structural`,
    ]);
    // The served card (verify, outdated, update) and the two lockfiles (diff) read alike, line for line.
    expect(seen).toEqual({ verify: seen.diff, outdated: seen.diff, update: seen.diff, diff: seen.diff });
    // Every value of every change line (the plans' fallbacks too), in every command's output.
    const sides = outputs.flatMap(changeSides).flatMap(({ line, sides }) => sides.map((side) => ({ line, side })));
    expect(sides.length).toBeGreaterThan(12);
    for (const { line, side } of sides) expect(sortedKeys(JSON.parse(withoutMarkers(side))), line).toBe(true);
  });
});
