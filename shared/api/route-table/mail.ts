/** The routes of the OpenAPI tag "Mail" (route-types.ts TAGS says what it holds). */

import { ignoredSenderFields } from '../../domain/ignored-senders';
import { MAX_CCS_PER_TICKET, ticketCcFields } from '../../domain/mail-settings';
import { templateOverrideFields } from '../../domain/template-overrides';
import { GRANTS as G } from '../table-access';
import type { Route } from '../route-types';
import { json, noContent } from './common';

export const mailRoutes: readonly Route[] = [
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
        "addresses hear of the ticket's public changes, as upstream's TicketCC. A ticket holds at most " +
        `${MAX_CCS_PER_TICKET} entries (each is mailed on every change): past that, 400 \`non_field_errors\`.`,
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
        'is not verified (`unverified`), oldest first; each is kept raw and released with ' +
        '`POST /api/mail/problems/{id}/release/` (or `npm run helpdesk -- retry-mail`).',
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
    releasesMail: true,
    doc: {
      tag: 'Mail',
      summary: 'Release a kept message',
      description:
        'An unverified reply: its followup becomes public and the message leaves the list; nothing else it was ' +
        'withheld from is applied (no reopen, no CCs, no credit to a user, no mail): staff make those changes ' +
        'themselves. A held or failed message: run through mail in again past its hold (spam, DMARC, rate), as ' +
        '`retry-mail --release` does; it becomes its ticket or followup and leaves the list. One that is not ' +
        'applied again (409, saying why) is listed again as a new problem; 409 too while another release runs it. ' +
        '503 when mail in takes longer than the request may: it goes on, and the list shows the outcome. `id` as ' +
        'listed, its `#` percent-encoded.',
      success: json('Followup', 200, 'The followup: made public, or the one the message became.'),
      errors: [404, 409, 503],
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
    table: [...G.readQueueTemplate],
    files: [],
    doc: {
      tag: 'Mail',
      summary: "A mail kind's template, as mails are rendered with it",
      description:
        "The default with the overridden parts; `?queue=<id>` for one queue's mails (its override over the " +
        "global one). `kind`: one of upstream's template names (`newticket_submitter`, `resolved_cc`, ...).",
      success: json('MailTemplate', 200, 'The template and which parts are overridden.'),
      query: [
        {
          name: 'queue',
          description: "A queue's id: the template its mails use (400 when there is none).",
          example: '1',
        },
      ],
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
];
