import type { TestProject } from 'vitest/node';
import { TEST_ADMIN, spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';

export const ADMIN = TEST_ADMIN;

let runtime: SpawnedRuntime | undefined;

export async function setup(project: TestProject) {
  runtime = await spawnApiRuntime();
  project.provide('apiUrl', runtime.url);
  project.provide('admin', ADMIN);
}

export async function teardown() {
  await runtime?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    admin: { username: string; password: string };
  }
}
