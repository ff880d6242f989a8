/**
 * Ticket rules: which fields a request may send, what creation forces, and the checks that need
 * other records (queue, users, tickets). Pure: the store supplies the records it looked up.
 */
import { randomUUID } from 'node:crypto';
import type { ParsedBody } from './body';
import { ValidationError, type FieldErrors } from './errors';
import {
  MAX_TEXT_LENGTH,
  MESSAGES,
  booleanField,
  choiceField,
  dateTimeField,
  emailField,
  idField,
  orderErrors,
  textField,
  validateFields,
  type Mode,
  type Parsed,
} from './fields';
import {
  DEFAULT_PRIORITY,
  PRIORITY_LABELS,
  PRIORITY_VALUES,
  STATUS,
  STATUS_LABELS,
  STATUS_VALUES,
  type Followup,
  type Ticket,
  type TicketFields,
  type UserSummary,
} from './records';
import type { UploadedFile } from './body';
import { storedDateTime } from './datetime';
import { utf8Bytes } from './utf8';
import { parseCustomValues, type CustomFieldDefinition, type CustomValues } from './custom-fields';

export const ticketFields = {
  queue: idField({ required: true }),
  title: textField({ required: true, maxLength: 200 }),
  description: textField({ required: true, allowBlank: true, nullable: true, maxLength: MAX_TEXT_LENGTH }),
  resolution: textField({ allowBlank: true, nullable: true, maxLength: MAX_TEXT_LENGTH }),
  submitter_email: emailField({ required: true }),
  assigned_to: idField({ nullable: true }),
  status: choiceField(STATUS_VALUES, { labels: STATUS_LABELS }),
  on_hold: booleanField(),
  priority: choiceField(PRIORITY_VALUES, { labels: PRIORITY_LABELS }),
  due_date: dateTimeField({ nullable: true }),
  merged_to: idField({ nullable: true }),
};

/** Error order: the serializer's fields, then the write-only `attachment`. */
export const TICKET_ERROR_ORDER = [...Object.keys(ticketFields), 'attachment', 'body'];

export type TicketInput = Parsed<typeof ticketFields>;

/** Records that a ticket write refers to, as found in the store (absent ids are missing). */
export interface References {
  queues: Set<number>;
  users: Map<number, UserSummary>;
  tickets: Map<number, Ticket>;
  /** The opening followups the tickets' records still hold, by ticket (checkTicketSize). */
  openings?: Map<number, HeldOpening>;
}

export interface ReferenceIds {
  queues: number[];
  users: number[];
  tickets: number[];
}

export interface TicketDraft {
  values: TicketInput;
  errors: FieldErrors;
  attachment: UploadedFile | undefined;
  /** Stored forms of the custom field values sent (on create: of every field). */
  custom: CustomValues['values'];
}

export const MAX_TICKET_ATTACHMENTS = 1;

/**
 * What a ticket's text may take in all (title, description, resolution, submitter e-mail and every
 * custom value with its key), in bytes of UTF-8: DynamoDB refuses items over 400 KB, and the ticket
 * item's other attributes and index keys take about 2 KB. Each field has its own limit too; this
 * one bounds their sum, which no single field limit can (custom fields are any number).
 */
export const MAX_TICKET_TEXT_BYTES = 300_000;

/**
 * What the ticket's stored record may hold in text in all: its own text fields and those of the opening followup it
 * keeps until that followup is first edited (store/items.ts `ticketItem`; at a create its comment is the
 * description, so a description counts twice there). DynamoDB's 400 KB (409,600 bytes) less the record's other
 * attributes and keys. Past it DynamoDB refused the write: 80,000 `€` as a description answered 500.
 */
export const MAX_TICKET_RECORD_TEXT_BYTES = 390_000;

type TicketText = Pick<Ticket, 'title' | 'description' | 'resolution' | 'submitter_email' | 'custom'>;
/** The text of the opening followup a ticket's record holds. */
export type HeldOpening = Pick<Followup, 'title' | 'comment'>;

export function ticketTextBytes(t: TicketText): number {
  const custom = Object.entries(t.custom ?? {}).reduce(
    (sum, [key, value]) => sum + utf8Bytes(key) + utf8Bytes(value),
    0,
  );
  return (
    utf8Bytes(t.title) + utf8Bytes(t.description) + utf8Bytes(t.resolution) + utf8Bytes(t.submitter_email) + custom
  );
}

/**
 * Refuses a ticket whose text would not fit one stored record (400, before anything is stored), with the opening
 * followup the record holds (`held`), if it holds one.
 */
export function checkTicketSize(t: TicketText, held?: HeldOpening): void {
  const size = ticketTextBytes(t);
  if (size > MAX_TICKET_TEXT_BYTES) {
    throw new ValidationError({
      non_field_errors: [
        `The ticket's text fields together take ${size} bytes (UTF-8); at most ${MAX_TICKET_TEXT_BYTES} can be stored.`,
      ],
    });
  }
  const opening = held ? utf8Bytes(held.title) + utf8Bytes(held.comment) : 0;
  if (size + opening > MAX_TICKET_RECORD_TEXT_BYTES) {
    throw new ValidationError({
      non_field_errors: [
        `The ticket's text fields take ${size} bytes (UTF-8), and its opening followup's, which the ticket's record ` +
          `holds until that followup is first edited, ${opening}: ${size + opening} in all; at most ` +
          `${MAX_TICKET_RECORD_TEXT_BYTES} can be stored.`,
      ],
    });
  }
}

/** First stage: field types and formats (custom fields included), all errors at once. */
export function parseTicketBody(body: ParsedBody, mode: Mode, defs: CustomFieldDefinition[]): TicketDraft {
  const { values, errors } = validateFields(ticketFields, body.data, mode, body.kind);
  const custom = parseCustomValues(defs, body.data, mode, body.kind);
  const files = body.files.filter((f) => f.field === 'attachment');
  let attachment: UploadedFile | undefined;
  if (Object.hasOwn(body.data, 'attachment') && body.data.attachment !== '') {
    errors.attachment = [MESSAGES.notAFile];
  } else if (files.length > MAX_TICKET_ATTACHMENTS) {
    errors.attachment = ['Only one file may be attached to a ticket; send more files as followup attachments.'];
  } else if (files[0] && files[0].data.length === 0) {
    errors.attachment = [MESSAGES.emptyFile];
  } else {
    attachment = files[0];
  }
  return { values, errors: { ...errors, ...custom.errors }, attachment, custom: custom.values };
}

/** The ids a draft refers to, to be looked up in one batch. */
export function referencedIds(values: TicketInput): ReferenceIds {
  const present = (v: number | null | undefined): v is number => typeof v === 'number';
  return {
    queues: [values.queue].filter(present),
    users: [values.assigned_to].filter(present),
    tickets: [values.merged_to].filter(present),
  };
}

function referenceErrors(values: TicketInput, refs: References): FieldErrors {
  const errors: FieldErrors = {};
  if (typeof values.queue === 'number' && !refs.queues.has(values.queue))
    errors.queue = [MESSAGES.pkMissing(values.queue)];
  if (typeof values.assigned_to === 'number' && !refs.users.has(values.assigned_to))
    errors.assigned_to = [MESSAGES.pkMissing(values.assigned_to)];
  if (typeof values.merged_to === 'number' && !refs.tickets.has(values.merged_to))
    errors.merged_to = [MESSAGES.pkMissing(values.merged_to)];
  return errors;
}

function throwIfAny(errors: FieldErrors): void {
  if (Object.keys(errors).length) throw new ValidationError(orderErrors(errors, TICKET_ERROR_ORDER));
}

/** The display name upstream uses in "Ticket Opened & Assigned to <name>". */
export function displayName(user: Pick<UserSummary, 'first_name' | 'last_name' | 'username'>): string {
  const full = `${user.first_name} ${user.last_name}`.trim();
  return full || user.username;
}

export interface NewTicket {
  ticket: Omit<Ticket, 'id'>;
  opening: Omit<Followup, 'id' | 'ticket'>;
}

/**
 * Second stage of creation and its effects: status is forced to OPEN and resolution, on_hold and
 * merged_to are ignored (after validation), priority defaults to 3, and an opening followup is made.
 */
export function planTicketCreation(draft: TicketDraft, refs: References, callerId: number, now: Date): NewTicket {
  throwIfAny({ ...draft.errors, ...referenceErrors(draft.values, refs) });
  const v = draft.values;
  const stage2: FieldErrors = {};
  if (v.description == null || v.description === '') stage2.body = [MESSAGES.required];
  const assignee = typeof v.assigned_to === 'number' ? refs.users.get(v.assigned_to) : undefined;
  if (assignee && !assignee.is_active)
    stage2.assigned_to = [`Select a valid choice. ${assignee.id} is not one of the available choices.`];
  throwIfAny(stage2);

  const stamp = storedDateTime(now);
  const ticket: Omit<Ticket, 'id'> = {
    queue: v.queue!,
    title: v.title!,
    description: v.description ?? null,
    resolution: null,
    submitter_email: v.submitter_email ?? null,
    assigned_to: assignee ? assignee.id : null,
    status: STATUS.OPEN,
    on_hold: false,
    priority: v.priority ?? DEFAULT_PRIORITY,
    due_date: v.due_date ?? null,
    merged_to: null,
    secret_key: randomUUID(),
    created: stamp,
    modified: stamp,
    custom: draft.custom,
  };
  const opening: NewTicket['opening'] = {
    user: callerId,
    title: assignee ? `Ticket Opened & Assigned to ${displayName(assignee)}` : 'Ticket Opened',
    comment: ticket.description,
    public: true,
    new_status: null,
    time_spent: null,
    date: stamp,
    message_id: null,
  };
  checkTicketSize(ticket, opening);
  return { ticket, opening };
}

export type TicketChanges = Partial<TicketFields> &
  Pick<Ticket, 'resolution_private'> & { modified: string; custom: Ticket['custom'] };

/**
 * PUT and PATCH of `current`: every writable field may change, with no workflow check and no side
 * effect. Returns only the fields that were sent (the store writes them with an update expression).
 */
export function planTicketUpdate(
  draft: TicketDraft,
  refs: References,
  now: Date,
  current: Ticket,
  held?: HeldOpening,
): TicketChanges {
  throwIfAny({ ...draft.errors, ...referenceErrors(draft.values, refs) });
  const changes: TicketChanges = {
    ...(draft.values as Partial<TicketFields>),
    modified: storedDateTime(now),
    custom: draft.custom,
  };
  // A resolution staff write is public (domain/disclosure.ts); the same text sent back, as a PUT
  // of a ticket read before does, keeps what it was.
  if (changes.resolution !== undefined && changes.resolution !== current.resolution) changes.resolution_private = false;
  checkTicketSize({ ...current, ...changes, custom: { ...current.custom, ...changes.custom } }, held);
  return changes;
}
