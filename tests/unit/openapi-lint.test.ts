/**
 * `npm run lint:openapi` (scripts/openapi-lint.ts): Redocly CLI's recommended rules over the document
 * the API serves. Each case runs the linter (~1 s).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../shared/api/openapi';
import { DATA_TYPES } from '../../shared/domain/custom-fields';
import { LINTED, SAMPLE_FIELDS, lintOpenApi } from '../../scripts/openapi-lint';

const scratch = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the OpenAPI lint', () => {
  it('lints the document with both authentication schemes and a custom field of each type', () => {
    const doc = buildOpenApi(LINTED);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['basicAuth', 'tokenAuth']);
    expect(SAMPLE_FIELDS.map((f) => f.data_type)).toEqual([...DATA_TYPES]);
    expect(doc.components.schemas.Ticket.properties).toHaveProperty('custom_sample_list');
  });

  it('passes on that document', () => {
    const { status, output } = lintOpenApi(buildOpenApi(LINTED));
    expect(status, output).toBe(0);
  });

  it('fails on a problem the recommended rules rank as a warning (a tag without a description)', () => {
    const doc = buildOpenApi(LINTED);
    delete doc.tags[0].description;
    // Elsewhere than the usual file, the download's exception does not apply: leave it out.
    delete doc.paths['/api/tickets/{id}/attachments/{attachmentId}/'];
    const { status, output } = lintOpenApi(doc, { path: join(scratch, 'openapi.json') });
    expect(status).not.toBe(0);
    expect(
      [...output.matchAll(/^[ \t]+\d+:\d+\s+(?:error|warning)\s+(\S+)/gm)].map((m) => m[1]),
      output,
    ).toEqual(['tag-description']);
  });

  it('fails on a document without its licence (info-license is on: the project is MIT)', () => {
    const doc = buildOpenApi(LINTED);
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    delete doc.info.license;
    delete doc.paths['/api/tickets/{id}/attachments/{attachmentId}/'];
    const { status, output } = lintOpenApi(doc, { path: join(scratch, 'unlicensed.json') });
    expect(status).not.toBe(0);
    expect(
      [...output.matchAll(/^[ \t]+\d+:\d+\s+(?:error|warning)\s+(\S+)/gm)].map((m) => m[1]),
      output,
    ).toEqual(['info-license']);
  });

  it("excuses only operations that answer no 2xx, and the download's redirect is one", () => {
    // The document of .redocly.lint-ignore.yaml's exceptions to operation-2xx-response.
    const ignore = readFileSync(resolve(import.meta.dirname, '../../.redocly.lint-ignore.yaml'), 'utf8');
    const pointers = [...ignore.matchAll(/^[ \t]+- '#\/paths\/([^/]+)\/(\w+)\/responses'$/gm)];
    expect(pointers.length).toBeGreaterThan(0);
    const paths = buildOpenApi().paths;
    for (const [, path, method] of pointers) {
      const responses = Object.keys(paths[path!.replace(/~1/g, '/').replace(/~0/g, '~')]?.[method!]?.responses ?? {});
      expect(
        responses.filter((s) => s.startsWith('2')),
        `${method} ${path}: remove its exception`,
      ).toEqual([]);
      expect(responses).toContain('302');
    }
  });
});
