/** `/api/user_tickets/`: the caller's own tickets in upstream's compact shape. */
import { customView, sortDefinitions, type CustomFieldDefinition } from './custom-fields';
import { naturalTime } from './naturaltime';
import { STATUS_LABELS, type Queue, type Ticket } from './records';

export function userTicketView(
  ticket: Ticket,
  queue: Queue | undefined,
  defs: CustomFieldDefinition[],
  now: Date,
  detail = false,
) {
  const slug = queue?.slug ?? '';
  // Upstream's detail view leaves out the custom fields that are not required (observed).
  const shown = detail ? sortDefinitions(defs).filter((d) => d.required) : defs;
  return {
    ticket: `${ticket.id} [${slug}-${ticket.id}]`,
    id: ticket.id,
    title: ticket.title,
    queue: { title: queue?.title ?? '', id: ticket.queue },
    status: `${STATUS_LABELS[ticket.status]}${ticket.on_hold ? ' - On Hold' : ''}`,
    created: naturalTime(new Date(ticket.created), now),
    due_date: ticket.due_date ? naturalTime(new Date(ticket.due_date), now) : null,
    submitter: ticket.submitter_email,
    kbitem: '',
    secret_key: ticket.secret_key,
    ...customView(shown, ticket.custom),
  };
}
