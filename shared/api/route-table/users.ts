/** The routes of the OpenAPI tag "Users" (route-types.ts TAGS says what it holds). */

import { userChangeFields, userFields } from '../../domain/user';
import { GRANTS as G } from '../table-access';
import type { Route } from '../route-types';
import { json } from './common';

export const usersRoutes: readonly Route[] = [
  {
    method: 'POST',
    path: '/api/users',
    handler: 'users/create',
    permission: 'staff',
    table: [...G.newIds, ...G.createUsers],
    files: [],
    doc: {
      tag: 'Users',
      summary: 'Create a user',
      description: 'An active user without staff rights.',
      success: {
        ...json('User', 201, 'The created user, without the password.'),
        example: { first_name: 'Ann', last_name: 'Lee', username: 'ann', email: 'ann@example.com' },
      },
      body: {
        fields: userFields,
        mode: 'create',
        examples: {
          json: {
            user: {
              summary: 'A user',
              value: {
                first_name: 'Ann',
                last_name: 'Lee',
                username: 'ann',
                email: 'ann@example.com',
                password: 'correct horse battery staple',
              },
            },
          },
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/api/users',
    handler: 'users/list',
    permission: 'staff',
    table: [...G.readUsers],
    files: [],
    doc: {
      tag: 'Users',
      summary: 'List users',
      description:
        'Every user, in id order, never a password. Not in upstream (which answers 405): an integration finds ' +
        'the id to put in `assigned_to` here.',
      success: json('UserDetailPage', 200, 'A page of users.'),
      paginated: true,
      errors: [400],
      query: [
        {
          name: 'is_staff',
          description: 'Only staff (`true`) or only non-staff (`false`).',
          schema: { type: 'boolean' },
        },
        {
          name: 'is_active',
          description: 'Only active (`true`) or only inactive (`false`) users.',
          schema: { type: 'boolean' },
        },
        { name: 'email', description: 'Only users with this e-mail address (any case).', example: 'ann@example.com' },
      ],
    },
  },
  {
    method: 'GET',
    path: '/api/users/me',
    handler: 'users/me',
    permission: 'authenticated',
    table: [],
    files: [],
    doc: {
      tag: 'Users',
      summary: 'Who am I',
      description: 'The signed-in user (anyone signed in): their flags and the queues they work in.',
      success: json('UserDetail', 200, 'The caller.'),
    },
  },
  {
    method: 'GET',
    path: '/api/users/{id}',
    handler: 'users/get',
    permission: 'staff',
    table: [...G.readUsers],
    files: [],
    doc: {
      tag: 'Users',
      summary: 'One user',
      description: 'Not in upstream.',
      success: json('UserDetail', 200, 'The user.'),
    },
  },
  {
    method: 'PATCH',
    path: '/api/users/{id}',
    handler: 'users/update',
    permission: 'superuser',
    table: [...G.changeUsers],
    files: [],
    doc: {
      tag: 'Users',
      summary: 'Change a user',
      description:
        'Names, e-mail address, `is_active`, `is_staff` and `queues` (superusers; not in upstream). Deactivating ' +
        'a user revokes their API tokens and refuses their sign-ins (at once in the function that did it, within ' +
        '5 s in warm functions elsewhere); their tickets and followups stay.',
      success: json('UserDetail', 200, 'The user as changed.'),
      body: {
        fields: userChangeFields,
        mode: 'partial',
        examples: {
          json: {
            deactivate: { summary: 'A leaver', value: { is_active: false } },
            queues: { summary: 'Queues', value: { queues: [1, 3] } },
          },
        },
      },
    },
  },
];
