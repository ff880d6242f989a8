/** Looks up, in one BatchGet (consistent), the queues, users and tickets that a write refers to. */
import type { References, ReferenceIds } from '../domain/ticket';
import type { Ticket, UserSummary } from '../domain/records';
import { strip } from './items';
import { batchGet } from './query';
import { keys } from './keys';

export async function loadReferences(ids: ReferenceIds): Promise<References> {
  const refs: References = { queues: new Set(), users: new Map(), tickets: new Map() };
  const wanted = [
    ...new Set(ids.queues.map((id) => JSON.stringify(keys.queue(id)))),
    ...new Set(ids.users.map((id) => JSON.stringify(keys.userById(id)))),
    ...new Set(ids.tickets.map((id) => JSON.stringify(keys.ticket(id)))),
  ].map((k) => JSON.parse(k) as Record<string, string>);
  for (const item of await batchGet(wanted)) {
    const pk = String(item.PK);
    if (pk === keys.queuePartition) refs.queues.add(item.id as number);
    else if (pk === keys.usersPartition) refs.users.set(item.id as number, item as unknown as UserSummary);
    else if (pk.startsWith('TICKET#')) refs.tickets.set(item.id as number, strip<Ticket>(item));
  }
  return refs;
}
