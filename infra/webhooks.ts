/**
 * Webhook delivery on AWS (docs/webhooks.md):
 *
 *   table stream (inserted event items only)
 *     ──▶ the one reader's webhook consumer ──▶ Deliveries queue ──▶ Deliver ──▶ receivers
 *         (infra/stream-consumer.ts)            │
 *         │                                     └─ schedule spent ──▶ DeliveriesDeadLetter queue
 *         └─ failed records ──▶ its retry queue ──▶ receives spent ──▶ DispatchFailures queue
 *
 * Dispatch runs every 15 minutes for events still in the outbox an hour after they were written
 * (the reader's retries spent), so none is stranded. Event items are the outbox's (environment
 * receivers) and the change events (subscriptions). Each failure queue has an alarm on its first
 * message. Dispatch may write only the outbox and the deliveries; Deliver may touch only the
 * deliveries and subscriptions and read the signing secret.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { parseWebhookSettings } from '../shared/domain/webhooks';
import type { EnvironmentSettings } from './environments';
import { grantTable, helpdeskFunction } from './lambda';
import { firstMessageAlarm } from './monitoring';
import { RETRY_MESSAGE_QUEUE_BYTES } from './stream-consumer';
import { WEBHOOK_DELIVER_GRANTS, WEBHOOK_DISPATCH_GRANTS } from '../shared/api/table-access';

/** Receives of a delivery message beyond one per attempt, before SQS gives up on it. */
export const SPARE_RECEIVES = 5;

export interface WebhooksProps {
  settings: EnvironmentSettings;
  table: ITable;
}

export class Webhooks extends Construct {
  readonly queue: Queue;
  readonly secret: Secret;
  readonly alarms: Alarm[] = [];
  /** What the API functions need to record events and queue redeliveries (and the stream reader to dispatch). */
  readonly environment: Record<string, string>;
  /** The stream reader's webhook consumer's dead-letter queue: `DispatchFailures`, as it was deployed. */
  readonly consumerDeadLetter: Queue;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const { settings, table } = props;
    // Synth refuses URLs the functions would refuse at cold start.
    const parsed = parseWebhookSettings(settings.webhooks, false);

    // 32 characters from the base64 alphabet: 24 random bytes as a Standard Webhooks secret once
    // prefixed with `whsec_` (the functions add the prefix). Receivers get the value from here.
    this.secret = new Secret(this, 'SigningSecret', {
      description: `Webhook signing secret (helpdesk ${settings.name}); receivers use whsec_<value>`,
      generateSecretString: { passwordLength: 32, excludePunctuation: true, includeSpace: false },
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Not rotated automatically: every receiver must be given the new secret at the same time, so rotation is ' +
        'an operator step (docs/webhooks.md).',
    });

    // Deliver handles a batch in parallel: one receiver timeout, plus the table and SQS calls around it.
    const deliverTimeout = Duration.seconds(Math.ceil(parsed.timeoutMs / 1000) + 20);
    const retention = Duration.days(14);
    const deadLetters = new Queue(this, 'DeliveriesDeadLetter', {
      retentionPeriod: retention,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Deliveries', {
      retentionPeriod: retention,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Longer than Deliver may run on one batch (timeout × 6, as Lambda recommends).
      visibilityTimeout: Duration.seconds(6 * deliverTimeout.toSeconds()),
      // One receive per attempt (the first, then one per retry of the schedule), and spares for
      // receives that made no attempt (a crash, a throttled table). A delivery whose schedule is
      // spent is sent to the dead-letter queue by Deliver itself; SQS moves it there only when
      // every receive was spent without an answer.
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: parsed.retryDelays.length + 1 + SPARE_RECEIVES },
    });
    // Once the Dispatch mapping's failure destination; the webhook consumer's dead-letter queue since the one
    // reader (issue 33).
    const dispatchFailures = (this.consumerDeadLetter = new Queue(this, 'DispatchFailures', {
      maxMessageSizeBytes: RETRY_MESSAGE_QUEUE_BYTES,
      retentionPeriod: retention,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    }));
    for (const queue of [deadLetters, dispatchFailures]) {
      Validations.of(queue).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: 'This queue is itself a dead-letter queue, watched by an alarm.',
      });
    }

    this.environment = {
      ...settings.webhooks,
      HELPDESK_WEBHOOK_QUEUE_URL: this.queue.queueUrl,
    };
    const environment = {
      TABLE_NAME: table.tableName,
      ...this.environment,
      HELPDESK_WEBHOOK_SECRET_ARN: this.secret.secretArn,
      HELPDESK_WEBHOOK_DEAD_LETTER_URL: deadLetters.queueUrl,
    };

    const dispatch = helpdeskFunction(this, 'Dispatch', {
      handler: 'webhooks/dispatch',
      description: 'Webhook outbox events the stream reader left → one queued delivery per receiver',
      settings,
      environment,
      timeout: Duration.seconds(30),
    });
    grantTable(dispatch, table, WEBHOOK_DISPATCH_GRANTS);
    this.queue.grantSendMessages(dispatch);
    // On a schedule, for events the stream reader gave up on (functions/webhooks/dispatch.ts).
    new Rule(this, 'DispatchStranded', {
      description: 'Dispatches webhook events that stayed in the outbox',
      schedule: Schedule.rate(Duration.minutes(15)),
      targets: [new LambdaFunction(dispatch)],
    });

    const deliver = helpdeskFunction(this, 'Deliver', {
      handler: 'webhooks/deliver',
      description: 'One webhook delivery attempt per message, signed, retried on a schedule',
      settings,
      environment,
      timeout: deliverTimeout,
    });
    deadLetters.grantSendMessages(deliver);
    grantTable(deliver, table, WEBHOOK_DELIVER_GRANTS);
    this.secret.grantRead(deliver);
    deliver.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }));

    for (const [name, queue, what] of [
      ['DeliveriesDeadLetterAlarm', deadLetters, 'webhook deliveries failed on every attempt of the schedule'],
      ['DispatchFailuresAlarm', dispatchFailures, 'webhook events could not be dispatched on any retry'],
    ] as const) {
      this.alarms.push(
        firstMessageAlarm(
          this,
          name,
          settings.name,
          queue,
          `${what} (see the delivery log, GET /api/webhook-deliveries/)`,
        ),
      );
    }
  }
}
