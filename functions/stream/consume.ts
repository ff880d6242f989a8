/**
 * The table's stream consumer (infra/stream-consumer.ts): counts, listings, page snapshots, the
 * change feed and collection repairs. Each batch goes through consumer/table-changes.ts, which is
 * idempotent, so a failed batch is simply
 * thrown back for Lambda to retry (then split, then sent to the failure queue). Invoked by hand with
 * `{"backfill": true}`, it counts the tickets of a table written by an earlier version and gives
 * their followups and attachments refs (docs/data-model.md, "Upgrading a table").
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../shared/observability';
import { backfill } from '../../shared/consumer/backfill';
import { tableChangeOf } from '../../shared/consumer/stream-records';
import { applyTableChanges } from '../../shared/consumer/table-changes';

export async function handler(event: DynamoDBStreamEvent | { backfill: true }): Promise<unknown> {
  if (!('Records' in event)) {
    const done = await backfill();
    logger.info('backfill done', done);
    return done;
  }
  await applyTableChanges(event.Records.map(tableChangeOf));
  return {};
}
