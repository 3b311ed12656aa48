#!/usr/bin/env node
// Generate, from the zod schemas in dist/ (run `npm run build` first): schemas/a2a.schema.json
// (manifest) and schemas/a2a-lock.schema.json (lockfile), the JSON Schemas shipped for editors; and
// schemas/conformance-case.schema.json (a runtime conformance case, from scripts/conformance-case.js).
// `--check` exits 1 when a committed file differs from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { lockSchemas } from '../dist/lock/schema.js';
import { manifestSchemas } from '../dist/manifest/schema.js';
import { ConformanceCaseSchema } from './conformance-case.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = manifestSchemas();
const lock = lockSchemas();
const outputs = {
  'a2a.schema.json': { schema: manifest.ManifestSchema, title: 'a2a-lock manifest (a2a.json)', io: 'input' },
  'a2a-lock.schema.json': { schema: lock.LockfileSchema, title: 'a2a-lock lockfile (a2a.lock.json)', io: 'output' },
  'conformance-case.schema.json': {
    schema: ConformanceCaseSchema,
    title: 'a2a-lock runtime conformance case (conformance/runtime/<rule>/<name>.json)',
    io: 'input',
  },
};
const texts = {};
for (const [file, { schema, title, io }] of Object.entries(outputs)) {
  const json = { ...z.toJSONSchema(schema, { io, unrepresentable: 'any' }), title };
  texts[join('schemas', file)] = `${JSON.stringify(json, null, 2)}\n`;
}

let stale = false;
for (const [file, text] of Object.entries(texts)) {
  const path = join(root, file);
  if (readIfAny(path) === text) continue;
  if (process.argv.includes('--check')) {
    console.error(`${file} is out of date: run npm run schemas`);
    stale = true;
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${file}`);
  }
}
process.exitCode = stale ? 1 : 0;

/** The text of the file at `path`, or '' when there is none. */
function readIfAny(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
