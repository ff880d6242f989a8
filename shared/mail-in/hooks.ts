/**
 * What the ingest reads and writes of the outbound mail and the mail settings (issue 22): the
 * verified reply address and thread root (domain/mail-threading.ts, keyed by the mail secret), the
 * Message-IDs the helpdesk sent and received (store/inbound-mail.ts), a ticket's CC list (store/ticket-ccs.ts) and
 * the suppression list (store/suppressions.ts). An interface, so that a test can stand in for one.
 */
import { bouncesVerified, replyVerifies, ticketOfReplyAddress, ticketOfThreadRoot } from '../domain/mail-threading';
import { storedDateTime } from '../domain/datetime';
import { logger } from '../observability';
import { ticketOfThreadIds } from '../store/inbound-mail';
import { suppress } from '../store/suppressions';
import { DuplicateCc, TooManyCcs, addTicketCc, removedTicketCcs, ticketCcAddresses } from '../store/ticket-ccs';
import { mailSecret } from '../mail/secret';

export interface MailInHooks {
  /** The ticket a plus-addressed reply address names, once its tag is verified (undefined: none, or forged). */
  ticketOfReplyAddress(address: string): Promise<number | undefined>;
  /**
   * The ticket of these thread ids: a verified thread root among them, else the latest the helpdesk sent or received
   * (one batch read).
   */
  ticketOfThreadIds(ids: string[]): Promise<number | undefined>;
  /** Whether one of `addresses` is ticket `ticket`'s reply address issued to `from` (the sender answers our mail). */
  replyVerifies(addresses: string[], ticket: number, from: string): Promise<boolean>;
  /**
   * Of `failed`, the recipients whose report came to the signed return path of a mail sent to them (one of
   * `addresses`): the first few of each checked (domain/mail-threading.ts, bouncesVerified).
   */
  bouncesOfOurs(addresses: string[], failed: string[]): Promise<string[]>;
  /** A ticket's CC addresses (lowercase). */
  ticketCcs(ticket: number): Promise<string[]>;
  /**
   * Adds addresses to a ticket's CC list (the queue's own already left out), as upstream's create_ticket_cc; never one
   * staff removed, nor past MAX_CCS_PER_TICKET. Answers how many the full list left out.
   */
  addTicketCcs(ticket: number, addresses: string[]): Promise<number>;
  /** Puts addresses that bounced for good on the suppression list. */
  suppress(addresses: string[], detail: string): Promise<void>;
}

/** The mail secret, or undefined where none is set (then no reply address or root verifies). */
async function secretOrNone(): Promise<string | undefined> {
  try {
    return await mailSecret();
  } catch (error) {
    logger.warn('mail secret unavailable: reply addresses and thread roots are not verified', { error: String(error) });
    return undefined;
  }
}

export const storeHooks: MailInHooks = {
  async ticketOfReplyAddress(address) {
    if (!address.includes('+')) return undefined;
    const secret = await secretOrNone();
    return secret ? ticketOfReplyAddress(address, secret) : undefined;
  },
  async ticketOfThreadIds(ids) {
    const secret = await secretOrNone();
    const root = secret ? [...ids].reverse().find((id) => ticketOfThreadRoot(id, secret) !== undefined) : undefined;
    return root ? ticketOfThreadRoot(root, secret!) : ticketOfThreadIds(ids);
  },
  async replyVerifies(addresses, ticket, from) {
    const secret = await secretOrNone();
    return !!secret && addresses.some((address) => replyVerifies(address, secret, ticket, from));
  },
  async bouncesOfOurs(addresses, failed) {
    const secret = await secretOrNone();
    return secret ? bouncesVerified(addresses, failed, secret) : [];
  },
  ticketCcs: (ticket) => ticketCcAddresses(ticket),
  async addTicketCcs(ticket, addresses) {
    const present = new Set(await ticketCcAddresses(ticket));
    const removed = await removedTicketCcs(ticket);
    const added = addresses.filter((a) => !present.has(a.toLowerCase()) && !removed.has(a.toLowerCase()));
    for (const [n, email] of added.entries()) {
      const full = await addTicketCc(ticket, { email, user: null, can_view: true, can_update: false }).then(
        () => false,
        (error: unknown) => {
          if (error instanceof TooManyCcs) return true;
          if (!(error instanceof DuplicateCc)) throw error;
          return false;
        },
      );
      if (full) return added.length - n;
    }
    return 0;
  },
  async suppress(addresses, detail) {
    const since = storedDateTime(new Date());
    for (const address of addresses) await suppress({ address, reason: 'bounce', detail, since, message_id: null });
  },
};
