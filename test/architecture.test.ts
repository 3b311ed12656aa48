/**
 * The layering rules of src/ (README "Architecture"), checked over its import graph: a pure core
 * (card/, negotiate/, manifest/, lock/) that touches no Node module, network, file, environment,
 * clock or terminal; I/O in http/ and fs/, combined with the core only in resolve/; commands that
 * return data and a cli/ that renders it; no import circles; exit codes computed in one place.
 */
import { describe, expect, it } from 'vitest';
import { callSites, importCycles, layeringViolations, notReExportsOnly, readSourceTree, SRC } from './helpers/import-graph.js';

const tree = readSourceTree(SRC);

describe('the layout of src/', () => {
  it('reads the whole tree: every folder of the layout is there', () => {
    const folders = new Set([...tree.files.keys()].map((f) => (f.includes('/') ? f.slice(0, f.indexOf('/')) : '.')));
    expect([...folders].sort()).toEqual(['.', 'card', 'cli', 'commands', 'fs', 'http', 'lock', 'manifest', 'negotiate', 'resolve', 'runtime', 'types'].filter((f) => f !== 'types' || folders.has('types')));
    // The reader sees imports of every kind (static, type-only, dynamic).
    expect(tree.imports.some((e) => e.from === 'bin.ts' && e.specifier === './cli/main.js')).toBe(true);
    expect(tree.imports.some((e) => e.from === 'resolve/load-card.ts' && e.to?.startsWith('http/'))).toBe(true);
  });

  it('keeps every layering rule (the pure core, I/O at the edges, commands return data)', () => {
    expect(layeringViolations(tree)).toEqual([]);
  });

  it('has no import circles, type-only imports included', () => {
    expect(importCycles(tree)).toEqual([]);
  });

  it('maps error codes to exit codes in lock/report.ts (per agent, overall) and cli/main.ts (a thrown error) only', () => {
    const readers = [...callSites(tree, 'exitCodeFor'), ...callSites(tree, 'exitCodeOf')].map((site) => site.replace(/:\d+$/, ''));
    expect([...new Set(readers)].sort()).toEqual(['cli/main.ts', 'lock/report.ts']);
    for (const name of ['overallExitCode', 'strictExitCode']) {
      const defined = [...tree.files].filter(([, text]) => new RegExp(`function ${name}\\(`).test(text)).map(([file]) => file);
      expect(defined, name).toEqual(['lock/report.ts']);
    }
  });

  it('keeps the package faces (index.ts, runtime/index.ts) to re-exports', () => {
    expect([...notReExportsOnly(tree, 'index.ts'), ...notReExportsOnly(tree, 'runtime/index.ts')]).toEqual([]);
  });
});
