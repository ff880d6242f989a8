/**
 * The table's stream consumer for ticket counts and collection repairs (infra/ticket-counts.ts):
 * each batch goes through store/table-changes.ts, which is idempotent, so a failed batch is simply
 * thrown back for Lambda to retry (then split, then sent to the failure queue). Invoked by hand with
 * `{"backfill": true}`, it counts the tickets of a table written by an earlier version and gives
 * their followups and attachments refs (docs/data-model.md, "Upgrading a table").
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { logger } from '../../shared/observability';
import { backfill } from '../../shared/store/backfill';
import { applyTableChanges, type TableChange } from '../../shared/store/table-changes';

type Image = Record<string, AttributeValue>;

export async function handler(event: DynamoDBStreamEvent | { backfill: true }): Promise<unknown> {
  if (!('Records' in event)) {
    const done = await backfill();
    logger.info('backfill done', done);
    return done;
  }
  await applyTableChanges(
    event.Records.map(
      (record): TableChange => ({
        eventName: record.eventName as TableChange['eventName'],
        keys: unmarshall(record.dynamodb!.Keys as Image) as TableChange['keys'],
        newImage: record.dynamodb!.NewImage ? unmarshall(record.dynamodb!.NewImage as Image) : undefined,
        oldImage: record.dynamodb!.OldImage ? unmarshall(record.dynamodb!.OldImage as Image) : undefined,
        stream: { id: record.eventID!, sequence: record.dynamodb!.SequenceNumber!, at: Number(record.dynamodb!.ApproximateCreationDateTime) * 1000 },
      }),
    ),
  );
  return {};
}
