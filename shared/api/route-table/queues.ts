/** The routes of the OpenAPI tag "Queues" (route-types.ts TAGS says what it holds). */

import { queueFields } from '../../domain/admin';
import { exclusionFields } from '../../domain/escalation';
import { GRANTS as G } from '../table-access';
import type { Route } from '../route-types';
import { json, noContent } from './common';

export const queuesRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/queues',
    handler: 'queues/list',
    permission: 'superuser',
    table: [...G.readQueues],
    files: [],
    doc: {
      tag: 'Queues',
      summary: 'List queues',
      success: json('QueuePage', 200, 'A page of queues.'),
      paginated: true,
    },
  },
  {
    method: 'POST',
    path: '/api/queues',
    handler: 'queues/create',
    permission: 'superuser',
    table: [...G.newIds, ...G.writeQueues],
    files: [],
    doc: {
      tag: 'Queues',
      summary: 'Create a queue',
      success: json('Queue', 201, 'The created queue.'),
      body: { fields: queueFields, mode: 'create' },
    },
  },
  {
    method: 'GET',
    path: '/api/queues/{id}',
    handler: 'queues/get',
    permission: 'superuser',
    table: [...G.readQueues],
    files: [],
    doc: { tag: 'Queues', summary: 'Get a queue', success: json('Queue', 200, 'The queue.') },
  },
  {
    method: 'PATCH',
    path: '/api/queues/{id}',
    handler: 'queues/update',
    permission: 'superuser',
    table: [...G.writeQueues],
    files: [],
    doc: {
      tag: 'Queues',
      summary: 'Update a queue',
      success: json('Queue', 200, 'The updated queue.'),
      body: { fields: queueFields, mode: 'partial' },
    },
  },
  {
    method: 'DELETE',
    path: '/api/queues/{id}',
    handler: 'queues/delete',
    permission: 'superuser',
    table: [...G.writeQueues, ...G.countsTotals],
    files: [],
    doc: {
      tag: 'Queues',
      summary: 'Delete an unused queue',
      description:
        'Answers 409 while tickets are in the queue, or while tickets created in it or moved to it a moment ago ' +
        'are not yet counted (the delete waits up to 3 s for them; try again). Creates and moves into the queue ' +
        'wait while the delete decides, then go ahead or answer 400 (no such queue).',
      success: noContent,
      errors: [409],
    },
  },
  {
    method: 'GET',
    path: '/api/escalation-exclusions',
    handler: 'escalation-exclusions/list',
    permission: 'superuser',
    table: [...G.readExclusions],
    files: [],
    doc: {
      tag: 'Queues',
      summary: 'List escalation exclusions',
      success: json('EscalationExclusionPage', 200, 'A page of exclusions, in id order.'),
      paginated: true,
    },
  },
  {
    method: 'POST',
    path: '/api/escalation-exclusions',
    handler: 'escalation-exclusions/create',
    permission: 'superuser',
    table: [...G.writeExclusions],
    files: [],
    doc: {
      tag: 'Queues',
      summary: 'Add an escalation exclusion (a holiday)',
      description:
        "A date the daily escalation does not count, as upstream's EscalationExclusion: a ticket's wait for its " +
        "queue's `escalate_days` is a day longer for each. `queues`: the queue ids it is for (none: every queue).",
      success: json('EscalationExclusion', 201, 'The exclusion.'),
      body: {
        fields: exclusionFields,
        mode: 'create',
        examples: {
          json: {
            holiday: {
              summary: 'New Year for every queue',
              value: { name: 'New Year', date: '2027-01-01', queues: [] },
            },
          },
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/api/escalation-exclusions/{id}',
    handler: 'escalation-exclusions/get',
    permission: 'superuser',
    table: [...G.readExclusions],
    files: [],
    doc: {
      tag: 'Queues',
      summary: 'Get an escalation exclusion',
      success: json('EscalationExclusion', 200, 'The exclusion.'),
    },
  },
  {
    method: 'DELETE',
    path: '/api/escalation-exclusions/{id}',
    handler: 'escalation-exclusions/delete',
    permission: 'superuser',
    table: [...G.readExclusions, ...G.writeExclusions],
    files: [],
    doc: { tag: 'Queues', summary: 'Delete an escalation exclusion', success: noContent },
  },
];
