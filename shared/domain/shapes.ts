/**
 * The response shapes of the API, declared once with zod. The serialisers (views.ts, user.ts,
 * admin.ts, user-tickets.ts, pagination.ts, describe.ts) build these objects in code; the OpenAPI
 * document (openapi.ts) is generated from these schemas, and the integration tests validate every
 * response against that document, so a serialiser that drifts from its shape fails a test. The
 * type checks at the end tie each serialiser's return type to its schema at compile time too.
 *
 * Imported by the OpenAPI generator and the tests only, never by a handler's hot path.
 */
import * as z from 'zod/mini';
import type { customFieldView } from './admin';
import { DATA_TYPES } from './custom-fields';
import type { queueView } from './admin';
import type { exclusionView } from './escalation';
import type { ignoredSenderView } from './ignored-senders';
import type { effectiveTemplateView, templateOverrideView } from './template-overrides';
import { MAIL_KINDS, SUPPRESSION_REASONS, type suppressionView, type ticketCcView } from './mail-settings';
import { MAIL_STATUSES, type mailView } from './mail';
import type { mailProblemView } from './mail-in';
import type { describeRoute } from './describe';
import type { pageEnvelope } from './pagination';
import type { userTicketView } from './user-tickets';
import type { userDetailView, userView } from './user';
import type { attachmentView, followupView, ticketView } from './views';
import type { deliveryView } from './webhooks';
import type { createdTokenView } from './tokens';
import { EVENT_TYPES, type ChangeEvent } from './events';
import { SNIPPET_FIELDS } from './search';
import type {
  PingResult,
  environmentSubscriptionViews,
  subscriptionView,
  subscriptionWithSecretView,
} from './subscriptions';

/** The component name of each shape below: routes name their responses by it (shared/api/routes.ts). */
export type ShapeId =
  | 'ErrorDetail'
  | 'FieldErrors'
  | 'Attachment'
  | 'Followup'
  | 'Ticket'
  | 'User'
  | 'UserDetail'
  | 'UserDetailPage'
  | 'UserTicket'
  | 'Queue'
  | 'CustomField'
  | 'ApiRoot'
  | 'RouteDescription'
  | 'TicketPage'
  | 'SearchSnippet'
  | 'TicketListItem'
  | 'UserTicketListItem'
  | 'FollowupPage'
  | 'AttachmentPage'
  | 'UserTicketPage'
  | 'QueuePage'
  | 'EscalationExclusion'
  | 'EscalationExclusionPage'
  | 'IgnoredSender'
  | 'IgnoredSenderPage'
  | 'TimeSpentReport'
  | 'TicketCc'
  | 'TicketCcPage'
  | 'Suppression'
  | 'SuppressionPage'
  | 'MailProblem'
  | 'MailProblemPage'
  | 'MailTemplate'
  | 'MailTemplateOverride'
  | 'MailTemplateOverridePage'
  | 'TicketEmail'
  | 'TicketEmailPage'
  | 'CustomFieldPage'
  | 'WebhookDelivery'
  | 'WebhookDeliveryPage'
  | 'ApiToken'
  | 'CreatedApiToken'
  | 'ApiTokenPage'
  | 'WebhookSubscription'
  | 'WebhookSubscriptionWithSecret'
  | 'WebhookSubscriptionPage'
  | 'WebhookPing'
  | 'ChangeEvent'
  | 'ChangeEventPage'
  | 'WebhookEventPayload'
  | 'WebhookPingPayload'
  | 'NewTicketWebhookPayload'
  | 'NewFollowupWebhookPayload';

/** What the JSON Schema of each component says beyond the zod schema (title, description). */
export interface ShapeMeta {
  id: ShapeId;
  description?: string;
}

/** Every named shape, with its component name: the generator turns this registry into `components.schemas`. */
export const shapes = z.registry<ShapeMeta>();

/** The wire form of a date-time: UTC with `Z`, six fraction digits when non-zero (datetime.ts). */
export const WIRE_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{6})?Z$/;

const id = z.int().check(z.minimum(1));
const text = z.string();
const nullable = <T extends z.core.SomeType>(schema: T) => z.nullable(schema);
const dateTime = z.string().check(z.regex(WIRE_DATE_TIME));
const url = z.string().check(z.regex(/^https?:\/\/\S+$/));
const status = z.literal([1, 2, 3, 4, 5]);

/** The key of a custom field's value in a ticket: `custom_` and the field's name (a slug). */
export const CUSTOM_KEY_PATTERN = '^custom_[-a-zA-Z0-9_]+$';

/**
 * Schemas whose objects also carry `custom_<name>` keys, one per custom field defined at the time
 * (their set changes per deployment and over time): the generator adds `patternProperties` for them.
 */
export const withCustomFields = new Set<z.core.$ZodType>();

export const errorDetail = z.object({ detail: text });
shapes.add(errorDetail, {
  id: 'ErrorDetail',
  description: 'Most errors (401, 403, 404, 405, 406, 409, 413, 415, 503 and some 400s): a human-readable message.',
});

// A field's messages, or (for the files of a multipart body) the messages of each file by index.
const fieldMessages = z.union([z.array(text), z.record(z.string(), z.array(text))]);
export const fieldErrors = z.record(z.string(), fieldMessages);
shapes.add(fieldErrors, {
  id: 'FieldErrors',
  description:
    "Validation errors (400): each field that failed, in the resource's field order, with its messages " +
    '(`{"title": ["This field is required."]}`); `non_field_errors` for a body that is not an object; for ' +
    'repeated file fields, messages by file index (`{"attachments": {"0": ["The submitted file is ' +
    'empty."]}}`). A ticket\'s empty or null `description` is reported under `body`, as upstream. Never a ' +
    '`detail` key: that is ErrorDetail.',
});
/** FieldErrors never has a `detail` key (openapi.ts states it, so that generated types narrow on it). */
export const FIELD_ERRORS_EXCLUDE = 'detail';

export const attachmentShape = z.object({
  id,
  followup: id,
  file: url,
  filename: text,
  mime_type: text,
  size: z.int().check(z.minimum(0)),
});
shapes.add(attachmentShape, {
  id: 'Attachment',
  description:
    '`file` is an API URL that answers a redirect to a short-lived download link (it needs the same credentials).',
});

export const followupShape = z.object({
  id,
  ticket: id,
  user: nullable(id),
  title: nullable(text),
  comment: nullable(text),
  public: z.boolean(),
  new_status: nullable(status),
  time_spent: nullable(text),
  followupattachment_set: z.array(attachmentShape),
  date: dateTime,
  message_id: nullable(text),
});
shapes.add(followupShape, {
  id: 'Followup',
  description: '`time_spent` is a duration as Django writes it (`"[D ]HH:MM:SS[.ffffff]"`).',
});

export const ticketShape = z.object({
  id,
  queue: id,
  title: text,
  description: nullable(text),
  resolution: nullable(text),
  submitter_email: nullable(text),
  assigned_to: nullable(id),
  status,
  on_hold: z.boolean(),
  priority: z.literal([1, 2, 3, 4, 5]),
  due_date: nullable(dateTime),
  merged_to: nullable(id),
  followup_set: z.array(followupShape),
});
shapes.add(ticketShape, {
  id: 'Ticket',
  description:
    'A ticket with its followups and their attachments. Status: 1 Open, 2 Reopened, 3 Resolved, 4 Closed, 5 ' +
    'Duplicate. Priority: 1 Critical to 5 Very Low. Plus one `custom_<name>` key per custom field defined.',
});
withCustomFields.add(ticketShape);

export const userShape = z.object({ first_name: text, last_name: text, username: text, email: text });
shapes.add(userShape, { id: 'User', description: 'A created user: the non-secret fields (never the password).' });

/** A user as the users routes show one (user.ts `userDetailView`). */
export const userDetailShape = z.object({
  id,
  username: text,
  first_name: z.string(),
  last_name: z.string(),
  email: text,
  is_active: z.boolean(),
  is_staff: z.boolean(),
  is_superuser: z.boolean(),
  queues: z.array(id),
});
shapes.add(userDetailShape, {
  id: 'UserDetail',
  description:
    'A user (never the password). `queues`: the ids of the queues a staff member works in when per-queue ' +
    'permissions are on.',
});

export const userTicketShape = z.object({
  ticket: text,
  id,
  title: text,
  queue: z.object({ title: text, id }),
  status: text,
  created: text,
  due_date: nullable(text),
  submitter: nullable(text),
  kbitem: text,
  secret_key: text,
});
shapes.add(userTicketShape, {
  id: 'UserTicket',
  description:
    'One of the caller\'s own tickets in upstream\'s compact form: `ticket` is `"<id> [<queue slug>-<id>]"`, ' +
    '`status` a label, `created` and `due_date` natural times ("2 hours ago"). Plus `custom_<name>` keys (the ' +
    'detail view: only the required custom fields).',
});
withCustomFields.add(userTicketShape);

export const queueShape = z.object({
  id,
  title: text,
  slug: text,
  email_address: nullable(text),
  new_ticket_cc: nullable(text),
  updated_ticket_cc: nullable(text),
  disabled_mail: z.array(z.enum(MAIL_KINDS)),
  escalate_days: nullable(z.int().check(z.minimum(0))),
  allow_public_submission: z.boolean(),
  locale: nullable(text),
});
shapes.add(queueShape, {
  id: 'Queue',
  description:
    '`email_address`: the From: of the queue\'s mail ("<title> <address>"; null: the deployment\'s sender). ' +
    '`new_ticket_cc`, `updated_ticket_cc`: comma-separated addresses told of new tickets, of every change. ' +
    '`disabled_mail`: the mail kinds (templates) this queue sends none of. `escalate_days`: days (holidays not ' +
    'counted) an open ticket waits before the daily run raises its priority; null: never. ' +
    '`allow_public_submission`: with per-queue permissions on, every staff member sees this queue. ' +
    "`locale`: the queue's language (upstream's, up to 10 characters: `fr`, `de`, `pt-br`; null: none), which " +
    'picks the stemming its tickets are searched with (a language without a stemmer, or none: English).',
});

export const exclusionShape = z.object({ id, name: text, date: z.iso.date(), queues: z.array(id) });
shapes.add(exclusionShape, {
  id: 'EscalationExclusion',
  description:
    'A date the daily escalation does not count (a holiday): for the queues listed, or every queue when `queues` ' +
    'is empty.',
});

export const ignoredSenderShape = z.object({
  id,
  name: text,
  email_address: text,
  queues: z.array(id),
  keep_in_mailbox: z.boolean(),
  date: dateTime,
});
shapes.add(ignoredSenderShape, {
  id: 'IgnoredSender',
  description:
    'Mail from `email_address` (an address, or `*@example.com`, `noreply@*`; any case) to the queues listed ' +
    '(none: every queue) becomes no ticket or followup: it is recorded as `ignored`. `keep_in_mailbox`: a ' +
    'mailbox read over IMAP leaves it there, read.',
});

export const ticketCcShape = z.object({
  id,
  ticket: id,
  user: nullable(id),
  email: nullable(text),
  can_view: z.boolean(),
  can_update: z.boolean(),
});
shapes.add(ticketCcShape, {
  id: 'TicketCc',
  description:
    "One entry of a ticket's CC list (upstream's TicketCC): an `email` address, or a `user` (mailed at the " +
    "user's address as it is when mailing).",
});

const mailKind = z.enum(MAIL_KINDS);
export const templateOverrideShape = z.object({
  kind: mailKind,
  queue: nullable(id),
  subject: nullable(text),
  text: nullable(text),
  html: nullable(text),
  updated: dateTime,
});
shapes.add(templateOverrideShape, {
  id: 'MailTemplateOverride',
  description:
    "An operator's parts of a mail kind's template, for every queue (`queue` null) or one; a null part keeps the " +
    'one below it.',
});
export const mailTemplateShape = z.object({
  kind: mailKind,
  queue: nullable(id),
  subject: text,
  text,
  html: text,
  overridden: z.array(z.enum(['subject', 'text', 'html'])),
});
shapes.add(mailTemplateShape, {
  id: 'MailTemplate',
  description: "The template a kind's mails are rendered with: the default and the overridden parts (`overridden`).",
});

export const suppressionShape = z.object({
  address: text,
  reason: z.enum(SUPPRESSION_REASONS),
  detail: text,
  since: dateTime,
  message_id: nullable(text),
});
shapes.add(suppressionShape, {
  id: 'Suppression',
  description:
    'An address no mail goes to: it bounced hard, or its owner marked a mail as spam. `message_id`: the mail ' +
    "service's id of the mail that did.",
});

export const mailProblemShape = z.object({
  id: text,
  kind: z.enum(['failed', 'held', 'unverified', 'sign-in']),
  reason: text,
  sender: text,
  received: dateTime,
  recipients: z.array(text),
  message_id: nullable(text),
  attempts: z.int().check(z.minimum(1)),
});
shapes.add(mailProblemShape, {
  id: 'MailProblem',
  description:
    'A received message kept for review, raw: `failed` (unreadable, over a limit, or an error while applying), ' +
    '`held` (spam, DMARC, a rate) or `unverified` (applied as a private followup: its sender is not verified).',
});

export const ticketEmailShape = z.object({
  id: text,
  kind: z.enum(MAIL_KINDS),
  recipients: z.array(text),
  subject: nullable(text),
  status: z.enum(MAIL_STATUSES),
  message_id: nullable(text),
  followup: nullable(id),
  attempts: z.int().check(z.minimum(0)),
  created: dateTime,
  sent: nullable(dateTime),
  updated: dateTime,
  error: nullable(text),
  actor: nullable(z.object({ id, username: text })),
  source: z.enum(['api', 'mail', 'system', 'unknown']),
});
shapes.add(ticketEmailShape, {
  id: 'TicketEmail',
  description:
    '`actor` and `source`: who made the change it tells of, as a change event names them. One mail the helpdesk ' +
    "sent (or is sending) about the ticket: its kind (upstream's template name), recipients, subject (once " +
    'composed), status (`queued`, `sending`, `sent`, `delivered`, `bounced`, `complained`, `suppressed`, ' +
    '`failed`) and times; `message_id` is the Message-ID the recipient sees, `error` why it failed, bounced or ' +
    'was suppressed.',
});

export const customFieldShape = z.object({
  name: text,
  label: text,
  help_text: text,
  data_type: z.enum(DATA_TYPES),
  max_length: nullable(z.int()),
  decimal_places: nullable(z.int()),
  empty_selection_list: z.boolean(),
  list_values: z.array(text),
  required: z.boolean(),
  staff_only: z.boolean(),
  ordering: nullable(z.int()),
});
shapes.add(customFieldShape, {
  id: 'CustomField',
  description: 'A custom field definition; tickets carry its values under `custom_<name>`.',
});

export const apiRootShape = z.object({
  tickets: url,
  user_tickets: url,
  followups: url,
  'followups-attachments': url,
  users: url,
});
shapes.add(apiRootShape, { id: 'ApiRoot', description: 'Links to the resources.' });

const fieldDescription = z.looseObject({ type: text, required: z.boolean(), read_only: z.boolean(), label: text });
export const routeDescriptionShape = z.object({
  name: text,
  description: text,
  renders: z.array(text),
  parses: z.array(text),
  actions: z.optional(z.record(z.string(), z.record(z.string(), fieldDescription))),
});
shapes.add(routeDescriptionShape, {
  id: 'RouteDescription',
  description:
    "Django REST framework's OPTIONS metadata: the route's name, media types, and for POST/PUT each writable field.",
});

/** DRF's page envelope around a list of `item`. */
export function pageOf<T extends z.core.SomeType>(item: T) {
  return z.object({
    count: z.int().check(z.minimum(0)),
    next: nullable(url),
    previous: nullable(url),
    results: z.array(item),
  });
}

const offset = z.int().check(z.minimum(0));
export const snippetShape = z.object({
  field: z.enum(SNIPPET_FIELDS),
  followup: nullable(id),
  custom_field: nullable(text),
  text,
  highlights: z.array(z.object({ start: offset, end: offset })),
});
shapes.add(snippetShape, {
  id: 'SearchSnippet',
  description:
    'Why a search result matched: a short text of the field that matched (`followup`: whose title, comment or ' +
    'file; `custom_field`: its name; `id`: the ticket was named by its id or subject tag), with each matched ' +
    'word at `highlights` (offsets in UTF-16 code units into `text`, `end` excluded). Only text the caller may ' +
    'see.',
});

/** A ticket in a list: with `snippet` when the list is a search (`?search=`). */
export const ticketListItemShape = z.extend(ticketShape, { snippet: z.optional(snippetShape) });
shapes.add(ticketListItemShape, {
  id: 'TicketListItem',
  description: 'A ticket as `Ticket`, and in a search its `snippet`.',
});
withCustomFields.add(ticketListItemShape);
export const userTicketListItemShape = z.extend(userTicketShape, { snippet: z.optional(snippetShape) });
shapes.add(userTicketListItemShape, {
  id: 'UserTicketListItem',
  description: 'A ticket as `UserTicket`, and in a search its `snippet` (public text only).',
});
withCustomFields.add(userTicketListItemShape);

/** The ticket list's page: `count` is null for a filter whose count is not kept (routes.ts says which). */
export const ticketPage = z.object({
  count: nullable(z.int().check(z.minimum(0))),
  next: nullable(url),
  previous: nullable(url),
  results: z.array(ticketListItemShape),
});
shapes.add(ticketPage, { id: 'TicketPage' });
export const followupPage = pageOf(followupShape);
shapes.add(followupPage, { id: 'FollowupPage' });
export const attachmentPage = pageOf(attachmentShape);
shapes.add(attachmentPage, { id: 'AttachmentPage' });
export const userTicketPage = pageOf(userTicketListItemShape);
shapes.add(userTicketPage, { id: 'UserTicketPage' });
export const queuePage = pageOf(queueShape);
shapes.add(queuePage, { id: 'QueuePage' });
export const exclusionPage = pageOf(exclusionShape);
shapes.add(exclusionPage, { id: 'EscalationExclusionPage' });
export const ignoredSenderPage = pageOf(ignoredSenderShape);
shapes.add(ignoredSenderPage, { id: 'IgnoredSenderPage' });
/** GET /api/reports/time-spent/: the totals of one view over a range of days (domain/time-spent.ts). */
const timeSpentDay = nullable(z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)));
export const timeSpentReportShape = z.object({
  by: z.enum(['ticket', 'queue', 'user']),
  since: timeSpentDay,
  until: timeSpentDay,
  time_spent: text,
  results: z.array(
    z.object({
      ticket: z.optional(id),
      queue: z.optional(nullable(id)),
      user: z.optional(nullable(id)),
      time_spent: text,
    }),
  ),
});
shapes.add(timeSpentReportShape, {
  id: 'TimeSpentReport',
  description:
    '`time_spent`: the total, and each row\'s, as a followup\'s (`"[D ]HH:MM:SS[.ffffff]"`). Each row has the ' +
    'key `by` names (`ticket`, `queue` or `user`; `user` null: followups without an author).',
});
export const ticketCcPage = pageOf(ticketCcShape);
shapes.add(ticketCcPage, { id: 'TicketCcPage' });
export const ticketEmailPage = pageOf(ticketEmailShape);
shapes.add(ticketEmailPage, { id: 'TicketEmailPage' });
export const suppressionPage = pageOf(suppressionShape);
export const templateOverridePage = pageOf(templateOverrideShape);
shapes.add(templateOverridePage, { id: 'MailTemplateOverridePage' });
shapes.add(suppressionPage, { id: 'SuppressionPage' });
export const mailProblemPage = pageOf(mailProblemShape);
shapes.add(mailProblemPage, { id: 'MailProblemPage' });
export const customFieldPage = pageOf(customFieldShape);
shapes.add(customFieldPage, { id: 'CustomFieldPage' });

/**
 * `previous` of a forward-only cursor page: always null on the wire (DRF's envelope), typed as the
 * other pages' link so that generators keep it (`{"type": "null"}` alone is dropped by some) and one
 * page type fits every list.
 */
const cursorPrevious = z
  .nullable(url)
  .register(z.globalRegistry, { description: 'Always null: this list pages forward only.' });

/** A webhook delivery in the log (webhooks.ts `deliveryView`). */
export const deliveryShape = z.object({
  id: z.string().check(z.regex(/^msg_/)),
  event: z.enum([...EVENT_TYPES, 'subscription.disabled']),
  url: text,
  ticket: id,
  followup: nullable(id),
  subscription: nullable(text),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.int().check(z.minimum(0)),
  last_response_code: nullable(z.int()),
  last_error: nullable(text),
  next_attempt: nullable(dateTime),
  created: dateTime,
});
shapes.add(deliveryShape, {
  id: 'WebhookDelivery',
  description: 'One webhook delivery: its `id` is the `webhook-id` the receiver gets.',
});
/** DRF's cursor page envelope: the log grows at the front, so it pages by cursor, not number. */
export const deliveryPage = z.object({
  next: nullable(url),
  previous: cursorPrevious,
  results: z.array(deliveryShape),
});
shapes.add(deliveryPage, { id: 'WebhookDeliveryPage' });

/** An API token as listed: never its key. */
export const tokenShape = z.object({ id, user: text, prefix: text, created: dateTime });
shapes.add(tokenShape, { id: 'ApiToken' });
/** A token as created: the key, shown this once. */
export const createdTokenShape = z.object({ id, user: text, key: text, prefix: text, created: dateTime });
shapes.add(createdTokenShape, {
  id: 'CreatedApiToken',
  description: 'The key is shown only in this answer; store it.',
});
export const tokenPage = pageOf(tokenShape);
shapes.add(tokenPage, { id: 'ApiTokenPage' });
export const userDetailPage = pageOf(userDetailShape);
shapes.add(userDetailPage, { id: 'UserDetailPage' });

/** A webhook subscription (subscriptions.ts `subscriptionView`): never its secrets. */
export const subscriptionShape = z.object({
  id: z.string().check(z.regex(/^(sub|env)_/)),
  url: text,
  events: z.array(z.enum(EVENT_TYPES)),
  description: text,
  enabled: z.boolean(),
  read_only: z.boolean(),
  source: text,
  previous_secret_expires: nullable(dateTime),
  failing_since: nullable(dateTime),
  disabled_reason: nullable(text),
  created: nullable(dateTime),
  modified: nullable(dateTime),
});
shapes.add(subscriptionShape, {
  id: 'WebhookSubscription',
  description:
    'A receiver and the events it gets. `read_only` ones come from the environment (`source` names the variable) ' +
    'and change only by redeploying.',
});
export const subscriptionWithSecretShape = z.object({
  ...subscriptionShape.shape,
  secret: z.string().check(z.regex(/^whsec_/)),
});
shapes.add(subscriptionWithSecretShape, {
  id: 'WebhookSubscriptionWithSecret',
  description: 'The signing secret is shown only in this answer; give it to the receiver.',
});
export const subscriptionPage = pageOf(subscriptionShape);
shapes.add(subscriptionPage, { id: 'WebhookSubscriptionPage' });
export const pingShape = z.object({
  id: z.string().check(z.regex(/^msg_/)),
  delivered: z.boolean(),
  status: nullable(z.int()),
  error: nullable(text),
});
shapes.add(pingShape, {
  id: 'WebhookPing',
  description: 'What the receiver answered: `delivered` for a 2xx, else its `status` or the `error` (no answer).',
});

/** A change event (events.ts `ChangeEvent`): what the change feed lists and subscriptions receive. */
export const changeEventShape = z.object({
  id: z.string().check(z.regex(/^evt_/)),
  event: z.enum(EVENT_TYPES),
  created: dateTime,
  ticket: id,
  followup: nullable(id),
  attachment: nullable(id),
  actor: nullable(z.object({ id, username: text })),
  source: z.enum(['api', 'mail', 'system', 'unknown']),
  changes: nullable(z.record(z.string(), z.object({ old: z.unknown(), new: z.unknown() }))),
  data: z.record(z.string(), z.unknown()),
});
shapes.add(changeEventShape, {
  id: 'ChangeEvent',
  description:
    'One committed change. `id` is stable (the same in the feed and in every delivery: deduplicate by it). ' +
    '`changes`: for `*.updated` and `ticket.status_changed`, the changed fields with their `old` and `new` ' +
    'values. `data`: the ticket (without `followup_set`), followup (without `followupattachment_set`) or ' +
    'attachment record (with its `ticket`, and the `public` of its followup) as staff see it after the change, ' +
    'or before it for a deletion. `actor`: who made the change, the API user (`{id, username}`), or null with ' +
    '`source` `mail` (mail in), `system` (the escalation run, a mail delivery report) or `unknown` (an event ' +
    'recorded before actors were, or a leftover the stream consumer removed).',
});
/** The change feed's page: DRF's cursor envelope, and `cursor`, the position after its last event. */
export const changeEventPage = z.object({
  next: nullable(url),
  previous: cursorPrevious,
  cursor: nullable(text),
  results: z.array(changeEventShape),
});
shapes.add(changeEventPage, {
  id: 'ChangeEventPage',
  description:
    '`cursor`: the position after the last event of this page (the `after` sent when there is none; null only ' +
    'for an empty feed read from its start). Poll with `?after=<cursor>`: it never skips an event.',
});

/**
 * What a subscription's receiver is posted (subscriptions.ts `subscriptionPayload`): Standard
 * Webhooks' envelope around the change event. The document's `webhooks` name one per event type.
 */
export const webhookEventPayloadShape = z.object({
  type: z.enum(EVENT_TYPES),
  timestamp: dateTime,
  data: changeEventShape,
});
shapes.add(webhookEventPayloadShape, {
  id: 'WebhookEventPayload',
  description:
    '`type` is the event type, `timestamp` when the change committed, `data` the event as the change feed lists ' +
    'it (with staff-only custom fields and private followups left out unless the deployment includes them: ' +
    'docs/webhooks.md).',
});
/** What `POST /api/webhooks/{id}/ping` posts (webhooks/subscriptions.ts). */
export const webhookPingPayloadShape = z.object({
  type: z.literal('webhook.ping'),
  timestamp: dateTime,
  data: z.object({ subscription: text }),
});
shapes.add(webhookPingPayloadShape, {
  id: 'WebhookPingPayload',
  description: 'A test event: `data.subscription` is the subscription pinged.',
});
/** Upstream's payloads, posted to the environment's receivers (webhooks.ts `webhookPayload`). */
/** Who made a change, as change events, subscriptions' payloads and the environment's receivers' name it. */
const actorFields = {
  actor: nullable(z.object({ id, username: text })),
  source: z.enum(['api', 'mail', 'system', 'unknown']),
};
const ACTOR_NOTE = " `actor` and `source`: who made the change, as a change event names them (not upstream's keys).";
export const newTicketWebhookShape = z.object({ ticket: ticketShape, queue_slug: text, ...actorFields });
shapes.add(newTicketWebhookShape, {
  id: 'NewTicketWebhookPayload',
  description:
    "Upstream's new-ticket payload: the ticket as its submitter could see it, and its queue's slug." + ACTOR_NOTE,
});
export const newFollowupWebhookShape = z.object({
  ticket: ticketShape,
  queue_slug: text,
  followup_id: id,
  ...actorFields,
});
shapes.add(newFollowupWebhookShape, {
  id: 'NewFollowupWebhookPayload',
  description: "Upstream's new-followup payload: the ticket, its queue's slug, and the new followup's id." + ACTOR_NOTE,
});

// Compile-time ties: each serialiser's output must be assignable to its declared shape (the custom
// keys, and types the code keeps wider than the wire values, aside). A serialiser that adds, drops or retypes a key
// breaks `tsc --noEmit` here.
type Fits<Actual, Shape> = Actual extends Shape ? true : never;
type Out<T extends z.core.SomeType> = z.output<T>;
const tie0: Fits<ReturnType<typeof attachmentView>, Out<typeof attachmentShape> & { size: number }> = true;
// `new_status` is typed number in code, and `date` string | null (wireDateTime's type for any date).
const tie1: Fits<
  Omit<ReturnType<typeof followupView>, 'new_status' | 'date'>,
  Omit<Out<typeof followupShape>, 'new_status' | 'date'>
> = true;
const tie2: Fits<
  Omit<ReturnType<typeof ticketView>, 'status' | 'priority' | 'followup_set'>,
  Omit<Out<typeof ticketShape>, 'status' | 'priority' | 'followup_set'>
> = true;
const tie3: Fits<ReturnType<typeof userView>, Out<typeof userShape>> = true;
const tieUser: Fits<ReturnType<typeof userDetailView>, Out<typeof userDetailShape>> = true;
const tie4: Fits<Omit<ReturnType<typeof userTicketView>, 'queue'>, Omit<Out<typeof userTicketShape>, 'queue'>> = true;
const tie5: Fits<ReturnType<typeof queueView>, Out<typeof queueShape>> = true;
const tieExclusion: Fits<ReturnType<typeof exclusionView>, Out<typeof exclusionShape>> = true;
const tieIgnored: Fits<
  Omit<ReturnType<typeof ignoredSenderView>, 'date'>,
  Omit<Out<typeof ignoredSenderShape>, 'date'>
> = true;
const tieCc: Fits<ReturnType<typeof ticketCcView>, Out<typeof ticketCcShape>> = true;
const tieSuppression: Fits<
  Omit<ReturnType<typeof suppressionView>, 'since'>,
  Omit<Out<typeof suppressionShape>, 'since'>
> = true;
const tieTemplate: Fits<
  Omit<ReturnType<typeof effectiveTemplateView>, 'overridden'>,
  Omit<Out<typeof mailTemplateShape>, 'overridden'>
> = true;
const tieOverride: Fits<
  Omit<ReturnType<typeof templateOverrideView>, 'updated'>,
  Omit<Out<typeof templateOverrideShape>, 'updated'>
> = true;
const tieProblem: Fits<
  Omit<ReturnType<typeof mailProblemView>, 'received'>,
  Omit<Out<typeof mailProblemShape>, 'received'>
> = true;
const tieEmail: Fits<ReturnType<typeof mailView>, Out<typeof ticketEmailShape>> = true;
const tie6: Fits<ReturnType<typeof customFieldView>, Out<typeof customFieldShape>> = true;
const tie7: Fits<keyof ReturnType<typeof describeRoute>, string> = true;
const tie8: Fits<keyof ReturnType<typeof pageEnvelope>, keyof Out<typeof ticketPage>> = true;
const tie9: Fits<ReturnType<typeof deliveryView>, Out<typeof deliveryShape>> = true;
const tieSubscription: Fits<
  Omit<ReturnType<typeof subscriptionView>, 'events'>,
  Omit<Out<typeof subscriptionShape>, 'events'>
> = true;
const tieEnvironment: Fits<
  Omit<ReturnType<typeof environmentSubscriptionViews>[number], 'events'>,
  Omit<Out<typeof subscriptionShape>, 'events'>
> = true;
const tieSecret: Fits<
  Omit<ReturnType<typeof subscriptionWithSecretView>, 'events'>,
  Omit<Out<typeof subscriptionWithSecretShape>, 'events'>
> = true;
const tiePing: Fits<PingResult, Out<typeof pingShape>> = true;
const tieEvent: Fits<ChangeEvent, Out<typeof changeEventShape>> = true;
const tie10: Fits<
  Omit<ReturnType<typeof createdTokenView>, 'created'>,
  Omit<Out<typeof createdTokenShape>, 'created'>
> = true;
void [
  tieUser,
  tieTemplate,
  tieOverride,
  tieCc,
  tieSuppression,
  tieEmail,
  tieProblem,
  tie0,
  tie1,
  tie2,
  tie3,
  tie4,
  tie5,
  tieExclusion,
  tieIgnored,
  tie6,
  tie7,
  tie8,
  tie9,
  tie10,
  tieSubscription,
  tieEnvironment,
  tieSecret,
  tiePing,
  tieEvent,
];
