/**
 * The docs hold to the code and to themselves: every relative link (and #anchor) in README.md,
 * CONTRIBUTING.md and docs/ resolves; the exit-code page lists the exit codes of src/errors.ts, the risk-code
 * page the codes and levels of RISK_CODES, and the warnings page only codes the source emits.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeCard } from '../src/card/normalize.js';
import { renderExplanation } from '../src/cli/render/common.js';
import { ExitCode } from '../src/errors.js';
import { RISK_CODES } from '../src/lock/risk-codes.js';
import { DEFAULT_PROFILE } from '../src/manifest/schema.js';
import { explainNegotiation } from '../src/negotiate/explain.js';
import { RefusalCode } from '../src/negotiate/types.js';
import * as runtime from '../src/runtime/index.js';
import { anchors, brokenLinks, cells, docFiles, page, REPO, slug } from './helpers/markdown.js';
import { keyedWorkedExample } from './helpers/worked-example.js';

describe('links in the docs', () => {
  it('README.md, CONTRIBUTING.md and every page under docs/ are there', () => {
    const files = docFiles();
    expect(files).toContain('README.md');
    expect(files).toContain('CONTRIBUTING.md');
    expect(files).toContain('docs/reference/lockfile.md');
    expect(files.filter((f) => f.startsWith('docs/reference/commands/')).length).toBeGreaterThan(10);
  });

  it('every relative link and anchor resolves', () => {
    expect(docFiles().flatMap((f) => brokenLinks(f))).toEqual([]);
  });

  it('the checker finds a missing file, a missing anchor, and reads anchors as GitHub writes them', () => {
    const root = mkdtempSync(join(tmpdir(), 'a2a-docs-'));
    try {
      mkdirSync(join(root, 'docs'));
      writeFileSync(
        join(root, 'README.md'),
        '[a](docs/a.md#the---json-shape) [b](docs/gone.md) [c](docs/a.md#nope) [d](https://x.example/y) `[e](no.md)`\n\n```\n[f](no.md)\n```\n',
      );
      writeFileSync(join(root, 'docs', 'a.md'), '# A\n\n## The `--json` shape\n\n[back](../README.md#nothing)\n');
      expect(docFiles(root)).toEqual(['README.md', 'docs/a.md']);
      expect(brokenLinks('README.md', root)).toEqual([
        'README.md: docs/gone.md (no docs/gone.md)',
        'README.md: docs/a.md#nope (no heading #nope)',
      ]);
      expect(brokenLinks('docs/a.md', root)).toEqual(['docs/a.md: ../README.md#nothing (no heading #nothing)']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    expect(slug('`$schema` and editors')).toBe('schema-and-editors');
    expect(slug('Cold start: lazy or eager checks')).toBe('cold-start-lazy-or-eager-checks');
    expect(slug('`--json`')).toBe('--json');
    expect([...anchors('# X\n## Options\n## Options\n')]).toEqual(['x', 'options', 'options-1']);
  });
});

/** The rows of the tables on a page whose first cell matches `first`. */
/** The numbered steps of negotiation.md's `## The steps` (`1. **skill**: …`): [number, name]. */
function numberedSteps(): Array<readonly [number, string]> {
  const text = page('docs/explanation/negotiation.md');
  const section = text.slice(text.indexOf('\n## The steps'), text.indexOf('\n## ', text.indexOf('\n## The steps') + 1));
  return [...section.matchAll(/^(\d+)\. \*\*([a-z]+)\*\*/gm)].map((m) => [Number(m[1]), m[2]!] as const);
}

function rows(path: string, first: RegExp): string[][] {
  return page(path)
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .map(cells)
    .filter((c) => first.test(c[0]!));
}

describe('reference pages vs the code', () => {
  it('exit-codes.md has one row per exit code of src/errors.ts, and an invalid card under 1', () => {
    const table = rows('docs/reference/exit-codes.md', /^\d+$/);
    expect(table.map((c) => Number(c[0]))).toEqual(Object.values(ExitCode));
    expect(table.find((c) => c[0] === '1')![1]).toContain('`card-invalid`');
    expect(table.find((c) => c[0] === '2')![1]).not.toContain('card-invalid');
  });

  it('risk-codes.md lists exactly the codes of RISK_CODES, each with its level', () => {
    const table = rows('docs/reference/risk-codes.md', /^(high|medium|low|info)\b/);
    const listed = new Map<string, string>();
    for (const [level, codes] of table) for (const m of codes!.matchAll(/`([a-z-]+)`/g)) listed.set(m[1]!, level!);
    expect([...listed.keys()].sort()).toEqual(Object.keys(RISK_CODES).sort());
    for (const [code, level] of Object.entries(RISK_CODES)) expect(listed.get(code), code).toContain(level);
  });

  it('refusal-codes.md lists exactly the codes of RefusalCode, each at a step negotiation.md names', () => {
    const table = rows('docs/reference/refusal-codes.md', /^`/);
    expect(table.map((c) => c[0]!.replace(/`/g, '')).sort()).toEqual(Object.values(RefusalCode).sort());
    const steps = new Set(numberedSteps().map(([n, name]) => `${n}. ${name}`));
    for (const [code, step] of table)
      for (const named of step!.split(', ').map((s) => s.replace(/ \(.*\)$/, '')))
        expect(steps.has(named) || named === '2. version', `${code}: ${named}`).toBe(true);
  });

  it('negotiation.md numbers and names the steps as `a2a why` prints them (with a version range, `2. version` and the rest one further)', () => {
    const json = keyedWorkedExample();
    const card = normalizeCard(json, {
      source: 'https://agent.example/card',
      baseUrl: 'https://agent.example/card',
    }).card;
    const skill = String(json.skills[0].id);
    const printed = (versionRange?: string) => {
      const e = explainNegotiation(card, skill, DEFAULT_PROFILE, Object.keys(json.securitySchemes), {
        ...(versionRange ? { versionRange } : {}),
      });
      expect('refusal' in e ? e.refusal : undefined).toBeUndefined();
      return renderExplanation(e.steps)
        .map((l) => /^\s*(\d+)\. (\S+)/.exec(l.replace(/\x1b\[[0-9;]*m/g, '')))
        .filter((m) => m !== null)
        .map((m) => [Number(m[1]), m[2]!] as const);
    };
    const documented = numberedSteps();
    expect(printed()).toEqual(documented);
    const names = documented.map(([, name]) => name);
    expect(printed('>=0.0.0')).toEqual(['skill', 'version', ...names.slice(1)].map((name, i) => [i + 1, name]));
  });

  it('warnings.md lists only warning codes the source emits, and every code a warnings.push names', () => {
    const src = readdirSync(join(REPO, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => readFileSync(join(REPO, 'src', f), 'utf8'))
      .join('\n');
    const codes = rows('docs/reference/warnings.md', /^`/).flatMap((c) =>
      [...c[0]!.matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]!),
    );
    expect(codes.length).toBeGreaterThan(20);
    expect(codes.filter((code) => !src.includes(`'${code}'`))).toEqual([]);
    const pushed = [...src.matchAll(/warnings\.(?:push|unshift)\(\{\s*code: '([a-z0-9-]+)'/g)].map((m) => m[1]!);
    expect(pushed.length).toBeGreaterThan(10);
    expect([...new Set(pushed)].filter((code) => !codes.includes(code))).toEqual([]);
  });
});

describe('the docs are for users: kinds, no internals', () => {
  it('docs/ holds its index and the three kinds only (guide, reference, explanation)', () => {
    const top = readdirSync(join(REPO, 'docs')).sort();
    expect(top).toEqual(['README.md', 'explanation', 'guide', 'reference']);
  });

  it('no reference page names a src/ path', () => {
    const named = docFiles()
      .filter((f) => f.startsWith('docs/reference/'))
      .flatMap((f) => [...page(f).matchAll(/\bsrc\/[\w./-]+/g)].map((m) => `${f}: ${m[0]}`));
    expect(named).toEqual([]);
  });

  it('every npx of a2a or a2a-lock says --no: npx would otherwise fetch and run a registry package of that name (an unrelated `a2a` exists), in jobs that hold secrets', () => {
    const bare = docFiles()
      .flatMap((f) =>
        page(f)
          .split('\n')
          .map((line, i) => ({ f, i, line })),
      )
      .filter(({ line }) => /\bnpx\s+(?!--no\b)(?:-\S+\s+)*a2a(?:-lock)?\b/.test(line))
      .map(({ f, i, line }) => `${f}:${i + 1}: ${line.trim()}`);
    expect(bare).toEqual([]);
  });

  it("README's documentation section is a link to docs/README.md, not a second index", () => {
    const readme = page('README.md');
    const docs = readme.slice(
      readme.indexOf('## Documentation\n'),
      readme.indexOf('\n## ', readme.indexOf('## Documentation\n') + 1),
    );
    expect(docs).toContain('](docs/README.md)');
    expect(docs).not.toMatch(/\]\(docs\/(guide|reference|explanation)\//);
  });

  it('runtime-api.md names every option of loadLock and createClient, every LockedAgent member, the events and every value the runtime exports', () => {
    const api = page('docs/reference/runtime-api.md');
    const types = readFileSync(join(REPO, 'src/runtime/types.ts'), 'utf8');
    /** The member names of interface `name` in src/runtime/types.ts. */
    const members = (name: string) => {
      const body = types.slice(
        types.indexOf(`export interface ${name} {`),
        types.indexOf('\n}', types.indexOf(`export interface ${name} {`)),
      );
      return [...body.matchAll(/^ {2}(?:readonly )?(\w+)\??[:(]/gm)].map((m) => m[1]!);
    };
    const names = [
      ...members('LoadLockOptions'),
      ...members('CreateClientOptions'),
      ...members('LockedAgent'),
      ...Object.keys(runtime),
      'degraded',
      'fallback',
      'drift',
    ];
    expect(members('LoadLockOptions').length).toBeGreaterThan(10);
    expect(names.filter((n) => !api.includes(`\`${n}`))).toEqual([]);
  });
});
