/**
 * The order `npm test` starts its files in: the longest first, whichever project they belong to, so
 * that the two workers finish together. Vitest's own order runs the projects one after the other
 * (infra, integration, unit, by name): the unit files that wait on real clocks (dependency
 * timeouts, 8 s) came last, beside an idle worker. Durations come from vitest's cache of earlier
 * runs (node_modules/.vite); files it does not know yet go first, the largest first, as vitest's own.
 */
import { relative } from 'node:path';
import { statSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const duration = (file: TestSpecification) => cache.getFileTestResults(`${file.project.name}:${relative(config.root, file.moduleId)}`)?.duration;
    const size = (file: TestSpecification) => statSync(file.moduleId).size;
    return Promise.resolve(
      [...files].sort((a, b) => {
        const [da, db] = [duration(a), duration(b)];
        if (da === undefined || db === undefined) return da === undefined && db === undefined ? size(b) - size(a) : da === undefined ? -1 : 1;
        return db - da;
      }),
    );
  }
}
