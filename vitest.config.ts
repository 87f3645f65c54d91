import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    // Hooks that run a whole CLI command (apply on the sandbox) get the same minute as tests, not vitest's 10 s.
    hookTimeout: 60_000,
    // Every Hetzner and Crusoe response of the run is checked against the vendor's API document (test/setup/).
    globalSetup: ['test/setup/openapi-conformance.global.ts'],
  },
});
