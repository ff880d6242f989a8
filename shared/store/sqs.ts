/**
 * The SQS client, the only one (webhook deliveries waiting for their next attempt, and their
 * dead-letter queue: shared/webhooks/queue.ts, functions/webhooks/deliver.ts). Built once per process
 * on first use, with the request handler of the DynamoDB client (clients.ts: the same connection and
 * inactivity timeouts, HELPDESK_DEPENDENCY_TIMEOUT_MS included) and the SDK's default attempts. The
 * SDK module loads on first use too: the local runtime, whose queue is in-process timers, never
 * loads it.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { SDK_REQUEST_HANDLER, withoutSdkLogging } from './clients';

type Sdk = typeof import('@aws-sdk/client-sqs');

let sqs: Promise<{ sdk: Sdk; client: SQSClient }> | undefined;

function sqsClient(): Promise<{ sdk: Sdk; client: SQSClient }> {
  sqs ??= import('@aws-sdk/client-sqs').then((sdk) => ({ sdk, client: withoutSdkLogging(new sdk.SQSClient({ requestHandler: SDK_REQUEST_HANDLER })) }));
  return sqs;
}

/** Sends one message, delayed by `delaySeconds` (SQS allows up to 900) when given. */
export async function sendMessage(queueUrl: string, body: string, delaySeconds?: number): Promise<void> {
  const { sdk, client } = await sqsClient();
  await client.send(new sdk.SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, ...(delaySeconds === undefined ? {} : { DelaySeconds: delaySeconds }) }));
}

/** Hides a received message for `seconds` (up to 12 hours), after which it is received again. */
export async function hideMessage(queueUrl: string, receiptHandle: string, seconds: number): Promise<void> {
  const { sdk, client } = await sqsClient();
  await client.send(new sdk.ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
}
