/**
 * Per-queue permissions, upstream's rules (helpdesk/user.py `get_queues`, `can_access_queue`,
 * `can_access_ticket`) under HELPDESK_ENABLE_PER_QUEUE_STAFF_PERMISSION: a staff member who is not a
 * superuser sees the queues in their `queues` and those with `allow_public_submission`, and the
 * tickets in those queues or assigned to them. Everyone else (the setting off, a superuser) sees
 * everything. Upstream applies this in its web views only; here every staff route does
 * (middleware/queue-access.ts; docs/security.md). The one place the rule is written.
 */
import type { Queue, Ticket, User } from './records';

/** What a limited staff member may see: the queues (ids) and, in any queue, the tickets assigned to `user`. */
export interface QueueScope {
  user: number;
  queues: ReadonlySet<number>;
}

/** The scope of `user`, or undefined when they see every queue (the setting off, or a superuser). */
export function queueScope(
  user: Pick<User, 'id' | 'is_superuser' | 'queues'>,
  queues: readonly Pick<Queue, 'id' | 'allow_public_submission'>[],
  enabled: boolean,
): QueueScope | undefined {
  if (!enabled || user.is_superuser) return undefined;
  const own = new Set(user.queues ?? []);
  return {
    user: user.id,
    queues: new Set(queues.filter((q) => own.has(q.id) || q.allow_public_submission).map((q) => q.id)),
  };
}

/** Whether a ticket may be put into (created in, moved to) `queue`. */
export function canUseQueue(scope: QueueScope | undefined, queue: number): boolean {
  return !scope || scope.queues.has(queue);
}

/** Whether the ticket may be seen, changed, or anything of it (followups, files, CCs, mail, events). */
export function canAccessTicket(scope: QueueScope | undefined, ticket: Pick<Ticket, 'queue' | 'assigned_to'>): boolean {
  return !scope || scope.queues.has(ticket.queue) || ticket.assigned_to === scope.user;
}
