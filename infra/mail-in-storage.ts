/**
 * What both ways of receiving mail on AWS make alike (SES: infra/mail-in.ts; an IMAP mailbox:
 * infra/mail-imap.ts): the encrypted bucket the raw messages are kept in, and the alarm on messages
 * kept for operators.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { INBOUND_MAIL_PREFIX } from '../shared/store/keys';
import { METRICS, SERVICE_NAME } from '../shared/observability';
import type { EnvironmentSettings } from './environments';

/**
 * How long raw received messages are kept (problems are re-run from them; tickets keep their own copies of what they
 * show).
 */
export const MAIL_RETENTION = Duration.days(90);

/** A private, encrypted bucket of received messages (`inbound/...`), each expired after MAIL_RETENTION. */
export function receivedMailBucket(
  scope: Construct,
  id: string,
  settings: EnvironmentSettings,
  writer: string,
): Bucket {
  const bucket = new Bucket(scope, id, {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [
      {
        id: 'received-messages',
        prefix: INBOUND_MAIL_PREFIX,
        expiration: MAIL_RETENTION,
        abortIncompleteMultipartUploadAfter: Duration.days(1),
      },
    ],
    removalPolicy: settings.removalPolicy,
    autoDeleteObjects: settings.removalPolicy === RemovalPolicy.DESTROY,
  });
  Validations.of(bucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason:
      `Only ${writer} writes here and only the mail functions read; every message it receives ` +
      `is in the table as a record ` +
      `(and in CloudTrail data ` +
      `events where enabled). ` +
      `Access logs would double ` +
      `every write.`,
  });
  return bucket;
}

/** The alarm on received mail kept for operators (failed or held), by whichever way it came in. */
export function mailProblemsAlarm(scope: Construct, id: string, settings: EnvironmentSettings): Alarm {
  const problems = new Metric({
    namespace: METRICS.namespace,
    metricName: METRICS.mailInProblems,
    dimensionsMap: { service: SERVICE_NAME, [METRICS.dimensions.environment]: settings.name },
    statistic: 'Sum',
    period: Duration.minutes(5),
  });
  return new Alarm(scope, id, {
    alarmDescription:
      `Helpdesk ${settings.name}: received mail was kept for operators (failed or held): npm run ` +
      `helpdesk -- list-mail-problems`,
    metric: problems,
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}
