/**
 * The mail release function (docs/email.md, "Who may change what"): `POST /api/mail/problems/{id}/release/` invokes
 * it, synchronously, to run a held or failed message through the ingest again (functions/mail-in/release.ts). Made
 * where mail in is (SES, a mailbox, or both), it reads the received messages of each (its bucket, `inbound/*`), writes
 * attachment objects (and deletes its own abandoned uploads), reads the threading secret, and on the table only what
 * MAIL_IN_GRANTS names: what the ingest function has, which the API's functions do not. The release route may invoke
 * this one function (api-stack.ts), nothing else of mail in's.
 *
 * Why a function of its own rather than the SES ingest function with a second kind of event: a mailbox-only
 * environment has no ingest function, and the poller's reserved concurrency of 1 (its runs never overlap) would turn
 * a release away while a poll runs.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Bucket, CfnBucket, IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { MAIL_IN_GRANTS } from '../shared/api/table-access';
import { ATTACHMENT_PREFIX, INBOUND_MAIL_PREFIX } from '../shared/store/keys';
import type { EnvironmentSettings } from './environments';
import { grantTable, helpdeskFunction } from './lambda';
import { nagImportedArn } from './nag';

export interface MailReleaseProps {
  settings: EnvironmentSettings;
  table: ITable;
  /** The attachments bucket (the data stack's). */
  bucket: IBucket;
  /** SES mail in's bucket of received messages, when SES receives. */
  sesMessages?: Bucket;
  /** The IMAP poller's bucket of received messages, when a mailbox is read. */
  imapMessages?: Bucket;
  /** The mail domain (HELPDESK_MAIL_DOMAIN) and sender, as the ingest has them. */
  environment: Record<string, string>;
  mailSecret?: ISecret;
}

export class MailRelease extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: MailReleaseProps) {
    super(scope, id);
    const { settings, table, bucket, sesMessages, imapMessages } = props;
    const stack = Stack.of(this);
    const messages = sesMessages ?? imapMessages;
    if (!messages) throw new Error('MailRelease: no mail in to release messages of');
    this.fn = helpdeskFunction(this, 'Release', {
      handler: 'mail-in/release',
      description: 'Runs a held or failed received message through mail in again (the API releases it)',
      settings,
      environment: {
        ...props.environment,
        TABLE_NAME: table.tableName,
        BUCKET_NAME: bucket.bucketName,
        HELPDESK_MAIL_BUCKET: messages.bucketName,
        // Both ways in: the poller's messages (inbound/imap/...) are in a bucket of their own.
        ...(sesMessages && imapMessages ? { HELPDESK_IMAP_MAIL_BUCKET: imapMessages.bucketName } : {}),
        ...(props.mailSecret ? { HELPDESK_MAIL_SECRET_ARN: props.mailSecret.secretArn } : {}),
      },
      // As the ingest's: a 40 MB message read, parsed and its attachments uploaded.
      timeout: Duration.minutes(2),
    });
    grantTable(this.fn, table, MAIL_IN_GRANTS);
    props.mailSecret?.grantRead(this.fn);
    for (const received of [sesMessages, imapMessages]) {
      if (!received) continue;
      this.fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['s3:GetObject'],
          resources: [received.arnForObjects(`${INBOUND_MAIL_PREFIX}*`)],
        }),
      );
      const bucketId = stack.getLogicalId(received.node.defaultChild as CfnBucket);
      Validations.of(this.fn.role!).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${INBOUND_MAIL_PREFIX}*]`,
        reason: 'The received messages (read only), named at run time by the way they came in.',
      });
    }
    this.fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:DeleteObject'],
        resources: [bucket.arnForObjects(`${ATTACHMENT_PREFIX}*`)],
      }),
    );
    Validations.of(this.fn.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagImportedArn(bucket, bucket.bucketArn, stack)}/${ATTACHMENT_PREFIX}*]`,
      reason:
        'Writes attachment objects under keys made at run time (attachments/<ticket>/<uuid>), and deletes only ' +
        'its own abandoned uploads.',
    });
  }
}
