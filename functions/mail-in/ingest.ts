/**
 * Mail in on AWS (infra/mail-in.ts): SES's receipt rule stored the raw message in the mail bucket
 * (S3 action, `inbound/<SES message id>`), then invokes this function with the message's metadata
 * and SES's verdicts (spam, virus, SPF, DKIM, DMARC and the sender's DMARC policy). It runs the one
 * ingest (shared/mail-in/ingest.ts), which keeps whatever it cannot apply as a problem; it throws
 * only when even that fails (DynamoDB down), and Lambda then retries the event.
 */
import type { SESEvent } from 'aws-lambda';
import { config } from '../../shared/config';
import { logger, metrics } from '../../shared/observability';
import { getFile } from '../../shared/aws/s3';
import { INBOUND_MAIL_PREFIX } from '../../shared/store/keys';
import { ingest, type IngestResult } from '../../shared/mail-in/ingest';
import type { Verdicts } from '../../shared/domain/mail-in';

export async function handler(event: SESEvent): Promise<IngestResult[]> {
  const results: IngestResult[] = [];
  try {
    for (const record of event.Records) {
      const { mail, receipt } = record.ses;
      const verdicts: Verdicts = {
        spam: receipt.spamVerdict?.status,
        virus: receipt.virusVerdict?.status,
        spf: receipt.spfVerdict?.status,
        dkim: receipt.dkimVerdict?.status,
        dmarc: receipt.dmarcVerdict?.status,
        dmarcPolicy: receipt.dmarcPolicy,
      };
      const rawKey = `${INBOUND_MAIL_PREFIX}${mail.messageId}`;
      const raw = await getFile(rawKey, config.mailIn.bucket);
      const result = await ingest({
        raw,
        rawKey,
        recipients: receipt.recipients,
        verdicts,
        receivedAt: new Date(mail.timestamp),
      });
      logger.info('mail in', {
        rawKey,
        outcome: result.outcome,
        ...('ticket' in result ? { ticket: result.ticket } : {}),
      });
      results.push(result);
    }
  } finally {
    metrics.publishStoredMetrics();
  }
  return results;
}
