import { defineConfig } from 'vitest/config';
import LongestFirst from './tests/sequencer';

export default defineConfig({
  test: {
    reporters: ['default', './tests/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      // Log records go to stdout directly (past vitest's console capture): unit tests that drive
      // error paths would print them into a green run.
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], env: { POWERTOOLS_LOG_LEVEL: 'SILENT' } } },
      { extends: true, test: { name: 'infra', include: ['tests/infra/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          // One local runtime (DynamoDB Local + s3rver + the handlers, as `npm start` runs them)
          // serves every integration test file.
          globalSetup: ['tests/integration/global-setup.ts'],
          // Every response a test receives through client.ts is checked against the OpenAPI document.
          setupFiles: ['tests/integration/openapi-setup.ts'],
        },
      },
    ],
  },
});
