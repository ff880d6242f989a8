/**
 * Ends every run with a plain `N passed, N failed` line (CI reads closing lines in that form;
 * vitest's own summary is not one of them).
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = errors.length;
    let skipped = 0;
    for (const module of modules) {
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedTests++;
        else skipped++;
      }
      // A file that failed outside its tests (an import, a beforeAll: its tests then skipped) is one failure.
      failed += module.state() === 'failed' && !failedTests ? 1 : failedTests;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
