import { defineConfig } from 'vitest/config';

/**
 * `npm run test:e2e`: browser tests (headless Chromium against the local runtime), kept out of
 * `npm test` because they need a browser and take a while.
 */
export default defineConfig({
  test: {
    reporters: ['default', './tests/summary-reporter.ts'],
    include: ['tests/e2e/**/*.test.ts'],
    globalSetup: ['tests/e2e/global-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
