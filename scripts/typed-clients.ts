/**
 * The typed client check (examples/typed-client/): what an integrator does with the OpenAPI
 * document, done against a running API.
 *
 * 1. GET /api/openapi.json from the API (the served document, with the custom fields defined
 *    there) into examples/typed-client/generated/openapi.json;
 * 2. generate types from it with openapi-typescript (generated/schema.d.ts) and a client with
 *    @hey-api/openapi-ts (generated/hey-api/, settings in openapi-ts.config.ts);
 * 3. compile the examples with `tsc --strict` (their own tsconfig.json: only them and what was
 *    generated, a few seconds, not the project);
 * 4. with `--run`, run both programs against the API.
 *
 *   npx tsx scripts/typed-clients.ts http://localhost:3000 [--run]     (HELPDESK_USERNAME, HELPDESK_PASSWORD)
 *
 * tests/integration/typed-clients.test.ts runs all four against the tests' local runtime, so CI does.
 * generated/ is not committed (.gitignore): it is whatever the API serves.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '..');
export const EXAMPLE_DIR = resolve(ROOT, 'examples/typed-client');
const GENERATED = resolve(EXAMPLE_DIR, 'generated');

/** The script a package's command runs (from its package.json: some packages' exports hide their bin files). */
function bin(pkg: string, command: string): string {
  const dir = resolve(ROOT, 'node_modules', pkg);
  const { bin: bins } = JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  return resolve(dir, bins[command]!);
}

export interface ApiAccess {
  url: string;
  username: string;
  password: string;
}

/**
 * Runs a Node program (a package's CLI, or an example through tsx) in the example's folder; throws with its output on
 * failure.
 */
function node(args: string[], env: Record<string, string> = {}): string {
  const run = spawnSync(process.execPath, args, {
    cwd: EXAMPLE_DIR,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 180_000,
  });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed (${run.status ?? run.signal}):\n${output}`);
  return output;
}

/** Steps 1 and 2: the served document, and the types and client generated from it. */
export async function generateTypedClients(api: ApiAccess): Promise<void> {
  const reply = await fetch(`${api.url}/api/openapi.json`, {
    headers: { authorization: `Basic ${Buffer.from(`${api.username}:${api.password}`).toString('base64')}` },
  });
  if (reply.status !== 200) throw new Error(`GET /api/openapi.json answered ${reply.status}`);
  rmSync(GENERATED, { recursive: true, force: true });
  mkdirSync(GENERATED, { recursive: true });
  writeFileSync(resolve(GENERATED, 'openapi.json'), await reply.text());
  // openapi-typescript reads examples/typed-client/redocly.yaml (its folder's): the minimal rules.
  node([
    bin('openapi-typescript', 'openapi-typescript'),
    'generated/openapi.json',
    '--output',
    'generated/schema.d.ts',
  ]);
  node([bin('@hey-api/openapi-ts', 'openapi-ts'), '--file', 'openapi-ts.config.ts']);
}

/** Step 3: the examples and the generated code, compiled with --strict. */
export function compileTypedClients(): void {
  node([bin('typescript', 'tsc'), '--project', 'tsconfig.json', '--strict']);
}

/** Step 4: one example program against the API; its output. */
export function runTypedClient(program: 'client.ts' | 'hey-api-client.ts', api: ApiAccess): string {
  return node(['--import', 'tsx', program], {
    HELPDESK_URL: api.url,
    HELPDESK_USERNAME: api.username,
    HELPDESK_PASSWORD: api.password,
  });
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  const url = process.argv[2];
  if (!url) {
    console.error(
      'Usage: npx tsx scripts/typed-clients.ts <API base URL> [--run]   (HELPDESK_USERNAME, HELPDESK_PASSWORD)',
    );
    process.exit(2);
  }
  const api = {
    url,
    username: process.env.HELPDESK_USERNAME ?? 'admin',
    password: process.env.HELPDESK_PASSWORD ?? '',
  };
  await generateTypedClients(api);
  compileTypedClients();
  console.log('Generated from the served document and compiled: examples/typed-client/generated/');
  if (process.argv.includes('--run'))
    for (const program of ['client.ts', 'hey-api-client.ts'] as const) console.log(runTypedClient(program, api));
}
