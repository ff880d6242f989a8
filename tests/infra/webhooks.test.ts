/** Template tests of the webhook pipeline (infra/webhooks.ts): stream, functions, queues, alarms, grants. */
import { TABLE_SCHEMA } from '../../shared/store/schema';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildHelpdesk, type Helpdesk } from '../../infra/app';
import { apiTemplate, actions, functionIn, roleStatements, templateApp, type Resource } from './template';
import { environments } from '../../infra/environments';
import { DEFAULT_RETRY_DELAYS } from '../../shared/domain/webhooks';
import { SPARE_RECEIVES } from '../../infra/webhooks';

let helpdesk: Helpdesk;
let api: Template;
let data: Template;

beforeAll(() => {
  helpdesk = buildHelpdesk(templateApp());
  api = apiTemplate(helpdesk.api);
  data = Template.fromStack(helpdesk.data);
});

const functionByHandler = (handler: string) => functionIn(api, handler);
const statementsOf = (fnLogicalId: string) => roleStatements(api, fnLogicalId);

describe('webhook pipeline', () => {
  it('the table streams new images', () => {
    data.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: TABLE_SCHEMA.stream },
    });
  });

  it("the dispatcher reads no stream: the table stream's one reader dispatches (stream-consumer.test.ts)", () => {
    const [dispatchId] = functionByHandler('WebhooksDispatch');
    const mappings = Object.values(api.findResources('AWS::Lambda::EventSourceMapping') as Record<string, Resource>);
    expect(mappings.filter((m) => JSON.stringify(m.Properties.FunctionName).includes(dispatchId))).toEqual([]);
  });

  it('a schedule runs the dispatcher every 15 minutes, for events the stream reader gave up on', () => {
    const [dispatchId] = functionByHandler('WebhooksDispatch');
    const rules = Object.values(api.findResources('AWS::Events::Rule') as Record<string, Resource>).filter((r) =>
      JSON.stringify(r.Properties.Targets).includes(dispatchId),
    );
    expect(rules.map((r) => r.Properties.ScheduleExpression)).toEqual(['rate(15 minutes)']);
  });

  it('deliveries queue: encrypted, TLS only, one receive per attempt and spares, then a dead-letter queue', () => {
    const queues = Object.fromEntries(
      Object.entries(api.findResources('AWS::SQS::Queue') as Record<string, Resource>).filter(([id]) =>
        id.startsWith('Webhooks'),
      ),
    );
    expect(Object.keys(queues)).toHaveLength(3);
    for (const q of Object.values(queues)) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
    const main = Object.values(queues).find((q) => q.Properties.RedrivePolicy)!;
    expect(main.Properties.RedrivePolicy.maxReceiveCount).toBe(DEFAULT_RETRY_DELAYS.length + 1 + SPARE_RECEIVES);
    // Hidden longer than Deliver may run on a batch, which outlasts a receiver's timeout (3 s by default).
    const [deliverId] = functionByHandler('WebhooksDeliver');
    const timeout = (api.findResources('AWS::Lambda::Function')[deliverId] as Resource).Properties.Timeout as number;
    expect(timeout).toBe(3 + 20);
    expect(main.Properties.VisibilityTimeout).toBe(6 * timeout);
    expect(main.Properties.MessageRetentionPeriod).toBe(14 * 86400);
    // TLS only on every queue.
    expect(
      Object.keys(api.findResources('AWS::SQS::QueuePolicy')).filter((id) => id.startsWith('Webhooks')),
    ).toHaveLength(3);
    api.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: deliverId },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('an alarm fires on the first message in each failure queue', () => {
    const alarms = Object.entries(api.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>)
      .filter(([id]) => id.startsWith('Webhooks'))
      .map(([, a]) => a);
    expect(alarms).toHaveLength(2);
    for (const a of alarms)
      expect(a.Properties).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
  });

  it(
    'least privilege: the dispatcher writes only the outbox and the deliveries, the deliverer only the ' +
      'deliveries and subscriptions',
    () => {
      const [dispatchId] = functionByHandler('WebhooksDispatch');
      const dispatch = statementsOf(dispatchId);
      const dispatchWrites = dispatch.filter((s) =>
        [s.Action].flat().some((a: string) => /PutItem|DeleteItem|UpdateItem|BatchWrite/.test(a)),
      );
      expect(dispatchWrites).toHaveLength(1);
      expect(dispatchWrites[0]!.Condition).toEqual({
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['OUTBOX', 'WEBHOOK_DELIVERIES'] },
      });
      // It reads what a payload holds (the ticket, its queue, the custom field definitions), the outbox,
      // the subscriptions and its deliveries, by partition, and no index: nothing without a key condition.
      const reads = dispatch.filter((s) => [s.Action].flat().some((a: string) => /GetItem|Query/.test(a)));
      expect(reads).toHaveLength(1);
      expect(reads[0]!.Action).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
      expect(reads[0]!.Condition).toEqual({
        'ForAllValues:StringLike': {
          'dynamodb:LeadingKeys': [
            'TICKET#*',
            'QUEUES',
            'CUSTOM_FIELDS',
            'OUTBOX',
            'WEBHOOK_DELIVERIES',
            'WEBHOOK_SUBSCRIPTIONS',
          ],
        },
      });
      expect(dispatch.filter((s) => JSON.stringify(s.Resource).includes('/index/'))).toEqual([]);
      expect(actions(dispatch)).toContain('sqs:SendMessage');
      expect(actions(dispatch)).not.toContain('secretsmanager:GetSecretValue');
      // The wildcard resources (acknowledged in infra/lambda.ts): X-Ray's.
      expect(
        dispatch
          .filter((s) => s.Resource === '*')
          .flatMap((s) => [s.Action].flat())
          .sort(),
      ).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);

      const [deliverId] = functionByHandler('WebhooksDeliver');
      const deliver = statementsOf(deliverId);
      const table = deliver.filter((s) =>
        [s.Action].flat().some((a: string) => a.startsWith('dynamodb:') && !a.includes('Stream')),
      );
      // Its deliveries (a new one: the log entry of a subscription it disables), and a subscription's
      // secrets and health.
      expect(table.map((s) => [s.Action, s.Condition])).toEqual([
        [
          ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
          { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['WEBHOOK_DELIVERIES'] } },
        ],
        [
          ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
          { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['WEBHOOK_SUBSCRIPTIONS'] } },
        ],
      ]);
      expect(actions(deliver)).toEqual(
        expect.arrayContaining([
          'secretsmanager:GetSecretValue',
          'sqs:ReceiveMessage',
          'sqs:ChangeMessageVisibility',
          'sqs:DeleteMessage',
        ]),
      );
      // It may send only to the dead-letter queue (a delivery whose schedule is spent).
      const sends = deliver.filter((s) => actions([s]).includes('sqs:SendMessage'));
      expect(sends).toHaveLength(1);
      expect(JSON.stringify(sends[0]!.Resource)).toContain('DeliveriesDeadLetter');
    },
  );

  it('only the redeliver route may queue deliveries; the secret reaches no API function', () => {
    for (const [handler, fn] of helpdesk.api.functions) {
      const id = helpdesk.api.getLogicalId(fn.node.defaultChild as never);
      const granted = actions(statementsOf(id));
      expect(granted.includes('sqs:SendMessage'), handler).toBe(handler === 'webhook-deliveries/redeliver');
      expect(
        granted.some((a) => a.startsWith('secretsmanager:')),
        handler,
      ).toBe(false);
      const env = (api.findResources('AWS::Lambda::Function')[id] as Resource).Properties.Environment.Variables;
      expect(env.HELPDESK_WEBHOOK_SECRET_ARN, handler).toBeUndefined();
      expect(env).toHaveProperty('HELPDESK_NEW_TICKET_WEBHOOK_URLS');
    }
  });

  it('the signing secret is generated in Secrets Manager, never in the template', () => {
    api.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 32, ExcludePunctuation: true },
    });
    expect(JSON.stringify(api.toJSON())).not.toMatch(/whsec_[A-Za-z0-9+/]{16,}/);
  });

  it('synth refuses receiver URLs the functions would refuse', () => {
    const saved = environments.dev.webhooks;
    environments.dev.webhooks = { ...saved, HELPDESK_NEW_TICKET_WEBHOOK_URLS: 'http://169.254.169.254/x' };
    try {
      const app = templateApp();
      expect(() => buildHelpdesk(app)).toThrow(/link-local or cloud metadata/);
    } finally {
      environments.dev.webhooks = saved;
    }
  });
});
