/**
 * Webhook subscriptions (issue 15): receivers that superusers add through the API, each listening
 * to some change event types (events.ts) and signing with a secret of its own. The receivers of the
 * environment's URL lists (upstream's settings, webhooks.ts) show beside them, read-only. Pure rules
 * only: storage in store/subscriptions.ts, sending in shared/webhooks.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ParsedBody } from './body';
import { disclosedEvent } from './disclosure';
import { ValidationError } from './errors';
import { wireIsoDateTime } from './datetime';
import { EVENT_TYPES, type ChangeEvent, type EventType } from './events';
import {
  booleanField,
  fieldSchema,
  integerField,
  pythonType,
  textField,
  validateFields,
  type Field,
  type Mode,
} from './fields';
import { newWebhookSecret, refusedUrl, shownUrl, type WebhookEvent } from './webhooks';

/** How long a rotated-out secret still signs (beside the new one) unless the rotation says otherwise. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 3600;
/** The longest a rotation may keep the old secret signing. */
export const MAX_ROTATION_GRACE_SECONDS = 7 * 24 * 3600;
/** A subscription whose receiver answered nothing but failures for this long is disabled. */
export const DISABLE_AFTER_DAYS = 5;
/** At most this many subscriptions: each event fans out to every one listening. */
export const MAX_SUBSCRIPTIONS = 100;
export const MAX_URL_LENGTH = 2000;

export interface Subscription {
  /** `sub_` and 22 characters: sorts by creation time. */
  id: string;
  url: string;
  events: EventType[];
  description: string;
  enabled: boolean;
  /** The current signing secret (`whsec_...`): shown at creation and rotation only. */
  secret: string;
  /** The secret before the last rotation, still signing until `previous_secret_expires`. */
  previous_secret: string | null;
  previous_secret_expires: string | null;
  /** The first failed attempt since the receiver last answered 2xx; null while it answers. */
  failing_since: string | null;
  /** Why it was disabled, when the deliverer disabled it (staff disabling it leave this null). */
  disabled_reason: string | null;
  created: string;
  modified: string;
}

export const SUBSCRIPTION_ID = /^sub_[0-9a-z]{26}$/;

export function newSubscriptionId(now: Date): string {
  return `sub_${now.getTime().toString(36).padStart(10, '0')}${randomBytes(8).toString('hex')}`;
}

/**
 * A subscription's delivery of an event: one id per pair (dispatching twice finds it), sorting by
 * the event's time as the delivery log reads it. The environment's receivers keep webhooks.ts
 * `deliveryId`.
 */
export function subscriptionDeliveryId(event: Pick<ChangeEvent, 'id' | 'created'>, subscription: string): string {
  const time = Date.parse(event.created).toString(36).padStart(10, '0');
  return `msg_${time}${createHash('sha256').update(`${event.id}|${subscription}`).digest('hex').slice(0, 16)}`;
}

const eventList: Field<EventType[]> = {
  schema: fieldSchema((raw, ctx): EventType[] => {
    const problem = !Array.isArray(raw)
      ? `Expected a list of items but got type "${pythonType(raw)}".`
      : raw.length === 0
        ? 'This list may not be empty.'
        : raw.find((v) => !(EVENT_TYPES as readonly unknown[]).includes(v)) !== undefined
          ? `"${String(raw.find((v) => !(EVENT_TYPES as readonly unknown[]).includes(v)))}" is not a valid choice ` +
            `(one of: ${EVENT_TYPES.join(', ')}).`
          : undefined;
    if (problem) {
      ctx.issues.push({ code: 'custom', message: problem, input: raw });
      return [];
    }
    return EVENT_TYPES.filter((t) => (raw as unknown[]).includes(t));
  }),
  meta: { type: 'list', choices: EVENT_TYPES.map((value) => ({ value, display_name: value })) },
  kind: 'other',
  nullable: false,
  required: true,
};

export const subscriptionFields = {
  url: textField({ required: true, maxLength: MAX_URL_LENGTH, meta: 'url' }),
  events: eventList,
  description: textField({ allowBlank: true, maxLength: 200 }),
  enabled: booleanField(),
};

export type SubscriptionChanges = Partial<Pick<Subscription, 'url' | 'events' | 'description' | 'enabled'>>;

/** A creation's (`mode` create) or an update's fields, with the receiver rules of webhooks.ts on the URL. */
export function parseSubscriptionBody(body: ParsedBody, mode: Mode, allowLoopback: boolean): SubscriptionChanges {
  const { values, errors } = validateFields(subscriptionFields, body.data, mode, body.kind);
  const refused = typeof values.url === 'string' ? refusedUrl(values.url, allowLoopback) : undefined;
  if (refused) errors.url = [`Not a receiver URL: ${refused}.`];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return values as SubscriptionChanges;
}

/** The rotation's one optional field: how long the old secret keeps signing, in seconds. */
export const rotationFields = {
  keep_previous_for: integerField({ min: 0, max: MAX_ROTATION_GRACE_SECONDS }),
};

export function parseRotationBody(body: ParsedBody): number {
  const { values, errors } = validateFields(rotationFields, body.data, 'create', body.kind);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return values.keep_previous_for ?? DEFAULT_ROTATION_GRACE_SECONDS;
}

export function newSubscription(
  fields: SubscriptionChanges & Pick<Subscription, 'url' | 'events'>,
  now: Date,
): Subscription {
  const at = now.toISOString();
  return {
    id: newSubscriptionId(now),
    url: fields.url,
    events: fields.events,
    description: fields.description ?? '',
    enabled: fields.enabled ?? true,
    secret: newWebhookSecret(),
    previous_secret: null,
    previous_secret_expires: null,
    failing_since: null,
    disabled_reason: null,
    created: at,
    modified: at,
  };
}

/**
 * The changes staff make. Enabling a subscription starts its failure count afresh; the URL or
 * events changing does too (a new receiver is not judged by the old one's failures).
 */
export function changedSubscription(current: Subscription, changes: SubscriptionChanges, now: Date): Subscription {
  const next = { ...current, ...changes, modified: now.toISOString() };
  if (changes.enabled === true || (changes.url !== undefined && changes.url !== current.url)) {
    next.failing_since = null;
    next.disabled_reason = null;
  }
  if (changes.enabled === false) next.disabled_reason = null;
  return next;
}

/** A new secret; the current one keeps signing for `graceSeconds` (none for 0). */
export function rotatedSubscription(current: Subscription, graceSeconds: number, now: Date): Subscription {
  const keep = graceSeconds > 0;
  return {
    ...current,
    secret: newWebhookSecret(),
    previous_secret: keep ? current.secret : null,
    previous_secret_expires: keep ? new Date(now.getTime() + graceSeconds * 1000).toISOString() : null,
    modified: now.toISOString(),
  };
}

/** The secrets a delivery is signed with at `now`: the current one, and the previous one in its grace period. */
export function signingSecrets(
  s: Pick<Subscription, 'secret' | 'previous_secret' | 'previous_secret_expires'>,
  now: Date,
): string[] {
  const previousValid = s.previous_secret && s.previous_secret_expires && s.previous_secret_expires > now.toISOString();
  return previousValid ? [s.secret, s.previous_secret!] : [s.secret];
}

export type ReceiverHealth =
  | { change: 'none' }
  | { change: 'answering' }
  | { change: 'failing'; since: string }
  | { change: 'disable'; reason: string };

/**
 * What an attempt's outcome does to its subscription: a 2xx clears a failure run; a failure starts
 * one, or, once the run has lasted DISABLE_AFTER_DAYS, disables the subscription. Writes happen only
 * on these changes, not on every attempt.
 */
export function receiverHealth(s: Pick<Subscription, 'failing_since'>, delivered: boolean, now: Date): ReceiverHealth {
  if (delivered) return s.failing_since ? { change: 'answering' } : { change: 'none' };
  if (!s.failing_since) return { change: 'failing', since: now.toISOString() };
  const days = (now.getTime() - Date.parse(s.failing_since)) / 86_400_000;
  if (days < DISABLE_AFTER_DAYS) return { change: 'none' };
  return {
    change: 'disable',
    reason: `Disabled after ${DISABLE_AFTER_DAYS} days of failed deliveries only (failing since ${s.failing_since}).`,
  };
}

/** What a ping's receiver answered (webhooks/subscriptions.ts `pingSubscription`). */
export interface PingResult {
  /** The `webhook-id` the receiver got. */
  id: string;
  delivered: boolean;
  status: number | null;
  error: string | null;
}

/** How the API shows a subscription: never its secrets. */
export function subscriptionView(s: Subscription) {
  return {
    id: s.id,
    url: s.url,
    events: s.events as string[],
    description: s.description,
    enabled: s.enabled,
    read_only: false,
    source: 'api',
    previous_secret_expires: wireIsoDateTime(s.previous_secret_expires),
    failing_since: wireIsoDateTime(s.failing_since),
    disabled_reason: s.disabled_reason,
    created: wireIsoDateTime(s.created),
    modified: wireIsoDateTime(s.modified),
  };
}

/** The answer to a creation or a rotation: the view and, this once, the new secret. */
export function subscriptionWithSecretView(s: Subscription) {
  return { ...subscriptionView(s), secret: s.secret };
}

/** The environment's URL list settings (upstream's names), as the list names them. */
export const ENVIRONMENT_RECEIVERS: readonly { variable: string; event: WebhookEvent; prefix: string }[] = [
  { variable: 'HELPDESK_NEW_TICKET_WEBHOOK_URLS', event: 'ticket.created', prefix: 'env_new_ticket_' },
  { variable: 'HELPDESK_FOLLOWUP_WEBHOOK_URLS', event: 'followup.created', prefix: 'env_followup_' },
];

export const ENVIRONMENT_ID = /^env_(?:new_ticket|followup)_\d{1,3}$/;

/**
 * The environment's receivers as read-only subscriptions (changed by redeploying, not here). Their
 * URLs show as the delivery log shows them: a query string may hold the receiver's own token.
 */
export function environmentSubscriptionViews(urls: Record<WebhookEvent, string[]>) {
  return ENVIRONMENT_RECEIVERS.flatMap(({ variable, event, prefix }) =>
    urls[event].map((url, position) => ({
      ...subscriptionView({
        id: `${prefix}${position}`,
        url: shownUrl(url),
        events: [event],
        description: `From ${variable}`,
        enabled: true,
        secret: '',
        previous_secret: null,
        previous_secret_expires: null,
        failing_since: null,
        disabled_reason: null,
        created: '',
        modified: '',
      }),
      read_only: true,
      source: variable,
      created: null,
      modified: null,
    })),
  );
}

/**
 * The payload a subscription receives, Standard Webhooks style: `type`, `timestamp`, and as `data`
 * the event as the change feed lists it, under the outbound policy (disclosure.ts `disclosedEvent`);
 * undefined when nothing of the change may be shown (then nothing is sent).
 */
export function subscriptionPayload(event: ChangeEvent, staffOnlyFields: readonly string[], includePrivate: boolean) {
  const shown = disclosedEvent(event, staffOnlyFields, includePrivate);
  if (!shown) return undefined;
  return {
    type: event.event,
    timestamp: event.created,
    data: {
      id: shown.id,
      event: shown.event,
      created: shown.created,
      ticket: shown.ticket,
      followup: shown.followup,
      attachment: shown.attachment,
      actor: shown.actor,
      source: shown.source,
      changes: shown.changes,
      data: shown.data,
    },
  };
}
