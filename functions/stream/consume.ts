/**
 * The table stream's one reader on AWS (infra/stream-consumer.ts; issue 33): each batch fans out to
 * every consumer (consumers.ts), each given only its records and isolated: a consumer that fails
 * has its records put on its own retry queue (retry.ts applies them again) and the batch still
 * succeeds, so no consumer stalls another. Only a failure to queue those records fails the batch,
 * which Lambda then retries, bisects, and parks on the failure queue (alarmed); every consumer is
 * idempotent, so a retried batch is a repeat. Invoked by hand with `{"backfill": true}`, it counts the
 * tickets of a table written by an earlier version and gives their followups and attachments refs
 * (docs/data-model.md, "Upgrading a table").
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../shared/observability';
import { backfill } from '../../shared/consumer/backfill';
import { fanOut } from '../../shared/consumer/fan-out';
import { sqsRetrySink, streamConsumers } from './consumers';

const consumers = streamConsumers();

export async function handler(event: DynamoDBStreamEvent | { backfill: true }): Promise<unknown> {
  if (!('Records' in event)) {
    const done = await backfill();
    logger.info('backfill done', done);
    return done;
  }
  const { retried } = await fanOut(event.Records, consumers, sqsRetrySink);
  return retried.length ? { retried } : {};
}
