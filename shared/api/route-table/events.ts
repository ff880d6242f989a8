/** The routes of the OpenAPI tag "Events" (route-types.ts TAGS says what it holds). */

import { DEFAULT_FEED_PAGE, EVENT_RETENTION_DAYS, MAX_FEED_PAGE } from '../../domain/events';
import { GRANTS as G } from '../table-access';
import type { Route } from '../route-types';
import { CHANGE_EVENT_EXAMPLE, json } from './common';

export const eventsRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/events',
    handler: 'events/list',
    permission: 'staff',
    table: [...G.readEvents, ...G.visibleTickets],
    files: [],
    doc: {
      tag: 'Events',
      summary: 'The change feed: the change events after a cursor, oldest first',
      description:
        'The same events webhook subscriptions receive (`ticket.created`, `ticket.updated` with the changed ' +
        "fields' old and new values, `ticket.status_changed`, `ticket.deleted`, " +
        '`followup.created`/`updated`/`deleted`, `attachment.created`/`deleted`), ' +
        `in commit order, kept ${EVENT_RETENTION_DAYS} days. Start without \`after\` ` +
        `(the oldest event kept), ` +
        `then poll with \`?after=<cursor>\` ` +
        `from each answer: \`cursor\` ` +
        `is where this page ends, ` +
        `also when it is the last ` +
        `(\`next\` is then null). ` +
        `An event shows a few seconds ` +
        `after its change. At least ` +
        `once: an event may rarely ` +
        `be listed twice (the same ` +
        `\`id\`); deduplicate by ` +
        `\`id\`.`,
      success: {
        ...json('ChangeEventPage', 200, 'A page of events, oldest first.'),
        example: {
          next: null,
          previous: null,
          cursor: 'MjAyNi0xMS0yNVQxMjowMDowMC4wMDBaIzAwMDAwMDAwMDAwMDAwNDk2NjM4OTEwMDAwMDAwMDAwMDAwMDAxMjMjMA',
          results: [CHANGE_EVENT_EXAMPLE],
        },
      },
      query: [
        {
          name: 'after',
          description:
            'A `cursor` from an earlier answer: the events after it. Without it, from the oldest event kept.',
        },
        {
          name: 'limit',
          description:
            `Events per page (default ${DEFAULT_FEED_PAGE}; more than ${MAX_FEED_PAGE} counts as ` +
            `${MAX_FEED_PAGE}; below 1 answers 400).`,
          schema: { type: 'integer', minimum: 1 },
        },
      ],
      errors: [400],
    },
  },
];
