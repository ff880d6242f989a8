/**
 * Code that runs in Lambda (functions/, shared/) never imports the infrastructure folder: the route
 * table and the table grants live in shared/api/, which the CDK stack and the local runtime read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(folder, f));
}

/** The project files a source imports (relative specifiers, resolved from the project root). */
function imports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => normalize(join(dirname(file), m[1]!)));
}

describe('layers', () => {
  it.each(['functions', 'shared'])('nothing under %s/ imports infra/', (folder) => {
    const files = sources(folder);
    expect(files.length).toBeGreaterThan(10);
    const offending = files.flatMap((f) => imports(f).filter((i) => relative('infra', i).split('/')[0] !== '..').map((i) => `${f} -> ${i}`));
    expect(offending).toEqual([]);
  });
});
