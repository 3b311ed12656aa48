/** A simulated GitHub Actions job for the e2e tests: the environment of each step, and what each step's summary file holds. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The job `job` (its `RUNNER_TEMP`, `GITHUB_RUN_ID`, `GITHUB_JOB`, …) run in `dir`: `step(n)` is the
 * environment of its step n, which GitHub gives its own `GITHUB_STEP_SUMMARY` file (`env`: another
 * job's variables); `summary(n)` is what that file holds, `''` when nothing was written.
 */
export function simulatedJob(dir: string, job: Record<string, string>) {
  const file = (n: number) => join(dir, `step-${n}.md`);
  return {
    step: (n: number, env: Record<string, string> = job) => ({ ...env, GITHUB_STEP_SUMMARY: file(n) }),
    summary: (n: number): string => {
      try {
        return readFileSync(file(n), 'utf8');
      } catch {
        return '';
      }
    },
  };
}
