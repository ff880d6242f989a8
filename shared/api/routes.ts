/**
 * The route table: the one record of each operation. The CDK stack makes one function and one API
 * Gateway route per entry; the local server routes with it; the middleware reads each route's
 * permission and its path's `Allow` header from it; the OpenAPI document (openapi.ts), and so the
 * docs page and docs/api.md, is generated from each entry's `doc` and the schemas it names.
 *
 * Paths are written without the trailing slash: API Gateway HTTP APIs (and the local server) answer
 * both forms. Every GET route also serves HEAD.
 *
 * A function's bundle has only its own route's `RouteFacts` (below), not this table. A `doc` names its
 * response shape by id rather than importing the zod shapes, which only the generator and the tests
 * load (shapes.ts).
 */

import { customFieldFields, queueFields } from '../domain/admin';
import { exclusionFields } from '../domain/escalation';
import { ignoredSenderFields } from '../domain/ignored-senders';
import { attachmentFields } from '../domain/attachment';
import type { Fields, Mode } from '../domain/fields';
import { followupEditFields, followupFields } from '../domain/followup';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_DEPTH, MAX_PAGE_SIZE } from '../domain/pagination';
import type { ShapeId } from '../domain/shapes';
import { ticketFields } from '../domain/ticket';
import { ORDERINGS } from '../domain/ticket-list-query';
import { tokenFields } from '../domain/tokens';
import {
  DEFAULT_ROTATION_GRACE_SECONDS,
  DISABLE_AFTER_DAYS,
  MAX_SUBSCRIPTIONS,
  rotationFields,
  subscriptionFields,
} from '../domain/subscriptions';
import { userChangeFields, userFields } from '../domain/user';
import { ticketCcFields } from '../domain/mail-settings';
import { templateOverrideFields } from '../domain/template-overrides';
import { DEFAULT_FEED_PAGE, EVENT_RETENTION_DAYS, MAX_FEED_PAGE } from '../domain/events';
import { DOCS_ASSETS } from '../docs/assets';
import { GRANTS as G, type TableGrant } from './table-access';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call: any authenticated user; staff (`is_staff`, as upstream: a superuser without it is
 * refused); or superusers (`is_superuser`), for the operator resources upstream keeps in its admin.
 */
export type Permission = 'authenticated' | 'staff' | 'superuser';

/** What a function may do to the attachment bucket; the stack grants exactly this. */
export type FileAccess = 'read' | 'write' | 'delete';

export interface Route {
  /** `ANY` only for the fallback. */
  method: Method | 'ANY';
  path: string;
  /** Handler file under functions/, without extension; it exports `handler`. */
  handler: string;
  permission: Permission;
  /**
   * What the function may do to the table besides authenticating (shared/api/table-access.ts): the
   * stack grants exactly this, and the local runtime refuses anything else.
   */
  table: readonly TableGrant[];
  files: FileAccess[];
  /** False for a route that answers a redirect or a page rather than JSON: no `Accept` check (406). */
  negotiatesJson?: false;
  /**
   * True for a route whose success answer holds a secret shown once (a new token's key): an
   * Idempotency-Key keeps no copy of it, and a replay answers 409 instead of repeating it.
   */
  answerHoldsSecret?: true;
  /** True for a route that queues webhook deliveries (the stack grants sending to the queue). */
  queuesWebhooks?: true;
  /** Takes `?search=`: the search engine's settings and the Data API on its cluster (infra/search.ts). */
  searches?: true;
  /**
   * Files from node_modules that the function reads at run time, copied into its bundle's
   * `assets/` folder by the CDK stack (the local runtime reads them from node_modules).
   */
  assets?: readonly string[];
  /** The OpenAPI description (every route but the fallback, which answers what the others do not). */
  doc?: OperationDoc;
}

export type JsonSchema = Record<string, unknown>;

/** A file part of a multipart body. */
export interface FilePart {
  name: string;
  required: boolean;
  /** The field name is repeated once per file. */
  repeated?: boolean;
  description: string;
}

/** A request body: the DRF-style fields that validate it, in their JSON, form and multipart variants. */
export interface BodyDoc {
  fields: Fields;
  mode: Mode;
  files?: FilePart[];
  /** The body also takes `custom_<name>` keys (tickets). */
  custom?: boolean;
  /** Only multipart (a required file). */
  multipartOnly?: boolean;
  /** Example bodies by media type, shown by the docs page. */
  examples?: { json?: Examples; multipart?: Examples };
  /** What the document says of a field where its choices or type say too little. */
  fieldNotes?: Record<string, string>;
  /** A sentence added to the body's description. */
  note?: string;
}

/** Named examples of a body (OpenAPI `examples`). */
export type Examples = Record<string, { summary: string; value: unknown }>;

/** A query parameter: text unless its `schema` says otherwise. */
export interface QueryDoc {
  name: string;
  description: string;
  schema?: JsonSchema;
  example?: string | number;
}

export interface SuccessDoc {
  status: number;
  description: string;
  /** A response shape of shapes.ts (JSON), or a media type with a plain schema, or nothing (204, 302). */
  shape?: ShapeId;
  media?: Record<string, JsonSchema>;
  headers?: Record<string, JsonSchema>;
  /** An example of the JSON answer, shown by the docs page. */
  example?: Record<string, unknown>;
}

/**
 * The OpenAPI document's tags, in its order, each with its description: every route's `doc.tag` is
 * one of them.
 */
export const TAGS = {
  API: 'The API itself: links to the resources, this OpenAPI document, its reference page, and OPTIONS on every path.',
  Tickets: 'Support tickets, with their followups and attachments. Staff only.',
  Attachments: 'Files attached to followups: their records, uploading and downloading. Staff only.',
  Followups: 'Comments and status changes on tickets, with any files attached. Staff only.',
  Users:
    'Users: creating and listing them (staff), changing them (superusers), and who the caller is (anyone signed in).',
  'User tickets': "Any user's own tickets: those submitted under their e-mail address.",
  'API tokens':
    'Keys for `Authorization: Token <key>` (where token authentication is on): staff manage their own, ' +
    "superusers everyone's.",
  Queues:
    'The queues that tickets belong to, with their mail and escalation settings, and the dates escalation does ' +
    'not count. Superusers only.',
  Mail:
    'Who else hears of a ticket (its CC list, staff); the addresses mail no longer goes to (the suppression ' +
    "list) and the mail templates' overrides (superusers).",
  'Custom fields': 'Definitions of the fields an operator adds to tickets (`custom_<name>`). Superusers only.',
  Events:
    'The change feed: every change to tickets, followups and attachments, in commit order, kept 30 days, so an ' +
    'integration that was down catches up without scanning tickets. Staff only.',
  Webhooks:
    'Webhook subscriptions: receivers of change events, each with its own signing secret (superusers only); the ' +
    'log of webhook deliveries, and sending one again (staff).',
} as const;
export type Tag = keyof typeof TAGS;

/** What the OpenAPI document says of an operation beyond its method, path and permission. */
export interface OperationDoc {
  summary: string;
  description?: string;
  tag: Tag;
  success: SuccessDoc;
  body?: BodyDoc;
  /** Takes `page` and `page_size`. */
  paginated?: boolean;
  query?: QueryDoc[];
  /** Error statuses beyond the ones every operation can answer. */
  errors?: number[];
  /** Answers 304 to a matching `If-None-Match`. */
  notModified?: true;
}

export const TICKET_ETAG: Record<string, JsonSchema> = {
  ETag: { type: 'string', description: 'Strong ETag of the ticket; send it in If-Match to change only this version.' },
};

const SUBSCRIPTION_EXAMPLE = {
  id: 'sub_mi2vsq0w3a9f1c6e7b2d405812',
  url: 'https://hooks.example.com/helpdesk',
  events: ['ticket.created', 'ticket.updated'],
  description: 'CRM sync',
  enabled: true,
  read_only: false,
  source: 'api',
  previous_secret_expires: null,
  failing_since: null,
  disabled_reason: null,
  created: '2026-11-25T12:00:00.012345Z',
  modified: '2026-11-25T12:00:00.012345Z',
};

/** A change event, as the feed lists it and (in its payload) a subscription receives it. */
export const CHANGE_EVENT_EXAMPLE = {
  id: 'evt_3q2Xb0n9T1mZk8vR4cYw7LpA',
  event: 'ticket.updated',
  created: '2026-11-25T12:00:00.123456Z',
  ticket: 42,
  followup: null,
  attachment: null,
  actor: { id: 7, username: 'agent' },
  source: 'api',
  changes: { priority: { old: 3, new: 1 }, assigned_to: { old: null, new: 7 } },
  data: {
    id: 42,
    queue: 1,
    title: 'Printer on fire',
    description: 'Third floor.',
    resolution: null,
    submitter_email: 'ann@example.com',
    assigned_to: 7,
    status: 1,
    on_hold: false,
    priority: 1,
    due_date: null,
    merged_to: null,
  },
};

const ATTACHMENT_EXAMPLE = {
  id: 7,
  followup: 12,
  file: 'https://helpdesk.example.com/api/tickets/42/attachments/7',
  filename: 'screenshot.png',
  mime_type: 'image/png',
  size: 48213,
};

const FOLLOWUP_EXAMPLE = {
  id: 12,
  ticket: 42,
  user: 2,
  title: 'Comment and Resolved',
  comment: 'Replaced the fuser; printing again.',
  public: true,
  new_status: 3,
  time_spent: null,
  followupattachment_set: [ATTACHMENT_EXAMPLE],
  date: '2026-11-25T12:30:00.250311Z',
  message_id: null,
};

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

const json = (shape: ShapeId, status: number, description: string): SuccessDoc => ({ status, description, shape });
const noContent: SuccessDoc = { status: 204, description: 'Deleted.' };

/** Upstream reports a missing or empty `description` under `body` (its model field's name): kept as it is. */
const DESCRIPTION_ERROR_NOTE =
  'An empty or null `description` is reported under the key `body` (`{"body": ["This field is ' +
  'required."]}`), as upstream does.';

const NEW_STATUS_NOTE =
  "The ticket's new status: 1 Open, 2 Reopened, 3 Resolved, 4 Closed, 5 Duplicate (null or the ticket's own: no " +
  'change).';

const TICKET_FILE: FilePart = {
  name: 'attachment',
  required: false,
  description: 'One file, attached to the opening followup. More files go to followups.',
};
const FOLLOWUP_FILES: FilePart = {
  name: 'attachments',
  required: false,
  repeated: true,
  description: 'Any number of files: repeat the field once per file.',
};

const SEARCH_SYNTAX =
  'Words match their forms (English stemming: `laptops` finds laptop), accents fold (`cafe` finds Café), and the ' +
  'last word matches as a prefix while typed (`lapt`); `"quoted words"` match as a phrase, `-word` excludes, ' +
  '`OR` joins alternatives; codes with a digit (`INV-2024-0042`, `X1-Carbon`) also match anywhere inside a word. ' +
  'A ticket id (`123`, `#123`) or subject tag (`[support-123]`) puts that ticket first. At most 200 characters ' +
  'and 16 words (else 400). Any other text is a valid query. Searched: title, description, resolution, submitter ' +
  'e-mail, followup titles and comments, custom field values and attachment file names. Results come in ' +
  'relevance order (named ids first) unless `ordering` is given, paged by number with an exact `count`; each ' +
  "carries a `snippet`. The index follows the table's stream (a change shows within about a second). Off in an " +
  'environment (`HELPDESK_SEARCH=off`), `search` answers 400; while the engine resumes from a pause, 503 with ' +
  '`Retry-After`.';

export const routes: readonly Route[] = [
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
            `Only tickets whose text matches (every filter above combines with it). ${SEARCH_SYNTAX} Staff search all text, ` +
            `private followups and ` +
            `staff-only custom fields ` +
            `included.`,
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
    table: [...G.customFieldDefinitions, ...G.writeTickets, ...G.writeRefs, ...G.fileCleanups],
    files: ['delete'],
    doc: {
      tag: 'Tickets',
      summary: 'Delete a ticket',
      description: 'Also deletes its followups, attachments and files, and the tickets merged into it.',
      success: noContent,
      errors: [412],
    },
  },
  {
    method: 'GET',
    path: '/api/tickets/{id}/attachments/{attachmentId}',
    handler: 'attachments/download',
    permission: 'staff',
    table: [...G.readTickets],
    files: ['read'],
    negotiatesJson: false,
    doc: {
      tag: 'Attachments',
      summary: "Download an attachment's file",
      description:
        'Answers 302: `Location` is a short-lived link to the file itself (on AWS, an S3 presigned URL; it needs ' +
        'no credentials). A fetch-based client follows the redirect by default and receives the file, of its own ' +
        "type, not JSON: read it as bytes (openapi-fetch: `parseAs: 'blob'` or `'arrayBuffer'`), or send the " +
        "request with `redirect: 'manual'` to get the link.",
      success: {
        status: 302,
        description: 'A redirect to a short-lived download link (no body).',
        headers: { Location: { type: 'string', format: 'uri' } },
      },
    },
  },
  {
    method: 'GET',
    path: '/api/tickets/{id}/cc',
    handler: 'ticket-cc/list',
    permission: 'staff',
    table: [...G.readTicketCcs],
    files: [],
    doc: {
      tag: 'Mail',
      summary: "A ticket's CC list",
      success: json('TicketCcPage', 200, 'A page of CC entries, in the order they were added.'),
      paginated: true,
    },
  },
  {
    method: 'POST',
    path: '/api/tickets/{id}/cc',
    handler: 'ticket-cc/create',
    permission: 'staff',
    table: [...G.writeTicketCcs],
    files: [],
    doc: {
      tag: 'Mail',
      summary: "Add an address or a user to a ticket's CC list",
      description:
        "Either `email` or `user` (a user's id: mailed at the user's address as it is when mailing). CC " +
        "addresses hear of the ticket's public changes, as upstream's TicketCC.",
      success: json('TicketCc', 201, 'The new entry.'),
      body: {
        fields: ticketCcFields,
        mode: 'partial',
        examples: { json: { address: { summary: 'Copy an address', value: { email: 'manager@example.com' } } } },
      },
    },
  },
  {
    method: 'DELETE',
    path: '/api/tickets/{id}/cc/{ccId}',
    handler: 'ticket-cc/delete',
    permission: 'staff',
    table: [...G.writeTicketCcs],
    files: [],
    doc: { tag: 'Mail', summary: "Remove an entry from a ticket's CC list", success: noContent },
  },
  {
    method: 'GET',
    path: '/api/tickets/{id}/emails',
    handler: 'ticket-emails/list',
    permission: 'staff',
    table: [...G.readTickets, ...G.readMailLog],
    files: [],
    doc: {
      tag: 'Mail',
      summary: 'The mail sent about a ticket',
      description:
        'Every notification about the ticket, oldest first: kind, recipients, subject, status and times. A mail ' +
        'is listed once it is queued (within about a second of the change that causes it) and its status follows ' +
        'it: sent, then delivered, bounced or complained as the mail service reports (on AWS).',
      success: json('TicketEmailPage', 200, 'A page of mails, oldest first.'),
      paginated: true,
    },
  },
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
    table: [...G.writeTickets, ...G.writeRefs, ...G.fileCleanups],
    files: ['delete'],
    doc: { tag: 'Followups', summary: 'Delete a followup and its attachments', success: noContent },
  },
  {
    method: 'GET',
    path: '/api/followups-attachments',
    handler: 'attachments/list',
    permission: 'staff',
    table: [...G.listRefs, ...G.readTickets, ...G.visibleTickets],
    files: [],
    doc: {
      tag: 'Attachments',
      summary: 'List followup attachments',
      success: json('AttachmentPage', 200, 'A page of attachments, by file name.'),
      paginated: true,
    },
  },
  {
    method: 'POST',
    path: '/api/followups-attachments',
    handler: 'attachments/create',
    permission: 'staff',
    table: [...G.newIds, ...G.writeTickets, ...G.writeRefs, ...G.fileCleanups, ...G.outbox],
    files: ['write', 'delete'],
    doc: {
      tag: 'Attachments',
      summary: 'Attach a file to a followup',
      description:
        "`filename`, `mime_type` and `size` default to the upload's name, the type guessed from it and its byte count.",
      success: json('Attachment', 201, 'The attachment record.'),
      body: {
        fields: attachmentFields,
        mode: 'create',
        files: [{ name: 'file', required: true, description: 'The file.' }],
        multipartOnly: true,
      },
    },
  },
  {
    method: 'GET',
    path: '/api/followups-attachments/{id}',
    handler: 'attachments/get',
    permission: 'staff',
    table: [...G.readRefs, ...G.readTickets],
    files: [],
    doc: {
      tag: 'Attachments',
      summary: 'Get an attachment record',
      success: json('Attachment', 200, 'The attachment record.'),
    },
  },
  {
    method: 'DELETE',
    path: '/api/followups-attachments/{id}',
    handler: 'attachments/delete',
    permission: 'staff',
    table: [...G.writeTickets, ...G.writeRefs, ...G.fileCleanups],
    files: ['delete'],
    doc: { tag: 'Attachments', summary: 'Delete an attachment and its file', success: noContent },
  },
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
        'where token authentication is enabled.',
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
  {
    method: 'GET',
    path: '/api/ignored-senders',
    handler: 'ignored-senders/list',
    permission: 'superuser',
    table: [...G.readIgnoredSenders],
    files: [],
    doc: {
      tag: 'Mail',
      summary: 'List ignored senders',
      success: json('IgnoredSenderPage', 200, 'A page of rules, in id order.'),
      paginated: true,
    },
  },
  {
    method: 'POST',
    path: '/api/ignored-senders',
    handler: 'ignored-senders/create',
    permission: 'superuser',
    table: [...G.writeIgnoredSenders],
    files: [],
    doc: {
      tag: 'Mail',
      summary: 'Ignore mail from an address or a pattern',
      description:
        "As upstream's IgnoreEmail: mail from `email_address` (an address, or `*@example.com`, `noreply@*`; any " +
        'case) to the `queues` listed (none: every queue) opens and changes no ticket, by any way in (SMTP, SES, ' +
        'a mailbox); it is recorded as `ignored` with the rule. `keep_in_mailbox`: a mailbox leaves the message ' +
        'there, read, instead of moving or deleting it. Mail in uses a new rule within a minute.',
      success: json('IgnoredSender', 201, 'The rule.'),
      body: {
        fields: ignoredSenderFields,
        mode: 'create',
        examples: {
          json: {
            monitoring: {
              summary: 'A monitoring system, every queue',
              value: { name: 'Monitoring', email_address: '*@alerts.example.com', queues: [], keep_in_mailbox: false },
            },
          },
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/api/ignored-senders/{id}',
    handler: 'ignored-senders/get',
    permission: 'superuser',
    table: [...G.readIgnoredSenders],
    files: [],
    doc: { tag: 'Mail', summary: 'Get an ignored sender', success: json('IgnoredSender', 200, 'The rule.') },
  },
  {
    method: 'DELETE',
    path: '/api/ignored-senders/{id}',
    handler: 'ignored-senders/delete',
    permission: 'superuser',
    table: [...G.writeIgnoredSenders],
    files: [],
    doc: { tag: 'Mail', summary: 'Stop ignoring a sender', success: noContent },
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
  {
    method: 'GET',
    path: '/api/mail/suppressions',
    handler: 'mail-suppressions/list',
    permission: 'superuser',
    table: [...G.readSuppressions],
    files: [],
    doc: {
      tag: 'Mail',
      summary: 'The suppression list',
      description:
        'Addresses no mail goes to: put there when a mail to them bounced hard or was marked as spam (the mail ' +
        "service's events). Mail to them is logged as `suppressed`, not sent.",
      success: json('SuppressionPage', 200, 'A page of suppressed addresses, in address order.'),
      paginated: true,
    },
  },
  {
    method: 'DELETE',
    path: '/api/mail/suppressions/{address}',
    handler: 'mail-suppressions/delete',
    permission: 'superuser',
    table: [...G.writeSuppressions],
    files: [],
    doc: {
      tag: 'Mail',
      summary: 'Take an address off the suppression list',
      description: 'Any case; `@` may be percent-encoded.',
      success: { status: 204, description: 'Mail goes to the address again.' },
    },
  },
  {
    method: 'GET',
    path: '/api/mail/problems',
    handler: 'mail-problems/list',
    permission: 'superuser',
    table: [...G.readMailProblems],
    files: [],
    doc: {
      tag: 'Mail',
      summary: 'Received mail kept for review',
      description:
        'Messages mail in did not apply (`failed`, `held`) or applied as a private followup because their sender ' +
        'is not verified (`unverified`), oldest first; each is kept raw. An unverified one is released here; a ' +
        'failed or held one with `npm run helpdesk -- retry-mail`.',
      success: json('MailProblemPage', 200, 'A page of kept messages, oldest first.'),
      paginated: true,
    },
  },
  {
    method: 'POST',
    path: '/api/mail/problems/{id}/release',
    handler: 'mail-problems/release',
    permission: 'superuser',
    table: [...G.releaseMailProblems, ...G.userSummaries, ...G.writeTickets, ...G.writeRefs],
    files: [],
    doc: {
      tag: 'Mail',
      summary: "Publish an unverified reply's followup",
      description:
        'The followup becomes public and the message leaves the list; nothing else it was withheld from is ' +
        'applied (no reopen, no CCs, no credit to a user, no mail): staff make those changes themselves. `id` as ' +
        'listed, its `#` percent-encoded. A failed or held message: 409 (the CLI runs the ingest again).',
      success: json('Followup', 200, 'The followup, now public.'),
      errors: [404, 409],
    },
  },
  {
    method: 'GET',
    path: '/api/mail/templates',
    handler: 'mail-templates/list',
    permission: 'superuser',
    table: [...G.readTemplateOverrides],
    files: [],
    doc: {
      tag: 'Mail',
      summary: 'The mail template overrides',
      success: json('MailTemplateOverridePage', 200, 'A page of overrides, by kind (the global one first).'),
      paginated: true,
    },
  },
  {
    method: 'GET',
    path: '/api/mail/templates/{kind}',
    handler: 'mail-templates/get',
    permission: 'superuser',
    table: [...G.readTemplateOverrides],
    files: [],
    doc: {
      tag: 'Mail',
      summary: "A mail kind's template, as mails are rendered with it",
      description:
        "The default with the overridden parts; `?queue=<id>` for one queue's mails (its override over the " +
        "global one). `kind`: one of upstream's template names (`newticket_submitter`, `resolved_cc`, ...).",
      success: json('MailTemplate', 200, 'The template and which parts are overridden.'),
      query: [{ name: 'queue', description: "A queue's id: the template its mails use.", example: '1' }],
      errors: [400],
    },
  },
  {
    method: 'PUT',
    path: '/api/mail/templates/{kind}',
    handler: 'mail-templates/put',
    permission: 'superuser',
    table: [...G.writeTemplateOverrides],
    files: [],
    doc: {
      tag: 'Mail',
      summary: "Override a mail kind's subject, text or HTML",
      description:
        'For every queue, or for `queue`. Parts left out keep the default. Templates name values as `{{ ' +
        'ticket.title }}` (HTML-escaped in `html`) and sections as `{{#comment}}...{{/comment}}`; an unknown ' +
        "name, an unclosed section, or a subject without `{{ ticket.tag }}` (upstream's `[queue-id]`, which " +
        'replies are threaded by) is refused. Mails use it within a minute.',
      success: json('MailTemplateOverride', 200, 'The override as kept.'),
      body: {
        fields: templateOverrideFields,
        mode: 'partial',
        examples: {
          json: {
            subject: {
              summary: 'A friendlier subject',
              value: { subject: '{{ ticket.tag }} We got your request: {{ ticket.title }}' },
            },
          },
        },
      },
    },
  },
  {
    method: 'DELETE',
    path: '/api/mail/templates/{kind}',
    handler: 'mail-templates/delete',
    permission: 'superuser',
    table: [...G.writeTemplateOverrides],
    files: [],
    doc: {
      tag: 'Mail',
      summary: 'Reset a mail kind to its default',
      description: "The global override, or with `?queue=<id>` that queue's.",
      success: { status: 204, description: 'Reset.' },
      query: [{ name: 'queue', description: "A queue's id: reset its override only.", example: '1' }],
      errors: [400],
    },
  },
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
  {
    method: 'GET',
    path: '/api/webhook-deliveries',
    handler: 'webhook-deliveries/list',
    permission: 'staff',
    table: [...G.readDeliveries, ...G.visibleTickets],
    files: [],
    doc: {
      tag: 'Webhooks',
      summary: 'The webhook delivery log, newest first',
      description: 'Cursor pagination: follow `next`. Records expire 30 days after their event.',
      success: json('WebhookDeliveryPage', 200, 'A page of deliveries.'),
      query: [
        { name: 'cursor', description: 'Where the page starts (from a `next` link).' },
        {
          name: 'page_size',
          description: `Deliveries per page (default ${DEFAULT_PAGE_SIZE}; more than ${MAX_PAGE_SIZE} counts as ${MAX_PAGE_SIZE}; below 1, the default).`,
          schema: { type: 'integer' },
        },
      ],
    },
  },
  {
    method: 'GET',
    path: '/api/webhook-deliveries/{id}',
    handler: 'webhook-deliveries/get',
    permission: 'staff',
    table: [...G.readDeliveries, ...G.visibleTickets],
    files: [],
    doc: { tag: 'Webhooks', summary: 'One webhook delivery', success: json('WebhookDelivery', 200, 'The delivery.') },
  },
  {
    method: 'POST',
    path: '/api/webhook-deliveries/{id}/redeliver',
    handler: 'webhook-deliveries/redeliver',
    permission: 'staff',
    table: [...G.redeliver, ...G.visibleTickets],
    files: [],
    queuesWebhooks: true,
    doc: {
      tag: 'Webhooks',
      summary: 'Send a delivery again',
      description: 'A new round of attempts with the same `webhook-id` and body.',
      success: json('WebhookDelivery', 202, 'The delivery, queued.'),
    },
  },
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
          description: `Events per page (default ${DEFAULT_FEED_PAGE}; more than ${MAX_FEED_PAGE} counts as ${MAX_FEED_PAGE}; below 1 answers 400).`,
          schema: { type: 'integer', minimum: 1 },
        },
      ],
      errors: [400],
    },
  },
  {
    method: 'GET',
    path: '/api/webhooks',
    handler: 'webhook-subscriptions/list',
    permission: 'superuser',
    table: [...G.readSubscriptions],
    files: [],
    doc: {
      tag: 'Webhooks',
      summary: 'List webhook subscriptions',
      description:
        "The environment's receivers first (`read_only`, from `HELPDESK_NEW_TICKET_WEBHOOK_URLS` and " +
        '`HELPDESK_FOLLOWUP_WEBHOOK_URLS`), then the subscriptions made here, oldest first. Never a secret.',
      success: {
        ...json('WebhookSubscriptionPage', 200, 'A page of subscriptions.'),
        example: { count: 1, next: null, previous: null, results: [SUBSCRIPTION_EXAMPLE] },
      },
      paginated: true,
    },
  },
  {
    method: 'POST',
    path: '/api/webhooks',
    handler: 'webhook-subscriptions/create',
    permission: 'superuser',
    table: [...G.writeSubscriptions],
    files: [],
    answerHoldsSecret: true,
    doc: {
      tag: 'Webhooks',
      summary: 'Subscribe a receiver to change events',
      description:
        'The URL must be https (http only to this machine in the local runtime) and not a private, link-local or ' +
        'metadata address; it is checked again at each ' +
        `connection. At most ${MAX_SUBSCRIPTIONS} subscriptions. Each event ` +
        `is posted as \`{"type", ` +
        `"timestamp", "data"}\`, ` +
        `signed with the subscription's ` +
        `own secret (Standard Webhooks).`,
      success: {
        ...json('WebhookSubscriptionWithSecret', 201, 'The subscription, with its signing secret (shown only now).'),
        example: { ...SUBSCRIPTION_EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      },
      body: {
        fields: subscriptionFields,
        mode: 'create',
        examples: {
          json: {
            subscribe: {
              summary: 'Subscribe to new and changed tickets',
              value: {
                url: 'https://hooks.example.com/helpdesk',
                events: ['ticket.created', 'ticket.updated'],
                description: 'CRM sync',
              },
            },
          },
        },
      },
    },
  },
  {
    method: 'GET',
    path: '/api/webhooks/{id}',
    handler: 'webhook-subscriptions/get',
    permission: 'superuser',
    table: [...G.readSubscriptions],
    files: [],
    doc: {
      tag: 'Webhooks',
      summary: 'Get a webhook subscription',
      success: {
        ...json('WebhookSubscription', 200, 'The subscription (never its secret).'),
        example: SUBSCRIPTION_EXAMPLE,
      },
    },
  },
  {
    method: 'PATCH',
    path: '/api/webhooks/{id}',
    handler: 'webhook-subscriptions/update',
    permission: 'superuser',
    table: [...G.writeSubscriptions],
    files: [],
    doc: {
      tag: 'Webhooks',
      summary: 'Change, disable or enable a webhook subscription',
      description:
        '`{"enabled": false}` disables it (its pending deliveries end at their next attempt); `{"enabled": ' +
        'true}` enables it again. A subscription whose receiver answered only failures ' +
        `for ${DISABLE_AFTER_DAYS} days is disabled by the ` +
        `deliverer (\`disabled_reason\`). ` +
        `The environment's receivers ` +
        `answer 409.`,
      success: {
        ...json('WebhookSubscription', 200, 'The changed subscription.'),
        example: { ...SUBSCRIPTION_EXAMPLE, enabled: false },
      },
      body: {
        fields: subscriptionFields,
        mode: 'partial',
        examples: { json: { disable: { summary: 'Disable it', value: { enabled: false } } } },
      },
      errors: [409],
    },
  },
  {
    method: 'DELETE',
    path: '/api/webhooks/{id}',
    handler: 'webhook-subscriptions/delete',
    permission: 'superuser',
    table: [...G.writeSubscriptions],
    files: [],
    doc: {
      tag: 'Webhooks',
      summary: 'Delete a webhook subscription',
      description: "The environment's receivers answer 409.",
      success: noContent,
      errors: [409],
    },
  },
  {
    method: 'POST',
    path: '/api/webhooks/{id}/rotate-secret',
    handler: 'webhook-subscriptions/rotate-secret',
    permission: 'superuser',
    table: [...G.writeSubscriptions],
    files: [],
    answerHoldsSecret: true,
    doc: {
      tag: 'Webhooks',
      summary: "Replace a subscription's signing secret",
      description:
        'The old secret keeps signing beside the new one (two `v1,` signatures in `webhook-signature`) for ' +
        '`keep_previous_for` ' +
        `seconds (default ${DEFAULT_ROTATION_GRACE_SECONDS}, i.e. a day; 0 stops ` +
        `it at once), so the receiver ` +
        `can switch without missing ` +
        `a delivery.`,
      success: {
        ...json('WebhookSubscriptionWithSecret', 200, 'The subscription, with its new secret (shown only now).'),
        example: {
          ...SUBSCRIPTION_EXAMPLE,
          previous_secret_expires: '2026-11-26T12:00:00Z',
          secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
        },
      },
      body: {
        fields: rotationFields,
        mode: 'create',
        examples: { json: { hour: { summary: 'Keep the old secret an hour', value: { keep_previous_for: 3600 } } } },
      },
      errors: [409],
    },
  },
  {
    method: 'POST',
    path: '/api/webhooks/{id}/ping',
    handler: 'webhook-subscriptions/ping',
    permission: 'superuser',
    table: [...G.readSubscriptions],
    files: [],
    doc: {
      tag: 'Webhooks',
      summary: 'Send a test event to a subscription now',
      description:
        'Posts `{"type": "webhook.ping", "timestamp": ..., "data": {"subscription": <id>}}`, signed as ' +
        'deliveries are, and answers with what the receiver answered (a failing receiver is still a 200 here). ' +
        'Not in the delivery log.',
      success: {
        ...json('WebhookPing', 200, "The receiver's answer."),
        example: { id: 'msg_mi2vsq0w3a9f1c6e7b2d405812', delivered: false, status: 503, error: null },
      },
      errors: [409],
    },
  },
];

/**
 * Answers what no entry above matches under /api: 404 for unknown paths, 405 (after authentication
 * and permission, as upstream) for a known path with another method, and OPTIONS.
 */
export const fallbackRoute: Route = {
  method: 'ANY',
  path: '/api/{proxy+}',
  handler: 'api/fallback',
  permission: 'authenticated',
  table: [...G.customFieldDefinitions],
  files: [],
};

/** The paths the fallback is deployed on (API Gateway prefers the more specific routes). */
export const FALLBACK_PATHS = ['/api', '/api/{proxy+}'] as const;

export function routeByHandler(handler: string): Route {
  const route = [...routes, fallbackRoute].find((r) => r.handler === handler);
  if (!route) throw new Error(`No route for handler ${handler}`);
  return route;
}

const patterns = new Map<string, RegExp>();
function pattern(path: string): RegExp {
  let re = patterns.get(path);
  if (!re) {
    const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, '(?<$1>[^/]+)');
    re = new RegExp(`^${source}/?$`);
    patterns.set(path, re);
  }
  return re;
}

/** Path parameters when `rawPath` matches `path` (with or without a trailing slash). */
export function matchPath(path: string, rawPath: string): Record<string, string> | undefined {
  const m = pattern(path).exec(rawPath);
  return m ? { ...m.groups } : undefined;
}

export interface PathMatch {
  path: string;
  params: Record<string, string>;
  routes: Route[];
}

/** All routes of the path that `rawPath` names, if any. */
export function matchRoutes(rawPath: string): PathMatch | undefined {
  for (const route of routes) {
    const params = matchPath(route.path, rawPath);
    if (params) return { path: route.path, params, routes: routes.filter((r) => r.path === route.path) };
  }
  return undefined;
}

/**
 * What a function's middleware needs of its route at run time. A function's bundle has only this,
 * compiled in (infra/bundling.ts), not the table: the table, with every route's docs and field
 * sets, would add ~25 KiB to every bundle.
 */
export interface RouteFacts {
  method: Route['method'];
  permission: Permission;
  /** The path's `Allow` header. */
  allow: string[];
  negotiatesJson: boolean;
  answerHoldsSecret: boolean;
}

export function routeFacts(route: Route): RouteFacts {
  return {
    method: route.method,
    permission: route.permission,
    allow: allowedMethods(route.path),
    negotiatesJson: route.negotiatesJson !== false,
    answerHoldsSecret: route.answerHoldsSecret === true,
  };
}

/** The methods a path answers, as its `Allow` header lists them (upstream's order). */
export function allowedMethods(path: string): string[] {
  const methods = new Set(routes.filter((r) => r.path === path).map((r) => r.method as string));
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  const order = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
  return order.filter((m) => methods.has(m));
}
