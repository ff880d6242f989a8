/**
 * The mail consumer on AWS (infra/mail.ts): a batch of the table's stream (ticket items, new
 * followups) in; the mail log's entries and one message per mail on the mail queue out
 * (shared/mail/queue-mail.ts). A failed batch is retried, then bisected, then parked on the failure
 * queue (alarmed); a retried batch queues no mail twice.
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { config } from '../../shared/config';
import { queueMailFor, type MailQueue } from '../../shared/mail/queue-mail';
import { sendMessage } from '../../shared/aws/sqs';
import { tableChangeOf } from '../../shared/consumer/stream-records';

/** SQS's longest delay; a later attempt waits out the rest hidden on the queue (functions/mail/send.ts). */
export const MAX_SQS_DELAY_SECONDS = 900;

const queue: MailQueue = {
  enqueue: (ref, delaySeconds) =>
    sendMessage(config.mail.queueUrl!, JSON.stringify(ref), Math.min(delaySeconds, MAX_SQS_DELAY_SECONDS)),
};

export async function handler(event: DynamoDBStreamEvent): Promise<void> {
  await queueMailFor(event.Records.map(tableChangeOf), queue);
}
