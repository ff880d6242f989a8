/** What several groups of the route table share: examples, notes and answer shapes of their docs. */

import type { ShapeId } from '../../domain/shapes';
import type { JsonSchema, SuccessDoc } from '../route-types';

export const TICKET_ETAG: Record<string, JsonSchema> = {
  ETag: { type: 'string', description: 'Strong ETag of the ticket; send it in If-Match to change only this version.' },
};

/** A change event, as the feed lists it and (in its payload) a subscription receives it. */
export const CHANGE_EVENT_EXAMPLE = {
  id: 'evt_3q2Xb0n9T1mZk8vR4cYw7LpA',
  event: 'ticket.updated',
  created: '2026-11-25T12:00:00.123456Z',
  ticket: 42,
  followup: null,
  attachment: null,
  actor: { id: 7, username: 'agent' },
  source: 'api',
  changes: { priority: { old: 3, new: 1 }, assigned_to: { old: null, new: 7 } },
  data: {
    id: 42,
    queue: 1,
    title: 'Printer on fire',
    description: 'Third floor.',
    resolution: null,
    submitter_email: 'ann@example.com',
    assigned_to: 7,
    status: 1,
    on_hold: false,
    priority: 1,
    due_date: null,
    merged_to: null,
  },
};

export const ATTACHMENT_EXAMPLE = {
  id: 7,
  followup: 12,
  file: 'https://helpdesk.example.com/api/tickets/42/attachments/7',
  filename: 'screenshot.png',
  mime_type: 'image/png',
  size: 48213,
};

export const FOLLOWUP_EXAMPLE = {
  id: 12,
  ticket: 42,
  user: 2,
  title: 'Comment and Resolved',
  comment: 'Replaced the fuser; printing again.',
  public: true,
  new_status: 3,
  time_spent: null,
  followupattachment_set: [ATTACHMENT_EXAMPLE],
  date: '2026-11-25T12:30:00.250311Z',
  message_id: null,
};

export const json = (shape: ShapeId, status: number, description: string): SuccessDoc => ({
  status,
  description,
  shape,
});

export const noContent: SuccessDoc = { status: 204, description: 'Deleted.' };

export const SEARCH_SYNTAX =
  'Words match their forms (English stemming: `laptops` finds laptop), accents fold (`cafe` finds Café), and the ' +
  'last word matches as a prefix while typed (`lapt`); `"quoted words"` match as a phrase, `-word` excludes, ' +
  '`OR` joins alternatives; codes with a digit (`INV-2024-0042`, `X1-Carbon`) also match anywhere inside a word. ' +
  'A ticket id (`123`, `#123`) or subject tag (`[support-123]`) puts that ticket first. At most 200 characters ' +
  'and 16 words (else 400). Any other text is a valid query. Searched: title, description, resolution, submitter ' +
  'e-mail, followup titles and comments, custom field values and attachment file names. Results come in ' +
  'relevance order (named ids first) unless `ordering` is given, paged by number with an exact `count`; each ' +
  "carries a `snippet`. The index follows the table's stream (a change shows within about a second). Off in an " +
  'environment (`HELPDESK_SEARCH=off`), `search` answers 400; while the engine resumes from a pause, 503 with ' +
  '`Retry-After`.';
