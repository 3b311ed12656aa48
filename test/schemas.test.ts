import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkOffline, parseLockfile, serializeLockfile } from '../src/index.js';

describe('published schemas and the example lockfile', () => {
  it('schemas/*.schema.json are the ones generated from the zod schemas', () => {
    // Exits 1 (and execFileSync throws) when a committed schema differs from the generated one.
    execFileSync(process.execPath, ['scripts/schemas.js', '--check'], { stdio: 'pipe' });
  });

  it('a2a.lock.json.example parses, is in canonical form, and every entry checks offline', () => {
    const text = readFileSync('a2a.lock.json.example', 'utf8');
    const lock = parseLockfile(text, 'a2a.lock.json.example');
    expect(serializeLockfile(lock)).toBe(text);
    expect(Object.keys(lock.agents).length).toBeGreaterThan(0);
    for (const [name, entry] of Object.entries(lock.agents)) {
      expect(checkOffline(entry, lock.settings[name]!, name)).toBeUndefined();
    }
  });
});
