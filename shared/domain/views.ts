/** Serialisers to upstream's JSON shapes: keys in upstream's order, date-times in its wire form. */
import { wireDateTime } from './datetime';
import { formatDuration } from './fields';
import type { Attachment, Followup, TicketCollection } from './records';
import { customView, type CustomFieldDefinition } from './custom-fields';

/** Where attachment downloads live: an API route that needs the caller's credentials. */
export function attachmentUrl(baseUrl: string, attachment: Pick<Attachment, 'ticket' | 'id'>): string {
  return `${baseUrl}/api/tickets/${attachment.ticket}/attachments/${attachment.id}`;
}

export function attachmentView(baseUrl: string, a: Attachment) {
  return {
    id: a.id,
    followup: a.followup,
    file: attachmentUrl(baseUrl, a),
    filename: a.filename,
    mime_type: a.mime_type,
    size: a.size,
  };
}

const byFilename = (a: Attachment, b: Attachment) =>
  a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : a.id - b.id;
const byDate = (a: Followup, b: Followup) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id - b.id);

export function followupView(baseUrl: string, f: Followup, attachments: Attachment[]) {
  return {
    id: f.id,
    ticket: f.ticket,
    user: f.user,
    title: f.title,
    comment: f.comment,
    public: f.public,
    new_status: f.new_status,
    time_spent: f.time_spent == null ? null : formatDuration(f.time_spent),
    followupattachment_set: attachments
      .filter((a) => a.followup === f.id)
      .sort(byFilename)
      .map((a) => attachmentView(baseUrl, a)),
    date: wireDateTime(f.date),
    message_id: f.message_id,
  };
}

export function ticketView(
  baseUrl: string,
  { ticket: t, followups, attachments }: TicketCollection,
  defs: CustomFieldDefinition[],
) {
  return {
    id: t.id,
    queue: t.queue,
    title: t.title,
    description: t.description,
    resolution: t.resolution,
    submitter_email: t.submitter_email,
    assigned_to: t.assigned_to,
    status: t.status,
    on_hold: t.on_hold,
    priority: t.priority,
    due_date: wireDateTime(t.due_date),
    merged_to: t.merged_to,
    followup_set: [...followups].sort(byDate).map((f) => followupView(baseUrl, f, attachments)),
    ...customView(defs, t.custom),
  };
}
