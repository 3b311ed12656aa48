import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

it('npm run demo: lock, verify 0, drift refused (1) with its diff, update, verify 0, then a2a diff of the update', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/demo.js'], {
    env: { ...process.env, NO_COLOR: '1' },
  });
  expect(stdout).toContain('beyond the lockfile');
  expect(stdout).toContain('run: a2a update research-agent');
  // The skill stopped offering application/json: members removed and added, not index churn.
  expect(stdout).toContain('plan market-size › acceptedOutputModes:\n      - application/json\n      + text/plain');
  expect(stdout).not.toMatch(/outputModes\[\d\]/);
  // It ends with the review of what the update wrote.
  const review = stdout.slice(stdout.lastIndexOf('$ a2a diff'));
  expect(review).toContain('~ research-agent (version 2.4.0) · medium');
  expect(review).toContain(
    'medium output-modes-changed: plan market-size accepted output modes: - application/json, + text/plain',
  );
  expect(review).toContain('1 agent unchanged: currency-agent');
  expect(review).toContain('1 changed, 0 added, 0 removed · 1 medium, 1 low');
  expect(stdout).toMatch(/demo ok/);
}, 60_000);
