import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
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
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/e2e/global-setup.ts', 'test/e2e/python-setup.ts'] },
      },
    ],
  },
});
