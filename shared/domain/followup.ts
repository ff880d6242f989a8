/**
 * Followup rules: the fields of POST /api/followups/ and the effects of a new followup on its
 * ticket (status change, title suffix, resolution copy). Pure.
 */
import type { ParsedBody } from './body';
import { ValidationError, type FieldErrors } from './errors';
import {
  MAX_TEXT_LENGTH,
  MESSAGES,
  booleanField,
  choiceField,
  durationField,
  idField,
  orderErrors,
  textField,
  validateFields,
  type Parsed,
} from './fields';
import type { UploadedFile } from './body';
import { STATUS, STATUS_LABELS, STATUS_VALUES, type Followup, type Ticket } from './records';
import { storedDateTime } from './datetime';
import { checkTicketSize, type HeldOpening } from './ticket';

export const followupFields = {
  ticket: idField({ required: true }),
  user: idField({ nullable: true }),
  title: textField({ required: true, maxLength: 200, allowBlank: true, nullable: true }),
  comment: textField({ required: true, allowBlank: true, nullable: true, maxLength: MAX_TEXT_LENGTH }),
  public: booleanField(),
  new_status: choiceField(STATUS_VALUES, { nullable: true }),
  time_spent: durationField(),
};

const FOLLOWUP_ERROR_ORDER = [...Object.keys(followupFields), 'attachments'];

export type FollowupInput = Parsed<typeof followupFields>;

export interface FollowupDraft {
  values: FollowupInput;
  errors: FieldErrors;
  attachments: UploadedFile[];
}

export function parseFollowupBody(body: ParsedBody): FollowupDraft {
  const { values, errors } = validateFields(followupFields, body.data, 'create', body.kind);
  const attachments = body.files.filter((f) => f.field === 'attachments');
  const fileErrors: Record<string, string[]> = {};
  if (Object.hasOwn(body.data, 'attachments') && body.data.attachments !== '') fileErrors['0'] = [MESSAGES.notAFile];
  attachments.forEach((file, index) => {
    if (file.data.length === 0) fileErrors[String(index)] = [MESSAGES.emptyFile];
  });
  if (Object.keys(fileErrors).length) errors.attachments = fileErrors;
  return { values, errors, attachments };
}

export interface FollowupRefs {
  ticket: Ticket | undefined;
  userExists: boolean;
  /** The opening followup the ticket's record still holds, if it does (checkTicketSize). */
  held?: HeldOpening;
}

export interface FollowupPlan {
  followup: Omit<Followup, 'id'>;
  /** What the followup changes on its ticket (only the keys that change). */
  ticketChanges: Partial<Pick<Ticket, 'status' | 'resolution' | 'resolution_private' | 'modified'>>;
}

/**
 * The effects of a new followup, in upstream's order. Unlike upstream, the followup's title never
 * renames the ticket.
 */
export function planFollowup(draft: FollowupDraft, refs: FollowupRefs, callerId: number, now: Date): FollowupPlan {
  const v = draft.values;
  const errors: FieldErrors = { ...draft.errors };
  if (typeof v.ticket === 'number' && !refs.ticket) errors.ticket = [MESSAGES.pkMissing(v.ticket)];
  if (typeof v.user === 'number' && !refs.userExists) errors.user = [MESSAGES.pkMissing(v.user)];
  if (Object.keys(errors).length) throw new ValidationError(orderErrors(errors, FOLLOWUP_ERROR_ORDER));
  const ticket = refs.ticket!;

  let title = v.title ?? ticket.title;
  let newStatus: number | null = null;
  const ticketChanges: FollowupPlan['ticketChanges'] = {};
  let status = ticket.status;
  if (v.new_status != null && v.new_status !== ticket.status) {
    status = newStatus = ticketChanges.status = v.new_status;
    const label = STATUS_LABELS[v.new_status]!;
    title = title ? `${title} and ${label}` : label;
  }
  if (!title) title = v.comment ? 'Comment' : 'Updated';

  const comment = v.comment ?? null;
  if (status === STATUS.RESOLVED || (status === STATUS.CLOSED && ticket.resolution == null)) {
    ticketChanges.resolution = comment;
    // Upstream copies a private followup's comment too: it stays staff's (domain/disclosure.ts).
    ticketChanges.resolution_private = !(v.public ?? false);
  }
  // The comment becomes the ticket's resolution: the ticket must still fit one record.
  if (ticketChanges.resolution !== undefined)
    checkTicketSize({ ...ticket, resolution: ticketChanges.resolution }, refs.held);
  const stamp = storedDateTime(now);
  if (Object.keys(ticketChanges).length) ticketChanges.modified = stamp;

  return {
    followup: {
      ticket: ticket.id,
      user: callerId,
      title,
      comment,
      public: v.public ?? false,
      new_status: newStatus,
      time_spent: v.time_spent ?? null,
      date: stamp,
      message_id: null,
    },
    ticketChanges,
  };
}

/** PUT and PATCH of a followup: plain edits (only `ticket` required on PUT), no effect on the ticket. */
export const followupEditFields = {
  ...followupFields,
  title: textField({ maxLength: 200, allowBlank: true, nullable: true }),
  comment: textField({ allowBlank: true, nullable: true, maxLength: MAX_TEXT_LENGTH }),
};

export type FollowupChanges = Partial<
  Pick<Followup, 'ticket' | 'user' | 'title' | 'comment' | 'public' | 'new_status' | 'time_spent'>
>;

export function parseFollowupEdit(body: ParsedBody, mode: 'replace' | 'partial'): FollowupChanges {
  const { values, errors } = validateFields(followupEditFields, body.data, mode, body.kind);
  if (Object.keys(errors).length) throw new ValidationError(orderErrors(errors, FOLLOWUP_ERROR_ORDER));
  return values as FollowupChanges;
}

/** Reference errors of an edit: the target ticket and the user must exist. */
export function followupReferenceErrors(changes: FollowupChanges, ticketExists: boolean, userExists: boolean): void {
  const errors: FieldErrors = {};
  if (typeof changes.ticket === 'number' && !ticketExists) errors.ticket = [MESSAGES.pkMissing(changes.ticket)];
  if (typeof changes.user === 'number' && !userExists) errors.user = [MESSAGES.pkMissing(changes.user)];
  if (Object.keys(errors).length) throw new ValidationError(errors);
}
