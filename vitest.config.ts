import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A passing test prints nothing: console output (validators, servers) is shown for failing tests only.
    silent: 'passed-only',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**', '**/node_modules/**'] },
      },
      {
        // End-to-end: spawn the built CLI (dist/) against real SDK agents. `npm test` builds first;
        // global-setup fails with a clear message when dist is missing or older than src.
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: ['test/e2e/package.test.ts', '**/node_modules/**'],
          globalSetup: ['test/e2e/global-setup.ts', 'test/e2e/python-setup.ts'],
        },
      },
      {
        // The release check (pack, install, compile against the typed roots): `npm run test:package`
        // and .ci/run, not the inner loop of `npm test`.
        extends: true,
        test: { name: 'package', include: ['test/e2e/package.test.ts'], globalSetup: ['test/e2e/global-setup.ts'] },
      },
    ],
  },
});
