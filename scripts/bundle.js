#!/usr/bin/env node
// Bundle the CLI for start-up speed: `dist/bin.js` (tsc output) and everything it imports become
// `dist/a2a.js` plus `dist/chunks/*.js`, the executable the package's `bin` names.
//
// Why: a short run (`a2a verify --offline` on one agent) spent most of its time in Node's ESM
// loader resolving, reading and compiling ~170 modules (zod, yargs and its helpers) and ~50
// CommonJS files; a bundle loads a handful (docs/explanation/performance.md). Dynamic imports stay chunks, so
// command modules and undici load only when a command needs them. The code is not minified:
// stack traces keep names and readable lines. The library root (`a2a-lock`) stays the tsc output,
// importing its dependencies from node_modules; the runtime (`a2a-lock/runtime`) and its lazy checks
// are bundled too, below.
//
// Also writes `dist/THIRD-PARTY-LICENSES.md`: the license of every package copied into the bundle.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

rmSync(join(dist, 'chunks'), { recursive: true, force: true });
const warnings = [];
/** rolldown's log hook for every bundle below: a warning is collected, and fails the build. */
const onLog = (level, log) => {
  if (level === 'warn') warnings.push(log.message);
};
/** Stop the build when a bundle warned. */
function failOnWarnings() {
  if (warnings.length === 0) return;
  console.error(`bundle: ${warnings.length} warning(s):\n${warnings.join('\n')}`);
  process.exit(1);
}

const bundle = await rolldown({
  input: { a2a: join(dist, 'bin.js') },
  platform: 'node',
  // `a2a-lock info` and `--version` answer from the bundle itself, reading no file (src/bin.ts).
  transform: {
    define: {
      __A2A_LOCK_VERSION__: JSON.stringify(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version),
    },
  },
  // The runtime's optional peers are never part of the CLI.
  external: [/^@a2a-js\/sdk(\/|$)/, /^@grpc\//, /^@bufbuild\//, /^@smithy\//],
  onLog,
});
const { output } = await bundle.write({
  dir: dist,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: 'chunks/[name]-[hash].js',
});
await bundle.close();
failOnWarnings();
chmodSync(join(dist, 'a2a.js'), 0o755);

// The runtime's lazy checks (`dist/runtime/checks.js`: the lockfile and manifest schemas, zod, card
// normalisation, negotiation) as one file. The first `lock.agent()` loads them synchronously, where
// Node's ESM loader spent most of the time resolving and compiling their ~120 modules one by one:
// one file loads about 4× faster (docs/explanation/performance.md). `errors.js` stays a shared module, so the error
// classes the checks throw are the ones `a2a-lock/runtime` exports.
const checksFile = join(dist, 'runtime', 'checks.js');
const sharedErrors = join(dist, 'errors.js');
const checks = await rolldown({
  input: checksFile,
  platform: 'node',
  external: (id, _importer, isResolved) => isResolved && id === sharedErrors,
  onLog,
});
// Compressed, with whitespace and comments gone but every name kept (a stack trace through the
// checks still names its functions): it compiles and loads ≈ 3.5 ms faster than as written (docs/explanation/performance.md).
const checksOut = await checks.generate({ format: 'esm', file: checksFile, minify: { compress: true, mangle: false } });
await checks.close();
failOnWarnings();
const checksChunk = checksOut.output.find((o) => o.type === 'chunk');
writeFileSync(checksFile, checksChunk.code);
output.push(checksChunk);

// The runtime entry (`dist/runtime/index.js`, what `a2a-lock/runtime` names) as one file too: the
// loader, the enforcing fetch, the client and their helpers, ≈ 20 modules that a cold start
// resolved, read and compiled one by one before its first request. Kept out, so that they are the
// one module the rest of the package uses: `errors.js` (the error classes, for `instanceof`), the
// checks (required from beside this file on the first `lock.agent()`), the background refresh's
// `resolve/check-served.js`, the shared proxy-aware dispatcher `http/dispatcher.js` (loaded only
// when a proxy variable is set; the refresh uses the same one), and the optional peers. The `.d.ts` files stay tsc's.
const runtimeFile = join(dist, 'runtime', 'index.js');
const runtimeShared = new Set([
  sharedErrors,
  checksFile,
  join(dist, 'resolve', 'check-served.js'),
  join(dist, 'http', 'dispatcher.js'),
]);
const runtime = await rolldown({
  input: runtimeFile,
  platform: 'node',
  external: (id, _importer, isResolved) =>
    isResolved ? runtimeShared.has(id) : /^(@a2a-js\/sdk|@grpc\/|@bufbuild\/|@smithy\/)/.test(id),
  onLog,
});
const runtimeOut = await runtime.generate({ format: 'esm', file: runtimeFile, codeSplitting: false });
await runtime.close();
failOnWarnings();
const runtimeChunk = runtimeOut.output.find((o) => o.type === 'chunk');
if (runtimeChunk.moduleIds.some((id) => packageDir(id)))
  throw new Error('bundle: a package was copied into dist/runtime/index.js');
writeFileSync(runtimeFile, runtimeChunk.code);

/** The package directory of a bundled module, or undefined for our own code. */
function packageDir(id) {
  const at = id.lastIndexOf(`${sep}node_modules${sep}`);
  if (at < 0) return undefined;
  const rest = id.slice(at + 14).split(sep);
  return id.slice(0, at + 14) + (rest[0].startsWith('@') ? join(rest[0], rest[1]) : rest[0]);
}

const packages = new Set();
for (const chunk of output)
  for (const id of chunk.moduleIds ?? []) {
    const dir = packageDir(id);
    if (dir) packages.add(dir);
  }
// One section per name@version (a package may be installed twice, nested under two dependents).
const sections = new Map();
for (const dir of packages) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)([-.]|$)/i.test(f));
  const text = file
    ? readFileSync(join(dir, file), 'utf8').trim()
    : `(no license file; package.json says ${pkg.license ?? 'nothing'})`;
  sections.set(
    `${pkg.name}@${pkg.version}`,
    `## ${pkg.name} ${pkg.version} (${pkg.license ?? 'unknown'})\n\n${text}\n`,
  );
}
const sorted = [...sections].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, text]) => text);
writeFileSync(
  join(dist, 'THIRD-PARTY-LICENSES.md'),
  `# Third-party licenses\n\n\`dist/a2a.js\`, \`dist/chunks/\` and \`dist/runtime/checks.js\` include code from these packages.\n\n${sorted.join('\n')}`,
);

const files = output.filter((o) => o.type === 'chunk');
const bytes = files.reduce((n, o) => n + Buffer.byteLength(o.code), 0);
if (!existsSync(join(dist, 'a2a.js'))) throw new Error('bundle: dist/a2a.js was not written');
console.error(
  `bundle: dist/a2a.js + ${files.length - 1} chunks, ${(bytes / 1024).toFixed(0)} KiB, ${sections.size} third-party packages`,
);
