/** The routes of the OpenAPI tag "Webhooks" (route-types.ts TAGS says what it holds). */

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/pagination';
import {
  DEFAULT_ROTATION_GRACE_SECONDS,
  DISABLE_AFTER_DAYS,
  MAX_SUBSCRIPTIONS,
  rotationFields,
  subscriptionFields,
} from '../../domain/subscriptions';
import { GRANTS as G } from '../table-access';
import type { Route } from '../route-types';
import { json, noContent } from './common';

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

export const webhooksRoutes: readonly Route[] = [
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
          description:
            `Deliveries per page (default ${DEFAULT_PAGE_SIZE}; more than ${MAX_PAGE_SIZE} counts as ` +
            `${MAX_PAGE_SIZE}; below 1, the default).`,
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
