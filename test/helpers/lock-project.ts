/** Lock a project for a runtime test: write its `a2a.json` into `dir` and run `a2a lock` in process with `env` (exit 0, or the test fails naming the answer). */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runLock } from '../../src/commands/lock.js';

/** The profile most runtime tests lock with: JSON-RPC 1.0, JSON or text out, text in, no streaming. */
export const JSONRPC_PROFILE = {
  bindings: ['JSONRPC'],
  versions: ['1.0'],
  accepts: ['application/json', 'text/plain'],
  sends: ['text/plain'],
  streaming: false,
};

export async function lockProject(dir: string, manifest: unknown, env: Record<string, string> = {}): Promise<void> {
  await writeFile(join(dir, 'a2a.json'), JSON.stringify(manifest));
  // No wire probe: a runtime test counts the runtime's requests (the probe's own: test/e2e/lock-probe.test.ts).
  const result = await runLock(
    { manifest: join(dir, 'a2a.json'), json: true, verbose: false, cwd: dir, env },
    { probe: false },
  );
  expect(result.exitCode, JSON.stringify(result.data)).toBe(0);
}
