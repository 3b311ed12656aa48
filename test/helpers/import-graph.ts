/**
 * The import graph of a source tree (`src/`), read from the text of its `.ts` files, and the
 * layering rules the tree is built on (docs/explanation/architecture.md), checked over it. Used by
 * test/architecture.test.ts; a function of the folder, so it can be run on any checkout.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';

/** One import of one file: the specifier as written, and the file it names (for relative ones). */
export interface ImportEdge {
  /** Importing file, relative to the root, POSIX separators (`lock/drift.ts`). */
  from: string;
  /** The specifier as written (`node:fs`, `undici`, `../http/request.js`). */
  specifier: string;
  /** The imported file relative to the root (`http/request.ts`) for relative specifiers; undefined for packages. */
  to?: string;
  /** 1-based line of the import. */
  line: number;
}

/** Every `.ts` file below `root` (relative, POSIX) with its text, comments removed. */
export interface SourceTree {
  files: Map<string, string>;
  imports: ImportEdge[];
}

/** Block comments and whole-line `//` comments blanked out, line breaks kept (so line numbers hold). */
export function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/^[ \t]*\/\/.*$/gm, '');
}

function walk(dir: string, root: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, root, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
      out.push(relative(root, path).split(sep).join('/'));
  }
}

/** Static (`import … from`, `export … from`, `import '…'`) and dynamic (`import('…')`) imports, type-only ones included. */
const IMPORT =
  /(?:^|[^\w.$])(?:import|export)\s[^;'"]*?from\s*(['"])([^'"]+)\1|(?:^|[^\w.$])import\s*(['"])([^'"]+)\3|(?:^|[^\w.$])import\(\s*(['"])([^'"]+)\5\s*\)/g;

/** Read the tree below `root`. */
export function readSourceTree(root: string): SourceTree {
  const names: string[] = [];
  walk(root, root, names);
  const files = new Map<string, string>();
  const imports: ImportEdge[] = [];
  for (const name of names.sort()) {
    const text = stripComments(readFileSync(join(root, name), 'utf8'));
    files.set(name, text);
    for (const match of text.matchAll(IMPORT)) {
      const specifier = (match[2] ?? match[4] ?? match[6])!;
      const line = text.slice(0, match.index).split('\n').length + (match[0].startsWith('\n') ? 1 : 0);
      const to = specifier.startsWith('.')
        ? posix.normalize(posix.join(posix.dirname(name), specifier)).replace(/\.js$/, '.ts')
        : undefined;
      imports.push({ from: name, specifier, ...(to !== undefined ? { to } : {}), line });
    }
  }
  return { files, imports };
}

/** The top folder of a file (`lock` for `lock/drift.ts`), or `.` for a file at the root. */
export function folderOf(file: string): string {
  return file.includes('/') ? file.slice(0, file.indexOf('/')) : '.';
}

/** Folders of the pure core: values in, values out. */
export const CORE = ['card', 'negotiate', 'manifest', 'lock'];
/** Files at the root the core may use; pure like it (canonical.ts alone may hash, with node:crypto). */
export const PURE_ROOT_FILES = [
  'canonical.ts',
  'json-path.ts',
  'json-document.ts',
  'credentials.ts',
  'redact.ts',
  'bytes.ts',
  'errors.ts',
  'untrusted.ts',
  'remembered.ts',
];
/** Files outside the core folders that are pure like it: the runtime's request check (the fetch around it is not). */
export const PURE_FILES = ['runtime/request-check.ts', 'runtime/request-body.ts', 'runtime/request-plan.ts'];
/** What the core never does: the environment, the working directory, the clock, timers, randomness, printing, the network. */
const IMPURE =
  /\bprocess\.|\bDate\.now\b|\bnew Date\(|\bperformance\.|\bset(?:Timeout|Interval|Immediate)\(|\bconsole\.|\bMath\.random\b|\bcrypto\.|\bfetch\(/;
/**
 * Node's own globals, which the core never uses either: it runs wherever the runtime loader does,
 * so bytes are `Uint8Array`/`TextEncoder`, never `Buffer`.
 */
const NODE_GLOBALS = /\b(?:Buffer|__dirname|__filename|require|module\.exports|global)\b(?!\s*:)/;
/** What commands never do: print (they return data; cli/ prints). */
const PRINTS = /\bconsole\.|\bprocess\.std(?:out|err)\b/;
/** The packages the core may use: schemas, versions, and JOSE for card signatures. */
const CORE_PACKAGES = /^(zod(\/mini)?|semver(\/.*)?|jose)$/;

function isBuiltin(specifier: string): boolean {
  return (
    specifier.startsWith('node:') ||
    /^(fs|path|os|crypto|http|https|net|tls|events|timers|child_process|url|util|stream|zlib|dns|worker_threads)(\/|$)/.test(
      specifier,
    )
  );
}

/**
 * Every broken layering rule, one line each naming the file, the line and the offending import
 * (or expression). Empty when the tree keeps them all.
 */
export function layeringViolations(tree: SourceTree): string[] {
  const out: string[] = [];
  const at = (e: ImportEdge) => `${e.from}:${e.line}`;
  const pure = (file: string) =>
    CORE.includes(folderOf(file)) || PURE_ROOT_FILES.includes(file) || PURE_FILES.includes(file);
  for (const e of tree.imports) {
    const fromFolder = folderOf(e.from);
    const toFolder = e.to !== undefined ? folderOf(e.to) : undefined;
    if (pure(e.from)) {
      if (isBuiltin(e.specifier) && !(e.from === 'canonical.ts' && e.specifier === 'node:crypto'))
        out.push(`${at(e)}: the pure core imports ${e.specifier}`);
      if (e.to === undefined && !isBuiltin(e.specifier) && !CORE_PACKAGES.test(e.specifier))
        out.push(`${at(e)}: the pure core imports the package ${e.specifier}`);
      if (e.to !== undefined && !pure(e.to))
        out.push(
          `${at(e)}: the pure core imports ${e.to} (only ${CORE.join('/, ')}/, ${PURE_ROOT_FILES.join(', ')} and ${PURE_FILES.join(', ')})`,
        );
    }
    if (fromFolder === 'commands' && (toFolder === 'cli' || e.specifier === 'kleur'))
      out.push(`${at(e)}: commands/ imports ${e.to ?? e.specifier} (commands return data; cli/ renders)`);
    if (fromFolder === 'commands' && toFolder === 'http' && e.to !== 'http/network-options.ts')
      out.push(`${at(e)}: commands/ imports ${e.to} (commands reach the network through resolve/)`);
    if (fromFolder === 'cli' && (toFolder === 'resolve' || toFolder === 'http' || toFolder === 'fs'))
      out.push(`${at(e)}: cli/ imports ${e.to} (it goes through commands/)`);
    for (const [io, others] of [
      ['http', ['fs', 'resolve', 'commands', 'cli', 'runtime']],
      ['fs', ['http', 'resolve', 'commands', 'cli', 'runtime']],
    ] as const) {
      if (fromFolder === io && toFolder !== undefined && (others as readonly string[]).includes(toFolder))
        out.push(`${at(e)}: ${io}/ imports ${e.to} (only resolve/ combines http/ and fs/ with the core)`);
    }
    // On Node 20 an entered AsyncLocalStorage makes every promise of the process slower (measured 2.7× on
    // an await loop, in or out of its context): the library runs inside the user's production process.
    if (e.specifier === 'node:async_hooks' || e.specifier === 'async_hooks')
      out.push(`${at(e)}: imports ${e.specifier} (an AsyncLocalStorage taxes every promise of the host process)`);
    if (e.to !== undefined && !tree.files.has(e.to)) out.push(`${at(e)}: ${e.specifier} names no file in the tree`);
  }
  for (const [file, text] of tree.files) {
    const rule = pure(file) ? IMPURE : folderOf(file) === 'commands' ? PRINTS : undefined;
    if (!rule) continue;
    text.split('\n').forEach((line, i) => {
      const found = rule.exec(line);
      if (found)
        out.push(
          `${file}:${i + 1}: ${pure(file) ? 'the pure core' : 'commands/'} uses ${found[0].trim()}${pure(file) ? '' : ' (commands return data; cli/ prints)'}`,
        );
      const global = pure(file) ? NODE_GLOBALS.exec(withoutStrings(line)) : null;
      if (global) out.push(`${file}:${i + 1}: the pure core uses the Node global ${global[0]}`);
    });
  }
  for (const cycle of importCycles(tree)) out.push(`import circle: ${cycle.join(' → ')}`);
  for (const cycle of folderCycles(tree)) out.push(`folder circle: ${cycle.join(' → ')}`);
  return out;
}

/** A line with the text of its string literals blanked (a message may name `Buffer`; code may not). */
function withoutStrings(line: string): string {
  return line.replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\$]|\\.|\$(?!\{))*`/g, "''");
}

/** The node of a file in the folder graph: its top folder (`lock/`), or the file itself at the root (`errors.ts`), which is a module of its own. */
function folderNode(file: string): string {
  const folder = folderOf(file);
  return folder === '.' ? file : `${folder}/`;
}

/**
 * Each circle between folders once (`card/ → negotiate/ → card/`): two folders that import each
 * other, whichever files the imports join, type-only imports included. A file at the root counts
 * as a folder of its own ({@link folderNode}).
 */
export function folderCycles(tree: SourceTree): string[][] {
  const folders: SourceTree = { files: new Map(), imports: [] };
  for (const file of tree.files.keys()) folders.files.set(folderNode(file), '');
  for (const e of tree.imports) {
    if (e.to === undefined || folderNode(e.from) === folderNode(e.to)) continue;
    folders.imports.push({ from: folderNode(e.from), specifier: e.specifier, to: folderNode(e.to), line: e.line });
  }
  return importCycles(folders);
}

/** Each import circle once, as the files around it (first file repeated at the end). */
export function importCycles(tree: SourceTree): string[][] {
  const edges = new Map<string, string[]>();
  for (const e of tree.imports) if (e.to !== undefined) edges.set(e.from, [...(edges.get(e.from) ?? []), e.to]);
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of new Set(edges.get(file) ?? [])) {
      if (state.get(next) === 'open') {
        const cycle = [...stack.slice(stack.indexOf(next)), next];
        const key = [...cycle.slice(0, -1)].sort().join('\n');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of tree.files.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

/** Where `name` is called or imported (`name(`, `ns.name(`, `{ name }` in an import), as `file:line`. */
export function callSites(tree: SourceTree, name: string): string[] {
  const call = new RegExp(`(?<![\\w$])${name}\\s*\\(|import\\s[^;]*\\b${name}\\b[^;]*from`);
  const sites: string[] = [];
  for (const [file, text] of tree.files) {
    text.split('\n').forEach((line, i) => {
      if (call.test(line) && !new RegExp(`function ${name}\\(`).test(line)) sites.push(`${file}:${i + 1}`);
    });
  }
  return sites;
}

/** Files whose statements are not all re-exports (`export … from`): a package face must hold nothing else. */
export function notReExportsOnly(tree: SourceTree, file: string): string[] {
  const text = tree.files.get(file);
  if (text === undefined) return [`${file}: missing`];
  const rest = text.replace(/export\s+(?:type\s+)?(?:\*|\{[^}]*\})\s+from\s*'[^']+';/g, '').trim();
  return rest === '' ? [] : [`${file}: holds more than re-exports (${rest.split('\n')[0]!.slice(0, 80)})`];
}

/** The folder the helpers read by default: this repository's src/. */
export const SRC = join(dirname(new URL(import.meta.url).pathname), '..', '..', 'src');
