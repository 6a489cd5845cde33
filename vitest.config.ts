import { configDefaults, defineConfig } from 'vitest/config';
import { slowFirstSequencer } from './tools/testing/src/slow-first-sequencer';

/**
 * The slow tier: fault injection, fuzzing, crash and scale suites, durability, builds, the
 * browser. `npm test` runs every tier (CI runs `npm test`); `npm run test:fast` (TEST_TIER=fast)
 * leaves this one out for a quick local loop. A workspace check keeps every entry a real file.
 */
export const SLOW_TIER = [
  'tools/dev-stack/test/faults.int.test.ts',
  'tools/dev-stack/test/fuzz.int.test.ts',
  'tools/dev-stack/test/postbacks-faults.int.test.ts',
  'tools/dev-stack/test/postbacks-outage.int.test.ts',
  'tools/dev-stack/test/postbacks-scale.int.test.ts',
  'tools/dev-stack/test/stats-crash.int.test.ts',
  'tools/dev-stack/test/redis-cluster.int.test.ts',
  'tools/dev-stack/test/redis-cluster-fresh.int.test.ts',
  'tools/dev-stack/test/local-files.e2e.test.ts',
  'tools/dev-stack/test/docs.browser.test.ts',
  'tools/dev-stack/test/portal.browser.test.ts',
  'tools/dev-stack/test/oauth.browser.test.ts',
  'tools/dev-stack/test/mcp-oauth.browser.test.ts',
  'tools/dev-stack/test/portal-dashboard.browser.test.ts',
  'tools/dev-stack/test/portal-activity.browser.test.ts',
  'tools/dev-stack/test/portal-catalog.browser.test.ts',
  'tools/dev-stack/test/portal-operator.browser.test.ts',
  'tools/dev-stack/test/portal-payouts.browser.test.ts',
  'tools/dev-stack/test/portal-notifications.browser.test.ts',
  'tools/dev-stack/test/portal-tax.browser.test.ts',
  'tools/dev-stack/test/portal-link-routing.browser.test.ts',
  'tools/dev-stack/test/portal-inquiries.browser.test.ts',
  'tools/dev-stack/test/portal-codes.browser.test.ts',
  'tools/dev-stack/test/stored-scripts.security.test.ts',
  'tools/embedded-mongo/test/durability.test.ts',
  'tools/embedded-mongo/test/wire-robustness.test.ts',
  'tools/workspace-checks/test/service-build.test.ts',
  // Builds the portal front end and type-checks it against the types generated from the portal OpenAPI document.
  'tools/dev-stack/test/portal-web-types.test.ts',
  // The SDKs through their built packages (npm pack, a wheel) against a platform, a Retry-After waited out.
  'tools/dev-stack/test/sdk-typescript.int.test.ts',
  'tools/dev-stack/test/sdk-python.int.test.ts',
];

export default defineConfig({
  test: {
    include: [
      'apps/*/src/**/*.test.ts',
      'apps/*/test/**/*.test.ts',
      'apps/*/web/src/**/*.test.ts',
      'libs/*/*/src/**/*.test.ts',
      'libs/*/*/test/**/*.test.ts',
      'tools/*/src/**/*.test.ts',
      'tools/*/test/**/*.test.ts',
    ],
    exclude: process.env.TEST_TIER === 'fast' ? [...configDefaults.exclude, ...SLOW_TIER] : configDefaults.exclude,
    // Every answer is checked against its response schema: a member the schema does not declare is
    // a 500 in tests instead of vanishing from the answer (libs/platform/usecase/src/serializer.ts).
    // Service processes the suites spawn inherit it. CW_SLOW_TIER: the files that run one at a time.
    env: { CW_STRICT_RESPONSES: '1', CW_SLOW_TIER: SLOW_TIER.join(',') },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at once, one per core (each has its own embedded engine, Redis key prefix, ports and
    // folders; seeded files start from the run seed: tools/testing/src/seed-snapshots.ts), and of the
    // slow tier one at a time beside ordinary ones: side by side, two slow files starved each other
    // into timeouts (docs/decisions/0061-ci-time.md; tools/testing/src/one-slow-at-a-time.ts). The
    // order puts a slow file, then ordinary ones, then the next slow one (slow-first-sequencer.ts).
    maxWorkers: 2,
    setupFiles: ['tools/testing/src/one-slow-at-a-time.ts'],
    sequence: { sequencer: slowFirstSequencer(SLOW_TIER) },
    // Starts Redis and installs Chromium when missing, and builds the portal front end when stale, once per run.
    globalSetup: ['tools/testing/src/test-environment.ts', 'tools/dev-stack/test/support/portal-web.global.ts'],
    reporters: ['default'],
  },
});
