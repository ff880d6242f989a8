/** Upstream's key order of each resource on the wire (docs/upstream.md: responses). */

export const TICKET_KEYS = [
  'id',
  'queue',
  'title',
  'description',
  'resolution',
  'submitter_email',
  'assigned_to',
  'status',
  'on_hold',
  'priority',
  'due_date',
  'merged_to',
  'followup_set',
];
export const FOLLOWUP_KEYS = [
  'id',
  'ticket',
  'user',
  'title',
  'comment',
  'public',
  'new_status',
  'time_spent',
  'followupattachment_set',
  'date',
  'message_id',
];
export const ATTACHMENT_KEYS = ['id', 'followup', 'file', 'filename', 'mime_type', 'size'];
