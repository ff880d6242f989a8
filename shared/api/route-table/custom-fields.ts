/** The routes of the OpenAPI tag "Custom fields" (route-types.ts TAGS says what it holds). */

import { customFieldFields } from '../../domain/admin';
import { GRANTS as G } from '../table-access';
import type { Route } from '../route-types';
import { json, noContent } from './common';

export const customFieldsRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/custom-fields',
    handler: 'custom-fields/list',
    permission: 'superuser',
    table: [...G.readCustomFields],
    files: [],
    doc: {
      tag: 'Custom fields',
      summary: 'List custom field definitions',
      success: json('CustomFieldPage', 200, 'A page of definitions, in display order.'),
      paginated: true,
    },
  },
  {
    method: 'POST',
    path: '/api/custom-fields',
    handler: 'custom-fields/create',
    permission: 'superuser',
    table: [...G.writeCustomFields],
    files: [],
    doc: {
      tag: 'Custom fields',
      summary: 'Define a custom field',
      success: json('CustomField', 201, 'The definition.'),
      body: { fields: customFieldFields, mode: 'create' },
    },
  },
  {
    method: 'GET',
    path: '/api/custom-fields/{name}',
    handler: 'custom-fields/get',
    permission: 'superuser',
    table: [...G.readCustomFields],
    files: [],
    doc: {
      tag: 'Custom fields',
      summary: 'Get a custom field definition',
      success: json('CustomField', 200, 'The definition.'),
    },
  },
  {
    method: 'PATCH',
    path: '/api/custom-fields/{name}',
    handler: 'custom-fields/update',
    permission: 'superuser',
    table: [...G.writeCustomFields],
    files: [],
    doc: {
      tag: 'Custom fields',
      summary: 'Change a custom field definition (not its name)',
      success: json('CustomField', 200, 'The definition.'),
      body: { fields: customFieldFields, mode: 'partial' },
    },
  },
  {
    method: 'DELETE',
    path: '/api/custom-fields/{name}',
    handler: 'custom-fields/delete',
    permission: 'superuser',
    table: [...G.writeCustomFields],
    files: [],
    doc: { tag: 'Custom fields', summary: 'Delete a custom field definition', success: noContent },
  },
];
