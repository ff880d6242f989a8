/**
 * Change events (issue 15): one for every change to a ticket, followup or attachment. They are the
 * change feed's records (`GET /api/events/`) and what webhook subscriptions receive. Pure types and
 * rules only; deriving them from the table's stream and storing them live in shared/store.
 */
import type { EventActor } from './actor';

/** Every event type, in the order the docs list them. */
export const EVENT_TYPES = [
  'ticket.created',
  'ticket.updated',
  'ticket.status_changed',
  'ticket.deleted',
  'followup.created',
  'followup.updated',
  'followup.deleted',
  'attachment.created',
  'attachment.deleted',
  'mail.bounced',
  'mail.complained',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A field's value before and after an update (`ticket.updated`, `followup.updated`). */
export interface FieldChange {
  old: JsonValue;
  new: JsonValue;
}

/**
 * One change, as the feed lists it and a subscription receives it. `id` is stable: the same in the
 * feed and on every delivery and retry, so a consumer deduplicates by it (delivery is at least once).
 */
export interface ChangeEvent {
  id: string;
  event: EventType;
  /** When the change committed (ISO 8601 UTC). */
  created: string;
  ticket: number;
  followup: number | null;
  attachment: number | null;
  /**
   * Who made the change: the API user (`{id, username}`), or null with `source` `mail` or `system`
   * (domain/actor.ts).
   */
  actor: EventActor['actor'];
  source: EventActor['source'];
  /** The changed fields' old and new values, for the `*.updated` and `ticket.status_changed` events; else null. */
  changes: Record<string, FieldChange> | null;
  /** The record as staff see it after the change (before it, for a deletion). */
  data: Record<string, JsonValue>;
  /**
   * The record's fields holding text only staff may see, before and after the change (a resolution
   * that is a private followup's comment: disclosure.ts); absent when none. Kept with the event for
   * the outbound policy; the feed does not list it (feedEvent).
   */
  private_fields?: { before: string[]; after: string[] };
}

/** An event as the change feed lists it: staff see the private text itself, so no marks of it. */
export function feedEvent({ private_fields: _, ...event }: ChangeEvent): ChangeEvent {
  return event;
}

/** The change feed's page size when `limit` is not given, and the most one page holds. */
export const DEFAULT_FEED_PAGE = 100;
export const MAX_FEED_PAGE = 1000;

/** How long the change feed keeps an event (by TTL; docs/data-model.md). */
export const EVENT_RETENTION_DAYS = 30;
