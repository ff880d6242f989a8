/**
 * The queues as mail in knows them, for every message: the addresses they answer at, the helpdesk's
 * own addresses, their slugs (subject tags). Read from the queues kept per process
 * (store/queues.ts `queuesForMail`, QUEUES_FOR_MAIL_TTL_MS), not every queue per message; what the
 * kept ones lack (an address or a slug) is looked for once more in the queues read now, so a queue
 * made a moment ago, elsewhere, is found rather than refused (docs/email.md, "Email in").
 */
import { addressBook } from '../domain/mail-in';
import type { Queue } from '../domain/records';
import { config } from '../config';
import { queuesForMail } from '../store/queues';

export type QueueWithAddress = Queue & { email_address?: string | null };

export interface KnownQueues {
  queues: QueueWithAddress[];
  /** The queues by the address each answers at (lowercased). */
  queueByAddress: Map<string, QueueWithAddress>;
  /** Every address of the helpdesk's own: the queues' and its sender's. */
  own: Set<string>;
  /** Read for this message (not the kept ones). */
  fresh: boolean;
}

async function read(fresh: boolean): Promise<KnownQueues> {
  const queues = (await queuesForMail({ fresh })) as QueueWithAddress[];
  return { queues, ...addressBook(queues, config.mailIn.domain, config.mailIn.fromAddress), fresh };
}

/**
 * One message's view of the queues: `known` the kept ones; `find(f)` what `f` finds in them, or, when
 * it finds nothing there, in the queues read now (at most one read per message, then kept as `known`).
 */
export async function queuesOfMessage() {
  let known = await read(false);
  return {
    get known(): KnownQueues {
      return known;
    },
    async find<T>(f: (queues: KnownQueues) => T | undefined): Promise<T | undefined> {
      const found = f(known);
      if (found !== undefined || known.fresh) return found;
      known = await read(true);
      return f(known);
    },
  };
}

export type MessageQueues = Awaited<ReturnType<typeof queuesOfMessage>>;
