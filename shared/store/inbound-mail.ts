/**
 * Inbound mail records (docs/email.md, "Email in"; docs/data-model.md): the record of each received
 * Message-ID and what it became, the operators' list of messages that failed or wait for review,
 * and the per-sender count of new tickets.
 */
import { createHash, randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '../aws/dynamodb';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { keys, ITEM_EXISTS, ITEM_IS_NEW, IN_PARTITION } from './keys';
import { withoutTag } from '../domain/mail-in';
import { batchGet, queryAll } from './query';
import { conditionHeld, isConditionFailure, type TransactItem } from './transact';

/** What a received message became. */
export type InboundOutcome = 'ticket' | 'followup' | 'dropped' | 'held' | 'bounce' | 'failed' | 'ignored';

export interface InboundRecord {
  message_id: string;
  outcome: InboundOutcome;
  ticket: number | null;
  followup: number | null;
  /** The raw message's key in the mail bucket. */
  raw_key: string;
  sender: string;
  received: string;
  /** Why it was dropped or held; authentication failures and decoding notes of an applied one. */
  notes: string[];
}

const idHash = (messageId: string) => createHash('sha256').update(messageId).digest('hex');
/** The key of a Message-ID's record (what a reply's threading looks up): the import writes one per followup. */
export const inboundMessageKey = (messageId: string) => keys.inboundMessage(idHash(messageId));

/**
 * The record's write, conditional on the Message-ID being new (or, for a held message an operator
 * releases, on its being held): one action of the applying transaction.
 */
export function inboundRecordPut(record: InboundRecord, releasing = false): TransactItem {
  const Item = { ...keys.inboundMessage(idHash(record.message_id)), ...record };
  if (!releasing) return { Put: { TableName: config.tableName, Item, ConditionExpression: ITEM_IS_NEW } };
  return {
    Put: {
      TableName: config.tableName,
      Item,
      ConditionExpression: `${ITEM_IS_NEW} OR #outcome = :held`,
      ExpressionAttributeNames: { '#outcome': 'outcome' },
      ExpressionAttributeValues: { ':held': 'held' },
    },
  };
}

/** Records a message that created nothing (dropped, held, a bounce); false if its Message-ID was recorded already. */
export async function recordInbound(record: InboundRecord): Promise<boolean> {
  try {
    await dynamo.send(new PutCommand(inboundRecordPut(record).Put!));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

function toRecord(item: Record<string, unknown>): InboundRecord {
  const { PK: _pk, SK: _sk, ...record } = item;
  return record as unknown as InboundRecord;
}

/** The record of a Message-ID (strongly consistent), if it was received before. */
export async function findInbound(messageId: string): Promise<InboundRecord | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.inboundMessage(idHash(messageId)), ConsistentRead: true }),
  );
  return out.Item ? toRecord(out.Item) : undefined;
}

/**
 * The ticket of the latest of a reply's thread ids (domain/mail-in.ts `threadIdsOf`: at most MAX_THREAD_IDS) that
 * the helpdesk sent (keys.ts `messageId`) or received and applied: one BatchGetItem for both, whatever the
 * message's References held.
 */
export async function ticketOfThreadIds(ids: string[]): Promise<number | undefined> {
  if (!ids.length) return undefined;
  const idOfPartition = new Map(
    ids.flatMap((id) => [
      [keys.messageId(id).PK, id],
      [keys.inboundMessage(idHash(id)).PK, id],
    ]),
  );
  const found = new Map<string, number>();
  for (const item of await batchGet(ids.flatMap((id) => [keys.messageId(id), keys.inboundMessage(idHash(id))]))) {
    const id = idOfPartition.get(item.PK as string);
    if (id !== undefined && typeof item.ticket === 'number') found.set(id, item.ticket);
  }
  const latest = [...ids].reverse().find((id) => found.has(id));
  return latest === undefined ? undefined : found.get(latest);
}

/**
 * Counts one more new ticket from `sender` in the hour of `now`; returns the count so far (this one
 * included). A plain ADD: exact under concurrency, and it expires with the hour after. The sender
 * is folded: case and plus-addressing do not make another sender (issue 32).
 */
export const countNewTicket = (sender: string, now: Date) =>
  countMailIn('tickets', keys.mailSenderHour(withoutTag(sender), hourOf(now)), now);
/** Counts one more reply by mail from `sender` (folded), as countNewTicket. */
export const countReply = (sender: string, now: Date) =>
  countMailIn('replies', keys.mailSenderHour(withoutTag(sender), hourOf(now)), now);
/** Counts one more reply by mail to `ticket`, from anyone. */
export const countTicketReply = (ticket: number, now: Date) =>
  countMailIn('replies', keys.mailTicketHour(ticket, hourOf(now)), now);

const hourOf = (now: Date) => now.toISOString().slice(0, 13);

async function countMailIn(counter: 'tickets' | 'replies', key: Record<string, string>, now: Date): Promise<number> {
  const out = await dynamo.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: key,
      UpdateExpression: `ADD ${counter} :one SET expires_at = :expires`,
      ExpressionAttributeValues: { ':one': 1, ':expires': Math.floor(now.getTime() / 1000) + 2 * 3600 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.[counter] ?? 1);
}

/**
 * A message that could not be applied (`failed`), waits for an operator (`held`), or was applied as a
 * private followup because its sender is not verified (`unverified`, for staff to review): kept raw,
 * listed, re-runnable.
 */
export interface MailProblem {
  id: string;
  /** `sign-in`: an OAuth mailbox's sign-in refused (no message: `raw_key` is empty), one per mailbox and hour. */
  kind: 'failed' | 'held' | 'unverified' | 'sign-in';
  reason: string;
  raw_key: string;
  message_id: string | null;
  sender: string;
  received: string;
  /** The envelope recipients, as delivered. */
  recipients: string[];
  attempts: number;
  /** When a release (API or CLI) started running it again: no other starts until it ends or goes stale. */
  releasing_at?: string;
}

/** Keeps a problem; its id sorts by arrival. */
export async function keepProblem(problem: Omit<MailProblem, 'id' | 'attempts'>, attempts = 1): Promise<MailProblem> {
  const kept: MailProblem = { id: `${problem.received}#${randomUUID().slice(0, 8)}`, attempts, ...problem };
  await dynamo.send(new PutCommand({ TableName: config.tableName, Item: { ...keys.mailProblem(kept.id), ...kept } }));
  return kept;
}

/**
 * Keeps a mailbox's refused sign-in as a problem: one item per mailbox and hour (each failing run of the hour writes
 * its latest words over it), so a mailbox refused all day lists 24, not 1,440.
 */
export async function keepSignInProblem(mailbox: string, reason: string, at: Date): Promise<void> {
  const hour = `${at.toISOString().slice(0, 13)}:00:00.000Z`;
  const id = `${hour}#sign-in#${createHash('sha256').update(mailbox).digest('hex').slice(0, 8)}`;
  const problem: MailProblem = {
    id,
    kind: 'sign-in',
    reason,
    raw_key: '',
    message_id: null,
    sender: mailbox,
    received: at.toISOString(),
    recipients: [],
    attempts: 1,
  };
  await dynamo.send(new PutCommand({ TableName: config.tableName, Item: { ...keys.mailProblem(id), ...problem } }));
}

export async function listProblems(): Promise<MailProblem[]> {
  const items = await queryAll({
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.mailProblemsPartition },
    ConsistentRead: true,
  });
  return items.map((i) => toRecord(i) as unknown as MailProblem);
}

export async function getProblem(id: string): Promise<MailProblem | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.mailProblem(id), ConsistentRead: true }),
  );
  return out.Item ? (toRecord(out.Item) as unknown as MailProblem) : undefined;
}

/**
 * How long a release may hold its problem (the release function's timeout, with a margin): one that never ended (the
 * process died) lets another start after it.
 */
export const RELEASE_HOLD_MS = 5 * 60_000;

/**
 * Marks a problem as being released, at `at`, unless another release holds it (a conditional update): `busy` with
 * the other's start, `missing` when there is no such problem.
 */
export async function markReleasing(
  id: string,
  at: Date,
): Promise<{ marked: string } | { busy: string } | { missing: true }> {
  const marked = at.toISOString();
  const stale = new Date(at.getTime() - RELEASE_HOLD_MS).toISOString();
  const held = await updateProblemIf(
    id,
    'SET releasing_at = :marked',
    `${ITEM_EXISTS} AND (attribute_not_exists(releasing_at) OR releasing_at < :stale)`,
    { ':marked': marked, ':stale': stale },
  );
  if (held) return { marked };
  const problem = await getProblem(id);
  return problem ? { busy: problem.releasing_at ?? marked } : { missing: true };
}

/** Lets go of a release's mark (its own only: a later release's stays); nothing when the problem is gone. */
export async function unmarkReleasing(id: string, marked: string): Promise<void> {
  await updateProblemIf(id, 'REMOVE releasing_at', 'releasing_at = :marked', { ':marked': marked });
}

/** A conditional update of a problem's item: false when the condition did not hold. */
function updateProblemIf(
  id: string,
  UpdateExpression: string,
  ConditionExpression: string,
  ExpressionAttributeValues: Record<string, unknown>,
): Promise<boolean> {
  const update = { TableName: config.tableName, Key: keys.mailProblem(id), UpdateExpression, ConditionExpression };
  return conditionHeld(dynamo.send(new UpdateCommand({ ...update, ExpressionAttributeValues })));
}

export async function removeProblem(id: string): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: keys.mailProblem(id) }));
}
