/**
 * Id indexes: for tickets, followups and attachments, which ids exist and the little that lists
 * need of each (a ticket's status; a followup's ticket; an attachment's ticket, followup and file
 * name). Followups and attachments keep one attribute `s<k>` per id; tickets keep counts (below). One block item per 100 ids in one partition per kind, so one Query reads a whole index and
 * list pages know their count and their exact ids without reading the records. Every write that
 * creates or deletes such a record changes its slot in the same transaction.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { dynamo } from './clients';
import { INDEX_BLOCK_SIZE, keys, type IndexKind } from './keys';
import { queryAll } from './query';
import type { TransactItem } from './transact';

export type IndexValue = number | string;

/**
 * Slot changes as transaction items, one Update per block: a transaction may not touch one item
 * twice, and neighbouring ids share a block.
 */
export function indexChanges(kind: IndexKind, sets: [number, IndexValue][], removes: number[] = []): TransactItem[] {
  const byBlock = new Map<number, { sets: [string, IndexValue][]; removes: string[] }>();
  const entry = (id: number) => {
    const { block, attribute } = keys.indexSlot(id);
    let e = byBlock.get(block);
    if (!e) byBlock.set(block, (e = { sets: [], removes: [] }));
    return { e, attribute };
  };
  for (const [id, value] of sets) {
    const { e, attribute } = entry(id);
    e.sets.push([attribute, value]);
  }
  for (const id of removes) {
    const { e, attribute } = entry(id);
    e.removes.push(attribute);
  }
  return [...byBlock].map(([block, change]) => {
    const names: Record<string, string> = {};
    const values: Record<string, IndexValue> = {};
    const clauses: string[] = [];
    if (change.sets.length) {
      clauses.push(
        `SET ${change.sets
          .map(([attribute, value], i) => {
            names[`#s${i}`] = attribute;
            values[`:v${i}`] = value;
            return `#s${i} = :v${i}`;
          })
          .join(', ')}`,
      );
    }
    if (change.removes.length) {
      clauses.push(
        `REMOVE ${change.removes
          .map((attribute, i) => {
            names[`#r${i}`] = attribute;
            return `#r${i}`;
          })
          .join(', ')}`,
      );
    }
    return {
      Update: {
        TableName: config.tableName,
        Key: keys.indexBlock(kind, block),
        UpdateExpression: clauses.join(' '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
      },
    };
  });
}

/** A whole index, in id order (strongly consistent). */
export async function readIndex<V extends IndexValue>(kind: IndexKind): Promise<[number, V][]> {
  const blocks = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.indexPartition(kind) },
    ConsistentRead: true,
  });
  const entries: [number, V][] = [];
  for (const block of blocks) {
    const base = keys.blockNumber(String(block.SK)) * INDEX_BLOCK_SIZE;
    for (const [attribute, value] of Object.entries(block)) {
      if (/^s\d+$/.test(attribute)) entries.push([base + Number(attribute.slice(1)), value as V]);
    }
  }
  return entries.sort((a, b) => a[0] - b[0]);
}

/** One id's slot (one GetItem of its block's slot only). */
export async function lookupIndex<V extends IndexValue>(kind: IndexKind, id: number): Promise<V | undefined> {
  const { block, attribute } = keys.indexSlot(id);
  const out = await dynamo.send(
    new GetCommand({
      TableName: config.tableName,
      Key: keys.indexBlock(kind, block),
      ProjectionExpression: '#slot',
      ExpressionAttributeNames: { '#slot': attribute },
      ConsistentRead: true,
    }),
  );
  return out.Item?.[attribute] as V | undefined;
}

/** An attachment's slot holds `<ticket>:<followup>:<filename>`: enough to list by file name. */
export function attachmentSlot(a: { ticket: number; followup: number; filename: string }): string {
  return `${a.ticket}:${a.followup}:${a.filename}`;
}

export function parseAttachmentSlot(value: string): { ticket: number; followup: number; filename: string } {
  const first = value.indexOf(':');
  const second = value.indexOf(':', first + 1);
  return { ticket: Number(value.slice(0, first)), followup: Number(value.slice(first + 1, second)), filename: value.slice(second + 1) };
}

/**
 * The ticket index is the hot one: every list page reads it. It holds counts, not ids: per block of
 * 1,000 ticket ids one item, with an attribute `c<k>_<s>` per sub-block k of 25 ids and status s,
 * counting the live tickets there. ADD is atomic, so concurrent writers never conflict, and the whole
 * index costs about 1.5 KB per 1,000 tickets to read. A list page finds in it the sub-block where the
 * page starts and reads the tickets from there (at most 24 before the page's first).
 */
export const TICKET_BLOCK = 1000;
export const TICKET_SUB_BLOCK = 25;

export interface TicketIndexChange {
  id: number;
  /** The status the ticket leaves (absent for a new ticket). */
  from?: number;
  /** The status it takes (absent when it is deleted). */
  to?: number;
}

const countAttribute = (id: number, status: number) => `c${Math.floor((id % TICKET_BLOCK) / TICKET_SUB_BLOCK)}_${status}`;

export function ticketIndexChanges(changes: TicketIndexChange[]): TransactItem[] {
  const byBlock = new Map<number, Map<string, number>>();
  for (const { id, from, to } of changes) {
    if (from === to) continue;
    const block = Math.floor(id / TICKET_BLOCK);
    let deltas = byBlock.get(block);
    if (!deltas) byBlock.set(block, (deltas = new Map()));
    if (from !== undefined) deltas.set(countAttribute(id, from), (deltas.get(countAttribute(id, from)) ?? 0) - 1);
    if (to !== undefined) deltas.set(countAttribute(id, to), (deltas.get(countAttribute(id, to)) ?? 0) + 1);
  }
  return [...byBlock].flatMap(([block, deltas]) => {
    const changed = [...deltas].filter(([, delta]) => delta !== 0);
    if (!changed.length) return [];
    return [
      {
        Update: {
          TableName: config.tableName,
          Key: keys.indexBlock('ticket', block),
          UpdateExpression: `ADD ${changed.map((_, i) => `#c${i} :d${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(changed.map(([attribute], i) => [`#c${i}`, attribute])),
          ExpressionAttributeValues: Object.fromEntries(changed.map(([, delta], i) => [`:d${i}`, delta])),
        },
      },
    ];
  });
}

/** Live tickets per sub-block (by its first id), only the given statuses: one Query, consistent. */
export async function readTicketCounts(statuses?: Set<number>): Promise<{ start: number; count: number }[]> {
  const blocks = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.indexPartition('ticket') },
    ConsistentRead: true,
  });
  const counts = new Map<number, number>();
  for (const block of blocks) {
    const base = keys.blockNumber(String(block.SK)) * TICKET_BLOCK;
    for (const [attribute, value] of Object.entries(block)) {
      const m = /^c(\d+)_(\d)$/.exec(attribute);
      if (!m || (statuses && !statuses.has(Number(m[2])))) continue;
      const start = base + Number(m[1]) * TICKET_SUB_BLOCK;
      counts.set(start, (counts.get(start) ?? 0) + Math.max(0, value as number));
    }
  }
  return [...counts].filter(([, count]) => count > 0).map(([start, count]) => ({ start, count })).sort((a, b) => a.start - b.start);
}
