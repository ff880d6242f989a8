/**
 * Whether a queue may be deleted, from what its item and the ticket counts say (docs/data-model.md,
 * "Deleting a queue"). Every write that puts a ticket into a queue (a create, a move) first takes a
 * reservation on the queue item (`reserved` + 1); the stream consumer counts, exactly once, each such
 * write it applies (`arr<queue>` in the totals, in the transaction that counts the ticket). A delete
 * first closes the queue to new reservations; from then on `reserved` only falls (a write that
 * failed gives its reservation back) and the arrivals only grow, so once they are equal every write
 * that reserved is in the counts, and the live count says whether a ticket is in the queue.
 */

/**
 * After this long without a new reservation, reservations still not counted are taken as given up:
 * their writer crashed between its reservation and its write (or failed in a way that leaves open
 * whether it wrote, so it did not give the reservation back). Longer than any writer may run (an
 * API function 15 s, the mail ingest 2 minutes: infra/) plus the stream consumer's lag, so that a
 * write that did happen is counted by then.
 */
export const RESERVATION_GIVEN_UP_MS = 5 * 60_000;

export interface QueueDeleteState {
  /** Reservations taken on the queue, less those given back (`reserved` on the queue item; 0 when absent). */
  reserved: number;
  /** When the last reservation was taken (epoch ms; absent on queues no write has reserved in). */
  lastReserved?: number;
  /** Writes that reserved, counted by the stream consumer (`arr<queue>` in the totals; 0 when absent). */
  arrived: number;
  /** Live tickets in the queue by the counts (`q<queue>`). */
  live: number;
  now: number;
}

/**
 * `in-use`: tickets are in the queue (409, as before). `unsettled`: writes that reserved are not all
 * counted yet (wait for the counts, then 409 if they stay so). `delete`: no ticket is in it, nor on
 * its way.
 */
export type QueueDeleteDecision = 'delete' | 'in-use' | 'unsettled';

export function queueDeleteDecision(state: QueueDeleteState): QueueDeleteDecision {
  if (state.live > 0) return 'in-use';
  if (state.arrived === state.reserved) return 'delete';
  // More arrivals than reservations only follows a reservation given back by a write that did
  // happen after all (an SDK retry after a lost answer): no count can be trusted until it is old.
  const givenUp = state.lastReserved === undefined || state.now - state.lastReserved > RESERVATION_GIVEN_UP_MS;
  return givenUp ? 'delete' : 'unsettled';
}

/** The totals attribute that counts the writes into `queue` that reserved in it. */
export const arrivalsAttribute = (queue: number) => `arr${queue}`;

/** The details of a refused queue delete (409). */
export const QUEUE_DELETE_REFUSALS = {
  inUse: 'This queue still has tickets: move or delete them before deleting the queue.',
  filling: 'Tickets are being created in or moved to this queue: try again in a moment.',
  beingDeleted: 'This queue is being deleted by another request.',
};
