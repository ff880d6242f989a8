/** The routes of the OpenAPI tag "User tickets" (route-types.ts TAGS says what it holds). */

import { GRANTS as G } from '../table-access';
import type { Route } from '../route-types';
import { json, SEARCH_SYNTAX } from './common';

export const userTicketsRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/user_tickets',
    handler: 'user-tickets/list',
    permission: 'authenticated',
    table: [...G.customFieldDefinitions, ...G.ticketsBySubmitter, ...G.readQueues, ...G.readTickets],
    files: [],
    searches: true,
    doc: {
      tag: 'User tickets',
      summary: "The caller's own tickets",
      description: "Tickets whose submitter e-mail is the caller's, newest first.",
      success: json('UserTicketPage', 200, 'A page of tickets.'),
      paginated: true,
      query: [
        {
          name: 'search',
          description:
            "Only the caller's tickets whose public text matches: private followups, a private resolution, " +
            'staff-only custom fields and the files of private followups are neither searched nor shown in ' +
            `a snippet, for staff too. ${SEARCH_SYNTAX}`,
          example: 'printer',
        },
      ],
    },
  },
  {
    method: 'GET',
    path: '/api/user_tickets/{id}',
    handler: 'user-tickets/get',
    permission: 'authenticated',
    table: [...G.customFieldDefinitions, ...G.readTickets, ...G.readQueues],
    files: [],
    doc: {
      tag: 'User tickets',
      summary: "One of the caller's own tickets",
      success: json('UserTicket', 200, 'The ticket.'),
    },
  },
];
