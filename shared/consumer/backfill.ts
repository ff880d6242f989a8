/**
 * Brings a table written by an earlier version up to this one: ticket counts (consumer/ticket-counts.ts;
 * the agent views' counts an earlier version kept on the totals items moved to their own items)
 * and listing items (consumer/listings.ts) and page snapshots (consumer/page-snapshots.ts) from the tickets stored,
 * and ref items (keys.ts `ref`) for followups and attachments stored before refs existed. Safe to run at any time and
 * more than once: counts are applied through the same idempotent path as the stream (a ticket's current version, which
 * the stream's later records supersede), listing items likewise (conditional on holding an older version), refs are
 * rewritten with what they already hold. The local runtime runs it at start when there are tickets but no counts, or no
 * listing items; on AWS it is one invocation of the CountTickets function (docs/data-model.md, "Upgrading a table").
 */
import { config, listingsTableOf } from '../config';
import { GetCommand, UpdateCommand } from '../aws/dynamodb';
import { dynamo } from '../aws/clients';
import { keys, INDEXES, inIndex, IN_PARTITION, PAGE_SNAPSHOT_SORT_KEY } from '../store/keys';
import { attachmentRefItem, followupRefItem, openingOf, strip } from '../store/items';
import { batchWrite, queryAll, queryPages } from '../store/query';
import { readTotals } from '../store/ticket-counts';
import { applyTicketRecords, moveViewCountsOutOfTotals, ticketRecordOf } from './ticket-counts';
import { applyListingWrites, listingWriteOfStored } from './listings';
import { writePageSnapshots } from './page-snapshots';
import { recountStoredFollowups } from './time-spent';
import { transact } from '../store/transact';
import type { Attachment, Followup } from '../domain/records';
import type { TicketRecord } from '../domain/ticket-counts';

export async function backfill(): Promise<{ tickets: number; refs: number; listings: number; viewCounts: number }> {
  const viewCounts = await moveViewCountsOutOfTotals();
  // An earlier version's second totals item (at the end of the partition), no longer written or read.
  await batchWrite([], [keys.countsTotalsRetired]);
  let listings = 0;
  let tickets = 0;
  let refs = 0;
  for await (const page of queryPages({
    IndexName: INDEXES.gsi1.name,
    KeyConditionExpression: inIndex('gsi1'),
    ExpressionAttributeValues: { ':pk': keys.listAllPartition },
  })) {
    const records: TicketRecord[] = page.filter((i) => i.type === 'ticket').map((i) => ticketRecordOf(i));
    if (records.length) await applyTicketRecords(records);
    tickets += records.length;
    const writes = page.filter((i) => i.type === 'ticket').map((i) => listingWriteOfStored(i));
    await applyListingWrites(writes);
    await deleteRetiredListings(records.map((r) => r.ticket));
    await writePageSnapshots(records.map((r) => r.ticket));
    listings += writes.length;
    // Submitter keys in lower case (issue 32): a ticket stored before keeps its address as given.
    for (const item of page.filter(
      (i) => i.type === 'ticket' && typeof i.submitter_email === 'string' && i.submitter_email,
    )) {
      const key = keys.bySubmitter(item.submitter_email as string, item.id as number);
      if (item.GSI3PK === key.GSI3PK) continue;
      await dynamo
        .send(
          new UpdateCommand({
            TableName: config.tableName,
            Key: { PK: item.PK, SK: item.SK },
            UpdateExpression: 'SET GSI3PK = :pk',
            ConditionExpression: 'submitter_email = :email',
            ExpressionAttributeValues: { ':pk': key.GSI3PK, ':email': item.submitter_email },
          }),
        )
        .catch((error: Error) => {
          // Changed meanwhile: its own write set the key.
          if (error.name !== 'ConditionalCheckFailedException') throw error;
        });
    }
    const refItems = page.flatMap((i) => {
      if (i.type === 'followup') return [followupRefItem(strip<Followup>(i))];
      if (i.type === 'attachment') return [attachmentRefItem(strip<Attachment>(i))];
      const opening = i.type === 'ticket' ? openingOf(i) : undefined;
      return opening ? [followupRefItem(opening)] : [];
    });
    for (let n = 0; n < refItems.length; n += 100) {
      await transact(refItems.slice(n, n + 100).map((Item) => ({ Put: { TableName: config.tableName, Item } })));
    }
    refs += refItems.length;
    await recountStoredFollowups(page);
  }
  return { tickets, refs, listings, viewCounts };
}

/** Tickets whose table partition `LISTED#<id>` the backfill reads at once for retired records. */
const RETIRED_READS_IN_FLIGHT = 25;

/**
 * Removes the listing records of earlier versions from the table (one item per ticket and dimension, in gsi4: now
 * the listings table's item), with their index entries: what a ticket's `LISTED#<id>` partition holds besides its page
 * snapshot, one Query each (keys only: half a read unit when there is nothing), so that a table without them pays no
 * deletes.
 */
async function deleteRetiredListings(tickets: number[]): Promise<void> {
  const retired: Record<string, unknown>[] = [];
  for (let i = 0; i < tickets.length; i += RETIRED_READS_IN_FLIGHT) {
    const found = await Promise.all(
      tickets.slice(i, i + RETIRED_READS_IN_FLIGHT).map((ticket) =>
        queryAll({
          KeyConditionExpression: IN_PARTITION,
          ExpressionAttributeValues: { ':pk': keys.listed(ticket).PK },
          ProjectionExpression: 'PK, SK',
        }),
      ),
    );
    retired.push(...found.flat().filter((item) => item.SK !== PAGE_SNAPSHOT_SORT_KEY));
  }
  await batchWrite([], retired);
}

/**
 * The local runtime's start: the agent views' counts moved out of the totals items where an
 * earlier version kept them there; a backfill when tickets exist but were never counted, or the
 * first ticket has no listing item (a table from before the listings table).
 */
export async function backfillIfUncounted(): Promise<void> {
  await moveViewCountsOutOfTotals();
  const first = await queryPages({
    IndexName: INDEXES.gsi1.name,
    KeyConditionExpression: inIndex('gsi1'),
    ExpressionAttributeValues: { ':pk': keys.listAllPartition },
    Limit: 25,
  }).next();
  if (first.done || first.value.length === 0) return;
  const ticket = first.value.find((i) => i.type === 'ticket');
  if (!(await readTotals()) || (ticket && !(await hasListing(Number(ticket.id))))) await backfill();
}

async function hasListing(ticket: number): Promise<boolean> {
  const out = await dynamo.send(
    new GetCommand({ TableName: listingsTableOf(config.tableName), Key: keys.listed(ticket), ConsistentRead: true }),
  );
  return out.Item !== undefined;
}
