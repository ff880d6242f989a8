/**
 * `npm run lint:openapi`: lints the OpenAPI document with Redocly CLI, under redocly.yaml (its
 * recommended rules, warnings raised to errors), and exits non-zero on any problem.
 *
 * The document linted is the one the API serves with every optional part present: both
 * authentication classes, and one custom field of each data type. It is written to
 * node_modules/.cache/openapi-lint/openapi.json and kept there, so that the line of a finding can be
 * looked up (git ignores it; .redocly.lint-ignore.yaml names this path).
 *
 * Offline: REDOCLY_TELEMETRY=off (redocly.yaml also says `telemetry: off`) sends no usage data, and
 * REDOCLY_SUPPRESS_NOTIFICATIONS=true skips the check of the registry for a newer version. The
 * document has no external `$ref`, and the rule sets are built in: nothing else is fetched.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOpenApi, type OpenApiDocument, type OpenApiOptions } from '../shared/api/openapi';
import { DATA_TYPES, type CustomFieldDefinition } from '../shared/domain/custom-fields';

const ROOT = resolve(import.meta.dirname, '..');
export const CONFIG = resolve(ROOT, 'redocly.yaml');
export const DOCUMENT = resolve(ROOT, 'node_modules/.cache/openapi-lint/openapi.json');

/** One custom field of each data type, so that every kind of custom field schema is linted. */
export const SAMPLE_FIELDS: CustomFieldDefinition[] = DATA_TYPES.map((data_type, i) => ({
  name: `sample_${data_type}`,
  key: `k${i}`,
  label: `Sample ${data_type}`,
  help_text: 'A sample field.',
  data_type,
  max_length: data_type === 'varchar' || data_type === 'text' ? 100 : data_type === 'decimal' ? 8 : null,
  decimal_places: data_type === 'decimal' ? 2 : null,
  empty_selection_list: data_type === 'list',
  list_values: data_type === 'list' ? ['one', 'two'] : [],
  required: data_type === 'varchar',
  staff_only: false,
  ordering: i,
}));

export const LINTED: OpenApiOptions = { authenticationClasses: ['basic', 'token'], customFields: SAMPLE_FIELDS };

export interface LintResult {
  /** Redocly's exit status: 0 when the document has no problem. */
  status: number;
  /** What it printed (empty when `print` is true: it went to the terminal). */
  output: string;
}

/** Writes `document` to `path` and lints it; `print` shows Redocly's output as it runs. */
export function lintOpenApi(document: OpenApiDocument, { path = DOCUMENT, print = false } = {}): LintResult {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(document, null, 2)}\n`);
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
  const run = spawnSync(
    process.execPath,
    [cli, 'lint', path, '--config', CONFIG, '--lint-config', 'error', '--format', 'stylish'],
    {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
      encoding: 'utf8',
      stdio: print ? 'inherit' : 'pipe',
    },
  );
  if (run.error) throw run.error;
  return { status: run.status ?? 1, output: `${run.stdout ?? ''}${run.stderr ?? ''}` };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  const { status } = lintOpenApi(buildOpenApi(LINTED), { print: true });
  console.log(
    status === 0
      ? 'The OpenAPI document passes the lint.'
      : `The OpenAPI document fails the lint (${relative(ROOT, DOCUMENT)}).`,
  );
  process.exit(status === 0 ? 0 : 1);
}
