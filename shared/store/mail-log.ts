/**
 * The mail log (issue 22): one item per mail in its ticket's mail partition (keys.ts `mail`), and
 * one item per sent Message-ID (keys.ts `messageId`). Access patterns:
 * - queue a mail: a conditional put keyed by (change, kind, recipient): a retried stream batch finds
 *   it there and queues nothing new (`queueMail`);
 * - claim it for sending, record it sent or failed: conditional updates on its status and attempt
 *   count, so two senders racing on one mail cannot both send it (`claimMail`, `recordSent`,
 *   `recordFailedAttempt`);
 * - a ticket's mail in time order: one Query of its partition (`ticketMail`), for staff's list and
 *   for the thread's previous Message-IDs;
 * - a Message-ID's ticket and mail: one GetItem (`mailOfMessageId`), for mail in (a reply's
 *   In-Reply-To and References) and for SES's events (which name the Message-ID SES assigned);
 * - a mail's status from a provider's event (`recordMailStatus`);
 * - the mails that failed for good, for operators: one Query of their partition (`listFailedMail`).
 */
import { GetCommand, PutCommand, UpdateCommand } from '../aws/dynamodb';
import { config } from '../config';
import type { MailRecord, MailRef, MailStatus } from '../domain/mail';
import { dynamo } from '../aws/clients';
import { keys, ITEM_EXISTS, ITEM_IS_NEW, IN_PARTITION } from './keys';
import { queryAll } from './query';
import { isConditionFailure } from './transact';

type Item = Record<string, unknown>;

/** How long the log keeps a mail and a Message-ID (TTL): long enough for replies months later. */
export const MAIL_RETENTION_DAYS = 400;
/** A mail claimed by a sender that died is claimed again after this (the only way a mail can go twice). */
export const SENDING_LEASE_MS = 5 * 60_000;

const expiresAt = (from: string) => Math.floor(Date.parse(from) / 1000) + MAIL_RETENTION_DAYS * 86_400;

function toMail(item: Item): MailRecord {
  const { PK: _pk, SK: _sk, expires_at: _ttl, lease_until: _lease, ...mail } = item;
  return mail as unknown as MailRecord;
}

/** Records a new queued mail; false when it is there already (a retried or repeated change). */
export async function queueMail(mail: MailRecord): Promise<boolean> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.mail(mail.ticket, mail.id), ...mail, expires_at: expiresAt(mail.created) },
        ConditionExpression: ITEM_IS_NEW,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function getMail(ticket: number, id: string): Promise<MailRecord | undefined> {
  const out = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: keys.mail(ticket, id), ConsistentRead: true }),
  );
  return out.Item ? toMail(out.Item) : undefined;
}

/** A ticket's mail, oldest first (strongly consistent). */
export async function ticketMail(ticket: number): Promise<MailRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.mailPartition(ticket) },
    ConsistentRead: true,
  });
  return items.map(toMail);
}

/**
 * Takes mail `ref` for sending: queued, or sending under a lease that ran out (its sender died). One conditional
 * update counts the attempt and answers the mail as claimed, so no read comes before it; undefined when it is gone,
 * another sender has it, or it is settled. The attempt count it sets is what the outcome's update is conditioned on
 * (`endAttempt`): a sender whose lease ran out and was claimed again cannot end the new claim.
 */
export async function claimMail(ref: MailRef, now: Date): Promise<MailRecord | undefined> {
  try {
    const out = await dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.mail(ref.ticket, ref.id),
        UpdateExpression: 'SET #status = :sending, attempts = attempts + :one, lease_until = :lease, updated = :at',
        ConditionExpression: `${ITEM_EXISTS} AND (#status = :queued OR (#status = :sending AND lease_until < :now))`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':sending': 'sending',
          ':queued': 'queued',
          ':one': 1,
          ':lease': now.getTime() + SENDING_LEASE_MS,
          ':now': now.getTime(),
          ':at': now.toISOString(),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toMail(out.Attributes!);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Records a claimed mail as sent (or suppressed, with `messageId` null), with its subject, and its
 * Message-ID's own item (what a reply or an SES event finds it by). The Message-ID first: a failure
 * between the two leaves a mail that a later claim sends again, never one sent and unfindable.
 */
export async function recordSent(
  mail: MailRecord,
  outcome: { status: 'sent' | 'suppressed'; subject: string; messageId: string | null; error?: string },
  now: Date,
): Promise<void> {
  const at = now.toISOString();
  if (outcome.messageId) {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.messageId(outcome.messageId), ticket: mail.ticket, mail: mail.id, expires_at: expiresAt(at) },
      }),
    );
  }
  await endAttempt(mail, {
    status: outcome.status,
    subject: outcome.subject,
    message_id: outcome.messageId,
    sent: outcome.status === 'sent' ? at : null,
    updated: at,
    error: outcome.error ?? null,
  });
}

/** Sets `fields` on a mail this sender claimed (its attempt count unchanged since), and ends the claim. */
async function endAttempt(mail: MailRecord, fields: Partial<Record<keyof MailRecord, unknown>>): Promise<void> {
  const entries = Object.entries(fields);
  await dynamo.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keys.mail(mail.ticket, mail.id),
      UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')} REMOVE lease_until`,
      ConditionExpression: `${ITEM_EXISTS} AND attempts = :attempts`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])),
      ExpressionAttributeValues: {
        ...Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
        ':attempts': mail.attempts,
      },
    }),
  );
}

/**
 * Records a failed attempt: back to queued for the next one, or failed for good (`final`), which
 * also lists it for operators (`listFailedMail`) first: a failure between the two leaves the mail
 * claimed, and the claim's next taker ends it again.
 */
export async function recordFailedAttempt(mail: MailRecord, error: string, final: boolean, now: Date): Promise<void> {
  const fields = { updated: now.toISOString(), error: error.slice(0, 500) };
  if (final) {
    const failed: FailedMail = {
      ticket: mail.ticket,
      mail: mail.id,
      kind: mail.kind,
      recipient: mail.recipient,
      attempts: mail.attempts,
      failed: fields.updated,
      error: fields.error,
    };
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.failedMail(mail.ticket, mail.id), ...failed, expires_at: expiresAt(fields.updated) },
      }),
    );
  }
  await endAttempt(mail, { status: final ? 'failed' : 'queued', ...fields });
}

/** A mail that failed for good, as operators list it (the mail log keeps the rest of it). */
export interface FailedMail {
  ticket: number;
  mail: string;
  kind: string;
  recipient: string;
  attempts: number;
  /** When it failed (ISO 8601 UTC). */
  failed: string;
  error: string;
}

/** Every mail that failed for good in the log's retention, oldest change first (one Query of their partition). */
export async function listFailedMail(): Promise<FailedMail[]> {
  const items = await queryAll({
    KeyConditionExpression: IN_PARTITION,
    ExpressionAttributeValues: { ':pk': keys.failedMailPartition },
    ConsistentRead: true,
  });
  return items.map(({ PK: _pk, SK: _sk, expires_at: _ttl, ...failed }) => failed as unknown as FailedMail);
}

/** What a sent Message-ID is: its ticket and mail (one GetItem), or undefined for one this helpdesk never sent. */
export async function mailOfMessageId(messageId: string): Promise<{ ticket: number; mail: string } | undefined> {
  const out = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: keys.messageId(messageId.trim()) }));
  return out.Item ? { ticket: Number(out.Item.ticket), mail: String(out.Item.mail) } : undefined;
}

/**
 * A provider's later word on a sent mail (SES's delivery, bounce and complaint events): its status,
 * when and why. Undefined when the log no longer has it.
 */
export async function recordMailStatus(
  ticket: number,
  id: string,
  status: Extract<MailStatus, 'delivered' | 'bounced' | 'complained'>,
  at: Date,
  error?: string,
): Promise<MailRecord | undefined> {
  try {
    const out = await dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.mail(ticket, id),
        UpdateExpression: 'SET #status = :status, updated = :at, #error = :error',
        ConditionExpression: ITEM_EXISTS,
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':status': status,
          ':at': at.toISOString(),
          ':error': error?.slice(0, 500) ?? null,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes ? toMail(out.Attributes) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
