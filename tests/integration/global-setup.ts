import type { TestProject } from 'vitest/node';
import { TEST_ADMIN, spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';

export const ADMIN = TEST_ADMIN;

let runtime: SpawnedRuntime | undefined;

export async function setup(project: TestProject) {
  // Every file's requests come from 127.0.0.1, and many test wrong passwords on purpose: the limit
  // per source across usernames (50 by default) would soon refuse the whole suite. It is tested on
  // runtimes of their own (login-sources.test.ts).
  runtime = await spawnApiRuntime({ HELPDESK_LOGIN_FAILURES_PER_SOURCE: '1000000' });
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
