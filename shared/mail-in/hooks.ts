/**
 * What the ingest needs from the outbound mail and the mail settings (issue 22's pieces): the
 * verified reply address, the Message-IDs the helpdesk sent, a ticket's CC list, and the
 * suppression list. Until those pieces are in, the defaults below do without them, and say so:
 * a reply is then threaded by the received Message-IDs and the subject tag only, and Cc addresses
 * and bounced recipients are recorded in the log rather than stored.
 */
import { logger } from '../observability';

export interface MailInHooks {
  /** The ticket a plus-addressed reply address names, once its signature is verified (undefined: none, or forged). */
  ticketOfReplyAddress(address: string): number | undefined;
  /** The ticket of the latest of these Message-IDs that the helpdesk sent. */
  ticketOfSentMessageIds(ids: string[]): Promise<number | undefined>;
  /** A ticket's CC addresses (lowercase). */
  ticketCcs(ticket: number): Promise<string[]>;
  /** Adds addresses to a ticket's CC list (the queue's own already left out). */
  addTicketCcs(ticket: number, addresses: string[]): Promise<void>;
  /** Puts addresses that bounced for good on the suppression list. */
  suppress(addresses: string[], reason: string): Promise<void>;
}

export const defaultHooks: MailInHooks = {
  ticketOfReplyAddress: () => undefined,
  ticketOfSentMessageIds: () => Promise.resolve(undefined),
  ticketCcs: () => Promise.resolve([]),
  addTicketCcs(ticket, addresses) {
    logger.info('ticket CCs from mail not stored: no CC list yet', { ticket, addresses });
    return Promise.resolve();
  },
  suppress(addresses, reason) {
    logger.warn('bounced addresses not suppressed: no suppression list yet', { addresses, reason });
    return Promise.resolve();
  },
};
