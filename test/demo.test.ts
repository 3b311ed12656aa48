import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

it('npm run demo: lock, verify 0, drift refused (1) with its diff, update, verify 0', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/demo.js'], { env: { ...process.env, NO_COLOR: '1' } });
  expect(stdout).toContain('beyond the lockfile');
  expect(stdout).toContain('run: a2a update research-agent');
  expect(stdout).toContain('plan market-size › acceptedOutputModes: ["application/json"] → ["text/plain"]');
  expect(stdout).toMatch(/demo ok/);
}, 60_000);
