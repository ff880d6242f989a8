/**
 * Cleanup records: the table's note that some S3 objects may have no record pointing at them. S3
 * and DynamoDB cannot commit together, so this is how no object is ever left behind:
 *
 * - A write that adds files first stores a cleanup record naming them (due in UPLOAD_GRACE_MS),
 *   then uploads, then deletes the record in the same transaction that stores the attachment
 *   records (`commitUploads`). If that transaction fails, or the process dies before it, the record
 *   stays, and whoever claims it deletes the files.
 * - A write that deletes attachment records puts a cleanup record (due at once) in the same
 *   transaction; the handler then deletes the files and the record (`removeFiles`). What it cannot
 *   finish (S3 down, the process killed) stays recorded.
 * - `sweepFileCleanups` (a scheduled function on AWS, an interval in the local runtime) claims due
 *   records and finishes them.
 *
 * A claim is a conditional write that `commitUploads` is conditioned against, so the commit of some
 * files and their cleanup can never both succeed, even when a commit's outcome was unknown to its
 * caller (a timeout after DynamoDB applied it): the caller's claim then fails and the files stay.
 */
import { DeleteCommand, PutCommand, UpdateCommand } from '../aws/dynamodb';
import { randomUUID } from 'node:crypto';
import { config } from '../config';
import { dynamo } from '../aws/clients';
import { deleteFiles, putFile } from '../aws/s3';
import { logger } from '../observability';
import { keys, ITEM_EXISTS, SORT_UP_TO } from './keys';
import { queryPages } from './query';
import { isConditionFailure, type TransactItem } from './transact';

/** How long an upload may take to be committed before its files count as abandoned. */
export const UPLOAD_GRACE_MS = 10 * 60_000;
/** How long a claim holds a record; a claimer that died frees it after this. */
const CLAIM_MS = 5 * 60_000;
/** Object keys per record: ~60 bytes each keeps a record far below DynamoDB's 400 KB. */
const KEYS_PER_RECORD = 1000;

export interface FileCleanup {
  key: { PK: string; SK: string };
  objectKeys: string[];
}

function cleanup(objectKeys: string[], due: Date): FileCleanup {
  return { key: keys.fileCleanup(due.toISOString(), randomUUID()), objectKeys };
}

const putAction = (c: FileCleanup): TransactItem => ({
  Put: { TableName: config.tableName, Item: { ...c.key, object_keys: c.objectKeys } },
});

/** Before uploading: records the files as abandoned unless a commit says otherwise. */
export async function recordUploads(objectKeys: string[], now = new Date()): Promise<FileCleanup> {
  const record = cleanup(objectKeys, new Date(now.getTime() + UPLOAD_GRACE_MS));
  await dynamo.send(new PutCommand(putAction(record).Put!));
  return record;
}

/** The action that commits uploaded files, in the transaction that stores their records. */
export function commitUploads(record: FileCleanup): TransactItem {
  return {
    Delete: {
      TableName: config.tableName,
      Key: record.key,
      ConditionExpression: `${ITEM_EXISTS} AND attribute_not_exists(claimed_until)`,
    },
  };
}

/** For a transaction that deletes attachment records: cleanup records of their files, due at once. */
export function cleanupsOfDeleted(
  objectKeys: string[],
  now = new Date(),
): { records: FileCleanup[]; actions: TransactItem[] } {
  const records: FileCleanup[] = [];
  for (let i = 0; i < objectKeys.length; i += KEYS_PER_RECORD)
    records.push(cleanup(objectKeys.slice(i, i + KEYS_PER_RECORD), now));
  return { records, actions: records.map(putAction) };
}

/** Takes a record for this caller; false if it is gone (committed or finished) or held by another. */
async function claim(record: FileCleanup, nowMs: number): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: record.key,
        UpdateExpression: 'SET claimed_until = :until',
        ConditionExpression: `${ITEM_EXISTS} AND (attribute_not_exists(claimed_until) OR claimed_until < :now)`,
        ExpressionAttributeValues: { ':until': nowMs + CLAIM_MS, ':now': nowMs },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Deletes the files, then the record once every file is gone; a failure leaves the record for the sweeper. */
async function finish(record: FileCleanup): Promise<boolean> {
  if ((await deleteFiles(record.objectKeys)).length) return false;
  await dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: record.key }));
  return true;
}

/** After a failed commit: deletes the uploads unless the commit took effect after all. */
export async function abandonUploads(record: FileCleanup): Promise<void> {
  if (await claim(record, Date.now())) await finish(record);
}

/**
 * After a committed delete: removes the files now, as far as S3 and DynamoDB let it. Never throws:
 * the delete has happened, and what is left stays recorded for the sweeper.
 */
export async function removeFiles(records: FileCleanup[]): Promise<void> {
  for (const record of records) {
    await finish(record).catch((error) => logger.warn('file cleanup left to the sweeper', { error: String(error) }));
  }
}

export interface SweepResult {
  /** Records finished (files and record deleted). */
  finished: number;
  /** Records claimed but not finished (a file could not be deleted): tried again after CLAIM_MS. */
  unfinished: number;
}

/** Finishes the cleanup records due by `now`, at most `limit` of them (the next run takes the rest). */
export async function sweepFileCleanups(now = new Date(), limit = 200): Promise<SweepResult> {
  const result: SweepResult = { finished: 0, unfinished: 0 };
  const due = queryPages({
    KeyConditionExpression: SORT_UP_TO,
    ExpressionAttributeValues: { ':pk': keys.fileCleanupPartition, ':sk': keys.fileCleanupsDueBy(now.toISOString()) },
    ConsistentRead: true,
    Limit: limit,
  });
  for await (const page of due) {
    for (const item of page) {
      const record = {
        key: { PK: item.PK as string, SK: item.SK as string },
        objectKeys: item.object_keys as string[],
      };
      if (!(await claim(record, now.getTime()))) continue;
      if (await finish(record)) result.finished++;
      else result.unfinished++;
      if (result.finished + result.unfinished >= limit) return result;
    }
  }
  return result;
}

export interface PendingFile {
  key: string;
  data: Buffer;
  contentType: string;
}

/**
 * Records, uploads, then runs the write that stores the files' records, handing it the action that
 * commits the uploads (`commitUploads`), to include in its transaction. If anything fails, the
 * uploads are abandoned: deleted now if possible, else by the sweeper.
 */
export async function withFiles<T>(
  files: PendingFile[],
  commit: (fileCommit?: TransactItem) => Promise<T>,
): Promise<T> {
  if (!files.length) return commit();
  const record = await recordUploads(files.map((f) => f.key));
  try {
    // Every upload settles before any cleanup starts: a DELETE sent while another PUT is still on
    // its way would leave that object behind.
    const uploads = await Promise.allSettled(files.map((f) => putFile(f.key, f.data, f.contentType)));
    const failed = uploads.find((u): u is PromiseRejectedResult => u.status === 'rejected');
    if (failed) throw failed.reason;
    return await commit(commitUploads(record));
  } catch (error) {
    await abandonUploads(record).catch((cleanupError) =>
      logger.warn('uploads left to the sweeper', { error: String(cleanupError) }),
    );
    throw error;
  }
}
