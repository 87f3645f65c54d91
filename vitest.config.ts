import { defineConfig } from 'vitest/config';

// Two tiers (test/tiers/tiers.ts, docs/testing.md): `fast` is every *.test.ts but the *.e2e.test.ts files, which are
// `e2e`. `npm test` runs fast, `npm run test:e2e` e2e, `npm run test:all` both; `npm run test:budget` then judges
// their times (test-results/<tier>.json, written by the timing reporter) against test/tiers/budgets.json.
const include = ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'];
const e2e = ['packages/*/src/**/*.e2e.test.ts', 'test/**/*.e2e.test.ts'];

export default defineConfig({
  resolve: { conditions: ['@kubeplane/source'] },
  ssr: { resolve: { conditions: ['@kubeplane/source'] } },
  test: {
    exclude: ['**/node_modules/**', '**/dist/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    // Hooks that run a whole CLI command (apply on the sandbox) get the same minute as tests, not vitest's 10 s.
    hookTimeout: 60_000,
    // Every Hetzner and Crusoe response of the run is checked against the vendor's API document (test/setup/).
    globalSetup: ['test/setup/openapi-conformance.global.ts'],
    reporters: ['default', './test/tiers/timing-reporter.ts'],
    sequence: { sequencer: (await import('./test/tiers/sequencer.js')).default },
    projects: [
      // The fast tier shares one module graph per worker (isolate: false): importing the sandbox, the AWS SDK and msw
      // afresh for each of ~160 files cost ~190 s of the tier's ~650 worker-seconds (docs/testing.md). A file that
      // mocks a module loads its subject afresh itself (file-lock-race.test.ts).
      {
        extends: true,
        test: {
          name: 'fast',
          isolate: false,
          include,
          exclude: ['**/node_modules/**', '**/dist/**', ...e2e],
          setupFiles: ['test/setup/nothing-left-intercepting.ts', 'test/setup/reused-rsa-keys.ts'],
        },
      },
      { extends: true, test: { name: 'e2e', include: e2e } },
    ],
  },
});
