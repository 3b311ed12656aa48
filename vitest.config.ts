import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The Python package's checks (pytest for about a minute, in a child process): first, so the other files run beside them. */
const LONGEST = 'test/e2e/python-runtime.test.ts';

/**
 * Files that need a fresh module graph: the lazy schemas' build counts (nothing built at import), and gRPC's
 * default TLS roots (read once, from the environment the file sets before it imports grpc-js).
 */
const ISOLATED = ['test/schemas-lazy.test.ts', 'test/runtime/grpc-tls.test.ts'];

/**
 * vitest's order (longest first by the last run's durations, larger files first without them), with the
 * Python package's checks first even on a clone that has no earlier run (the file is small).
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const longest = (spec: TestSpecification) => spec.moduleId.replaceAll('\\', '/').endsWith(LONGEST);
    return [...sorted.filter(longest), ...sorted.filter((spec) => !longest(spec))];
  }
}

export default defineConfig({
  test: {
    // A passing test prints nothing: console output (validators, servers) is shown for failing tests only.
    silent: 'passed-only',
    // One test file per core. vitest's default is one fewer (a single worker on a 2-core CI box, every file
    // in turn), but most files spend their time waiting on child processes and servers (the CLI, SDK agents,
    // git, pytest of python/ for a minute or more), which a second file can use. `--maxWorkers=1` runs them in turn.
    maxWorkers: availableParallelism(),
    sequence: { sequencer: LongestFirst },
    // A hang guard, not a speed limit (speed is `npm run bench`'s): a test that takes 20 s on a 2-core machine
    // busy with other work (two files at a time, servers and child processes each) is slow, not stuck.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        // Files share their worker's module graph (`isolate: false`): a module is imported once per worker,
        // not once per file (the unit files took 67 s isolated, 30 s shared). A file whose subject is a
        // module's own state goes in `isolated`.
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', ...ISOLATED, '**/node_modules/**'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED },
      },
      {
        // End-to-end: spawn the built CLI (dist/) against real SDK agents. `npm test` builds first;
        // global-setup fails with a clear message when dist is missing or older than src.
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // As unit: one module graph per worker (each test has its own directory, environment and output).
          isolate: false,
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
