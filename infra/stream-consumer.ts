/**
 * The table's stream consumer on AWS (functions/stream/consume.ts): a function on the table's stream, filtered to what
 * it needs (ticket items; followups inserted, modified and removed; attachments inserted and removed), keeps the
 * counts, mends collections and writes the change feed (shared/consumer/table-changes.ts). It is the only
 * writer of the counts and of the feed, so no request's transaction shares an item with another's. Batches are retried,
 * split on error, and after that go to a failure queue with an alarm; the consumer is idempotent, so retries never
 * double-count.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { keys, MAIL_PREFIX, TICKET_SORT_KEY } from '../shared/store/keys';
import type { EnvironmentSettings } from './environments';
import { filterEquals, grantTable, helpdeskFunction } from './lambda';
import { STREAM_CONSUMER_GRANTS } from '../shared/api/table-access';
import type { SearchCluster } from './search';

export interface StreamConsumerProps {
  settings: EnvironmentSettings;
  table: ITable;
  /** The search index it keeps too (shared/search/indexer.ts), where search is on. */
  search?: SearchCluster;
}

/**
 * Named for what it keeps at first (ticket counts), its construct id (`TicketCounts`, api-stack.ts)
 * and its function's (`CountTickets`) stay: CloudFormation's logical ids come from them, and new ids
 * would replace the deployed function and its event source mapping (which would then start again
 * from the stream's TRIM_HORIZON): tests/infra/stream-consumer.test.ts pins them.
 */
export class StreamConsumer extends Construct {
  /** Batches given up on, and the stream read falling behind. */
  readonly alarms: Alarm[];

  constructor(scope: Construct, id: string, props: StreamConsumerProps) {
    super(scope, id);
    const { settings, table, search } = props;
    const count = helpdeskFunction(this, 'CountTickets', {
      handler: 'stream/consume',
      description:
        'Keeps ticket counts and the change feed from the table stream; mends collections; backfills on request',
      settings,
      // The change feed's attachment links (`file`) are absolute behind the edge, else paths.
      environment: {
        TABLE_NAME: table.tableName,
        ...(settings.edge ? { HELPDESK_PUBLIC_URL: `https://${settings.edge.domainName}` } : {}),
        ...(search ? search.environment : {}),
      },
      timeout: Duration.minutes(1),
    });
    grantTable(count, table, STREAM_CONSUMER_GRANTS);
    search?.grant(count);
    const failures = new Queue(this, 'CountFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(failures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself a dead-letter queue (batches the stream gave up on), watched by an alarm.',
    });
    count.addEventSource(
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
        bisectBatchOnError: true,
        retryAttempts: 10,
        onFailure: new SqsDlq(failures),
        filters: [
          FilterCriteria.filter({ dynamodb: { Keys: { SK: { S: filterEquals(TICKET_SORT_KEY) } } } }),
          FilterCriteria.filter({
            eventName: filterEquals('INSERT'),
            dynamodb: { NewImage: { type: { S: FilterRule.or('followup', 'attachment') } } },
          }),
          // The change feed's followup.updated, followup.deleted and attachment.deleted.
          FilterCriteria.filter({
            eventName: FilterRule.or('MODIFY', 'REMOVE'),
            dynamodb: { OldImage: { type: { S: filterEquals('followup') } } },
          }),
          FilterCriteria.filter({
            eventName: filterEquals('REMOVE'),
            dynamodb: { OldImage: { type: { S: filterEquals('attachment') } } },
          }),
          // The change feed's mail.bounced and mail.complained (a mail log entry's status: consumer/events-of.ts).
          FilterCriteria.filter({
            eventName: filterEquals('MODIFY'),
            dynamodb: {
              Keys: { PK: { S: [{ prefix: MAIL_PREFIX }] } },
              NewImage: { status: { S: FilterRule.or('bounced', 'complained') } },
            },
          }),
          // The search index's custom field definitions (which values requesters may find).
          ...(search
            ? [FilterCriteria.filter({ dynamodb: { Keys: { PK: { S: filterEquals(keys.customFieldPartition) } } } })]
            : []),
        ],
      }),
    );
    const failed = new Alarm(this, 'FailuresAlarm', {
      alarmDescription:
        `Helpdesk ${settings.name}: ticket count batches failed on every retry (counts may be off: ` +
        `invoke CountTickets with ` +
        `{"backfill": true} after ` +
        `fixing the cause)`,
      metric: failures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    // The age of the newest record of a batch when the function got it: how far derived state (counts,
    // lists, the change feed) lags the writes. A minute, three minutes in a row, is no burst's lag
    // (docs/data-model.md, "One reader of the stream"); the stream keeps records 24 hours.
    const behind = new Alarm(this, 'IteratorAgeAlarm', {
      alarmDescription:
        `Helpdesk ${settings.name}: the table stream's consumer is more than a minute behind the ` +
        `writes (counts, lists ` +
        `and the change feed lag)`,
      metric: count.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }),
      threshold: 60_000,
      evaluationPeriods: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.alarms = [failed, behind];
  }
}
