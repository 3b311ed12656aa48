import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import {
  checkOffline,
  DEFAULT_PROFILE,
  LOCKFILE_SCHEMA_REF,
  MANIFEST_SCHEMA_REF,
  parseLockfile,
  parseManifest,
  serializeLockfile,
} from '../src/index.js';
import { checkBuilt } from './helpers/dist.js';

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

describe('published schemas and the example lockfile', () => {
  it('schemas/*.schema.json are the ones generated from the zod schemas', () => {
    // The generator reads the build: a stale dist/ would compare old schemas.
    checkBuilt('test/schemas.test.ts');
    // Exits 1 (and execFileSync throws) when a committed file differs from the generated one.
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

  it('the example lockfile and a starter manifest validate against the JSON Schemas; broken ones do not', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const lockSchema = ajv.compile(json('schemas/a2a-lock.schema.json'));
    const manifestSchema = ajv.compile(json('schemas/a2a.schema.json'));
    const example = json('a2a.lock.json.example');
    expect(example.$schema).toBe(LOCKFILE_SCHEMA_REF);
    expect(lockSchema(example), JSON.stringify(lockSchema.errors)).toBe(true);
    expect(lockSchema({ ...example, lockfileVersion: 2 })).toBe(false);

    const manifest = {
      $schema: MANIFEST_SCHEMA_REF,
      profile: DEFAULT_PROFILE,
      agents: {
        research: {
          card: 'https://research.example.com',
          skills: ['market-size'],
          credentials: { bearer: { env: 'RESEARCH_TOKEN' } },
          version: '^2.4.0',
        },
      },
    };
    expect(manifestSchema(manifest), JSON.stringify(manifestSchema.errors)).toBe(true);
    expect(manifestSchema({ ...manifest, agnets: {} })).toBe(false);
    // What the tool refuses, the editor flags too: empty or repeated lists, wildcards, non-media types.
    const agent = manifest.agents.research;
    // No skills (absent or []): one agent-level plan "*" (issue 14, point 3).
    const { skills: _skills, ...skillless } = agent;
    for (const good of [
      { ...manifest, agents: { research: { ...agent, skills: [] } } },
      { ...manifest, agents: { research: skillless } },
    ]) {
      expect(manifestSchema(good), JSON.stringify(manifestSchema.errors)).toBe(true);
      expect(parseManifest(JSON.stringify(good), 'a2a.json').agents.research!.skills).toEqual([]);
    }
    for (const bad of [
      { ...manifest, agents: { research: { ...agent, skills: ['a', 'a'] } } },
      { ...manifest, profile: { ...DEFAULT_PROFILE, bindings: [] } },
      { ...manifest, profile: { ...DEFAULT_PROFILE, versions: ['1.0', '1.0'] } },
      { ...manifest, profile: { ...DEFAULT_PROFILE, accepts: ['*/*'] } },
      { ...manifest, profile: { ...DEFAULT_PROFILE, accepts: ['notamedia'] } },
    ]) {
      expect(manifestSchema(bad), JSON.stringify(bad)).toBe(false);
      expect(() => parseManifest(JSON.stringify(bad), 'a2a.json')).toThrow();
    }
    // Both `$schema` references name files the package ships.
    for (const ref of [LOCKFILE_SCHEMA_REF, MANIFEST_SCHEMA_REF])
      expect(() => readFileSync(ref.replace('./node_modules/a2a-lock/', ''))).not.toThrow();
  });
});
