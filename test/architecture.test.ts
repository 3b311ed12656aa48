/**
 * The layering rules of src/ (docs/explanation/architecture.md), checked over its import graph: a pure core
 * (card/, negotiate/, manifest/, lock/) that touches no Node module, network, file, environment,
 * clock or terminal; I/O in http/ and fs/, combined with the core only in resolve/; commands that
 * return data and a cli/ that renders it; no import circles; exit codes computed in one place.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  callSites,
  folderCycles,
  importCycles,
  layeringViolations,
  notReExportsOnly,
  readSourceTree,
  SRC,
  stripComments,
} from './helpers/import-graph.js';

const tree = readSourceTree(SRC);

describe('the layout of src/', () => {
  it('reads the whole tree: every folder of the layout is there', () => {
    const folders = new Set([...tree.files.keys()].map((f) => (f.includes('/') ? f.slice(0, f.indexOf('/')) : '.')));
    expect([...folders].sort()).toEqual(
      [
        '.',
        'card',
        'cli',
        'commands',
        'fs',
        'http',
        'lock',
        'manifest',
        'negotiate',
        'resolve',
        'runtime',
        'types',
      ].filter((f) => f !== 'types' || folders.has('types')),
    );
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

  it('has no circles between folders (card/ → negotiate/ → card/), type-only imports included', () => {
    expect(folderCycles(tree)).toEqual([]);
  });

  it('maps error codes to exit codes in lock/report.ts (per agent, overall) and cli/main.ts (a thrown error) only', () => {
    const readers = [...callSites(tree, 'exitCodeFor'), ...callSites(tree, 'exitCodeOf')].map((site) =>
      site.replace(/:\d+$/, ''),
    );
    expect([...new Set(readers)].sort()).toEqual(['cli/main.ts', 'lock/report.ts']);
    for (const name of ['overallExitCode', 'strictExitCode']) {
      const defined = [...tree.files]
        .filter(([, text]) => new RegExp(`function ${name}\\(`).test(text))
        .map(([file]) => file);
      expect(defined, name).toEqual(['lock/report.ts']);
    }
  });

  it('keeps the package faces (index.ts, runtime/index.ts) to re-exports', () => {
    expect([...notReExportsOnly(tree, 'index.ts'), ...notReExportsOnly(tree, 'runtime/index.ts')]).toEqual([]);
  });
});

describe('the rule checker itself', () => {
  /** A tree of `files` (path → text) in a temp folder, read as src/ is. */
  function treeOf(files: Record<string, string>) {
    const root = mkdtempSync(join(tmpdir(), 'a2a-arch-'));
    try {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      }
      return readSourceTree(root);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }

  it('names each broken rule with its file and line, whatever the quotes or the import form', () => {
    const tree = treeOf({
      'errors.ts': 'export function exitCodeFor(e: unknown) { return 70; }\n',
      'lock/a.ts':
        'import { z } from "zod";\n\n// a comment after a blank line\nimport { readFileSync } from "node:fs";\n',
      'lock/b.ts': "import kleur from 'kleur';\nexport const id = crypto.randomUUID();\n",
      'lock/x.ts': "import type { Y } from './y.js';\nexport type X = Y;\n",
      'lock/y.ts': "import type { X } from './x.js';\nexport type Y = X;\n",
      'commands/c.ts': "import * as errors from '../errors.js';\nconsole.log('done');\nerrors.exitCodeFor(1);\n",
      'cli/d.ts': "const verify = await import('../resolve/e.js');\n",
      'resolve/e.ts': 'export const e = 1;\n',
      'http/f.ts': "import { g } from '../fs/g.js';\n",
      'commands/h.ts': "import { fetchCard } from '../http/card.js';\n",
      'runtime/o.ts': "import { AsyncLocalStorage } from 'node:async_hooks';\n",
      'runtime/request-check.ts': "import { enforcingFetch } from './enforce.js';\nexport const t = Date.now();\n",
      'runtime/enforce.ts': 'export const enforcingFetch = 1;\n',
      'http/card.ts': 'export const fetchCard = 1;\n',
      'fs/g.ts': 'export const g = 1;\n',
    });
    const found = layeringViolations(tree);
    expect(found).toEqual(
      expect.arrayContaining([
        'lock/a.ts:4: the pure core imports node:fs',
        'lock/b.ts:1: the pure core imports the package kleur',
        'lock/b.ts:2: the pure core uses crypto.',
        'commands/c.ts:2: commands/ uses console. (commands return data; cli/ prints)',
        'cli/d.ts:1: cli/ imports resolve/e.ts (it goes through commands/)',
        'http/f.ts:1: http/ imports fs/g.ts (only resolve/ combines http/ and fs/ with the core)',
        'commands/h.ts:1: commands/ imports http/card.ts (commands reach the network through resolve/)',
        'runtime/o.ts:1: imports node:async_hooks (an AsyncLocalStorage taxes every promise of the host process)',
        'import circle: lock/x.ts → lock/y.ts → lock/x.ts',
        // The runtime's request check is pure (the fetch around it is not).
        expect.stringMatching(/^runtime\/request-check\.ts:1: the pure core imports runtime\/enforce\.ts /),
        'runtime/request-check.ts:2: the pure core uses Date.now',
      ]),
    );
    expect(found.filter((f) => f.startsWith('lock/a.ts'))).toHaveLength(1); // zod is a core package
    expect(callSites(tree, 'exitCodeFor')).toEqual(['commands/c.ts:3']);
  });

  it('names a Node global in the pure core (not in a string, not outside the core) and a circle between folders', () => {
    const tree = treeOf({
      'credentials.ts':
        "export const b = Buffer.from('x').toString('base64');\nexport const m = 'a Buffer in a message';\n",
      'card/a.ts': "import { b } from '../negotiate/b.js';\nexport const a = b;\nexport const d = __dirname;\n",
      'negotiate/b.ts': "import type { C } from '../card/c.js';\nexport const b = 1 as unknown as C;\n",
      'card/c.ts': 'export type C = number;\n',
      'runtime/r.ts': "export const r = Buffer.from('ok');\n",
    });
    const found = layeringViolations(tree);
    expect(found).toEqual(
      expect.arrayContaining([
        'credentials.ts:1: the pure core uses the Node global Buffer',
        'card/a.ts:3: the pure core uses the Node global __dirname',
        'folder circle: card/ → negotiate/ → card/',
      ]),
    );
    expect(found.filter((f) => f.includes('Node global'))).toHaveLength(2);
    expect(importCycles(tree)).toEqual([]);
    expect(folderCycles(tree)).toEqual([['card/', 'negotiate/', 'card/']]);
  });

  it('keeps line numbers when it removes comments', () => {
    const text = 'a\n\n\n  // c\n/* x\ny */ b\n';
    expect(stripComments(text).split('\n')).toHaveLength(text.split('\n').length);
  });
});
