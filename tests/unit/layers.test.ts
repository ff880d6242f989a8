/**
 * Code that runs in Lambda (functions/, shared/) never imports the infrastructure folder: the route
 * table and the table grants live in shared/api/, which the CDK stack and the local runtime read.
 * The operator CLI (cli/) loads the local runtime only where a command starts or joins its engines.
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

  it('the CLI imports the local runtime (infra/local) only in target.ts, and only when a command works there', () => {
    const files = sources('cli');
    expect(files.length).toBeGreaterThan(5);
    const local = (f: string) => imports(f).filter((i) => relative('infra/local', i).split('/')[0] !== '..');
    expect(files.filter((f) => local(f).length).map((f) => relative('cli', f))).toEqual(['target.ts']);
    // A static import would load it for help and usage errors too: only types (erased) and import().
    const statics = [...readFileSync(join(ROOT, 'cli/target.ts'), 'utf8').matchAll(/^import (?!type )[^;]*from '\.\.\/infra\/local\/[^']*'/gm)];
    expect(statics.map((m) => m[0])).toEqual([]);
  });
});
