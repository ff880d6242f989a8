/** The routes of the OpenAPI tag "API tokens" (route-types.ts TAGS says what it holds). */

import { MAX_TOKENS_PER_USER, tokenFields } from '../../domain/tokens';
import { GRANTS as G } from '../table-access';
import type { Route } from '../route-types';
import { json } from './common';

export const tokensRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/tokens',
    handler: 'tokens/list',
    permission: 'staff',
    table: [...G.readTokens],
    files: [],
    doc: {
      tag: 'API tokens',
      summary: 'List API tokens',
      description: "Staff see their own tokens, superusers everyone's. Keys are never shown again.",
      success: json('ApiTokenPage', 200, 'A page of tokens.'),
      paginated: true,
    },
  },
  {
    method: 'POST',
    path: '/api/tokens',
    handler: 'tokens/create',
    permission: 'staff',
    table: [...G.newIds, ...G.writeTokens],
    files: [],
    answerHoldsSecret: true,
    doc: {
      tag: 'API tokens',
      summary: 'Create an API token',
      description:
        'For the caller, or (superusers) for the user named in `user`. Use it as `Authorization: Token <key>` ' +
        `where token authentication is enabled. A user holds at most ${MAX_TOKENS_PER_USER} tokens: past it, 400.`,
      success: json('CreatedApiToken', 201, 'The token, with its key (shown only now).'),
      body: { fields: tokenFields, mode: 'create' },
    },
  },
  {
    method: 'DELETE',
    path: '/api/tokens/{id}',
    handler: 'tokens/revoke',
    permission: 'staff',
    table: [...G.writeTokens],
    files: [],
    doc: { tag: 'API tokens', summary: 'Revoke an API token', success: { status: 204, description: 'Revoked.' } },
  },
];
