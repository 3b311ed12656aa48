#!/usr/bin/env node
// Generate schemas/a2a.schema.json (manifest) and schemas/a2a-lock.schema.json (lockfile) from the
// zod schemas in dist/ (run `npm run build` first). `--check` exits 1 when the committed files differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ManifestSchema, LockfileSchema } from '../dist/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outputs = {
  'a2a.schema.json': { schema: ManifestSchema, title: 'a2a-lock manifest (a2a.json)', io: 'input' },
  'a2a-lock.schema.json': { schema: LockfileSchema, title: 'a2a-lock lockfile (a2a.lock.json)', io: 'output' },
};
let stale = false;
for (const [file, { schema, title, io }] of Object.entries(outputs)) {
  const json = { ...z.toJSONSchema(schema, { io, unrepresentable: 'any' }), title };
  const text = `${JSON.stringify(json, null, 2)}\n`;
  const path = join(root, 'schemas', file);
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      /* no file yet: out of date */
    }
    if (current !== text) {
      console.error(`schemas/${file} is out of date: run npm run schemas`);
      stale = true;
    }
  } else {
    writeFileSync(path, text);
    console.log(`wrote schemas/${file}`);
  }
}
process.exitCode = stale ? 1 : 0;
