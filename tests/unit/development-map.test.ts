/**
 * docs/development.md's map matches the tree: every path it names exists, every folder of
 * functions/ and shared/ is on it, and so is every construct that reads the table's stream. And the
 * docs stay inside the repository: every relative link of README.md and docs/ leads to a file of
 * the repository.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGE = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
const TOP = ['shared', 'functions', 'infra', 'tests', 'cli', 'bench', 'scripts', 'docs', 'examples'];
/** Files at the root the page may name (a bare `global-setup.ts` is a file named beside its folder). */
const ROOT_FILES = [
  'README.md',
  'package.json',
  'vitest.config.ts',
  'vitest.e2e.config.ts',
  'eslint.config.js',
  'tsconfig.json',
  'cdk.json',
  'redocly.yaml',
];

/** The repository paths the page names in code spans; a placeholder (`<resource>`) ends the part checked. */
function namedPaths(text: string): string[] {
  const spans = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  return spans
    .filter((span) => TOP.some((top) => span.startsWith(`${top}/`)) || ROOT_FILES.includes(span))
    .map((span) => span.split('/<')[0]!);
}

describe('docs/development.md, the map', () => {
  const paths = [...new Set(namedPaths(PAGE))];

  it('names paths (the parser finds them)', () => {
    expect(paths.length).toBeGreaterThan(100);
    expect(paths).toContain('shared/consumer/table-changes.ts');
  });

  it.each(paths)('%s exists', (path) => {
    expect(existsSync(join(ROOT, path))).toBe(true);
  });

  it('names every folder of functions/ and shared/', () => {
    const folders = ['functions', 'shared'].flatMap((top) =>
      readdirSync(join(ROOT, top))
        .filter((name) => statSync(join(ROOT, top, name)).isDirectory())
        .map((name) => `${top}/${name}/`),
    );
    const missing = folders.filter((folder) => !PAGE.includes(`\`${folder}`));
    expect(missing).toEqual([]);
  });

  it('lists the construct that reads the table stream, its one reader (issue 33)', () => {
    const readers = readdirSync(join(ROOT, 'infra'))
      .filter(
        (name) =>
          name.endsWith('.ts') && readFileSync(join(ROOT, 'infra', name), 'utf8').includes('new DynamoEventSource('),
      )
      .map((name) => `infra/${name}`);
    expect(readers).toEqual(['infra/stream-consumer.ts']);
    const section = PAGE.slice(PAGE.indexOf('### The stream consumers'), PAGE.indexOf('### Recipes'));
    expect(readers.filter((reader) => !section.includes(`\`${reader}\``))).toEqual([]);
  });
});

describe('the docs link only inside the repository, or to public addresses', () => {
  const files = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
  const links = files.flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^(https?:|mailto:|#)/.test(target))
      .map((target) => ({ file, target, path: resolve(ROOT, dirname(file), target.split('#')[0]!) })),
  );

  it('finds the links', () => {
    expect(links.length).toBeGreaterThan(50);
  });

  it('every relative link leads to a file of the repository', () => {
    const broken = links.filter(({ path }) => relative(ROOT, path).startsWith('..') || !existsSync(path));
    expect(broken.map(({ file, target }) => `${file}: ${target}`)).toEqual([]);
  });

  it('no doc names a file outside the repository', () => {
    const outside = files.filter((file) =>
      /\.\.\/shared\/(design|upstream-behaviour|style|toolchain)|upstream-behaviour\.md/.test(
        readFileSync(join(ROOT, file), 'utf8'),
      ),
    );
    expect(outside).toEqual([]);
  });
});
