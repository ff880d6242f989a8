/**
 * Id indexes: for tickets, followups and attachments, which ids exist and the little that lists
 * need of each (a ticket's status; a followup's ticket; an attachment's ticket, followup and file
 * name). Followups and attachments keep one attribute `s<k>` per id; tickets a number set per
 * status (below). One block item per 100 ids in one partition per kind, so one Query reads a whole index and
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
 * The ticket index is the hot one (every list page reads it whole), so it is denser: per block,
 * one number set of ticket ids per status (`st1` … `st5`). ADD and DELETE on sets are atomic, so
 * concurrent writers never conflict, and a set of 100 ids costs a fraction of 100 attributes to
 * read and parse.
 */
export interface TicketIndexChange {
  id: number;
  /** The status the ticket leaves (absent for a new ticket). */
  from?: number;
  /** The status it takes (absent when it is deleted). */
  to?: number;
}

export function ticketIndexChanges(changes: TicketIndexChange[]): TransactItem[] {
  const byBlock = new Map<number, { add: Map<number, Set<number>>; remove: Map<number, Set<number>> }>();
  for (const { id, from, to } of changes) {
    const { block } = keys.indexSlot(id);
    let e = byBlock.get(block);
    if (!e) byBlock.set(block, (e = { add: new Map(), remove: new Map() }));
    if (from !== undefined && from !== to) e.remove.set(from, (e.remove.get(from) ?? new Set()).add(id));
    if (to !== undefined && from !== to) e.add.set(to, (e.add.get(to) ?? new Set()).add(id));
  }
  return [...byBlock].flatMap(([block, { add, remove }]) => {
    const clause = (verb: string, sets: Map<number, Set<number>>, prefix: string) =>
      sets.size ? `${verb} ${[...sets.keys()].map((s) => `st${s} :${prefix}${s}`).join(', ')}` : '';
    const expression = [clause('ADD', add, 'a'), clause('DELETE', remove, 'd')].filter(Boolean).join(' ');
    if (!expression) return [];
    const values: Record<string, Set<number>> = {};
    for (const [s, ids] of add) values[`:a${s}`] = ids;
    for (const [s, ids] of remove) values[`:d${s}`] = ids;
    return [{ Update: { TableName: config.tableName, Key: keys.indexBlock('ticket', block), UpdateExpression: expression, ExpressionAttributeValues: values } }];
  });
}

/** Every live ticket id with its status, in id order (one Query, strongly consistent). */
export async function readTicketIndex(): Promise<[number, number][]> {
  const blocks = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.indexPartition('ticket') },
    ConsistentRead: true,
  });
  const entries: [number, number][] = [];
  for (const block of blocks) {
    for (let status = 1; status <= 5; status++) {
      const ids = block[`st${status}`] as Set<number> | undefined;
      if (ids) for (const id of ids) entries.push([id, status]);
    }
  }
  return entries.sort((a, b) => a[0] - b[0]);
}
