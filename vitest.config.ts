import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
// With its extension: Vite warns on every run about a config's import without one (tsconfig allows it).
import { NODE_OPTIONS } from './infra/node-options.ts';

/**
 * The order `npm test` starts its files in: the longest first, whichever project they belong to, so
 * that the two workers finish together. Vitest's own order runs the projects one after the other
 * (infra, integration, unit, by name): the unit files that wait on real clocks (dependency
 * timeouts, 8 s) came last, beside an idle worker. Durations come from vitest's cache of earlier
 * runs (node_modules/.vite); files it does not know yet go first, the largest first, as vitest's own.
 */
class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const duration = (file: TestSpecification) =>
      cache.getFileTestResults(`${file.project.name}:${relative(config.root, file.moduleId)}`)?.duration;
    const size = (file: TestSpecification) => statSync(file.moduleId).size;
    return Promise.resolve(
      [...files].sort((a, b) => {
        const [da, db] = [duration(a), duration(b)];
        if (da === undefined || db === undefined)
          return da === undefined && db === undefined ? size(b) - size(a) : da === undefined ? -1 : 1;
        return db - da;
      }),
    );
  }
}

/**
 * Integration files that start a runtime in their own process (in-process-runtime.ts): it sets
 * the process's environment and builds the store's clients at import, so each needs a process of
 * its own. startInProcessRuntime refuses to run in a process shared with other files.
 */
const IN_PROCESS = [
  'tests/integration/actors.test.ts',
  'tests/integration/change-feed.test.ts',
  'tests/integration/conflict-emulation.test.ts',
  'tests/integration/credential-sharing.test.ts',
  'tests/integration/edge-origin.test.ts',
  'tests/integration/store-client.test.ts',
  'tests/integration/group-commit.test.ts',
  'tests/integration/faults.test.ts',
  'tests/integration/mail-events.test.ts',
  'tests/integration/mail-limits.test.ts',
  'tests/integration/mail-out.test.ts',
  'tests/integration/search-rebuild.test.ts',
  'tests/integration/ignored-senders.test.ts',
  'tests/integration/table-grants.test.ts',
  'tests/integration/ticket-counts.test.ts',
  'tests/integration/ticket-filters.test.ts',
  'tests/integration/ticket-filters-id-floor.test.ts',
  'tests/integration/time-spent.test.ts',
  'tests/integration/queue-permissions.test.ts',
  'tests/integration/webhook-store.test.ts',
  'tests/integration/writes-never-wait.test.ts',
];

const integration = {
  // One local runtime (DynamoDB Local + s3rver + the handlers, as `npm start` runs them) serves
  // every integration test file; runtimes that files start for themselves share its engines.
  globalSetup: ['tests/integration/global-setup.ts'],
  // Every response a test receives through client.ts is checked against the OpenAPI document.
  setupFiles: ['tests/integration/openapi-setup.ts'],
  // New password hashes at scrypt's test cost (domain/password.ts MIN_COST_SCRYPT_PARAMS), in the runtimes and CLI
  // runs the files start (they inherit it): the suite made 541 hashes at the deployed cost, about 31 s of its CPU.
  // tests/unit/password.test.ts holds the deployed cost; the benchmarks and the e2e test hash at it.
  env: { HELPDESK_PASSWORD_MIN_COST: '1' },
};

export default defineConfig({
  test: {
    reporters: ['./tests/quiet-reporter.ts', './tests/summary-reporter.ts'],
    // What a passing test logs is dropped, a failing test's shown with its failure
    // (HELPDESK_TEST_FIGURES=1 asks for the figures some tests log, so it keeps them all).
    silent: process.env.HELPDESK_TEST_FIGURES ? false : 'passed-only',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The in-process runtimes run on the options that `npm start` runs on.
    execArgv: [...NODE_OPTIONS],
    // Two files at once. Three were measured (2026-11-28, whole runs at load 13-18 from other work):
    // 1,061 s of wall time and 893 s of CPU against two's 899 s and 721 s, and tests over their limits.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      // Log records go to stdout directly (past vitest's console capture): unit tests that drive
      // error paths would print them into a green run.
      {
        extends: true,
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], env: { POWERTOOLS_LOG_LEVEL: 'SILENT' } },
      },
      // Template tests build apps in memory and change nothing global: one worker process runs one
      // file after another, importing aws-cdk-lib once (measured: 33 s of CPU for the project with a
      // process per file, 20 s without). A file that sets process.env would need `isolate` back.
      // A test that synthesises every environment's app, first in its process to ask for them (apiTemplateOf),
      // took 53 s beside two other files at load 24: the project's tests get two minutes.
      {
        extends: true,
        test: { name: 'infra', include: ['tests/infra/**/*.test.ts'], isolate: false, testTimeout: 120_000 },
      },
      {
        extends: true,
        test: {
          ...integration,
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          exclude: IN_PROCESS,
          // These files talk to runtimes over HTTP only: one worker process runs one file after
          // another, importing the client, the route table and the OpenAPI validators once
          // rather than once per file (about 0.4 s of CPU a file).
          isolate: false,
        },
      },
      { extends: true, test: { ...integration, name: 'integration-in-process', include: IN_PROCESS } },
    ],
  },
});
