/**
 * Amazon SES v2 `SendEmail` with raw content (the one SES call the sender makes): a REST JSON POST
 * through the store's own AWS request code (aws-request.ts), as aws-json.ts does for SQS and Secrets
 * Manager, so it has their signing, sockets, timeouts, headers and the SDK's standard retry strategy
 * (3 attempts, its classification); the SDK's SESv2 client would add its own serialisers and
 * middleware to the bundle. An error SES answers is thrown with its name (MessageRejected,
 * AccountSuspendedException ...), taken from the X-Amzn-ErrorType header REST JSON APIs send.
 */
import { DEFAULT_MAX_ATTEMPTS, StandardRetryStrategy } from '@smithy/util-retry';
import { config } from '../config';
import { restJsonError, restJsonPost } from './aws-json';
import { AwsService, serviceEndpoint } from './aws-request';
import { transport } from './clients';

const ses = new AwsService('ses', 'sesv2', restJsonError);
/** The process's retry strategy (and budget) for SES, with the SDK clients' default attempts. */
const strategy = new StandardRetryStrategy({ maxAttempts: DEFAULT_MAX_ATTEMPTS });
/** An attempt may go this long without a byte: SES takes longer than DynamoDB to accept a message. */
const attemptMs = Math.max(transport.attemptMs, 5000);

export interface RawEmail {
  raw: Buffer;
  from: string;
  to: string;
  configurationSet: string | undefined;
}

/** Sends one raw message; SES's MessageId (the mail's Message-ID is `<MessageId@<region>.amazonses.com>`). */
export async function sendRawEmail(email: RawEmail): Promise<string> {
  const region = config.aws.region;
  const url = new URL('v2/email/outbound-emails', serviceEndpoint('email', region, config.aws.sesEndpoint));
  const body = JSON.stringify({
    FromEmailAddress: email.from,
    Destination: { ToAddresses: [email.to] },
    Content: { Raw: { Data: email.raw.toString('base64') } },
    ...(email.configurationSet ? { ConfigurationSetName: email.configurationSet } : {}),
  });
  const text = await restJsonPost(ses, strategy, { call: 'ses SendEmail', url, region, body, attemptMs });
  return String((JSON.parse(text) as { MessageId?: string }).MessageId);
}
