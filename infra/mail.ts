/**
 * Mail out on AWS (docs/email.md, docs/operations.md "Mail"), made only where the environment turns
 * mail on (EnvironmentSettings.mail):
 *
 *   table stream (ticket items, new followups, escalations)
 *     ──▶ the one reader's mail consumer ──▶ Mail queue ──▶ SendMail ──▶ SES v2 (configuration set)
 *         (infra/stream-consumer.ts)        │
 *         │                                 └─ every attempt failed, or receives spent ──▶ MailDeadLetter
 *         └─ failed records ──▶ its retry queue ──▶ receives spent ──▶ QueueFailures
 *
 *   SES events (bounce, complaint, delivery, reject)
 *     ──▶ EventBridge default bus ──▶ rule ──▶ RecordMailEvent ──▶ mail log, suppression list
 *                                              └─ failures after retries ──▶ EventFailures
 *
 * The SES identity is the environment's sending domain (Easy DKIM; its DNS records written here when
 * a hosted zone is given, else shown as outputs for the operator) or its sender address (SES mails
 * a verification link). SendMail may send only as that identity through that configuration set;
 * each failure queue has an alarm on its first message.
 */
import { CfnOutput, Duration, Fn, Stack, Validations } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { CfnRecordSet } from 'aws-cdk-lib/aws-route53';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import {
  ConfigurationSet,
  ConfigurationSetEventDestination,
  EmailIdentity,
  EmailSendingEvent,
  EventDestination,
  Identity,
} from 'aws-cdk-lib/aws-ses';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MAIL_EVENT_GRANTS, MAIL_SEND_GRANTS } from '../shared/api/table-access';
import { MAIL_RETRY_DELAYS } from '../shared/domain/mail';
import { SES_DETAIL_TYPES } from '../shared/domain/ses-events';
import { ATTACHMENT_PREFIX } from '../shared/store/keys';
import type { EnvironmentSettings, MailEnvironment } from './environments';
import { grantTable, helpdeskFunction } from './lambda';
import { firstMessageAlarm } from './monitoring';
import { RETRY_MESSAGE_QUEUE_BYTES } from './stream-consumer';
import { nagImportedArn } from './nag';
import { angleAddress } from '../shared/domain/linear-text';

/** Receives of a mail message beyond its attempts, before SQS gives up on it (a crash, a throttled table). */
export const SPARE_MAIL_RECEIVES = 5;
/** Attempts the sender makes at one mail: the first and one per retry of its schedule (shared/domain/mail.ts). */
export const MAIL_ATTEMPTS = MAIL_RETRY_DELAYS.length + 1;

export interface MailProps {
  settings: EnvironmentSettings & { mail: MailEnvironment };
  table: ITable;
  bucket: IBucket;
}

/** The domain of an address in `Name <address>` or bare form. */
export function senderDomain(from: string): string {
  const address = angleAddress(from)?.address ?? from;
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}
const senderAddress = (from: string) => (angleAddress(from)?.address ?? from).trim();

export class Mail extends Construct {
  readonly alarms: Alarm[] = [];
  readonly identity: EmailIdentity;
  readonly configurationSet: ConfigurationSet;
  /** The threading secret (Reply-To tags, thread roots): mail in (SES and IMAP) verifies replies with it. */
  readonly secret: Secret;
  /** The queue of mails to send: the stream reader's mail consumer puts each mail on it. */
  readonly queue: Queue;
  /** The mail consumer's dead-letter queue (records its retries failed on): `QueueFailures`, as it was deployed. */
  readonly consumerDeadLetter: Queue;
  /** What the mail consumer reads (shared/config.ts `mail`), for the stream reader. */
  readonly consumerEnvironment: Record<string, string>;

  constructor(scope: Construct, id: string, props: MailProps) {
    super(scope, id);
    const { settings, table, bucket } = props;
    const mail = settings.mail;
    const stack = Stack.of(this);

    // The identity: the sending domain (Easy DKIM) or, without one, the sender address alone.
    this.identity = new EmailIdentity(this, 'Identity', {
      identity: mail.domain ? Identity.domain(mail.domain) : Identity.email(senderAddress(mail.from)),
    });
    // DKIM's three CNAMEs: in the hosted zone when given (the domain may be a subdomain of it), else outputs for the
    // operator's DNS.
    this.identity.dkimRecords.forEach((record, i) => {
      if (mail.hostedZone) {
        new CfnRecordSet(this, `DkimRecord${i + 1}`, {
          hostedZoneId: mail.hostedZone.id,
          name: Fn.join('', [record.name, '.']),
          type: 'CNAME',
          ttl: '1800',
          resourceRecords: [record.value],
        });
      } else if (mail.domain) {
        new CfnOutput(this, `DkimRecord${i + 1}`, {
          value: Fn.join(' ', [record.name, 'CNAME', record.value]),
          description: `DKIM record ${i + 1} of 3 for ${mail.domain}: add it to the domain's DNS`,
        });
      }
    });

    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', {
      reputationMetrics: true,
      sendingEnabled: true,
    });
    new ConfigurationSetEventDestination(this, 'Events', {
      configurationSet: this.configurationSet,
      destination: EventDestination.eventBus(EventBus.fromEventBusName(this, 'DefaultBus', 'default')),
      events: [
        EmailSendingEvent.BOUNCE,
        EmailSendingEvent.COMPLAINT,
        EmailSendingEvent.DELIVERY,
        EmailSendingEvent.REJECT,
      ],
    });

    const retention = Duration.days(14);
    const secureQueue = (name: string, extra: Partial<ConstructorParameters<typeof Queue>[2]> = {}) =>
      new Queue(this, name, {
        retentionPeriod: retention,
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        ...extra,
      });
    const deadLetters = secureQueue('MailDeadLetter');
    // Once QueueMail's failure destination; the mail consumer's dead-letter queue since the one reader (issue 33).
    const queueFailures = secureQueue('QueueFailures', { maxMessageSizeBytes: RETRY_MESSAGE_QUEUE_BYTES });
    const eventFailures = secureQueue('EventFailures');
    for (const queue of [deadLetters, queueFailures, eventFailures]) {
      Validations.of(queue).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: 'This queue is itself a dead-letter queue, watched by an alarm.',
      });
    }
    const sendTimeout = Duration.seconds(60);
    const mailQueue = (this.queue = secureQueue('MailQueue', {
      // 6 times the sender's timeout (Lambda's advice for SQS), and longer than a mail's claim (SENDING_LEASE_MS): a
      // message whose sender died comes back once its mail may be claimed again (tests/infra/mail.test.ts).
      visibilityTimeout: Duration.seconds(6 * sendTimeout.toSeconds()),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: MAIL_ATTEMPTS + SPARE_MAIL_RECEIVES },
    }));
    this.consumerDeadLetter = queueFailures;

    // Threading tags (Reply-To, thread roots) are keyed by this secret: made here, never in the repo.
    const secret = (this.secret = new Secret(this, 'MailSecret', {
      description: `Mail threading secret (helpdesk ${settings.name}): keys the Reply-To tags`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
    }));
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Not rotated automatically: a new secret makes every reply to an earlier mail unthreadable, so rotation ' +
        'is an operator step (docs/operations.md, "Mail").',
    });

    // What the stream reader's mail consumer reads; the sender reads these and its own.
    this.consumerEnvironment = {
      HELPDESK_MAIL_TRANSPORT: 'ses',
      HELPDESK_MAIL_FROM: mail.from,
      HELPDESK_MAIL_QUEUE_URL: mailQueue.queueUrl,
      ...(mail.onTicketUpdates ? { HELPDESK_MAIL_ON_TICKET_UPDATES: 'true' } : {}),
      ...(mail.disabledKinds?.length ? { HELPDESK_MAIL_DISABLED_KINDS: mail.disabledKinds.join(',') } : {}),
    };
    const environment = {
      TABLE_NAME: table.tableName,
      BUCKET_NAME: bucket.bucketName,
      ...this.consumerEnvironment,
      HELPDESK_SES_CONFIGURATION_SET: this.configurationSet.configurationSetName,
      HELPDESK_MAIL_SECRET_ARN: secret.secretArn,
      HELPDESK_MAIL_DEAD_LETTER_URL: deadLetters.queueUrl,
    };

    const sendMail = helpdeskFunction(this, 'SendMail', {
      handler: 'mail/send',
      description: 'One attempt at one queued mail: rendered, threaded, sent through SES, recorded',
      settings,
      environment,
      timeout: sendTimeout,
    });
    grantTable(sendMail, table, MAIL_SEND_GRANTS);
    mailQueue.grantSendMessages(sendMail);
    mailQueue.grantConsumeMessages(sendMail);
    // A mail that failed on every attempt is put on the dead-letter queue by the sender (its alarm).
    deadLetters.grantSendMessages(sendMail);
    secret.grantRead(sendMail);
    sendMail.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects(`${ATTACHMENT_PREFIX}*`)] }),
    );
    Validations.of(sendMail.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagImportedArn(bucket, bucket.bucketArn, stack)}/${ATTACHMENT_PREFIX}*]`,
      reason: "A followup's files go with its mail: attachment objects of the one bucket only, read only.",
    });
    const configurationSetArn = stack.formatArn({
      service: 'ses',
      resource: 'configuration-set',
      resourceName: this.configurationSet.configurationSetName,
    });
    sendMail.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail', 'ses:SendRawEmail'],
        resources: [this.identity.emailIdentityArn, configurationSetArn],
      }),
    );
    sendMail.addEventSource(new SqsEventSource(mailQueue, { batchSize: 10, reportBatchItemFailures: true }));

    const recordEvent = helpdeskFunction(this, 'RecordMailEvent', {
      handler: 'mail/record-event',
      description: "SES events → the mail's status in the log; hard bounces and complaints → the suppression list",
      settings,
      environment: { TABLE_NAME: table.tableName },
      timeout: Duration.seconds(30),
    });
    grantTable(recordEvent, table, MAIL_EVENT_GRANTS);
    new Rule(this, 'SesEvents', {
      description: `SES sending events of helpdesk ${settings.name}'s configuration set`,
      eventPattern: {
        source: ['aws.ses'],
        detailType: [...SES_DETAIL_TYPES],
        detail: { mail: { tags: { 'ses:configuration-set': [this.configurationSet.configurationSetName] } } },
      },
      targets: [
        new LambdaFunction(recordEvent, {
          deadLetterQueue: eventFailures,
          retryAttempts: 8,
          maxEventAge: Duration.hours(24),
        }),
      ],
    });

    for (const [name, queue, what] of [
      [
        'MailDeadLetterAlarm',
        deadLetters,
        'mails could not be sent on any attempt (see GET /api/tickets/{id}/emails/)',
      ],
      [
        'QueueFailuresAlarm',
        queueFailures,
        'committed changes could not be turned into mails on any retry (docs/operations.md, "Runbook: a stream ' +
          'consumer\'s dead letters")',
      ],
      ['EventFailuresAlarm', eventFailures, 'SES events (bounces, complaints) could not be recorded'],
    ] as const) {
      this.alarms.push(firstMessageAlarm(this, name, settings.name, queue, what));
    }
  }
}
