import type { TestProject } from 'vitest/node';
import { spawnRuntime, type SpawnedRuntime } from './spawn-runtime';

export const ADMIN = { username: 'admin', password: 'admin-test-password' };

let runtime: SpawnedRuntime | undefined;

export async function setup(project: TestProject) {
  runtime = await spawnRuntime({
    HELPDESK_ADMIN_USERNAME: ADMIN.username,
    HELPDESK_ADMIN_PASSWORD: ADMIN.password,
    HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
  });
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
