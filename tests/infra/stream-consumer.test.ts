/**
 * Template tests of the table's stream consumer (infra/stream-consumer.ts): its ids, its stream, its grants, its
 * failures.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { COUNT_KEY_PATTERNS, PARTITIONS } from '../../shared/store/keys';
import { apiTemplateOf, actions, functionIn, roleStatements, type Resource } from './template';

let api: Template;
let countId: string;

beforeAll(() => {
  api = apiTemplateOf();
  [countId] = functionIn(api, 'TicketCountsCountTickets');
});

describe('stream consumer', () => {
  it(
    'keeps the logical ids it was deployed with (TicketCounts, CountTickets), so an upgrade replaces neither its ' +
      'function nor its mapping',
    () => {
      const ids = Object.entries(api.toJSON().Resources as Record<string, Resource>)
        .filter(([id]) => id.startsWith('TicketCounts'))
        .map(([id, r]) => `${r.Type} ${id}`)
        .sort();
      expect(ids).toEqual([
        'AWS::CloudWatch::Alarm TicketCountsFailuresAlarm6A7D4CC9',
        'AWS::CloudWatch::Alarm TicketCountsIteratorAgeAlarmB786F183', // added (issue 33): new, replaces nothing
        'AWS::IAM::Policy TicketCountsCountTicketsRoleDefaultPolicy59E57DC5',
        'AWS::IAM::Role TicketCountsCountTicketsRoleA84E259D',
        'AWS::Lambda::EventSourceMapping ' +
          'TicketCountsCountTicketsDynamoDBEventSourceHelpdeskdevDataTable21C797F4561C7EE8',
        'AWS::Lambda::Function TicketCountsCountTicketsA914DFD7',
        'AWS::Logs::LogGroup TicketCountsCountTicketsLogsB9E4793A',
        'AWS::SQS::Queue TicketCountsCountFailures70FA9E35',
        'AWS::SQS::QueuePolicy TicketCountsCountFailuresPolicyAF49E18B',
      ]);
    },
  );

  it(
    'reads the table stream, filtered to ticket items and the followup and attachment records the counts and ' +
      'change feed need, retried then dead-lettered',
    () => {
      const mappings = Object.values(
        api.findResources('AWS::Lambda::EventSourceMapping') as Record<string, Resource>,
      ).filter((m) => JSON.stringify(m.Properties.FunctionName).includes(countId));
      expect(mappings).toHaveLength(1);
      const m = mappings[0]!.Properties;
      expect(m).toMatchObject({
        StartingPosition: 'TRIM_HORIZON',
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 10,
      });
      // Measured (docs/data-model.md, "The stream consumer"): batches of up to 500, none held back for a window, one at
      // a time per shard.
      expect(m).toMatchObject({ BatchSize: 500, MaximumBatchingWindowInSeconds: 0, ParallelizationFactor: 1 });
      expect(m.DestinationConfig.OnFailure.Destination).toBeDefined();
      const patterns = (m.FilterCriteria.Filters as { Pattern: string }[]).map((f) => JSON.parse(f.Pattern));
      expect(patterns).toEqual([
        { dynamodb: { Keys: { SK: { S: ['TICKET'] } } } },
        { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['followup', 'attachment'] } } } },
        { eventName: ['MODIFY', 'REMOVE'], dynamodb: { OldImage: { type: { S: ['followup'] } } } },
        { eventName: ['REMOVE'], dynamodb: { OldImage: { type: { S: ['attachment'] } } } },
        // mail.bounced and mail.complained: a mail log entry's status.
        {
          eventName: ['MODIFY'],
          dynamodb: {
            Keys: { PK: { S: [{ prefix: 'MAIL#' }] } },
            NewImage: { status: { S: ['bounced', 'complained'] } },
          },
        },
      ]);
    },
  );

  it(
    'may touch only the counts, counted states, ticket collections, refs and file cleanup records, write the ' +
      'change feed and the time spent cells and read the custom field definitions',
    () => {
      const isStream = (a: string) =>
        [
          'dynamodb:DescribeStream',
          'dynamodb:GetRecords',
          'dynamodb:GetShardIterator',
          'dynamodb:ListStreams',
        ].includes(a);
      const table = roleStatements(api, countId).filter((s) =>
        actions([s]).some((a) => a.startsWith('dynamodb:') && !isStream(a)),
      );
      // The event source's own grant: reading the stream, nothing else.
      for (const s of roleStatements(api, countId).filter((s) => actions([s]).some(isStream)))
        expect(actions([s]).every(isStream)).toBe(true);
      const keyed = table.filter((s) => s.Condition);
      const leading = (s: (typeof keyed)[number]) => s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'];
      expect(keyed.map(leading)).toEqual([
        COUNT_KEY_PATTERNS,
        [PARTITIONS.events, PARTITIONS.lateEvents],
        [PARTITIONS.listed],
        [PARTITIONS.customFields],
        [PARTITIONS.timeSpentTickets, PARTITIONS.timeSpentCells],
      ]);
      expect(actions([keyed[0]!]).sort()).toEqual([
        'dynamodb:BatchGetItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ]);
      // The feed's partition and its late-event marks: written in batches (a late event's position and mark read
      // first), nothing else; the definitions: read.
      expect(actions([keyed[1]!])).toEqual(['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem']);
      // Listing records: written in batches too (before the counts transaction that commits them).
      expect(actions([keyed[2]!])).toEqual(['dynamodb:BatchWriteItem']);
      expect(actions([keyed[3]!])).toEqual(['dynamodb:Query']);
      // Without a key condition: only reading gsi1 (the backfill).
      for (const s of table.filter((s) => !s.Condition)) {
        expect(actions([s])).toEqual(['dynamodb:Query']);
        expect(JSON.stringify(s.Resource)).toMatch(/\/index\/gsi1/);
      }
    },
  );

  it('raises an alarm when a batch is given up on', () => {
    const alarms = Object.values(api.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>).filter((a) =>
      String(a.Properties.AlarmDescription).includes('ticket count batches failed'),
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]!.Properties.AlarmActions).toHaveLength(1);
  });

  it("raises an alarm when the stream's newest records wait a minute, three minutes in a row", () => {
    const [alarm] = Object.values(api.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>).filter(
      (a) => a.Properties.MetricName === 'IteratorAge',
    );
    expect(alarm!.Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 60_000,
      EvaluationPeriods: 3,
    });
    expect(JSON.stringify(alarm!.Properties.Dimensions)).toContain(countId);
    expect(alarm!.Properties.AlarmActions).toHaveLength(1);
  });
});
