/**
 * The shared narrowed-card vectors (conformance/vectors/narrowed-card.json), which the Python loader's
 * tests (python/tests/test_narrowed_card.py) read too: the card a GET of a locked card URL is answered
 * with, without the network, is the same in both runtimes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadLock } from '../../src/runtime/index.js';

interface Case {
  agent: string;
  skill: string;
  url: string;
  version: string;
  card: unknown;
}

const { fixtures } = JSON.parse(
  readFileSync(new URL('../../conformance/vectors/narrowed-card.json', import.meta.url), 'utf8'),
) as { fixtures: { fixture: string; lockfile: unknown; cases: Case[] }[] };

const dir = mkdtempSync(join(tmpdir(), 'a2a-narrowed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(fixtures.map((f) => [f.fixture, f] as const))('narrowed card vectors: %s', (name, f) => {
  test.each(f.cases.map((c) => [`${c.agent} ${c.skill} A2A-Version ${c.version}`, c] as const))('%s', async (_n, c) => {
    const lockfile = join(dir, `${name}.lock.json`);
    writeFileSync(lockfile, JSON.stringify(f.lockfile));
    const lock = await loadLock({ lockfile, env: {} });
    const response = await lock.agent(c.agent, c.skill).fetch(c.url, { headers: { 'A2A-Version': c.version } });
    expect(await response.json()).toEqual(c.card);
  });
});
