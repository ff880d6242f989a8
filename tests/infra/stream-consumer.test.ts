/**
 * Template tests of the table stream's one reader (infra/stream-consumer.ts, issue 33): one event source
 * mapping on the stream whatever the environment turns on, its ids, filter and grants, each consumer's
 * retry queue and dead-letter queue with its alarm, the retry handler, and the iterator-age alarm.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tablePolicy } from '../../infra/lambda';
import { ITERATOR_AGE_ALARM_MS, RETRY_MESSAGE_QUEUE_BYTES, RETRY_RECEIVES } from '../../infra/stream-consumer';
import { streamReaderGrants } from '../../shared/api/table-access';
import { apiTemplateOf, actions, functionIn, roleStatements, type Resource } from './template';
import type { Json } from '../json';

const MAIL_ON = { mailFrom: 'help@example.org' };

let api: Template;
let withMail: Template;
let readerId: string;

beforeAll(() => {
  api = apiTemplateOf();
  withMail = apiTemplateOf('dev', MAIL_ON);
  [readerId] = functionIn(api, 'TicketCountsCountTickets');
});

const resources = (template: Template, type: string) =>
  Object.entries(template.findResources(type) as Record<string, Resource>);
/** The mappings that read the table's stream (the data stack's export of its stream ARN). */
const streamMappings = (template: Template) =>
  resources(template, 'AWS::Lambda::EventSourceMapping').filter(([, m]) =>
    JSON.stringify(m.Properties.EventSourceArn).includes('StreamArn'),
  );
const keyed = (statements: Record<string, Json>[]) =>
  statements
    .filter((s) => s.Condition)
    .map((s) => ({ actions: actions([s]), keys: s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'] }));

describe("the table stream's one reader", () => {
  // Four synths: seconds each on a quiet machine.
  it('is the only reader of the stream, with mail, webhooks and search on or off', { timeout: 180_000 }, () => {
    for (const context of [{}, MAIL_ON, { search: 'on' }, { ...MAIL_ON, search: 'on' }]) {
      const template = apiTemplateOf('dev', context);
      const mappings = streamMappings(template);
      expect(mappings.map(([id]) => id)).toEqual([
        'TicketCountsCountTicketsDynamoDBEventSourceHelpdeskdevDataTable21C797F4561C7EE8',
      ]);
      // Lambda allows 5 filters a mapping by default: search's custom field definitions make the fifth.
      const filters = mappings[0]![1].Properties.FilterCriteria.Filters as unknown[];
      expect(filters).toHaveLength('search' in context ? 5 : 4);
    }
  });

  it(
    'keeps the logical ids it was deployed with (CountTickets, its mapping, CountFailures), so an upgrade ' +
      'replaces neither its function nor its place in the stream',
    () => {
      const ids = resources(api, 'AWS::Lambda::Function')
        .concat(resources(api, 'AWS::SQS::Queue'), resources(api, 'AWS::Lambda::EventSourceMapping'))
        .map(([id, r]) => `${r.Type} ${id}`)
        .filter((id) => id.includes(' TicketCounts'));
      expect(ids.sort()).toEqual([
        'AWS::Lambda::EventSourceMapping ' +
          'TicketCountsCountTicketsDynamoDBEventSourceHelpdeskdevDataTable21C797F4561C7EE8',
        'AWS::Lambda::Function TicketCountsCountTicketsA914DFD7',
        'AWS::SQS::Queue TicketCountsCountFailures70FA9E35',
      ]);
      // The failure queues of the mappings it replaces hold their messages: now the dead letters of mail and webhooks.
      const queues = resources(withMail, 'AWS::SQS::Queue').map(([id]) => id);
      expect(queues).toEqual(expect.arrayContaining(['MailQueueFailures99A95D2B', 'WebhooksDispatchFailuresDCB8F220']));
    },
  );

  it("reads batches of 500, none held back, one at a time a shard, filtered to every consumer's records", () => {
    const m = streamMappings(withMail)[0]![1].Properties;
    expect(m).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 500,
      MaximumBatchingWindowInSeconds: 0,
      ParallelizationFactor: 1,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
    });
    expect(m.DestinationConfig.OnFailure.Destination).toBeDefined();
    const patterns = (m.FilterCriteria.Filters as { Pattern: string }[]).map((f) => JSON.parse(f.Pattern));
    expect(patterns).toEqual([
      { dynamodb: { Keys: { SK: { S: ['TICKET'] } } } },
      {
        eventName: ['INSERT'],
        dynamodb: {
          NewImage: {
            type: { S: ['followup', 'attachment', 'merged', 'webhook-event', 'change-event', 'escalation'] },
          },
        },
      },
      // Attachments modified: a page snapshot's (missing from the filter before the one reader).
      { eventName: ['MODIFY', 'REMOVE'], dynamodb: { OldImage: { type: { S: ['followup', 'attachment'] } } } },
      // mail.bounced and mail.complained: a mail log entry's status.
      {
        eventName: ['MODIFY'],
        dynamodb: {
          Keys: { PK: { S: [{ prefix: 'MAIL#' }] } },
          NewImage: { status: { S: ['bounced', 'complained'] } },
        },
      },
    ]);
  });

  it(
    'gives each consumer a retry queue with a dead-letter queue and an alarm on its first message, drained by ' +
      'the retry handler',
    () => {
      const [retryId] = functionIn(withMail, 'RetryConsumers');
      const queues = Object.fromEntries(resources(withMail, 'AWS::SQS::Queue'));
      const retryQueues = Object.entries(queues).filter(([id]) => /Retry[0-9A-F]{8}$/.test(id));
      expect(retryQueues.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
        'ChangeFeedRetry',
        'MailRetry',
        'TicketStateRetry',
        'TimeSpentRetry',
        'WebhookDispatchRetry',
      ]);
      const alarms = resources(withMail, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
      const mappings = resources(withMail, 'AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
      for (const [id, q] of retryQueues) {
        expect(q.Properties).toMatchObject({
          MaximumMessageSize: RETRY_MESSAGE_QUEUE_BYTES,
          SqsManagedSseEnabled: true,
          VisibilityTimeout: 360,
        });
        expect(q.Properties.RedrivePolicy.maxReceiveCount).toBe(RETRY_RECEIVES);
        const deadLetter = q.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string;
        expect(queues[deadLetter]!.Properties.MaximumMessageSize, id).toBe(RETRY_MESSAGE_QUEUE_BYTES);
        const alarm = alarms.find((a) => String(JSON.stringify(a.Dimensions)).includes(deadLetter));
        expect(alarm, id).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
        expect(alarm!.AlarmActions, id).toHaveLength(1);
        expect(
          mappings.filter((m) => JSON.stringify(m.EventSourceArn).includes(id)),
          id,
        ).toEqual([
          expect.objectContaining({
            FunctionName: { Ref: retryId },
            BatchSize: 1,
            FunctionResponseTypes: ['ReportBatchItemFailures'],
            ScalingConfig: { MaximumConcurrency: 2 },
          }),
        ]);
      }
      // The reader knows every retry queue by its consumer's name (functions/stream/consumers.ts).
      const [, reader] = functionIn(withMail, 'TicketCountsCountTickets');
      const named = JSON.stringify(reader.Properties.Environment.Variables.HELPDESK_STREAM_RETRY_QUEUES);
      for (const name of ['ticket state', 'change feed', 'time spent', 'webhook dispatch', 'mail'])
        expect(named).toContain(`\\"${name}\\":`);
    },
  );

  it(
    "may do to the table what its consumers may, together, and no more: the counts' grants, the dispatcher's, " +
      "and the mail consumer's where mail is on",
    () => {
      const expected = (mail: boolean) =>
        tablePolicy(streamReaderGrants({ mail }), 'arn', 'listings-arn')
          .map((s) => s.toJSON() as Record<string, Json>)
          .filter((s) => s.Condition)
          .map((s) => ({
            actions: [s.Action].flat(),
            keys: s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'],
          }));
      for (const [template, mail] of [
        [api, false],
        [withMail, true],
      ] as const) {
        for (const fn of ['TicketCountsCountTickets', 'RetryConsumers']) {
          const statements = roleStatements(template, functionIn(template, fn)[0]);
          expect(keyed(statements), fn).toEqual(expected(mail));
          // Nothing of SES, S3 or a secret: the sender and the deliverer keep those.
          expect(
            actions(statements).filter((a) => /^(ses|s3|secretsmanager):/.test(a)),
            fn,
          ).toEqual([]);
          // Without a key condition: only reading gsi1 (the backfill), the stream or the retry queues, and writing
          // the listings table (its every item a ticket's listing item: consumer/listings.ts).
          const unconditional = statements.filter(
            (s) => !s.Condition && actions([s]).some((a) => a.startsWith('dynamodb:')),
          );
          const onListings = unconditional.filter((s) => JSON.stringify(s.Resource).includes('Listings'));
          expect(
            onListings.map((s) => actions([s])),
            fn,
          ).toEqual([['dynamodb:BatchWriteItem', 'dynamodb:PutItem', 'dynamodb:GetItem']]);
          for (const s of unconditional.filter((s) => !onListings.includes(s)))
            expect(
              actions([s]).every((a) => a === 'dynamodb:Query' || /Stream|GetRecords|GetShardIterator/.test(a)),
            ).toBe(true);
        }
      }
      // Sends: the reader to the retry queues, the deliveries and the mail queue; the retry handler to the last two.
      const sendsOf = (fn: string) =>
        roleStatements(withMail, functionIn(withMail, fn)[0])
          .filter((s) => actions([s]).includes('sqs:SendMessage'))
          .flatMap((s) => [s.Resource].flat())
          .map((r) => JSON.stringify(r))
          .join(' ');
      expect(sendsOf('TicketCountsCountTickets')).toMatch(/Retry.*Retry.*Retry.*Retry.*Retry/);
      for (const fn of ['TicketCountsCountTickets', 'RetryConsumers']) {
        expect(sendsOf(fn), fn).toContain('WebhooksDeliveries');
        expect(sendsOf(fn), fn).toContain('MailMailQueue');
      }
      expect(sendsOf('RetryConsumers')).not.toMatch(/Retry[0-9A-F]{8}/);
    },
  );

  it('raises an alarm when a batch is given up on', () => {
    const alarms = resources(api, 'AWS::CloudWatch::Alarm').filter(([id]) => id.startsWith('TicketCountsFailures'));
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties.AlarmActions).toHaveLength(1);
  });

  it("raises an alarm when the stream's newest records wait a minute, three minutes in a row", () => {
    const [alarm] = resources(api, 'AWS::CloudWatch::Alarm')
      .map(([, a]) => a)
      .filter((a) => a.Properties.MetricName === 'IteratorAge');
    expect(alarm!.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      Statistic: 'Maximum',
      Period: 60,
      Threshold: ITERATOR_AGE_ALARM_MS,
      EvaluationPeriods: 3,
    });
    expect(ITERATOR_AGE_ALARM_MS).toBe(60_000);
    expect(JSON.stringify(alarm!.Properties.Dimensions)).toContain(readerId);
    expect(alarm!.Properties.AlarmActions).toHaveLength(1);
  });
});
