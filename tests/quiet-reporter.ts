/**
 * Vitest's default reporter (its live summary on a terminal, every failure in full, with the logs
 * of the failing tests) without a line for each passing file and its slow tests: a green run prints
 * its summary only. `--reporter=default` gives the full list.
 */
import { DefaultReporter, type TestModule } from 'vitest/node';

export default class QuietReporter extends DefaultReporter {
  protected override printTestModule(module: TestModule): void {
    if (module.state() === 'failed') super.printTestModule(module);
  }
}
