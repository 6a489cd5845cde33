import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'apps/*/src/**/*.test.ts',
      'apps/*/test/**/*.test.ts',
      'libs/*/src/**/*.test.ts',
      'libs/*/test/**/*.test.ts',
      'tools/*/src/**/*.test.ts',
      'tools/*/test/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Starts Redis and installs Chromium when missing, once per run.
    globalSetup: ['tools/testing/src/test-environment.ts'],
    reporters: ['default'],
  },
});
