/** The routes of the OpenAPI tag "API" (route-types.ts TAGS says what it holds). */

import { DOCS_ASSETS } from '../../docs/assets';
import { GRANTS as G } from '../table-access';
import type { Route } from '../route-types';
import { json } from './common';

export const apiRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api',
    handler: 'api/root',
    permission: 'authenticated',
    table: [],
    files: [],
    doc: { tag: 'API', summary: 'Links to the resources', success: json('ApiRoot', 200, 'The resource URLs.') },
  },
  // The OpenAPI document and the reference page rendered from it: authenticated like every route
  // (the page's 401 asks the browser for Basic credentials, which it then sends with the page's
  // own requests to the same origin).
  {
    method: 'GET',
    path: '/api/openapi.json',
    handler: 'api/openapi',
    permission: 'authenticated',
    table: [...G.customFieldDefinitions],
    files: [],
    doc: {
      tag: 'API',
      summary: 'This OpenAPI document',
      description:
        'Generated from the route table and the schemas that validate requests and shape responses; includes the ' +
        'custom fields defined now.',
      success: {
        status: 200,
        description: 'The OpenAPI 3.1 document.',
        media: { 'application/json': { type: 'object' } },
      },
    },
  },
  {
    method: 'GET',
    path: '/api/docs',
    handler: 'api/docs',
    permission: 'authenticated',
    table: [],
    files: [],
    negotiatesJson: false,
    doc: {
      tag: 'API',
      summary: 'API reference page',
      description: 'An HTML page (Swagger UI, served by this API) that renders /api/openapi.json.',
      success: { status: 200, description: 'The page.', media: { 'text/html': { type: 'string' } } },
    },
  },
  {
    method: 'GET',
    path: '/api/docs/{asset}',
    handler: 'api/docs-assets',
    permission: 'authenticated',
    table: [],
    files: [],
    negotiatesJson: false,
    assets: DOCS_ASSETS,
    doc: {
      tag: 'API',
      summary: "The reference page's scripts and style sheet",
      success: {
        status: 200,
        description: 'The file (gzip-encoded when the client accepts it).',
        media: { 'text/javascript': { type: 'string' }, 'text/css': { type: 'string' } },
      },
    },
  },
];
