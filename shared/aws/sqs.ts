/**
 * SQS, the only module that calls it (webhook deliveries waiting for their next attempt, and their
 * dead-letter queue: shared/webhooks/queue.ts, functions/webhooks/deliver.ts), through its JSON
 * protocol, signed (aws-json.ts: no SDK client in the bundles). The local runtime,
 * whose queue is in-process timers, never calls it.
 */
import { awsJsonCall } from './aws-json';

/** The queue's region: the one in its URL (https://sqs.<region>.amazonaws.com[.cn]/<account>/<name>). */
function regionOf(queueUrl: string): string | undefined {
  return /^https:\/\/sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?\//.exec(queueUrl)?.[1];
}

/** SQS's longest delay; a later attempt waits out the rest hidden on the queue (functions/mail/send.ts). */
export const MAX_SQS_DELAY_SECONDS = 900;

/** Sends one message, delayed by `delaySeconds` (SQS allows up to 900) when given. */
export async function sendMessage(queueUrl: string, body: string, delaySeconds?: number): Promise<void> {
  await awsJsonCall(
    'sqs',
    'SendMessage',
    { QueueUrl: queueUrl, MessageBody: body, ...(delaySeconds === undefined ? {} : { DelaySeconds: delaySeconds }) },
    { region: regionOf(queueUrl) },
  );
}

/** Hides a received message for `seconds` (up to 12 hours), after which it is received again. */
export async function hideMessage(queueUrl: string, receiptHandle: string, seconds: number): Promise<void> {
  await awsJsonCall(
    'sqs',
    'ChangeMessageVisibility',
    { QueueUrl: queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds },
    { region: regionOf(queueUrl) },
  );
}
