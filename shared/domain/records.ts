/** The stored shapes of the resources, as the store reads and writes them. */
import type { QueueMailSettings } from './mail-settings';

export const STATUS = { OPEN: 1, REOPENED: 2, RESOLVED: 3, CLOSED: 4, DUPLICATE: 5 } as const;
export const STATUS_LABELS: Record<number, string> = {
  1: 'Open',
  2: 'Reopened',
  3: 'Resolved',
  4: 'Closed',
  5: 'Duplicate',
};
export const STATUS_VALUES = [1, 2, 3, 4, 5] as const;
export const PRIORITY_VALUES = [1, 2, 3, 4, 5] as const;
export const PRIORITY_LABELS: Record<number, string> = {
  1: '1. Critical',
  2: '2. High',
  3: '3. Normal',
  4: '4. Low',
  5: '5. Very Low',
};
export const DEFAULT_PRIORITY = 3;

export interface Ticket {
  id: number;
  queue: number;
  title: string;
  description: string | null;
  resolution: string | null;
  /**
   * Whether `resolution` is a private followup's comment (upstream copies any resolving followup's
   * comment there): then only staff may see it (disclosure.ts). Absent on tickets written before.
   */
  resolution_private?: boolean;
  submitter_email: string | null;
  assigned_to: number | null;
  status: number;
  on_hold: boolean;
  priority: number;
  /** Stored date-time (six fractional digits, UTC) or null. */
  due_date: string | null;
  merged_to: number | null;
  secret_key: string;
  created: string;
  modified: string;
  /**
   * When the escalation run last raised its priority (stored date-time; absent: never). Not on the wire, as upstream's
   * serializer.
   */
  last_escalation?: string | null;
  /** Stored custom field values (strings, as upstream), by the definition's internal key. */
  custom: Record<string, string | null>;
}

/** The writable ticket fields, in upstream's order. */
export type TicketFields = Omit<Ticket, 'id' | 'secret_key' | 'created' | 'modified' | 'custom' | 'resolution_private'>;

export interface Followup {
  id: number;
  ticket: number;
  user: number | null;
  title: string | null;
  comment: string | null;
  public: boolean;
  new_status: number | null;
  /** Whole microseconds, or null. */
  time_spent: number | null;
  date: string;
  message_id: string | null;
  /**
   * The ticket changes this followup made (upstream's TicketChange): kept for followups imported from
   * django-helpdesk, and given back by the export. Not on the wire (upstream's serializer has none).
   */
  changes?: TicketChange[];
}

/** Upstream's `helpdesk.ticketchange`: one field a followup changed. */
export interface TicketChange {
  id: number;
  field: string;
  old_value: string | null;
  new_value: string | null;
}

export interface Attachment {
  id: number;
  ticket: number;
  followup: number;
  filename: string;
  mime_type: string;
  size: number;
  /** S3 object key; never derived from the client's file name. */
  object_key: string;
}

/** A ticket read whole: the ticket and its item collection. */
export interface TicketCollection {
  ticket: Ticket;
  followups: Followup[];
  attachments: Attachment[];
  /** Ids of the tickets whose `merged_to` points at this one. */
  mergedFrom: number[];
}

export interface User {
  id: number;
  username: string;
  first_name: string;
  last_name: string;
  email: string;
  is_staff: boolean;
  is_superuser: boolean;
  is_active: boolean;
  password_hash: string;
  date_joined: string;
  /**
   * The queues (ids) a staff member works in when per-queue permissions are on
   * (HELPDESK_ENABLE_PER_QUEUE_STAFF_PERMISSION; upstream's `helpdesk.queue_access_<slug>`). Absent: none.
   */
  queues?: number[];
}

/** What other records need to know about a user: enough to name and check an assignee. */
export type UserSummary = Pick<
  User,
  'id' | 'username' | 'first_name' | 'last_name' | 'email' | 'is_active' | 'is_staff' | 'is_superuser' | 'queues'
>;

export interface Queue extends QueueMailSettings {
  id: number;
  title: string;
  slug: string;
  /** Upstream's `escalate_days`: days (not excluded) an open ticket waits before it escalates; null never. */
  escalate_days: number | null;
  /** Upstream's: every staff member sees it when per-queue permissions are on (domain/queue-access.ts). */
  allow_public_submission: boolean;
  /** Upstream's `locale` (`fr`, `pt-br`, …); null: none. Picks its tickets' search stemming (search-language.ts). */
  locale: string | null;
}
