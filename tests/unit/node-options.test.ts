/**
 * Every process that serves the API runs on infra/node-options.ts: `npm start` and `npm run bench`
 * pass them to tsx, and the tests' workers run on them (this file's own process is one). The
 * functions' NODE_OPTIONS on AWS are checked with the stack (tests/infra/stack.test.ts), the
 * spawned runtimes take them from the list itself (tests/integration/spawn-runtime.ts).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NODE_OPTIONS } from '../../infra/node-options';

const scripts = (
  JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

describe("the API's Node options", () => {
  it.each(['start', 'bench'])('`npm run %s` gives them to tsx, before its program', (script) => {
    const words = scripts[script]!.split(' ');
    expect(words[0]).toBe('tsx');
    const program = words.findIndex((word) => word.endsWith('.ts'));
    expect(words.slice(1, program)).toEqual(NODE_OPTIONS);
  });

  it("are this test worker's own (vitest.config.ts)", () => {
    expect(process.execArgv).toEqual(expect.arrayContaining([...NODE_OPTIONS]));
  });

  it('are options this Node accepts', () => {
    for (const option of NODE_OPTIONS) expect(process.allowedNodeEnvironmentFlags.has(option)).toBe(true);
  });
});
