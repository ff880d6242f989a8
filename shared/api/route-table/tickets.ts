/** The routes of the OpenAPI tag "Tickets" (route-types.ts TAGS says what it holds). */

import { MAX_PAGE_DEPTH } from '../../domain/pagination';
import { ticketFields } from '../../domain/ticket';
import { ORDERINGS } from '../../domain/ticket-list-query';
import { GRANTS as G } from '../table-access';
import type { Route, FilePart, BodyDoc } from '../route-types';
import { TICKET_ETAG, FOLLOWUP_EXAMPLE, json, noContent, SEARCH_SYNTAX } from './common';

const TICKET_EXAMPLE = {
  id: 42,
  queue: 1,
  title: 'Printer on fire',
  description: 'Third floor, by the window.',
  resolution: null,
  submitter_email: 'ann@example.com',
  assigned_to: null,
  status: 1,
  on_hold: false,
  priority: 3,
  due_date: null,
  merged_to: null,
  followup_set: [
    {
      ...FOLLOWUP_EXAMPLE,
      id: 11,
      user: 1,
      title: 'Ticket Opened',
      comment: 'Third floor, by the window.',
      public: true,
      new_status: null,
      followupattachment_set: [],
      date: '2026-11-25T12:00:00Z',
    },
  ],
};

const TICKET_BODY_EXAMPLES: BodyDoc['examples'] = {
  json: {
    ticket: {
      summary: 'A ticket',
      value: {
        queue: 1,
        title: 'Printer on fire',
        description: 'Third floor, by the window.',
        submitter_email: 'ann@example.com',
        priority: 2,
      },
    },
  },
  multipart: {
    withFile: {
      summary: 'A ticket with a file (`attachment`): each field a part',
      value: {
        queue: 1,
        title: 'Printer on fire',
        description: 'Third floor, by the window.',
        submitter_email: 'ann@example.com',
        attachment: '(the file)',
      },
    },
  },
};

/** Upstream reports a missing or empty `description` under `body` (its model field's name): kept as it is. */
const DESCRIPTION_ERROR_NOTE =
  'An empty or null `description` is reported under the key `body` (`{"body": ["This field is ' +
  'required."]}`), as upstream does.';

const TICKET_FILE: FilePart = {
  name: 'attachment',
  required: false,
  description: 'One file, attached to the opening followup. More files go to followups.',
};

export const ticketsRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/tickets',
    handler: 'tickets/list',
    permission: 'staff',
    table: [...G.customFieldDefinitions, ...G.countsTotals, ...G.viewCounts, ...G.listTickets, ...G.filteredTickets],
    files: [],
    searches: true,
    doc: {
      tag: 'Tickets',
      summary: 'List tickets with their followups and attachments',
      description:
        "Without a filter or `ordering`, upstream's list: oldest first, by page number; `status` alone keeps " +
        'page numbers. Filters combine freely, each optional, and every combination takes every `ordering`. The ' +
        'agent views `status` × `queue`, `status` × `assigned_to` and `status` × `queue` × `assigned_to` are ' +
        'served in each of the ten orderings by index partitions of their own (several statuses are merged): a ' +
        "page reads one index partition per status, the page's tickets at once and the counts, whatever the " +
        "table's size, with an exact `count`. So are `queue`, `assigned_to`, `priority` and `submitter_email` " +
        'alone in `id` order, and every ticket by `created`, `modified`, `priority` or `due_date`. Any other ' +
        'combination reads the most selective of those in the order asked for and checks the other filters on ' +
        'the tickets, at most 100 entries a page: such a page may hold fewer tickets than `page_size` (even ' +
        'none) and still have a `next` link; no matching ticket is ever skipped. `ordering` by `id` or `-id` ' +
        'with no filter but `updated_since`, `created_since` and `status` reads every ticket in id order the ' +
        'same way (the five priority partitions merged). With `created_since`, every list in `id` or `-id` order ' +
        'reads only ids above those of the tickets created more than 16 minutes before that time (ids follow ' +
        'creation times): its first page holds the tickets created since, and `-id` ends at them, however many ' +
        "older tickets the table holds. With only `updated_since`, such a list walks the table's ids: the " +
        '`modified` orderings read it from its time on. A filtered list, or one ordered other than by `id`, is ' +
        'paged by cursor (`next` and `previous` links; `page` there may only be 1, the first page as without it: ' +
        'any other page answers 400). `count` depends on the filters alone, in every ordering: exact with none, ' +
        'with `status`, `queue`, `assigned_to` or `priority` alone, and with `status`, `queue` and `assigned_to` ' +
        'in any combination (the agent views, and a queue with an assignee); null with `submitter_email`, with ' +
        '`updated_since` or `created_since`, and with `priority` combined with another filter. The filters other ' +
        "than `status` alone read listing records and ticket snapshots the table's stream keeps: a change (a new " +
        'followup too) shows in them within about a second, and a ticket deleted a moment ago may still be ' +
        'listed.',
      success: json('TicketPage', 200, 'A page of tickets, oldest first unless `ordering` says otherwise.'),
      paginated: true,
      query: [
        {
          name: 'status',
          description:
            'Only these states: comma-separated ids or names (`1,2` or `open,reopened`). Combines with every ' +
            'filter and ordering.',
        },
        {
          name: 'queue',
          description:
            'Only tickets of this queue (its id). With `status` (and `assigned_to`), an agent view with a ' +
            'partition and an exact count of its own.',
          schema: { type: 'integer', minimum: 1 },
          example: 1,
        },
        {
          name: 'assigned_to',
          description:
            'Only tickets assigned to this user (their id), or `none`: unassigned tickets. With `status` (and ' +
            '`queue`), an agent view with a partition and an exact count of its own.',
          schema: {
            anyOf: [
              { type: 'integer', minimum: 1 },
              { type: 'string', enum: ['none'] },
            ],
          },
          example: 2,
        },
        {
          name: 'submitter_email',
          description: 'Only tickets with this submitter e-mail (exact).',
          example: 'someone@example.com',
        },
        {
          name: 'priority',
          description: 'Only tickets of this priority (1 Critical to 5 Very Low).',
          schema: { type: 'integer', enum: [1, 2, 3, 4, 5] },
          example: 2,
        },
        {
          name: 'updated_since',
          description:
            'Only tickets modified at or after this ISO 8601 date-time (UTC without an offset). The default ' +
            'ordering is `modified` when no other filter but `status` is given.',
          example: '2030-01-02T03:04:05Z',
        },
        {
          name: 'created_since',
          description:
            'Only tickets created at or after this ISO 8601 date-time (UTC without an offset). The default ' +
            'ordering is `created` when no other filter but `status` is given.',
          example: '2030-01-02T03:04:05Z',
        },
        {
          name: 'ordering',
          description:
            'The order: `id` (the default), `created`, `modified`, `priority` (1 Critical first), `due_date` ' +
            '(tickets without a due date last, as PostgreSQL sorts nulls), each reversed by a leading `-` ' +
            '(`-due_date`: undated first). Ties go by id in the same direction. Combines with every filter. ' +
            "`created` is its own order, not `id`: a ticket's creation time is taken before its id is given out, " +
            'so two tickets created at once can have ids the other way round.',
          schema: { type: 'string', enum: [...ORDERINGS] },
          example: '-priority',
        },
        {
          name: 'search',
          description:
            `Only tickets whose text matches (every filter above combines with it). ${SEARCH_SYNTAX} ` +
            'Staff search all text, private followups and staff-only custom fields included.',
          example: 'laptop overheats',
        },
        {
          name: 'cursor',
          description:
            'A position in the list, as the `next` and `previous` links carry it (opaque). Page numbers reach ' +
            'pages that start ' +
            `within ${MAX_PAGE_DEPTH.toLocaleString('en')} tickets of either end ` +
            `of the list (a deeper ` +
            `\`page\` answers 400); ` +
            `past that depth, and on ` +
            `filtered or reordered ` +
            `lists, the links carry ` +
            `a cursor instead of a ` +
            `page number. An unknown ` +
            `cursor answers 404.`,
        },
      ],
      errors: [400],
    },
  },
  {
    method: 'POST',
    path: '/api/tickets',
    handler: 'tickets/create',
    permission: 'staff',
    table: [
      ...G.customFieldDefinitions,
      ...G.newIds,
      ...G.ticketReferences,
      ...G.queueReservations,
      ...G.writeTickets,
      ...G.writeRefs,
      ...G.fileCleanups,
      ...G.outbox,
    ],
    files: ['write', 'delete'],
    doc: {
      tag: 'Tickets',
      summary: 'Create a ticket',
      description:
        'The ticket is always created OPEN (status 1) whatever is sent; resolution, on_hold and merged_to are ' +
        'validated and ignored; priority defaults to 3. An opening followup is created with it. One file may be ' +
        'attached with a multipart body.',
      success: { ...json('Ticket', 201, 'The created ticket.'), example: TICKET_EXAMPLE },
      body: {
        fields: ticketFields,
        mode: 'create',
        files: [TICKET_FILE],
        custom: true,
        examples: TICKET_BODY_EXAMPLES,
        note: DESCRIPTION_ERROR_NOTE,
      },
    },
  },
  {
    method: 'GET',
    path: '/api/tickets/{id}',
    handler: 'tickets/get',
    permission: 'staff',
    table: [...G.customFieldDefinitions, ...G.readTickets],
    files: [],
    doc: {
      tag: 'Tickets',
      summary: 'Get a ticket',
      description: 'With `If-None-Match` naming the current ETag, answers 304 without a body.',
      success: { ...json('Ticket', 200, 'The ticket.'), headers: TICKET_ETAG, example: TICKET_EXAMPLE },
      notModified: true,
    },
  },
  {
    method: 'PUT',
    path: '/api/tickets/{id}',
    handler: 'tickets/replace',
    permission: 'staff',
    table: [...G.customFieldDefinitions, ...G.ticketReferences, ...G.queueReservations, ...G.writeTickets],
    files: [],
    doc: {
      tag: 'Tickets',
      summary: 'Replace a ticket (every required field)',
      success: { ...json('Ticket', 200, 'The updated ticket.'), headers: TICKET_ETAG },
      body: { fields: ticketFields, mode: 'replace', custom: true, note: DESCRIPTION_ERROR_NOTE },
      errors: [412],
    },
  },
  {
    method: 'PATCH',
    path: '/api/tickets/{id}',
    handler: 'tickets/update',
    permission: 'staff',
    table: [...G.customFieldDefinitions, ...G.ticketReferences, ...G.queueReservations, ...G.writeTickets],
    files: [],
    doc: {
      tag: 'Tickets',
      summary: 'Update some fields of a ticket',
      success: { ...json('Ticket', 200, 'The updated ticket.'), headers: TICKET_ETAG },
      body: {
        fields: ticketFields,
        mode: 'partial',
        custom: true,
        note: DESCRIPTION_ERROR_NOTE,
        examples: {
          json: { change: { summary: 'Assign and raise the priority', value: { assigned_to: 2, priority: 1 } } },
        },
      },
      errors: [412],
    },
  },
  {
    method: 'DELETE',
    path: '/api/tickets/{id}',
    handler: 'tickets/delete',
    permission: 'staff',
    table: [...G.customFieldDefinitions, ...G.writeTickets, ...G.writeRefs, ...G.fileCleanups, ...G.recordDeletions],
    files: ['delete'],
    doc: {
      tag: 'Tickets',
      summary: 'Delete a ticket',
      description: 'Also deletes its followups, attachments and files, and the tickets merged into it.',
      success: noContent,
      errors: [412],
    },
  },
];
