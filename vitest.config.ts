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
    // Service processes the suites spawn inherit it.
    env: { CW_STRICT_RESPONSES: '1' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One file at a time on this 2-core machine (Vitest's default): side by side, the slow suites'
    // platforms, builds and fault timers starved each other into timeouts (docs/decisions/0061-ci-time.md).
    // The slow ones start first (tools/testing/src/slow-first-sequencer.ts).
    sequence: { sequencer: slowFirstSequencer(SLOW_TIER) },
    // Starts Redis and installs Chromium when missing, and builds the portal's front end when stale, once per run.
    globalSetup: ['tools/testing/src/test-environment.ts', 'tools/dev-stack/test/support/portal-web.global.ts'],
    reporters: ['default'],
  },
});
