/**
 * Mail in from an IMAP mailbox on AWS (docs/email.md, "Receiving from a mailbox"; docs/operations.md,
 * "Receiving from Gmail or Microsoft 365"): a function that an EventBridge schedule runs every
 * minute, with reserved concurrency 1 so that two runs never read the mailbox at once, and a late
 * run is dropped rather than queued (its events live a minute, with no retry: the next run comes
 * anyway). It stores each message raw in an encrypted bucket of its own (`inbound/imap/<sha256>`,
 * expired after MAIL_RETENTION), runs the one ingest, then marks the message in the mailbox.
 *
 * It may read only the mailbox's secret (made by the operator: an app password, or OAuth credentials' JSON with
 * `auth=` in the URL, the tokens then fetched from Entra ID or Google: shared/mail-in/oauth.ts), write only received
 * messages and attachment objects (and delete its own abandoned uploads), and on the table only what
 * MAIL_IN_GRANTS names. Alarms: messages kept as problems, and runs failing three minutes in a row
 * (a wrong or revoked app password, the server unreachable; a refused OAuth sign-in is a mail problem instead).
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Bucket, CfnBucket, IBucket } from 'aws-cdk-lib/aws-s3';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { MAIL_IN_GRANTS } from '../shared/api/table-access';
import { parseImapUrl } from '../shared/domain/mail-in-imap';
import { ATTACHMENT_PREFIX, imapMessageKey } from '../shared/store/keys';
import type { EnvironmentSettings, MailImapSettings } from './environments';
import { grantTable, helpdeskFunction } from './lambda';
import { mailProblemsAlarm, receivedMailBucket } from './mail-in-storage';
import { nagImportedArn } from './nag';

/** How often the mailbox is read: EventBridge's finest schedule. */
export const IMAP_POLL_RATE = Duration.minutes(1);

export interface MailImapProps {
  settings: EnvironmentSettings;
  mailImap: MailImapSettings;
  table: ITable;
  /** The attachments bucket (the data stack's). */
  bucket: IBucket;
  /**
   * The mail threading secret (infra/mail.ts), when mail out is on: replies to its Reply-To addresses are then
   * verified.
   */
  mailSecret?: ISecret;
  /** Whether another construct alarms on mail problems already (SES mail in: the same metric). */
  problemsAlarmed: boolean;
}

export class MailImap extends Construct {
  readonly bucket: Bucket;
  readonly alarms: Alarm[];
  /** The ingest's mail settings (its domain and sender), which the mail release function runs with too. */
  readonly ingestEnvironment: Record<string, string>;

  constructor(scope: Construct, id: string, props: MailImapProps) {
    super(scope, id);
    const { settings, mailImap, table, bucket, mailSecret } = props;
    const stack = Stack.of(this);
    const mailbox = parseImapUrl(mailImap.url);
    const recipientDomain = mailbox.recipient.split('@').pop()!;

    this.bucket = receivedMailBucket(this, 'Messages', settings, 'the IMAP poller');
    const password = Secret.fromSecretCompleteArn(this, 'Password', mailImap.passwordSecretArn);
    this.ingestEnvironment = {
      HELPDESK_MAIL_DOMAIN: mailImap.domain ?? recipientDomain,
      ...(mailImap.from ? { HELPDESK_MAIL_FROM: mailImap.from } : {}),
    };

    const poll = helpdeskFunction(this, 'Poll', {
      handler: 'mail-in/poll',
      description: `Reads mail from ${mailbox.user}'s ${mailbox.mailbox} on ${mailbox.host} into tickets and followups`,
      settings,
      environment: {
        TABLE_NAME: table.tableName,
        BUCKET_NAME: bucket.bucketName,
        HELPDESK_MAIL_BUCKET: this.bucket.bucketName,
        ...this.ingestEnvironment,
        HELPDESK_IMAP_URL: mailImap.url,
        HELPDESK_IMAP_PASSWORD_ARN: password.secretArn,
        ...(mailSecret ? { HELPDESK_MAIL_SECRET_ARN: mailSecret.secretArn } : {}),
      },
      // A run starts no message after 40 s (POLL_LIMITS); its last one may be 40 MB to read, store and parse.
      timeout: Duration.minutes(3),
      reservedConcurrency: 1,
    });
    // A run the reservation turned away is not worth queueing: the next one is a minute away.
    poll.configureAsyncInvoke({ maxEventAge: Duration.minutes(1), retryAttempts: 0 });
    grantTable(poll, table, MAIL_IN_GRANTS);
    password.grantRead(poll);
    mailSecret?.grantRead(poll);
    const received = imapMessageKey('*');
    poll.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:PutObject'], resources: [this.bucket.arnForObjects(received)] }),
    );
    poll.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:DeleteObject'],
        resources: [bucket.arnForObjects(`${ATTACHMENT_PREFIX}*`)],
      }),
    );
    Validations.of(poll.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagImportedArn(bucket, bucket.bucketArn, stack)}/${ATTACHMENT_PREFIX}*]`,
      reason:
        'Writes attachment objects under keys made at run time (attachments/<ticket>/<uuid>), and deletes only ' +
        'its own abandoned uploads.',
    });
    const bucketId = stack.getLogicalId(this.bucket.node.defaultChild as CfnBucket);
    Validations.of(poll.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${received}]`,
      reason: 'The received messages, named by the SHA-256 of their bytes at run time.',
    });

    new Rule(this, 'Schedule', {
      description: `Reads the IMAP mailbox ${mailbox.user} into the helpdesk`,
      schedule: Schedule.rate(IMAP_POLL_RATE),
      targets: [new LambdaFunction(poll)],
    });

    this.alarms = [
      ...(props.problemsAlarmed ? [] : [mailProblemsAlarm(this, 'ProblemsAlarm', settings)]),
      new Alarm(this, 'FailingAlarm', {
        alarmDescription:
          `Helpdesk ${settings.name}: reading the IMAP mailbox ${mailbox.user} failed three minutes ` +
          `in a row (app password ` +
          `revoked or changed? server ` +
          `unreachable?); its mail ` +
          `waits in the mailbox`,
        metric: poll.metricErrors({ period: IMAP_POLL_RATE }),
        threshold: 1,
        evaluationPeriods: 3,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    ];
  }
}
