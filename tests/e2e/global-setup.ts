/**
 * The e2e run's setup: Debian's Chromium (installed with apt when missing) and one local runtime,
 * started as `npm start` starts it.
 */
import { execSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { spawnRuntime, type SpawnedRuntime } from '../integration/spawn-runtime';

export const ADMIN = { username: 'admin', password: 'admin-e2e-password' };

function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execSync(`command -v ${name}`, { encoding: 'utf8', shell: '/bin/sh' }).trim();
    } catch {
      // not this name
    }
  }
  return undefined;
}

function ensureChromium(): string {
  const found = findChromium();
  if (found) return found;
  console.log("Chromium is missing: installing Debian's chromium package (apt-get)...");
  execSync('apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium', {
    stdio: 'inherit',
    shell: '/bin/sh',
  });
  const installed = findChromium();
  if (!installed) throw new Error('chromium is still missing after apt-get install');
  return installed;
}

let runtime: SpawnedRuntime | undefined;

export async function setup(project: TestProject) {
  project.provide('chromium', ensureChromium());
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
    chromium: string;
  }
}
