/**
 * A ticket's CC list (upstream's TicketCC): a small partition per ticket (keys.ts `ticketCc*`), one
 * item per address or user, so a second add of either is refused by its key. Staff manage it through
 * /api/tickets/{id}/cc/; the mail sender reads it with `ticketCcAddresses`.
 *
 * Deleting a ticket leaves its CC partition behind (a few small items nothing reads: the ticket's
 * routes answer 404 first).
 */
import { DeleteCommand, PutCommand } from '../aws/dynamodb';
import { MAX_CCS_PER_TICKET, type TicketCc } from '../domain/mail-settings';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { reserveIds } from './counters';
import { IN_PARTITION, ITEM_IS_NEW, keys } from './keys';
import { batchGet, queryAll } from './query';

export class DuplicateCc extends Error {}
/** The ticket's list holds MAX_CCS_PER_TICKET entries. Adds racing at the bound may each pass it (a read checks). */
export class TooManyCcs extends Error {}

const keyOf = (cc: Pick<TicketCc, 'ticket' | 'email' | 'user'>) =>
  cc.user !== null ? keys.ticketCcUser(cc.ticket, cc.user) : keys.ticketCcAddress(cc.ticket, cc.email!);

function toTicketCc(item: Record<string, unknown>): TicketCc {
  return {
    id: item.id as number,
    ticket: item.ticket as number,
    user: (item.user as number | null) ?? null,
    email: (item.email as string | null) ?? null,
    can_view: item.can_view === true,
    can_update: item.can_update === true,
  };
}

const ccPartition = (ticket: number) =>
  queryAll({
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.ticketCcPartition(ticket) },
    ConsistentRead: true,
  });
const isRemoval = (item: Record<string, unknown>) => String(item.SK).startsWith(keys.ticketCcRemovedPrefix);

/** The ticket's CC entries, in id order (the order they were added). */
export async function listTicketCcs(ticket: number): Promise<TicketCc[]> {
  const items = await ccPartition(ticket);
  return items
    .filter((item) => !isRemoval(item))
    .map(toTicketCc)
    .sort((a, b) => a.id - b.id);
}

/** The addresses staff removed from the ticket's list (lower case): mail does not add them again. */
export async function removedTicketCcs(ticket: number): Promise<Set<string>> {
  const items = await ccPartition(ticket);
  return new Set(items.filter(isRemoval).map((item) => String(item.SK).slice(keys.ticketCcRemovedPrefix.length)));
}

/**
 * Adds an entry (an address or a user, not both); throws DuplicateCc when that one is on the list (an
 * address compared without case), TooManyCcs when the list is full. `byStaff`: an address staff add again is no
 * longer a removed one.
 */
export async function addTicketCc(
  ticket: number,
  entry: Omit<TicketCc, 'id' | 'ticket'>,
  byStaff = false,
): Promise<TicketCc> {
  // Entries written before addresses were keyed in lower case: a spelling that differs by case is the same address.
  const email = entry.email?.toLowerCase();
  const present = await listTicketCcs(ticket);
  if (email && present.some((c) => c.email?.toLowerCase() === email)) throw new DuplicateCc();
  if (present.length >= MAX_CCS_PER_TICKET) throw new TooManyCcs();
  if (email && byStaff)
    await dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: keys.ticketCcRemoved(ticket, email) }));
  const { ticket_cc: id } = await reserveIds({ ticket_cc: 1 });
  const cc: TicketCc = { id, ticket, ...entry };
  try {
    await dynamo.send(
      new PutCommand({ TableName: config.tableName, Item: { ...keyOf(cc), ...cc }, ConditionExpression: ITEM_IS_NEW }),
    );
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') throw new DuplicateCc();
    throw error;
  }
  return cc;
}

/** Removes entry `id` of the ticket's list; false when there is none. */
export async function removeTicketCc(ticket: number, id: number): Promise<boolean> {
  const cc = (await listTicketCcs(ticket)).find((c) => c.id === id);
  if (!cc) return false;
  await dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: keyOf(cc) }));
  if (cc.email !== null) {
    // An entry written before addresses were keyed in lower case is under the address as given.
    await dynamo.send(
      new DeleteCommand({ TableName: config.tableName, Key: keys.ticketCcAddressAsGiven(ticket, cc.email) }),
    );
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.ticketCcRemoved(ticket, cc.email), email: cc.email },
      }),
    );
  }
  return true;
}

/** Whether user `id` exists (its summary item), for a user entry. */
export async function userExists(id: number): Promise<boolean> {
  return (await batchGet([keys.userById(id)])).length > 0;
}

/**
 * The addresses the ticket's CC list stands for when mailing (for the sender): each address entry,
 * and each user entry's current address (a user without one, or deleted, is skipped). Lower case,
 * each once.
 */
export async function ticketCcAddresses(ticket: number): Promise<string[]> {
  const entries = await listTicketCcs(ticket);
  const users = entries.filter((c) => c.user !== null).map((c) => keys.userById(c.user!));
  const summaries = users.length ? await batchGet(users) : [];
  const addresses = [...entries.map((c) => c.email), ...summaries.map((u) => u.email as string | undefined)];
  return [...new Set(addresses.filter((a): a is string => !!a).map((a) => a.toLowerCase()))];
}
