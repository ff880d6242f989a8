/** The route table's record types (routes.ts), and the OpenAPI tags its routes are grouped by. */

import type { Fields, Mode } from '../domain/fields';
import type { ShapeId } from '../domain/shapes';
import type { TableGrant } from './table-access';

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
  /**
   * True for a route that invokes the mail release function (infra/mail-release.ts): the stack grants invoking that
   * one function and names it (HELPDESK_MAIL_RELEASE_FUNCTION), where mail in is deployed.
   */
  releasesMail?: true;
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
