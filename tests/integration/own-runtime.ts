/**
 * A runtime of the test file's own (its own settings, and a table and bucket of its own on the run's
 * shared engines), started before its tests and stopped after them.
 */
import { afterAll, beforeAll } from 'vitest';
import { clientFor } from './client';
import { onSharedEngines } from './shared-engines';
import { spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';

export function useOwnRuntime(env: Record<string, string> = {}): {
  readonly api: ReturnType<typeof clientFor>;
  readonly runtime: SpawnedRuntime;
} {
  let runtime: SpawnedRuntime | undefined;
  let api: ReturnType<typeof clientFor> | undefined;
  beforeAll(async () => {
    runtime = await spawnApiRuntime({ ...onSharedEngines(), ...env });
    api = clientFor(runtime.url);
  }, 120_000);
  afterAll(async () => {
    await runtime?.stop();
  });
  return {
    get api() {
      return api!;
    },
    get runtime() {
      return runtime!;
    },
  };
}
