#!/usr/bin/env node
// Write the runtime conformance corpus (conformance/README.md): the shared fixtures
// (conformance/runtime/fixtures/<name>/: each manifest locked by the CLI's own `a2a lock` from
// cards read from files, then the two fixed loopback origins replaced by {{recorder}} / {{other}}
// and each integrity by {{integrity}}) and the case files (conformance/runtime/<rule>/<name>.json,
// from scripts/conformance-cases.js). Run `npm run build` first (it locks with dist/). `--check`
// exits 1 when a committed file differs from what this writes (or a case file is not written by it).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLock } from '../dist/commands/lock.js';
import { ConformanceCaseSchema } from './conformance-case.js';
import { CASES, FIXTURES, OTHER, RECORDER } from './conformance-cases.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = join(root, 'conformance', 'runtime');
const check = process.argv.includes('--check');
const texts = new Map();

for (const [name, fixture] of Object.entries(FIXTURES)) {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-conformance-'));
  try {
    mkdirSync(join(dir, 'cards'));
    for (const [card, value] of Object.entries(fixture.cards))
      writeFileSync(join(dir, 'cards', `${card}.json`), JSON.stringify(value, null, 2));
    writeFileSync(join(dir, 'a2a.json'), JSON.stringify(fixture.manifest, null, 2));
    // No wire probe: the fixtures' origins are placeholders, nothing listens there while they are locked.
    const result = await runLock(
      { manifest: join(dir, 'a2a.json'), json: true, verbose: false, cwd: dir, env: {} },
      { probe: false },
    );
    if (result.exitCode !== 0)
      throw new Error(`fixture ${name}: a2a lock exited ${result.exitCode}: ${JSON.stringify(result.data)}`);
    const lock = JSON.parse(readFileSync(join(dir, 'a2a.lock.json'), 'utf8'));
    for (const entry of Object.values(lock.agents)) entry.integrity = '{{integrity}}';
    const out = join(corpus, 'fixtures', name);
    texts.set(join(out, 'a2a.lock.json'), placeholders(`${JSON.stringify(lock, null, 2)}\n`));
    texts.set(join(out, 'a2a.json'), placeholders(`${JSON.stringify(fixture.manifest, null, 2)}\n`));
    for (const [card, value] of Object.entries(fixture.cards))
      texts.set(join(out, 'cards', `${card}.json`), placeholders(`${JSON.stringify(value, null, 2)}\n`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ids = new Set();
for (const c of CASES) {
  const value = { $schema: '../../../schemas/conformance-case.schema.json', ...c };
  ConformanceCaseSchema.parse(value);
  if (ids.has(c.id)) throw new Error(`two cases have the id ${c.id}`);
  ids.add(c.id);
  if (!c.id.startsWith(`${c.rule}/`)) throw new Error(`case ${c.id}: its id does not start with its rule ${c.rule}`);
  texts.set(join(corpus, `${c.id}.json`), `${JSON.stringify(value, null, 2)}\n`);
}

let stale = false;
for (const [path, text] of texts) {
  if (readIfAny(path) === text) continue;
  if (check) {
    console.error(`${relative(root, path)} is out of date: run node scripts/conformance.js`);
    stale = true;
  } else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}
// A file in the corpus the generator does not write is stale too (a removed case).
for (const path of listJson(corpus)) {
  if (texts.has(path)) continue;
  if (check) {
    console.error(`${relative(root, path)} is not written by scripts/conformance.js`);
    stale = true;
  } else rmSync(path);
}
if (!check) console.log(`conformance: ${CASES.length} cases, ${Object.keys(FIXTURES).length} fixtures`);
process.exitCode = stale ? 1 : 0;

/** `text` with the generation origins replaced by the recorders' placeholders. */
function placeholders(text) {
  return text.replaceAll(RECORDER, '{{recorder}}').replaceAll(OTHER, '{{other}}');
}

function readIfAny(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function listJson(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...listJson(path));
    else if (e.name.endsWith('.json')) out.push(path);
  }
  return out;
}
