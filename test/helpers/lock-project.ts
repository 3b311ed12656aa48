/** Lock a project for a runtime test: write its `a2a.json` into `dir` and run `a2a lock` in process (exit 0, or the test fails naming the answer). */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runLock } from '../../src/commands/lock.js';

export async function lockProject(dir: string, manifest: unknown): Promise<void> {
  await writeFile(join(dir, 'a2a.json'), JSON.stringify(manifest));
  const result = await runLock({ manifest: join(dir, 'a2a.json'), json: true, verbose: false, cwd: dir, env: {} });
  expect(result.exitCode, JSON.stringify(result.data)).toBe(0);
}
