/**
 * The mail sender on AWS (infra/mail.ts): one attempt per message of the mail queue
 * (shared/mail/send-mail.ts). A mail to try again stays on the queue, hidden until its next attempt,
 * and is reported as a batch item failure. A mail that failed on every attempt is put on the
 * dead-letter queue, which alarms; SQS dead-letters on its own a message whose receives are all
 * spent (a crashing sender). The sender checks the suppression list before every mail.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '../../shared/config';
import type { MailRef } from '../../shared/domain/mail';
import { logger } from '../../shared/observability';
import { mailSecret } from '../../shared/mail/secret';
import { sendMail, type SenderContext } from '../../shared/mail/send-mail';
import { sesTransport } from '../../shared/mail/transports';
import { hideMessage, sendMessage } from '../../shared/aws/sqs';

const settings = config.mail.settings;
const deadLetterUrl = config.mail.deadLetterUrl!;
// On AWS the stack sets the transport to SES (infra/mail.ts). Not transportFor: its SMTP transport
// would bundle all of nodemailer (its SMTP client, pool, DKIM, OAuth2: 100 KiB) into this function.
const ctx: SenderContext = {
  transport: sesTransport(settings.configurationSet),
  settings,
  secret: mailSecret,
};

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (message) => {
      try {
        const result = await sendMail(JSON.parse(message.body) as MailRef, ctx);
        if (result.state === 'retry') {
          await hideMessage(config.mail.queueUrl!, message.receiptHandle, result.inSeconds);
          batchItemFailures.push({ itemIdentifier: message.messageId });
        } else if (result.state === 'failed' && result.deadLetter) {
          // Then consumed here: SQS's own redrive would wait out the spare receives (infra/mail.ts).
          await sendMessage(deadLetterUrl, message.body);
        }
      } catch (error) {
        logger.error('mail step failed', { messageId: message.messageId, error: (error as Error).message });
        batchItemFailures.push({ itemIdentifier: message.messageId });
      }
    }),
  );
  return { batchItemFailures };
}
