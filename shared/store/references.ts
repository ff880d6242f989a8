/**
 * Looks up the queues, users and tickets that a write refers to: one BatchGet (consistent) of what is
 * not already known. Queues and user summaries found are kept for 60 s per warm function, as the
 * custom field definitions are (they are configuration: users are never deleted or renamed through
 * the API, queues rarely deleted), so a create that names a known queue and assignee reads nothing
 * before its write (docs/data-model.md, "Access patterns"). A queue deleted by another function may
 * still pass this check for that minute: the write itself takes a reservation in the queue, which
 * finds it gone (store/queue-reservations.ts `reserveInQueue`; docs/data-model.md, "Deleting a queue"). Tickets are
 * always read.
 */
import type { References, ReferenceIds } from '../domain/ticket';
import type { Ticket, UserSummary } from '../domain/records';
import { openingOf, strip } from './items';
import { batchGet } from './query';
import { keys, TICKET_PREFIX } from './keys';

export const KNOWN_FOR_MS = 60_000;
const knownQueues = new Map<number, number>(); // id → until
const knownUsers = new Map<number, { summary: UserSummary; until: number }>();

/** This function no longer takes queue `id` as existing (it deleted it). */
export function forgetQueue(id: number): void {
  knownQueues.delete(id);
}

/** Forgets every queue and user seen (tests that need each request to read them). */
export function forgetReferences(): void {
  knownQueues.clear();
  knownUsers.clear();
}

export async function loadReferences(ids: ReferenceIds, now = Date.now()): Promise<References> {
  const refs: References = { queues: new Set(), users: new Map(), tickets: new Map(), openings: new Map() };
  for (const id of ids.queues) if ((knownQueues.get(id) ?? 0) > now) refs.queues.add(id);
  for (const id of ids.users) {
    const known = knownUsers.get(id);
    if (known && known.until > now) refs.users.set(id, known.summary);
  }
  // batchGet asks for each key once, however often the ids repeat.
  const wanted = [
    ...ids.queues.filter((id) => !refs.queues.has(id)).map((id) => keys.queue(id)),
    ...ids.users.filter((id) => !refs.users.has(id)).map((id) => keys.userById(id)),
    ...ids.tickets.map((id) => keys.ticket(id)),
  ];
  for (const item of wanted.length ? await batchGet(wanted) : []) {
    const pk = String(item.PK);
    const id = item.id as number;
    if (pk === keys.queuePartition) {
      refs.queues.add(id);
      knownQueues.set(id, now + KNOWN_FOR_MS);
    } else if (pk === keys.usersPartition) {
      refs.users.set(id, item as unknown as UserSummary);
      knownUsers.set(id, { summary: item as unknown as UserSummary, until: now + KNOWN_FOR_MS });
    } else if (pk.startsWith(TICKET_PREFIX)) {
      refs.tickets.set(id, strip<Ticket>(item));
      const opening = openingOf(item);
      if (opening) refs.openings!.set(id, opening);
    }
  }
  return refs;
}
