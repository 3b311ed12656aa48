/**
 * vitest globalSetup of the e2e project: the pinned Python environment of the Python test peers
 * (issue 23; test/helpers/python.ts), made once per run (reused from .cache/ when the
 * requirements are unchanged) and handed to the test files as `inject('python')`. Where python3
 * (3.10+) or the package registry is missing, the Python tests are skipped with ONE line saying
 * why; with `A2A_LOCK_REQUIRE_PYTHON=1` (set by `.ci/run`) that is a failure instead.
 */
import type { TestProject } from 'vitest/node';
import { ensurePythonEnv, type PythonEnv } from '../helpers/python.js';

declare module 'vitest' {
  export interface ProvidedContext {
    python: PythonEnv;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const env = await ensurePythonEnv();
  if (!env.ok) {
    if (process.env.A2A_LOCK_REQUIRE_PYTHON === '1')
      throw new Error(`Python test peers required (A2A_LOCK_REQUIRE_PYTHON=1) but unavailable: ${env.reason}`);
    process.stderr.write(
      `python peers: skipped (${env.reason}); set A2A_LOCK_REQUIRE_PYTHON=1 to make this a failure\n`,
    );
  } else if (env.setupMs !== null) {
    process.stderr.write(
      `python peers: created ${env.dir} in ${(env.setupMs / 1000).toFixed(1)} s (reused until test/python/requirements.txt, python/requirements-dev.txt or python/pyproject.toml changes)\n`,
    );
  }
  project.provide('python', env);
}
