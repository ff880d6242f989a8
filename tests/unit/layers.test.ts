/**
 * Code that runs in Lambda (functions/, shared/) never imports the infrastructure folder: the route
 * table and the table grants live in shared/api/, which the CDK stack and the local runtime read.
 * The operator CLI (cli/) loads the local runtime only where a command starts or joins its engines.
 * (eslint.config.js holds the finer layer rules; this stays as the plainest check of the main one.)
 *
 * Dependencies: every package the project imports is declared, what Lambda code imports is in
 * `dependencies` (types aside), and nothing declared goes unused.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

function sources(folder: string, extensions = ['.ts']): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => extensions.some((e) => f.endsWith(e)))
    .map((f) => join(folder, f));
}

/** The project files a source imports (relative specifiers, resolved from the project root). */
function imports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*(?:\(\s*)?['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) =>
    normalize(join(dirname(file), m[1]!)),
  );
}

/** The project files a source's code loads: its imports but type-only ones (erased), transitively. */
function loads(file: string, seen = new Set<string>()): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specs = [
    ...text.matchAll(
      /(?:^[ \t]*(?:import|export)(?!\s+type\b)[^'";]*?from\s*|\bimport\(\s*)['"](\.{1,2}\/[^'"]+)['"]/gm,
    ),
  ].map((m) => m[1]!);
  for (const spec of specs) {
    const path = normalize(join(dirname(file), spec));
    const target = existsSync(join(ROOT, `${path}.ts`)) ? `${path}.ts` : join(path, 'index.ts');
    if (seen.has(target)) continue;
    seen.add(target);
    loads(target, seen);
  }
  return seen;
}

describe('layers', () => {
  it.each(['functions', 'shared'])('nothing under %s/ imports infra/', (folder) => {
    const files = sources(folder);
    expect(files.length).toBeGreaterThan(10);
    const offending = files.flatMap((f) =>
      imports(f)
        .filter((i) => relative('infra', i).split('/')[0] !== '..')
        .map((i) => `${f} -> ${i}`),
    );
    expect(offending).toEqual([]);
  });

  it(
    'no route loads the stream consumer (shared/consumer/): the request path reads what it writes through the ' +
      'store',
    () => {
      const routes = sources('functions').filter((f) => !f.startsWith('functions/stream/'));
      expect(routes.length).toBeGreaterThan(50);
      const offending = routes.flatMap((f) =>
        [...loads(f)].filter((i) => i.startsWith('shared/consumer/')).map((i) => `${f} -> ${i}`),
      );
      expect(offending).toEqual([]);
    },
  );

  it('the CLI imports the local runtime (infra/local) only in target.ts, and only when a command works there', () => {
    const files = sources('cli');
    expect(files.length).toBeGreaterThan(5);
    const local = (f: string) => imports(f).filter((i) => relative('infra/local', i).split('/')[0] !== '..');
    expect(files.filter((f) => local(f).length).map((f) => relative('cli', f))).toEqual(['target.ts']);
    // A static import would load it for help and usage errors too: only types (erased) and import().
    const statics = [
      ...readFileSync(join(ROOT, 'cli/target.ts'), 'utf8').matchAll(
        /^import (?!type )[^;]*from '\.\.\/infra\/local\/[^']*'/gm,
      ),
    ];
    expect(statics.map((m) => m[0])).toEqual([]);
  });
});

interface PackageImport {
  file: string;
  name: string;
  typeOnly: boolean;
}

/** The packages a source imports: static imports and re-exports, side-effect imports, and dynamic imports. */
function packageImports(file: string): PackageImport[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found = [
    ...[...text.matchAll(/^[ \t]*(import|export)(\s+type)?\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm)].map((m) => ({
      spec: m[3]!,
      typeOnly: !!m[2],
    })),
    ...[...text.matchAll(/^[ \t]*import\s+['"]([^'"]+)['"]/gm)].map((m) => ({ spec: m[1]!, typeOnly: false })),
    ...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => ({ spec: m[1]!, typeOnly: false })),
  ];
  return found
    .filter(({ spec }) => !spec.startsWith('.') && !spec.startsWith('node:'))
    .map(({ spec, typeOnly }) => {
      const parts = spec.split('/');
      return { file, name: spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!, typeOnly };
    });
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const runtime = new Set(Object.keys(pkg.dependencies));
const declared = new Set([...runtime, ...Object.keys(pkg.devDependencies)]);
/** A package's declaration: itself, or its types (`aws-lambda` is `@types/aws-lambda`). */
const declaration = (name: string) =>
  declared.has(name) ? name : declared.has(`@types/${name}`) ? `@types/${name}` : undefined;

/** What Lambda runs: its code (every bundle is built from it and its dependencies). */
const LAMBDA = [...sources('functions'), ...sources('shared')];
const ALL = [
  ...LAMBDA,
  ...['infra', 'cli', 'scripts', 'tests', 'bench'].flatMap((folder) => sources(folder, ['.ts', '.mjs'])),
  'eslint.config.js',
  'vitest.config.ts',
  'vitest.e2e.config.ts',
];

/** Declared for what no file imports: tools run by name, types, and files read by path. */
const NOT_IMPORTED: Record<string, string> = {
  'aws-cdk': 'the cdk CLI (npm run synth)',
  tsx: 'runs the TypeScript entry points (npm start, cdk.json)',
  '@electric-sql/pglite':
    "the local search engine, imported by its worker thread's plain module (shared/search/pglite-worker.mjs)",
  typescript: 'tsc (npm run typecheck), and typescript-eslint',
  '@aws-sdk/client-dynamodb':
    "@aws-sdk/lib-dynamodb's peer dependency (its types: shared/aws/dynamodb.ts); the local runtime's stream reader",
  prettier: 'the formatter (npm run format, format:check in CI)',
  node: 'the Node 22 that npm scripts run on',
  '@types/node': 'tsconfig.json types',
  '@types/busboy': "busboy's types",
  'swagger-ui-dist': 'files read by path (shared/docs/assets.ts DOCS_ASSETS)',
  '@redocly/cli': 'the redocly CLI (npm run lint:openapi, scripts/openapi-lint.ts)',
  '@types/nodemailer': "nodemailer's types",
  '@types/smtp-server': "smtp-server's types",
  'openapi-typescript': "generates the typed client example's types (scripts/typed-clients.ts)",
  '@hey-api/openapi-ts': 'generates the second typed client (scripts/typed-clients.ts)',
  'openapi-fetch': 'the typed client example (examples/typed-client, compiled and run by scripts/typed-clients.ts)',
};

describe('dependencies', () => {
  const used = ALL.flatMap(packageImports);

  it('every package imported is declared', () => {
    expect(used.filter((u) => !declaration(u.name)).map((u) => `${u.file}: ${u.name}`)).toEqual([]);
  });

  it('Lambda code imports runtime dependencies only (types aside)', () => {
    const lambda = new Set(LAMBDA);
    const offending = used.filter((u) => lambda.has(u.file) && !u.typeOnly && !runtime.has(u.name));
    expect(offending.map((u) => `${u.file}: ${u.name}`)).toEqual([]);
  });

  it('every runtime dependency is used by Lambda code, and every declared package by something', () => {
    const byLambda = new Set(used.filter((u) => LAMBDA.includes(u.file)).map((u) => declaration(u.name)));
    const byAny = new Set(used.map((u) => declaration(u.name)));
    expect([...runtime].filter((name) => !byLambda.has(name) && !(name in NOT_IMPORTED))).toEqual([]);
    expect([...declared].filter((name) => !byAny.has(name) && !(name in NOT_IMPORTED))).toEqual([]);
  });
});
