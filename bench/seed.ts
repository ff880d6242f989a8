/**
 * Bulk seeding for the benchmark: tickets with followups and attachment records written straight
 * into the table with BatchWriteItem (the items and refs the API would write), so that 20,000
 * tickets take seconds instead of minutes; the stream consumer counts them as it counts any write.
 * Attachment records get a real (tiny) S3 object.
 */
import { BatchWriteCommand, UpdateCommand } from '../shared/aws/dynamodb';
import { randomUUID } from 'node:crypto';
import { config } from '../shared/config';
import { storedDateTime } from '../shared/domain/datetime';
import type { Attachment, Followup, Ticket } from '../shared/domain/records';
import { dynamo } from '../shared/aws/clients';
import { putFile } from '../shared/aws/s3';
import { attachmentItem, attachmentRefItem, followupItem, followupRefItem, ticketItem } from '../shared/store/items';
import { attachmentObjectKey, keys } from '../shared/store/keys';
import { TICKET_BLOCK, subBlockAttribute } from '../shared/domain/ticket-counts';
import { reserveIds } from '../shared/store/counters';

type Item = Record<string, unknown>;

async function writeAll(items: Item[], parallel = 8): Promise<void> {
  const batches: Item[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < batches.length) {
        let pending = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
        while (pending.length) {
          const out = await dynamo.send(new BatchWriteCommand({ RequestItems: { [config.tableName]: pending } }));
          pending = (out.UnprocessedItems?.[config.tableName] ?? []) as typeof pending;
        }
      }
    }),
  );
}

/** The one S3 object every seeded attachment record names (a list reads records, not files). */
let attachmentObject: Promise<string> | undefined;
function benchAttachmentObject(): Promise<string> {
  attachmentObject ??= (async () => {
    const objectKey = attachmentObjectKey(0, `bench-${randomUUID()}`);
    await putFile(objectKey, Buffer.from('benchmark attachment\n'), 'text/plain');
    return objectKey;
  })();
  return attachmentObject;
}

/**
 * A seeded ticket's collection as the API stores it: its item, an opening followup and a reply by
 * `user` (ids `firstFollowup` and the next, written at `date`), and with `attachment` (an id) a file
 * on the reply; with their refs.
 */
async function collectionItems(
  ticket: Ticket,
  { user, date, firstFollowup, attachment }: { user: number; date: string; firstFollowup: number; attachment?: number },
): Promise<Item[]> {
  const followups: Followup[] = [0, 1].map((n) => ({
    id: firstFollowup + n,
    ticket: ticket.id,
    user,
    title: n ? 'Reply' : 'Ticket Opened',
    comment: n ? 'A reply of a realistic length, a sentence or two about the problem.' : ticket.description,
    public: !n,
    new_status: null,
    time_spent: null,
    date,
    message_id: null,
  }));
  const attachments: Attachment[] =
    attachment === undefined
      ? []
      : [
          {
            id: attachment,
            ticket: ticket.id,
            followup: followups[1]!.id,
            filename: `log-${ticket.id}.txt`,
            mime_type: 'text/plain',
            size: 21,
            object_key: await benchAttachmentObject(),
          },
        ];
  return [
    ticketItem(ticket),
    ...followups.flatMap((f) => [followupItem(f, ticket.status), followupRefItem(f)]),
    ...attachments.flatMap((a) => [attachmentItem(a, ticket.status), attachmentRefItem(a)]),
  ];
}

/**
 * Adds `count` tickets in queue 1, each with an opening followup and one reply; every fifth reply
 * carries an attachment. Statuses cycle through 1-5 so that `?status=` has work to do, and so do
 * the list filters: every seventh ticket is in `secondQueue` (when given), every tenth assigned to
 * `userId`, priorities cycle through 1-4, submitters through 50 addresses, three in four have a due
 * date (days apart, out of id order), and creation times are a millisecond apart (every third
 * ticket modified later, in the same order), ending `ageMs` before now: tickets created that long
 * ago, their ids reserved now (as ids follow creation times, no ticket created since may have an
 * earlier id: domain/ticket-list-query.ts, CREATION_SPAN_MS).
 */
export async function seedTickets(count: number, userId: number, secondQueue?: number, ageMs = 0): Promise<number[]> {
  const ids = await reserveIds({ ticket: count, followup: 2 * count, attachment: Math.ceil(count / 5) });
  const start = Date.now() - ageMs;
  const now = storedDateTime(new Date(start));
  const items: Item[] = [];
  let attachmentId = ids.attachment;
  for (let i = 0; i < count; i++) {
    const id = ids.ticket + i;
    const status = (i % 5) + 1;
    const created = storedDateTime(new Date(start - count + i));
    const ticket: Ticket = {
      id,
      queue: secondQueue !== undefined && i % 7 === 0 ? secondQueue : 1,
      title: `Benchmark ticket ${id}`,
      description: 'Seeded by bench/seed.ts',
      resolution: null,
      submitter_email: `customer${i % 50}@example.com`,
      assigned_to: i % 10 === 0 ? userId : null,
      status,
      on_hold: false,
      priority: (i % 4) + 1,
      // Three in four due, in an order of their own (a day apart, cycling); the fourth not.
      due_date: i % 4 === 3 ? null : storedDateTime(new Date(start + ((i * 7919) % 997) * 86_400_000)),
      merged_to: null,
      secret_key: randomUUID(),
      created,
      modified: i % 3 === 0 ? storedDateTime(new Date(start + i)) : created,
      custom: {},
    };
    const attachment = i % 5 === 0 ? attachmentId++ : undefined;
    const firstFollowup = ids.followup + 2 * i;
    items.push(...(await collectionItems(ticket, { user: userId, date: now, firstFollowup, attachment })));
  }
  // Ticket items first: a followup the stream shows without its ticket is taken for one left
  // behind by a delete (consumer/collection-repair.ts), so none may be stored before its ticket.
  await writeAll(items.filter((i) => i.type === 'ticket'));
  await writeAll(items.filter((i) => i.type !== 'ticket'));
  return Array.from({ length: count }, (_, i) => ids.ticket + i);
}

/**
 * A simulated table of `count` more tickets (a list of millions, as the counts see it) without
 * writing them: the counts partition gets what the stream consumer would have added for `count`
 * new ticket ids (statuses cycling 1-5 as in seedTickets), and only the tickets whose position in
 * the new range falls in `real` (`[from, to)` offsets) are written, with their counted state, so the
 * consumer leaves them be. Returns the new range's first id. List pages near the real tickets read as
 * they would in a table of that size.
 */
export async function simulateTickets(count: number, userId: number, real: [number, number][]): Promise<number> {
  const { ticket: first } = await reserveIds({ ticket: count });
  const status = (id: number) => ((id - first) % 5) + 1;
  const blocks = new Map<number, Map<string, number>>();
  const totals = new Map<string, number>([['q1', count]]);
  for (let id = first; id < first + count; id++) {
    const block = Math.floor(id / TICKET_BLOCK);
    let deltas = blocks.get(block);
    if (!deltas) blocks.set(block, (deltas = new Map<string, number>()));
    const attribute = subBlockAttribute(id, status(id));
    deltas.set(attribute, (deltas.get(attribute) ?? 0) + 1);
    totals.set(`s${status(id)}`, (totals.get(`s${status(id)}`) ?? 0) + 1);
  }
  const add = (Key: Record<string, string>, deltas: Map<string, number>) =>
    dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key,
        UpdateExpression: `ADD ${[...deltas].map((_, i) => `#a${i} :d${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries([...deltas].map(([a], i) => [`#a${i}`, a])),
        ExpressionAttributeValues: Object.fromEntries([...deltas].map(([, d], i) => [`:d${i}`, d])),
      }),
    );
  const work = [...blocks].map(
    ([block, deltas]) =>
      () =>
        add(keys.countsBlock(block), deltas),
  );
  work.push(() => add(keys.countsTotals, totals));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < work.length) await work[next++]!();
    }),
  );

  const ids = real.flatMap(([from, to]) => Array.from({ length: to - from }, (_, i) => first + from + i));
  const more = await reserveIds({ followup: 2 * ids.length, attachment: Math.ceil(ids.length / 5) });
  const now = storedDateTime(new Date());
  const items: Item[] = [];
  for (const [i, id] of ids.entries()) {
    const ticket: Ticket = {
      ...SIMULATED,
      id,
      title: `Simulated ticket ${id}`,
      status: status(id),
      secret_key: randomUUID(),
      created: now,
      modified: now,
    };
    // Shaped as seedTickets shapes them, so that a page reads the same items at any size.
    const attachment = i % 5 === 0 ? more.attachment + i / 5 : undefined;
    items.push(
      ...(await collectionItems(ticket, { user: userId, date: now, firstFollowup: more.followup + 2 * i, attachment })),
      { ...keys.counted(id), ticket: id, status: ticket.status, queue: 1, version: 1 },
    );
  }
  // Each ticket item with its counted state first (so the consumer counts none of them again), then the rest.
  const writtenFirst = (i: Item) => i.type === 'ticket' || i.type === undefined;
  await writeAll(items.filter(writtenFirst));
  await writeAll(items.filter((i) => !writtenFirst(i)));
  return first;
}

const SIMULATED: Omit<Ticket, 'id' | 'title' | 'status' | 'secret_key' | 'created' | 'modified'> = {
  queue: 1,
  description: 'Simulated by bench/seed.ts',
  resolution: null,
  submitter_email: 'simulated@example.com',
  assigned_to: null,
  on_hold: false,
  priority: 3,
  due_date: null,
  merged_to: null,
  custom: {},
};
