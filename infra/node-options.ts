/**
 * Node's options for every process that serves the API: each function's NODE_OPTIONS on AWS
 * (infra/lambda.ts), and locally `npm start`'s and `npm run bench`'s (package.json), the tests'
 * workers (vitest.config.ts) and the runtimes they spawn (tests/integration/spawn-runtime.ts).
 * tests/unit/node-options.test.ts holds package.json and the workers to this list, tests/infra/stack.test.ts
 * the functions; spawn-runtime.ts and bench/cpu.ts read it.
 *
 * AsyncLocalStorage on async context frames (Node 24's default, an option in Node 22) rather than on
 * async hooks: once any store is used, the hooks run on every promise made and settled, and the
 * store's writer and client scopes are used on every request. Measured with bench/cpu.ts on
 * 2026-11-30, alternating, ms of CPU per warm request: GET 1.244 and 1.161 on hooks, 1.013 and 0.992
 * on frames; a list page 3.436 and 3.221; a create 3.234 and 2.986. Every store here is entered
 * with `run` (no `enterWith`), whose meaning is the same on both.
 */
export const NODE_OPTIONS: readonly string[] = ['--experimental-async-context-frame'];
