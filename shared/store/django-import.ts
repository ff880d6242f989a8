/**
 * Writing a django-helpdesk installation into the table (`import-django`, issue 37) and reading it back
 * out (`export-django`). The mapping is shared/migrate/django.ts; this file holds the items and their writes.
 *
 * Every item is written conditional on being new (new ones up to 100 in a transaction: one call, at twice
 * the write units of single puts on AWS; a transaction refused is done again item by item): a run that is
 * killed leaves whole items only, and the next run reads what is there, skips what is equal, writes what is
 * missing, and refuses (or with `overwrite` replaces) what differs. So a second run changes nothing, and a
 * killed one finishes.
 * Ticket collection items carry the run's mark (items.ts IMPORTED): the mail and webhook consumers skip
 * them, counts, listings and search take them in from the stream as any write.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand } from '../aws/dynamodb';
import { canonicalJson } from '../domain/canonical-json';
import { needsRehash } from '../domain/password';
import type { CustomFieldDefinition } from '../domain/custom-fields';
import { queueMailSettings, type TicketCc } from '../domain/mail-settings';
import type { Attachment, Followup, Ticket, User } from '../domain/records';
import type { ImportedQueue, ImportedTicket, ImportedToken } from '../migrate/django';
import { hashTokenKey, TOKEN_PREFIX_LENGTH } from '../domain/tokens';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { reserveIds } from './counters';
import {
  attachmentItem,
  attachmentRefItem,
  collectionsFrom,
  followupItem,
  followupRefItem,
  IMPORTED,
  mergedItem,
} from './items';
import { ticketItem, RESERVATION_VERSION } from './items';
import { attachmentObjectKey, INDEXES, ITEM_IS_NEW, keys, KEY, SORT_BEGINS_WITH } from './keys';
import { batchGet, queryAll, queryPages } from './query';
import { summaryOf } from './users';
import { CLOSED_UNTIL, RESERVED } from './queue-reservations';
import { listUsers } from './users';
import { listCustomFields } from './custom-fields';
import { listTicketCcs } from './ticket-ccs';
import { inboundMessageKey } from './inbound-mail';
import { conditionHeld, ConditionFailed, MAX_TRANSACTION_ITEMS, transact } from './transact';

type Item = Record<string, unknown>;
type Key = { PK: string; SK: string };
/** An item to write, and what the report calls it. */
export type Desired = { label: string; item: Item };

/** What became of each item kind: written new, already equal, replaced (`overwrite`), or refused as different. */
export interface WriteTally {
  written: number;
  unchanged: number;
  replaced: number;
  conflicts: string[];
}

export interface ImportWriter {
  /** The run's mark on the items it writes. */
  readonly mark: string;
  readonly tally: Record<string, WriteTally>;
  /** Writes `desired` items not yet there (or different, with overwrite); returns the keys it wrote. */
  write(kind: string, desired: Desired[], before?: (d: Desired) => Promise<void>): Promise<Set<string>>;
}

/**
 * Attributes that say nothing of the record: the run's mark, and a queue's reservation bookkeeping, which every
 * ticket the API puts into it writes (store/queue-reservations.ts).
 */
const UNCOMPARED = new Set([IMPORTED, ...Object.values(RESERVED), ...Object.values(CLOSED_UNTIL), 'last_reserved']);

/** Equal as stored: every attribute but the uncompared ones, maps in any key order. */
function equal(a: Item, b: Item): boolean {
  const compared = (i: Item) =>
    canonicalJson(Object.fromEntries(Object.entries(i).filter(([k, v]) => !UNCOMPARED.has(k) && v !== undefined)));
  return compared(a) === compared(b);
}

/**
 * A stored user whose hash was upgraded at a sign-in since (middleware/auth.ts) is still the one the dump
 * names: compared with the dump's hash in place of ours, so a rerun finds it equal.
 */
function upgradedFrom(stored: Item, desired: Item): Item {
  const [ours, theirs] = [stored.password_hash, desired.password_hash];
  if (typeof ours !== 'string' || typeof theirs !== 'string' || ours === theirs) return stored;
  return !needsRehash(ours) && needsRehash(theirs) && !theirs.startsWith('!')
    ? { ...stored, password_hash: theirs }
    : stored;
}

const keyText = (k: Key) => `${k.PK}\u0000${k.SK}`;

/** How many writes (transactions of new items, or single puts) are in flight at once. */
const IN_FLIGHT = 8;

async function pool<T>(tasks: T[], run: (t: T) => Promise<void>): Promise<void> {
  const queue = [...tasks];
  await Promise.all(
    Array.from({ length: Math.min(IN_FLIGHT, queue.length) }, async () => {
      for (let t = queue.shift(); t !== undefined; t = queue.shift()) await run(t);
    }),
  );
}

/**
 * A writer for one run. `onItem` is called after each item written (the CLI's progress, and the
 * fault injection of the kill test).
 */
export function importWriter(options: { overwrite: boolean; dryRun: boolean; onItem?: () => void }): ImportWriter {
  const mark = `django-import:${new Date().toISOString()}:${randomUUID().slice(0, 8)}`;
  const tally: Record<string, WriteTally> = {};
  return {
    mark,
    tally,
    async write(kind, desired, before) {
      const t = (tally[kind] ??= { written: 0, unchanged: 0, replaced: 0, conflicts: [] });
      const wrote = new Set<string>();
      if (!desired.length) return wrote;
      const existing = new Map(
        (await batchGet(desired.map(({ item }) => ({ PK: item.PK as string, SK: item.SK as string })))).map((i) => [
          keyText(i as Key),
          i,
        ]),
      );
      const fresh: Desired[] = [];
      const replacing: Desired[] = [];
      for (const d of desired) {
        const stored = existing.get(keyText(d.item as Key));
        if (!stored) fresh.push(d);
        else if (equal(upgradedFrom(stored, d.item), d.item)) t.unchanged++;
        else if (options.overwrite) replacing.push(d);
        else t.conflicts.push(d.label);
      }
      if (options.dryRun) {
        t.written += fresh.length;
        t.replaced += replacing.length;
        return wrote;
      }
      const done = (d: Desired, replaced: boolean) => {
        if (replaced) t.replaced++;
        else t.written++;
        wrote.add(keyText(d.item as Key));
        options.onItem?.();
      };
      /** One item, conditional on being new unless it replaces one (overwrite). */
      const putOne = async (d: Desired, replace: boolean) => {
        const written = await conditionHeld(
          dynamo.send(
            new PutCommand({
              TableName: config.tableName,
              Item: d.item,
              ...(replace ? {} : { ConditionExpression: ITEM_IS_NEW }),
            }),
          ),
        );
        // Refused: written meanwhile by someone else, not ours to replace.
        if (written) done(d, replace);
        else t.conflicts.push(d.label);
      };
      // New items go up to MAX_TRANSACTION_ITEMS in one transaction, each conditional on being new: one call
      // instead of a hundred. A transaction refused (an item written meanwhile) is done again item by item.
      const chunks: Desired[][] = [];
      for (let i = 0; i < fresh.length; i += MAX_TRANSACTION_ITEMS)
        chunks.push(fresh.slice(i, i + MAX_TRANSACTION_ITEMS));
      await pool(chunks, async (chunk) => {
        if (before) await Promise.all(chunk.map(before));
        try {
          await transact(
            chunk.map((d) => ({
              Put: { TableName: config.tableName, Item: d.item, ConditionExpression: ITEM_IS_NEW },
            })),
          );
        } catch (error) {
          if (!(error instanceof ConditionFailed)) throw error;
          await pool(chunk, (d) => putOne(d, false));
          return;
        }
        for (const d of chunk) done(d, false);
      });
      await pool(replacing, async (d) => {
        await before?.(d);
        await putOne(d, true);
      });
      return wrote;
    },
  };
}

export const userItems = (u: User): { label: string; item: Item }[] => [
  { label: `user ${u.username}`, item: { ...keys.user(u.username), ...u } },
  { label: `user ${u.id}`, item: summaryOf(u) },
];

export const queueItems = (q: ImportedQueue): { label: string; item: Item }[] => [
  { label: `queue ${q.id}`, item: { ...keys.queue(q.id), ...q } },
  { label: `queue slug ${q.slug}`, item: { ...keys.queueSlug(q.slug), id: q.id } },
];

export const customFieldItem = (d: CustomFieldDefinition) => ({
  label: `custom field ${d.name}`,
  item: { ...keys.customField(d.name), ...d },
});

export const ticketCcItem = (cc: TicketCc) => ({
  label: `ticket cc ${cc.id}`,
  item: {
    ...(cc.user !== null ? keys.ticketCcUser(cc.ticket, cc.user) : keys.ticketCcAddress(cc.ticket, cc.email!)),
    ...cc,
  },
});

/** An imported attachment's object: named by its upstream id, so a rerun writes the same one. */
export const importedObjectKey = (a: Pick<Attachment, 'ticket' | 'id'>) =>
  attachmentObjectKey(a.ticket, `django-${a.id}`);

/**
 * A ticket's items: the ticket (with no queue reservation: an import is no write into a queue the API
 * races a delete with), its followups, attachments and their refs, its merge pointer in its target, and
 * a received-mail record per followup Message-ID, so a reply to an old message threads.
 */
export function ticketItems(
  t: ImportedTicket & { ticket: Ticket },
  mark: string,
): { label: string; item: Item; kind: 'ticket' | 'followup' | 'attachment' | 'other' }[] {
  const status = t.ticket.status;
  const { [RESERVATION_VERSION]: _, ...ticket } = ticketItem(t.ticket);
  const out: { label: string; item: Item; kind: 'ticket' | 'followup' | 'attachment' | 'other' }[] = [
    { label: `ticket ${t.ticket.id}`, item: { ...ticket, [IMPORTED]: mark }, kind: 'ticket' },
  ];
  for (const f of t.followups) {
    out.push({ label: `followup ${f.id}`, item: { ...followupItem(f, status), [IMPORTED]: mark }, kind: 'followup' });
    out.push({ label: `followup ref ${f.id}`, item: followupRefItem(f), kind: 'other' });
    if (f.message_id)
      out.push({
        label: `message ${f.message_id}`,
        item: {
          ...inboundMessageKey(f.message_id),
          message_id: f.message_id,
          outcome: 'followup',
          ticket: t.ticket.id,
          followup: f.id,
          raw_key: '',
          sender: '',
          received: f.date,
          notes: ['imported from django-helpdesk'],
        },
        kind: 'other',
      });
  }
  for (const { file: _file, text: _text, ...a } of t.attachments) {
    const record: Attachment = { ...a, object_key: importedObjectKey(a) };
    out.push({
      label: `attachment ${a.id}`,
      item: { ...attachmentItem(record, status), [IMPORTED]: mark },
      kind: 'attachment',
    });
    out.push({ label: `attachment ref ${a.id}`, item: attachmentRefItem(record), kind: 'other' });
  }
  if (t.ticket.merged_to !== null)
    out.push({ label: `merge ${t.ticket.id}`, item: mergedItem(t.ticket.merged_to, t.ticket.id), kind: 'other' });
  return out;
}

/**
 * After queues were replaced (`overwrite`): the slug claims that still name an imported queue under a slug it no
 * longer has (the local runtime's queue 1, `support`, replaced by the dump's) are let go.
 */
export async function releaseStaleSlugs(queues: ImportedQueue[]): Promise<void> {
  const slugOf = new Map(queues.map((q) => [q.id, q.slug]));
  const claims = await queryAll({
    KeyConditionExpression: SORT_BEGINS_WITH,
    ExpressionAttributeValues: { ':pk': keys.queuePartition, ':sk': keys.queueSlug('').SK },
    ConsistentRead: true,
  });
  for (const claim of claims) {
    const slug = String(claim.SK).slice(keys.queueSlug('').SK.length);
    const id = Number(claim.id);
    if (slugOf.has(id) && slugOf.get(id) !== slug)
      await dynamo.send(
        new DeleteCommand({
          TableName: config.tableName,
          Key: keys.queueSlug(slug),
          ConditionExpression: '#id = :id',
          ExpressionAttributeNames: { '#id': 'id' },
          ExpressionAttributeValues: { ':id': id },
        }),
      );
  }
}

/** The secret keys of tickets already stored (a dump without them keeps the ones the first run made). */
export async function storedSecretKeys(ids: number[]): Promise<Map<number, string>> {
  const items = ids.length ? await batchGet(ids.map((id) => keys.ticket(id))) : [];
  return new Map(items.map((i) => [Number(i.id), String(i.secret_key)]));
}

/**
 * A DRF token: its lookup item (the key's hash) and summary, in one transaction conditional on the key
 * being new: a token already there is left as it is (its id is this API's own).
 */
export async function importToken(token: ImportedToken, dryRun: boolean): Promise<'written' | 'unchanged'> {
  const keyHash = hashTokenKey(token.key);
  const [found] = await batchGet([keys.token(keyHash)]);
  if (found || dryRun) return found ? 'unchanged' : 'written';
  const { token: id } = await reserveIds({ token: 1 });
  const summary = {
    id,
    user: token.user,
    prefix: token.key.slice(0, TOKEN_PREFIX_LENGTH),
    created: token.created,
    key_hash: keyHash,
  };
  try {
    await transact([
      {
        Put: {
          TableName: config.tableName,
          Item: { ...keys.token(keyHash), id, user: token.user, created: token.created },
          ConditionExpression: ITEM_IS_NEW,
        },
      },
      { Put: { TableName: config.tableName, Item: { ...keys.tokenById(id), ...summary } } },
    ]);
  } catch (error) {
    if (error instanceof ConditionFailed) return 'unchanged';
    throw error;
  }
  return 'written';
}

// ---------------------------------------------------------------------------------------------
// Export: everything the export writes, read back.

export interface Installation {
  users: User[];
  queues: ImportedQueue[];
  customFields: CustomFieldDefinition[];
  tickets: { ticket: Ticket; followups: Followup[]; attachments: Attachment[] }[];
  ccs: TicketCc[];
}

/** Reads the whole installation: users (with their hashes), queues (with upstream's settings), tickets, CCs. */
export async function readInstallation(): Promise<Installation> {
  const summaries = await listUsers();
  const users = (summaries.length ? await batchGet(summaries.map((u) => keys.user(u.username))) : [])
    .map(({ PK: _pk, SK: _sk, ...u }) => u as unknown as User)
    .sort((a, b) => a.id - b.id);
  const queues = (
    await queryAll({
      KeyConditionExpression: SORT_BEGINS_WITH,
      ExpressionAttributeValues: { ':pk': keys.queuePartition, ':sk': keys.queueSortPrefix },
      ConsistentRead: true,
    })
  ).map((i): ImportedQueue => ({
    id: i.id as number,
    title: i.title as string,
    slug: i.slug as string,
    ...queueMailSettings(i),
    escalate_days: (i.escalate_days as number | null | undefined) ?? null,
    allow_public_submission: i.allow_public_submission === true,
    locale: (i.locale as string | null | undefined) ?? null,
    ...(i.django ? { django: i.django as Record<string, unknown> } : {}),
  }));
  const items: Item[] = [];
  for await (const page of queryPages({
    IndexName: INDEXES.gsi1.name,
    KeyConditionExpression: `${INDEXES.gsi1.partitionKey} = :pk`,
    ExpressionAttributeValues: { ':pk': keys.listAllPartition },
  }))
    items.push(...page);
  // The index is eventually consistent: each collection is read again from the table.
  const ids = [...new Set(items.filter((i) => i.type === 'ticket').map((i) => Number(i.id)))].sort((a, b) => a - b);
  const tickets: Installation['tickets'] = [];
  const ccs: TicketCc[] = [];
  for (const id of ids) {
    const collection = collectionsFrom(
      await queryAll({
        KeyConditionExpression: `${KEY.partition} = :pk`,
        ExpressionAttributeValues: { ':pk': keys.ticketPartition(id) },
        ConsistentRead: true,
      }),
    ).get(id);
    if (!collection) continue;
    tickets.push({ ticket: collection.ticket, followups: collection.followups, attachments: collection.attachments });
    ccs.push(...(await listTicketCcs(id)));
  }
  return { users, queues, customFields: await listCustomFields({ fresh: true }), tickets, ccs };
}
