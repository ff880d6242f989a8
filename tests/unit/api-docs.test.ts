/**
 * docs/api.md's route table is generated (scripts/api-docs.ts, `npm run docs:api`): this fails when
 * the file differs from what the script would write, so a route added, removed or re-summarised in
 * the code cannot leave the docs behind.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes, type Route } from '../../shared/api/routes';
import { API_DOC, TABLE_END, TABLE_START, routeTable, withRouteTable } from '../../scripts/api-docs';

describe('docs/api.md', () => {
  it('holds the route table the code generates (run `npm run docs:api` after changing a route)', () => {
    const current = readFileSync(API_DOC, 'utf8');
    expect(current, 'docs/api.md is stale: run `npm run docs:api`').toBe(withRouteTable(current));
  });

  it('lists every route once, with who may call it', () => {
    const lines = routeTable().split('\n').slice(2);
    expect(lines).toHaveLength(routes.length);
    expect(lines).toContain('| GET | `/api/tickets/` | staff | List tickets with their followups and attachments |');
    expect(lines).toContain('| GET | `/api/openapi.json` | any user | This OpenAPI document |');
    expect(lines.filter((line) => line.includes('| superuser |')).length).toBe(
      routes.filter((r) => r.permission === 'superuser').length,
    );
  });
});

describe('the generator', () => {
  const route: Route = {
    method: 'GET',
    path: '/api/things',
    handler: 'things/list',
    permission: 'staff',
    table: [],
    files: [],
  };
  const described = (summary: string): Route => ({
    ...route,
    doc: { tag: 'Tickets', summary, success: { status: 200, description: 'Things.' } },
  });

  it('escapes a summary that would break the table', () => {
    expect(routeTable([described('Things | and\nmore')])).toContain(
      '| GET | `/api/things/` | staff | Things \\| and more |',
    );
  });

  it('refuses a route without a description', () => {
    expect(() => routeTable([route])).toThrow('GET /api/things (things/list)');
  });

  it('replaces only what lies between the markers, and needs them', () => {
    const text = `# Title\n\n${TABLE_START}\nold\n${TABLE_END}\n\nAfter.\n`;
    expect(withRouteTable(text, 'new')).toBe(`# Title\n\n${TABLE_START}\nnew\n${TABLE_END}\n\nAfter.\n`);
    expect(() => withRouteTable('# No markers\n', 'new')).toThrow('markers');
  });
});
