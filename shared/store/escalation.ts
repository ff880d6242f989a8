/**
 * Escalation (upstream's `escalate_tickets`, run daily): the exclusions (one partition, read whole)
 * and the run. The rule of which tickets escalate is domain/escalation.ts; this reads what it needs
 * and writes each escalation as one transaction:
 *   - the ticket: priority one higher (lower number), `last_escalation` and `modified` now,
 *     conditional on the state the rule was applied to (a ticket changed meanwhile is left alone);
 *   - a public "Ticket Escalated" followup by nobody (its ticket change, the priority's, is the
 *     `ticket.updated` change event the ticket write gives);
 *   - the escalation record of the ticket and day (keys.ts `escalation`), conditional on being new:
 *     the same day never escalates a ticket twice, however often the run is started.
 * With `notifyOnly` only the record is written. Its stream INSERT is what the mail consumer mails
 * the escalation from (shared/mail/queue-mail.ts): `escalated_submitter`, `escalated_cc`,
 * `escalated_owner`, through the mail pipeline as every other mail.
 *
 * The candidates are read from gsi2's open and reopened partitions (every item of those tickets'
 * collections, ticket items kept): a daily job's Query, not a request's.
 */
import { DeleteCommand, GetCommand, PutCommand } from '../aws/dynamodb';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { reserveIds } from './counters';
import { ESCALATION_ITEM_TYPE, IN_PARTITION, INDEXES, ITEM_EXISTS, ITEM_IS_NEW, inIndex, keys } from './keys';
import { ESCALATION, followupItem, followupRefItem, strip } from './items';
import { queryAll } from './query';
import { listQueues } from './queues';
import { put } from './tickets';
import { ConditionFailed, conditionHeld, transact, type TransactItem } from './transact';
import { storedDateTime } from '../domain/datetime';
import {
  ESCALATED_TITLE,
  escalatedComment,
  escalatesOn,
  excludedDates,
  localDate,
  type EscalationExclusion,
} from '../domain/escalation';
import { STATUS, type Followup, type Queue, type Ticket } from '../domain/records';
import { WRITTEN_BY, withWriter, writtenBy } from './actor';

type Item = Record<string, unknown>;

const toExclusion = (item: Item): EscalationExclusion => ({
  id: item.id as number,
  name: item.name as string,
  date: item.date as string,
  queues: (item.queues as number[] | undefined) ?? [],
});

/** Every exclusion, in id order. */
export async function listExclusions(): Promise<EscalationExclusion[]> {
  const items = await queryAll({
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.exclusionPartition },
    ConsistentRead: true,
  });
  return items.map(toExclusion);
}

export async function getExclusion(id: number): Promise<EscalationExclusion | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.exclusion(id), ConsistentRead: true }),
  );
  return out.Item ? toExclusion(out.Item) : undefined;
}

/** Adds exclusions (one id each, from one counter update). */
export async function createExclusions(fields: Omit<EscalationExclusion, 'id'>[]): Promise<EscalationExclusion[]> {
  if (!fields.length) return [];
  const first = (await reserveIds({ escalation_exclusion: fields.length })).escalation_exclusion;
  const made = fields.map((f, i) => ({ id: first + i, ...f }));
  // Each its own put: a list of a year's weekends is over a transaction's 100 items, and a retry
  // of the command adds what is missing.
  for (const e of made) {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.exclusion(e.id), type: 'exclusion', ...e },
        ConditionExpression: ITEM_IS_NEW,
      }),
    );
  }
  return made;
}

/** Deletes an exclusion; false when there was none. */
export async function deleteExclusion(id: number): Promise<boolean> {
  return conditionHeld(
    dynamo.send(
      new DeleteCommand({ TableName: config.tableName, Key: keys.exclusion(id), ConditionExpression: ITEM_EXISTS }),
    ),
  );
}

/** How long an escalation record is kept: long past the day it guards. */
const RECORD_DAYS = 40;

export interface EscalationOptions {
  /** The run's time (default now): `--as-of` previews or tests a later day. */
  now?: Date;
  /** Only the queues with these slugs (default: every queue with `escalate_days`). */
  queues?: string[];
  /** Mail, without changing the tickets (upstream's `--notify-only`). */
  notifyOnly?: boolean;
  timeZone?: string;
}

export interface EscalationResult {
  /** The day escalated (the run's date in its time zone). */
  day: string;
  /** Tickets escalated (or, with notifyOnly, notified): their id, queue and priority before and after. */
  escalated: { ticket: number; queue: number; from: number; to: number }[];
  /** Tickets that were due but already escalated that day. */
  alreadyToday: number[];
  /** Tickets that were due but changed while the run looked at them (the next run sees them again). */
  changed: number[];
}

export class UnknownQueues extends Error {}

/** The open and reopened tickets of `queues`, as stored (last_escalation included). */
async function candidates(queues: ReadonlySet<number>): Promise<Ticket[]> {
  const pages = await Promise.all(
    [STATUS.OPEN, STATUS.REOPENED].map((status) =>
      queryAll({
        IndexName: INDEXES.gsi2.name,
        KeyConditionExpression: inIndex('gsi2'),
        FilterExpression: '#type = :ticket',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':pk': keys.listByStatusPartition(status), ':ticket': 'ticket' },
      }),
    ),
  );
  return pages
    .flat()
    .map((i) => strip<Ticket>(i))
    .filter((t) => queues.has(t.queue));
}

/** Runs one escalation: every ticket of the chosen queues that the rule says is due today. */
/** The escalation run's writes are the system's (store/actor.ts). */
const SYSTEM = { source: 'system' } as const;

export async function runEscalation(options: EscalationOptions = {}): Promise<EscalationResult> {
  return withWriter(SYSTEM, () => escalationRun(options));
}

async function escalationRun(options: EscalationOptions): Promise<EscalationResult> {
  const now = options.now ?? new Date();
  const timeZone = options.timeZone ?? config.escalation.timeZone;
  const day = localDate(now, timeZone);
  const all = await listQueues();
  const unknown = (options.queues ?? []).filter((slug) => !all.some((q) => q.slug === slug));
  if (unknown.length) throw new UnknownQueues(`No queue with the slug ${unknown.map((s) => `"${s}"`).join(', ')}.`);
  const queues = all.filter((q) => q.escalate_days && (!options.queues || options.queues.includes(q.slug)));
  const result: EscalationResult = { day, escalated: [], alreadyToday: [], changed: [] };
  if (!queues.length) return result;
  const byId = new Map(queues.map((q) => [q.id, q]));
  const [exclusions, tickets] = await Promise.all([listExclusions(), candidates(new Set(byId.keys()))]);
  const excluded = new Map(queues.map((q) => [q.id, excludedDates(exclusions, q.id)]));
  for (const ticket of tickets.sort((a, b) => a.id - b.id)) {
    const queue = byId.get(ticket.queue)!;
    if (!escalatesOn(ticket, queue.escalate_days, day, excluded.get(queue.id)!, timeZone)) continue;
    const outcome = await escalate(ticket, queue, now, day, !!options.notifyOnly);
    if (outcome === 'done')
      result.escalated.push({
        ticket: ticket.id,
        queue: queue.id,
        from: ticket.priority,
        to: options.notifyOnly ? ticket.priority : ticket.priority - 1,
      });
    else result[outcome].push(ticket.id);
  }
  return result;
}

/** One ticket's escalation (or notice), atomically; what became of it. */
async function escalate(
  ticket: Ticket,
  queue: Queue,
  now: Date,
  day: string,
  notifyOnly: boolean,
): Promise<'done' | 'alreadyToday' | 'changed'> {
  const at = storedDateTime(now);
  const writes: TransactItem[] = [];
  let followup: Followup | undefined;
  if (!notifyOnly) {
    const id = (await reserveIds({ followup: 1 })).followup;
    followup = {
      id,
      ticket: ticket.id,
      user: null,
      title: ESCALATED_TITLE,
      comment: escalatedComment(queue.escalate_days!),
      public: true,
      new_status: null,
      time_spent: null,
      date: at,
      message_id: null,
    };
    const last = ticket.last_escalation ? { ':last': ticket.last_escalation } : {};
    const lastUnchanged = ticket.last_escalation ? '#last = :last' : 'attribute_not_exists(#last)';
    const unchanged = [ITEM_EXISTS, '#status = :status', '#priority = :old', '#hold = :hold', lastUnchanged];
    writes.push(
      {
        Update: {
          TableName: config.tableName,
          Key: keys.ticket(ticket.id),
          UpdateExpression: 'SET #priority = :priority, #last = :now, #modified = :now, #wb = :wb ADD #version :one',
          // The state the rule was applied to: status, hold, priority and last escalation unchanged.
          ConditionExpression: unchanged.join(' AND '),
          ExpressionAttributeNames: {
            '#priority': 'priority',
            '#last': 'last_escalation',
            '#modified': 'modified',
            '#version': 'version',
            '#status': 'status',
            '#hold': 'on_hold',
            '#wb': WRITTEN_BY,
          },
          ExpressionAttributeValues: {
            ':priority': ticket.priority - 1,
            ':now': at,
            ':one': 1,
            ':status': ticket.status,
            ':old': ticket.priority,
            ':hold': ticket.on_hold,
            ':wb': SYSTEM,
            ...last,
          },
        },
      },
      put({ ...followupItem(followup, ticket.status), [ESCALATION]: true }),
      put(followupRefItem(followup)),
    );
  }
  const record = {
    ...keys.escalation(ticket.id, day, notifyOnly),
    type: ESCALATION_ITEM_TYPE,
    ticket: ticket.id,
    queue: queue.id,
    day,
    followup: followup?.id ?? null,
    notify_only: notifyOnly,
    at,
    expires_at: Math.floor(now.getTime() / 1000) + RECORD_DAYS * 86_400,
    ...writtenBy(),
  };
  writes.push({ Put: { TableName: config.tableName, Item: record, ConditionExpression: ITEM_IS_NEW } });
  try {
    await transact(writes);
    return 'done';
  } catch (error) {
    if (!(error instanceof ConditionFailed)) throw error;
    return error.positions.includes(writes.length - 1) ? 'alreadyToday' : 'changed';
  }
}
