import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** The project's own source: what runs in Lambda, the CDK app, the local runtime, the CLI, benchmarks and scripts. */
const SOURCE_FOLDERS = ['shared', 'functions', 'infra', 'cli', 'bench', 'scripts'];

/** Each source file's relative imports (type-only ones too: a circle of types is still a circle to read). */
function importGraph(): Map<string, string[]> {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...SOURCE_FOLDERS], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f.endsWith('.ts'));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imports = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((i) => i.fileName);
    const targets = imports
      .filter((name) => name.startsWith('.'))
      .map((name) => normalize(join(dirname(file), name)))
      .map((base) => [base, `${base}.ts`, join(base, 'index.ts')].find((candidate) => known.has(candidate)))
      .filter((target): target is string => target !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

/** The graph's strongly connected components of more than one file (Tarjan's algorithm): its circles. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the import graph', () => {
  it('has no circles among source files', () => {
    expect(circles(importGraph())).toEqual([]);
  });

  it('finds a circle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
