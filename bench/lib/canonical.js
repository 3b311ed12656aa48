// Baseline for `verify --offline`: read a lockfile, JSON.parse it and stringify it canonically
// (json-stable-stringify, the form integrity hashes are taken over).
//   node bench/lib/canonical.js <a2a.lock.json>
import { readFileSync } from 'node:fs';
import stableStringify from 'json-stable-stringify';

const text = stableStringify(JSON.parse(readFileSync(process.argv[2], 'utf8')));
if (!text) throw new Error('nothing to stringify');
