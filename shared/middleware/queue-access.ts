/**
 * Per-queue permissions on the request (the rule: domain/queue-access.ts). Every staff route that
 * shows or changes a ticket, or anything of one, asks here: nothing is read while the setting is off
 * or the caller is a superuser; for a limited staff member, the queues (one Query, kept a minute per
 * process: a queue's `allow_public_submission` counts within it) and what the route needs.
 */
import { config } from '../config';
import { NotFound } from '../domain/errors';
import { canAccessTicket, canUseQueue, queueScope, type QueueScope } from '../domain/queue-access';
import type { Ticket } from '../domain/records';
import type { References } from '../domain/ticket';
import type { Delivery } from '../domain/webhooks';
import { ticketsListedUnder } from '../store/listings';
import { queuesForMail } from '../store/queues';
import { getTicket } from '../store/tickets';
import type { ApiEvent } from './http';

const SCOPE = Symbol('queue scope');
type Scoped = ApiEvent & { [SCOPE]?: Promise<QueueScope | undefined> };

/** What the caller may see: undefined for everything (the setting off, a superuser). Once per request. */
export function queueScopeOf(event: ApiEvent): Promise<QueueScope | undefined> {
  const user = event.user!;
  if (!config.perQueueStaffPermission || user.is_superuser) return Promise.resolve(undefined);
  return ((event as Scoped)[SCOPE] ??= queuesForMail().then((queues) => queueScope(user, queues, true)));
}

/**
 * `found`, unless it is absent or of a ticket the caller may not see: 404, as if absent. `ticketOf`
 * picks its ticket (`found` itself by default).
 */
export async function requireTicket<T>(
  event: ApiEvent,
  found: T | undefined,
  ticketOf: (found: T) => Pick<Ticket, 'queue' | 'assigned_to'> = (t) => t as Ticket,
): Promise<T> {
  if (found === undefined || !canAccessTicket(await queueScopeOf(event), ticketOf(found))) throw new NotFound();
  return found;
}

/** Whether the caller may see ticket `id` (one GetItem of it, for a limited staff member only). */
export async function mayAccessTicketId(event: ApiEvent, id: number): Promise<boolean> {
  const scope = await queueScopeOf(event);
  if (!scope) return true;
  const ticket = await getTicket(id);
  return !!ticket && canAccessTicket(scope, ticket);
}

/** Whether the caller may see a webhook delivery: one of a ticket they may see, or a subscription's log entry. */
export async function mayAccessDelivery(
  event: ApiEvent,
  delivery: Pick<Delivery, 'event' | 'ticket'>,
): Promise<boolean> {
  return delivery.event === 'subscription.disabled' || mayAccessTicketId(event, delivery.ticket);
}

/**
 * What a ticket write names, as the caller may see it: a queue not theirs (unless the ticket is in it
 * already: `current`) and a ticket they may not see are absent, so the write is a 400 on that field
 * with upstream's words for a missing pk.
 */
export async function referencesSeenBy(event: ApiEvent, refs: References, current?: number): Promise<References> {
  const scope = await queueScopeOf(event);
  if (!scope) return refs;
  return {
    ...refs,
    queues: new Set([...refs.queues].filter((q) => q === current || canUseQueue(scope, q))),
    tickets: new Map([...refs.tickets].filter(([, t]) => canAccessTicket(scope, t))),
  };
}

/**
 * The tickets the caller may see, for the lists that are not of tickets (store/listings.ts
 * ticketsListedUnder: one Query per queue of theirs and one of their own tickets); undefined for all.
 */
export async function visibleTicketIds(event: ApiEvent): Promise<ReadonlySet<number> | undefined> {
  const scope = await queueScopeOf(event);
  return scope && ticketsListedUnder(scope.queues, scope.user);
}
