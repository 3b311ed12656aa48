#!/usr/bin/env node
// Generate, from the zod schemas in dist/ (run `npm run build` first): schemas/a2a.schema.json
// (manifest) and schemas/a2a-lock.schema.json (lockfile), the JSON Schemas shipped for editors;
// schemas/conformance-case.schema.json (a runtime conformance case, from scripts/conformance-case.js); and
// the accept paths the formats parse with first (src/manifest/schema-accept.ts,
// src/lock/schema-accept.ts, src/card/wire-accept.ts; scripts/accept.js). `--check` exits 1 when a
// committed file differs from what this writes. After regenerating an accept path it builds again.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { wireSchemas } from '../dist/card/wire.js';
import { lockSchemas } from '../dist/lock/schema.js';
import * as rules from '../dist/manifest/rules.js';
import { manifestSchemas } from '../dist/manifest/schema.js';
import { ConformanceCaseSchema } from './conformance-case.js';
import { generateAccept } from './accept.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = manifestSchemas();
const lock = lockSchemas();
const wire = wireSchemas();
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
const accepts = {
  'src/manifest/schema-accept.ts': {
    source: 'src/manifest/schema.ts',
    roots: { Manifest: manifest.ManifestSchema, Profile: manifest.ProfileSchema },
    rulesImport: './rules.js',
  },
  'src/lock/schema-accept.ts': {
    source: 'src/lock/schema.ts',
    roots: { Lockfile: lock.LockfileSchema, LockEntry: lock.LockEntrySchema, Settings: lock.SettingsSchema },
    rulesImport: '../manifest/rules.js',
  },
  'src/card/wire-accept.ts': {
    source: 'src/card/wire.ts',
    roots: {
      AgentCardV1: wire.AgentCardV1Schema,
      AgentCardV03: wire.AgentCardV03Schema,
      SchemeVariants: wire.SchemeVariants,
      SchemeByType: wire.SchemeByType,
    },
    rulesImport: '../manifest/rules.js',
  },
};
for (const [file, options] of Object.entries(accepts)) texts[file] = generateAccept({ ...options, rules, root, file });

let stale = false;
let rebuild = false;
for (const [file, text] of Object.entries(texts)) {
  const path = join(root, file);
  if (readIfAny(path) === text) continue;
  if (process.argv.includes('--check')) {
    console.error(`${file} is out of date: run npm run schemas`);
    stale = true;
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${file}`);
    if (file.startsWith('src/')) rebuild = true;
  }
}
// A regenerated accept path is source: build again, so dist/ (the CLI, the runtime) runs it.
if (rebuild) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
process.exitCode = stale ? 1 : 0;

/** The text of the file at `path`, or '' when there is none. */
function readIfAny(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
