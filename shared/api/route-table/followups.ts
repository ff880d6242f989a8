/** The routes of the OpenAPI tag "Followups" (route-types.ts TAGS says what it holds). */

import { followupEditFields, followupFields } from '../../domain/followup';
import { GRANTS as G } from '../table-access';
import type { Route, FilePart } from '../route-types';
import { FOLLOWUP_EXAMPLE, json, noContent } from './common';

const NEW_STATUS_NOTE =
  "The ticket's new status: 1 Open, 2 Reopened, 3 Resolved, 4 Closed, 5 Duplicate (null or the ticket's own: no " +
  'change).';

const FOLLOWUP_FILES: FilePart = {
  name: 'attachments',
  required: false,
  repeated: true,
  description: 'Any number of files: repeat the field once per file.',
};

export const followupsRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/followups',
    handler: 'followups/list',
    permission: 'staff',
    table: [...G.listRefs, ...G.readTickets, ...G.visibleTickets],
    files: [],
    doc: {
      tag: 'Followups',
      summary: 'List followups',
      success: json('FollowupPage', 200, 'A page of followups, by date.'),
      paginated: true,
    },
  },
  {
    method: 'POST',
    path: '/api/followups',
    handler: 'followups/create',
    permission: 'staff',
    table: [...G.newIds, ...G.userSummaries, ...G.writeTickets, ...G.writeRefs, ...G.fileCleanups, ...G.outbox],
    files: ['write', 'delete'],
    doc: {
      tag: 'Followups',
      summary: 'Create a followup on a ticket',
      description:
        "A `new_status` other than the ticket's changes the ticket's status (and resolution when resolved or closed).",
      success: { ...json('Followup', 201, 'The created followup.'), example: FOLLOWUP_EXAMPLE },
      body: {
        fields: followupFields,
        mode: 'create',
        files: [FOLLOWUP_FILES],
        fieldNotes: { new_status: NEW_STATUS_NOTE },
        examples: {
          json: {
            comment: {
              summary: 'A public comment',
              value: { ticket: 42, title: null, comment: 'We are on it.', public: true },
            },
          },
          multipart: {
            resolveWithFiles: {
              summary: 'A comment with two files that resolves the ticket (repeat `attachments` once per file)',
              value: {
                ticket: 42,
                title: null,
                comment: 'Replaced the fuser; printing again.',
                public: true,
                new_status: 3,
                attachments: ['(a file)', '(another file)'],
              },
            },
          },
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/api/followups/{id}',
    handler: 'followups/get',
    permission: 'staff',
    table: [...G.readRefs, ...G.readTickets],
    files: [],
    doc: {
      tag: 'Followups',
      summary: 'Get a followup',
      success: { ...json('Followup', 200, 'The followup.'), example: FOLLOWUP_EXAMPLE },
    },
  },
  {
    method: 'PUT',
    path: '/api/followups/{id}',
    handler: 'followups/replace',
    permission: 'staff',
    table: [...G.userSummaries, ...G.writeTickets, ...G.writeRefs],
    files: [],
    doc: {
      tag: 'Followups',
      summary: 'Replace a followup',
      success: json('Followup', 200, 'The updated followup.'),
      body: { fields: followupEditFields, mode: 'replace', fieldNotes: { new_status: NEW_STATUS_NOTE } },
    },
  },
  {
    method: 'PATCH',
    path: '/api/followups/{id}',
    handler: 'followups/update',
    permission: 'staff',
    table: [...G.userSummaries, ...G.writeTickets, ...G.writeRefs],
    files: [],
    doc: {
      tag: 'Followups',
      summary: 'Update some fields of a followup',
      success: json('Followup', 200, 'The updated followup.'),
      body: { fields: followupEditFields, mode: 'partial', fieldNotes: { new_status: NEW_STATUS_NOTE } },
    },
  },
  {
    method: 'DELETE',
    path: '/api/followups/{id}',
    handler: 'followups/delete',
    permission: 'staff',
    table: [...G.writeTickets, ...G.writeRefs, ...G.fileCleanups, ...G.recordDeletions],
    files: ['delete'],
    doc: { tag: 'Followups', summary: 'Delete a followup and its attachments', success: noContent },
  },
  {
    method: 'GET',
    path: '/api/reports/time-spent',
    handler: 'reports/time-spent',
    permission: 'staff',
    table: [...G.readTimeSpent],
    files: [],
    doc: {
      tag: 'Followups',
      summary: 'Time spent, by ticket, queue or user',
      description:
        "The followups' `time_spent` totalled per ticket, per queue or per author over a range of days (UTC days " +
        "of the followups' `date`). A ticket's time counts towards the queue it is in now, as upstream's " +
        "`Queue.dedicated_time`. Upstream shows such totals in its web UI's reports, not its API: this route is " +
        'ours. Kept by the table stream: a followup shows a second or so after its change. With per-queue ' +
        'permissions on, a staff member who is not a superuser gets the time of their queues only.',
      success: {
        ...json('TimeSpentReport', 200, 'The totals, in id order.'),
        example: {
          by: 'queue',
          since: '2026-11-01',
          until: '2026-11-30',
          time_spent: '1 02:30:00',
          results: [
            { queue: 1, time_spent: '1 00:00:00' },
            { queue: 2, time_spent: '02:30:00' },
          ],
        },
      },
      query: [
        {
          name: 'by',
          description: "Required: `ticket`, `queue` or `user` (the followup's author).",
          schema: { type: 'string', enum: ['ticket', 'queue', 'user'] },
        },
        {
          name: 'since',
          description: 'The first day counted, `YYYY-MM-DD` (none: from the first).',
          example: '2026-11-01',
        },
        {
          name: 'until',
          description: 'The last day counted, `YYYY-MM-DD` (none: to the last).',
          example: '2026-11-30',
        },
      ],
      errors: [400],
    },
  },
];
