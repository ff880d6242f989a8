/**
 * The table stream's one reader on AWS (issue 33): one event source mapping, on the function
 * functions/stream/consume.ts, whose batch fans out in process to every consumer (shared/consumer/fan-out.ts):
 * the ticket state (counts, listings, page snapshots, repairs), the change feed, time spent, the
 * search index where search is on, webhook dispatch, and mail where the environment sends it.
 * DynamoDB Streams serves about two readers a shard before it throttles; three mappings read it
 * before, and search would have made four.
 *
 *   table stream ──▶ CountTickets ──▶ each consumer, with the records its filters pass
 *                    │                └─ fails ──▶ its retry queue ──▶ RetryConsumers (the same code)
 *                    │                                               └─ receives spent ──▶ its dead-letter queue
 *                    └─ could not queue a failed consumer's records: the batch retried, bisected ──▶ CountFailures
 *
 * The mapping's filter is the union of the consumers' (merged to the fewest patterns); each
 * consumer's own is applied in process. The function's role is the union of the consumers' grants
 * (docs/security.md, "The table stream's one reader"). Every dead-letter queue and the stream's
 * iterator age have alarms.
 */
import { Duration, NestedStack, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { streamReaderGrants } from '../shared/api/table-access';
import type { FilterPattern } from '../shared/domain/stream-filters';
import { mergedPatterns } from '../shared/domain/stream-filters';
import { SEARCH_FILTERS, TABLE_CHANGE_CONSUMERS } from '../shared/consumer/stream-filters';
import { MAIL_CONSUMER, MAIL_FILTERS } from '../shared/mail/queue-mail';
import { WEBHOOK_CONSUMER, WEBHOOK_FILTERS } from '../shared/webhooks/stream-dispatch';
import type { EnvironmentSettings } from './environments';
import { grantTable, helpdeskFunction } from './lambda';
import type { SearchCluster } from './search';
import { firstMessageAlarm } from './monitoring';

/** SQS's largest message: a retry message holds whole stream records (functions/stream/consumers.ts). */
export const RETRY_MESSAGE_QUEUE_BYTES = 1_048_576;
/** Receives of a retry message before it goes to its consumer's dead-letter queue. */
export const RETRY_RECEIVES = 5;
/** The reader's and the retry handler's timeout: a batch of 500 takes seconds at DynamoDB's latencies. */
const READER_TIMEOUT = Duration.minutes(1);
/** The stream's records wait this long (the maximum age over a minute), three minutes in a row, to alarm. */
export const ITERATOR_AGE_ALARM_MS = 60_000;

/** A consumer the reader fans out to: its name (as the code spells it), retry queue id and dead-letter queue. */
interface ConsumerQueues {
  name: string;
  id: string;
  filters: readonly FilterPattern[];
  /** A dead-letter queue made elsewhere (kept from before the one reader), else one is made here. */
  deadLetter?: Queue;
}

export interface StreamConsumerProps {
  settings: EnvironmentSettings;
  table: ITable;
  /** The listings table the consumer keeps (consumer/listings.ts). */
  listings: ITable;
  /** The search index it keeps too (shared/search/indexer.ts), where search is on. */
  search?: SearchCluster;
  /** Webhook dispatch: the deliveries queue it fills, its settings, its dead-letter queue. */
  webhooks: { queue: Queue; environment: Record<string, string>; consumerDeadLetter: Queue };
  /** Mail, where the environment sends it: the mail queue it fills, its settings, its dead-letter queue. */
  mail?: { queue: Queue; consumerEnvironment: Record<string, string>; consumerDeadLetter: Queue };
}

/**
 * Named for what it kept at first (ticket counts), its construct id (`TicketCounts`, api-stack.ts)
 * and its function's (`CountTickets`) stay: CloudFormation's logical ids come from them, and new ids
 * would replace the deployed function and its event source mapping (which would then start again
 * from the stream's TRIM_HORIZON, applying 24 hours of records again): tests/infra/stream-consumer.test.ts
 * pins them.
 */
export class StreamConsumer extends Construct {
  /** Batches given up on, each consumer's dead letters, and the stream read falling behind. */
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: StreamConsumerProps) {
    super(scope, id);
    const { settings, table, listings, search, webhooks, mail } = props;
    const consumers: ConsumerQueues[] = [
      { name: 'ticket state', id: 'TicketState', filters: TABLE_CHANGE_CONSUMERS['ticket state'] },
      { name: 'change feed', id: 'ChangeFeed', filters: TABLE_CHANGE_CONSUMERS['change feed'] },
      { name: 'time spent', id: 'TimeSpent', filters: TABLE_CHANGE_CONSUMERS['time spent'] },
      ...(search ? [{ name: 'search index', id: 'SearchIndex', filters: SEARCH_FILTERS }] : []),
      {
        name: WEBHOOK_CONSUMER,
        id: 'WebhookDispatch',
        filters: WEBHOOK_FILTERS,
        deadLetter: webhooks.consumerDeadLetter,
      },
      ...(mail
        ? [{ name: MAIL_CONSUMER, id: 'Mail', filters: MAIL_FILTERS, deadLetter: mail.consumerDeadLetter }]
        : []),
    ];

    // The retry queues, dead letters, their alarms and the retry handler: in a nested stack of their own, so that
    // the API stack keeps its headroom (tests/infra/stack.test.ts); the reader stays where it was deployed.
    const retries = new NestedStack(this, 'Retries', {
      description: "Helpdesk: the table stream consumers' retry queues, dead letters and retry handler",
    });
    const secureQueue = (queueId: string, extra: Partial<ConstructorParameters<typeof Queue>[2]> = {}) =>
      new Queue(retries, queueId, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        maxMessageSizeBytes: RETRY_MESSAGE_QUEUE_BYTES,
        ...extra,
      });
    const deadLetterAlarm = (alarmId: string, queue: Queue, what: string, scope: Construct = retries) =>
      this.alarms.push(firstMessageAlarm(scope, alarmId, settings.name, queue, what));

    // Each consumer's retry queue, and its dead-letter queue (with an alarm) unless it brought one.
    const retryQueues = consumers.map((consumer) => {
      let deadLetter = consumer.deadLetter;
      if (!deadLetter) {
        deadLetter = secureQueue(`${consumer.id}DeadLetter`);
        Validations.of(deadLetter).acknowledge({
          id: 'AwsSolutions-SQS3',
          reason: 'This queue is itself a dead-letter queue (records a consumer failed on every retry), alarmed.',
        });
        deadLetterAlarm(
          `${consumer.id}DeadLetterAlarm`,
          deadLetter,
          `the stream consumer "${consumer.name}" failed on records on every retry (docs/operations.md, ` +
            `"Runbook: a stream consumer's dead letters")`,
        );
      }
      return {
        ...consumer,
        queue: secureQueue(`${consumer.id}Retry`, {
          // Longer than the retry handler may run on one message (timeout × 6, as Lambda recommends).
          visibilityTimeout: Duration.seconds(6 * READER_TIMEOUT.toSeconds()),
          deadLetterQueue: { queue: deadLetter, maxReceiveCount: RETRY_RECEIVES },
        }),
      };
    });

    // What every consumer reads: the reader and the retry handler run the same consumers.
    const environment = {
      TABLE_NAME: table.tableName,
      // The change feed's attachment links (`file`) are absolute behind the edge, else paths.
      ...(settings.edge ? { HELPDESK_PUBLIC_URL: `https://${settings.edge.domainName}` } : {}),
      ...(search ? search.environment : {}),
      ...webhooks.environment,
      ...(mail ? mail.consumerEnvironment : {}),
      HELPDESK_STREAM_RETRY_QUEUES: Stack.of(this).toJsonString(
        Object.fromEntries(retryQueues.map((c) => [c.name, c.queue.queueUrl])),
      ),
    };
    const asConsumers = (fn: NodejsFunction) => {
      grantTable(fn, { table, listings }, streamReaderGrants({ mail: !!mail }));
      search?.grant(fn);
      webhooks.queue.grantSendMessages(fn);
      mail?.queue.grantSendMessages(fn);
    };

    const reader = helpdeskFunction(this, 'CountTickets', {
      handler: 'stream/consume',
      description:
        "The table stream's one reader: counts, listings, change feed, time spent, search, webhooks, mail; backfills",
      settings,
      environment,
      timeout: READER_TIMEOUT,
    });
    asConsumers(reader);
    for (const { queue } of retryQueues) queue.grantSendMessages(reader);
    const failures = new Queue(this, 'CountFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(failures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself a dead-letter queue (batches the stream gave up on), watched by an alarm.',
    });
    reader.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        // Chosen by measurement (docs/data-model.md, "The stream consumer"): a batch's time is mostly
        // its round trips, one after another, so up to a few hundred records a larger batch applies
        // more a second; from 500 to 1,000 the time per record no longer fell, and a smaller batch
        // is a smaller unit to retry and bisect. No batching window: a lone write is applied at
        // Lambda's next poll (the 300 ms target), not a window later. One batch of a shard at a
        // time: batches at once conflict on the totals items, and gained nothing measured.
        batchSize: 500,
        maxBatchingWindow: Duration.seconds(0),
        parallelizationFactor: 1,
        // A batch fails only when a failed consumer's records could not be put on its retry queue.
        bisectBatchOnError: true,
        retryAttempts: 10,
        onFailure: new SqsDlq(failures),
        // The consumers' filters together, merged (Lambda allows 5 a mapping unless raised: 4, and 5 with search).
        filters: mergedPatterns(consumers.flatMap((c) => c.filters)).map((pattern) =>
          FilterCriteria.filter(pattern as Record<string, unknown>),
        ),
      }),
    );

    const retry = helpdeskFunction(retries, 'RetryConsumers', {
      handler: 'stream/retry',
      description: "A stream consumer's failed records, applied again from its retry queue",
      settings,
      environment,
      timeout: READER_TIMEOUT,
    });
    asConsumers(retry);
    for (const { queue } of retryQueues)
      // One message at a time (up to 1 MiB of records), two at once per queue at most (SQS's least).
      retry.addEventSource(
        new SqsEventSource(queue, { batchSize: 1, maxConcurrency: 2, reportBatchItemFailures: true }),
      );

    deadLetterAlarm(
      'FailuresAlarm',
      failures,
      "stream batches failed on every retry (a consumer's records could not be queued for retry: counts, lists " +
        'and the other consumers may be off; replay the batch: docs/operations.md, "Runbook: ticket counts")',
      this,
    );
    // The age of the newest record of a batch when the function got it: how far every consumer lags the writes. A
    // minute, three minutes in a row, is no burst's lag (docs/data-model.md, "One reader of the stream on AWS"); the
    // stream keeps records 24 hours.
    this.alarms.push(
      new Alarm(this, 'IteratorAgeAlarm', {
        alarmDescription:
          `Helpdesk ${settings.name}: the table stream's reader is more than a minute behind the writes ` +
          '(counts, lists, the change feed, webhooks and mail lag)',
        metric: reader.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }),
        threshold: ITERATOR_AGE_ALARM_MS,
        evaluationPeriods: 3,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}
